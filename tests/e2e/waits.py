"""Waiting in the page: a browser test asserts a state by waiting for it (issue 12 item 8).

A page hears from the server over a websocket and redraws once per animation frame, so a state
read once right after an input may still be the one before the answer, and on a loaded machine
often is. So every assertion about what a page holds waits for it, up to `WAIT_MS` (generous:
the wait only runs out when something is wrong), and then fails naming what the page showed
last. There are no fixed sleeps: `next_frame` waits for the page to have drawn a frame.
"""

from __future__ import annotations

from typing import Any

# Every wait of a browser test (Playwright's default for the contexts `Pages` opens too).
WAIT_MS = 30_000

# Structural equality of two JSON values (what `==` means on the Python side).
_DEEP_EQUAL = """
const equal = (a, b) => {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => equal(a[k], b[k]));
};
"""



def _value(expression: str, arg_name: str = "arg") -> str:
    """JavaScript statements that set `got` to `expression`'s value: `expression` is an
    expression, or a function that is called with the variable `arg_name`."""
    return (f"const value = ({expression});"
            f" const got = typeof value === 'function' ? value({arg_name}) : value;")


def _timeout_error() -> type[Exception]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    return PlaywrightTimeout


def _current(page: Any, expression: str, arg: Any) -> Any:
    """What `expression` evaluates to now (for the failure message), or why it cannot."""
    try:
        return page.evaluate(
            f"(arg) => {{ {_value(expression)} return got === undefined"
            " ? null : got; }", arg)
    except Exception as exc:  # only describes a failure already happening
        return f"<{type(exc).__name__}: {exc}>"


def _wait(page: Any, body: str, arg: Any, timeout: float) -> Any:
    """Wait until the JavaScript `body` (statements that `return` a value, seeing `arg`)
    returns something truthy; an exception thrown on the way (a piece of state not there yet)
    counts as not yet."""
    script = f"(arg) => {{ try {{ {body} }} catch (error) {{ return false; }} }}"
    return page.wait_for_function(script, arg=arg, timeout=timeout).json_value()


def until(page: Any, predicate: str, arg: Any = None, *, timeout: float = WAIT_MS) -> Any:
    """Wait until `predicate` (a JavaScript expression, or a function of `arg`) is truthy in
    `page` and return that value (as JSON); fail naming the predicate if it never is."""
    try:
        return _wait(page, f"{_value(predicate)} return got;", arg, timeout)
    except _timeout_error():
        raise AssertionError(
            f"waited {timeout / 1000:g} s for {predicate!r} (arg {arg!r}); it stayed "
            f"{_current(page, predicate, arg)!r}") from None


def until_equal(page: Any, expression: str, expected: Any, arg: Any = None, *,
                timeout: float = WAIT_MS) -> None:
    """Wait until `expression` (a JavaScript expression, or a function of `arg`) equals
    `expected` in `page` (as JSON values); fail with the last value if it never does."""
    body = (f"{_DEEP_EQUAL} const [arg0, expected] = arg; "
            f"{_value(expression, 'arg0')}"
            " return equal(got === undefined ? null : got, expected);")
    try:
        _wait(page, body, [arg, expected], timeout)
    except _timeout_error():
        raise AssertionError(
            f"waited {timeout / 1000:g} s for {expression!r} (arg {arg!r}) to be "
            f"{expected!r}; it stayed {_current(page, expression, arg)!r}") from None


def next_frame(page: Any) -> None:
    """Wait until the page has run its next animation frame (input so far handled, drawn)."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done(null)))")


def expect(actual: Any) -> Any:
    """Playwright's `expect` (it retries until the assertion holds), waiting up to WAIT_MS."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect.set_options(timeout=WAIT_MS)
    return playwright_expect(actual)
