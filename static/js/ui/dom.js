// A tiny element builder: h('button', {class: 'x', onclick}, 'text'). Text is always set as
// text, never as HTML, so names and notes from other players cannot inject markup.

/** What goes inside an element: nodes, text (numbers as text), nothing, or lists of these.
 * @typedef {Node|string|number|null|undefined|false|Children} Child */
/** @typedef {Array<Child>} Children */

/**
 * @param {string} tag
 * @param {Record<string, unknown>|null} [attrs]  `on…` listeners, `class`, `dataset`, element
 *   properties (a non-string value of a property the element has) and attributes
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === 'class') el.className = String(value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key in el && typeof value !== 'string') /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (el))[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** @param {Node} el @param {Child[]} children */
function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replace an element's children. When the focused control was inside, the control that takes
 * its place (same id, command, name or text: `focusKey`) gets the focus back, so a panel that
 * re-renders never drops the keyboard user's focus to the page (issue 24 item 1).
 * @param {Element} el @param {...Child} children
 */
export function replace(el, ...children) {
  const active = typeof document !== 'undefined' ? document.activeElement : null;
  const had = active && active !== el && el.contains(active) ? focusKey(describeForFocus(/** @type {HTMLElement} */ (active))) : null;
  el.replaceChildren();
  append(el, children);
  if (had && !el.contains(document.activeElement)) {
    const next = findFocusTarget(el, had);
    if (next) {
      next.focus({ preventScroll: true });
      keepTyping(/** @type {HTMLElement} */ (active), next);
    }
  }
}

/** Carry what was being typed into the field that replaced it: its value and the caret (a new
 * field's caret is at the start, so typing on would go in front). @param {HTMLElement} old @param {HTMLElement} next */
function keepTyping(old, next) {
  if (!(old instanceof HTMLInputElement || old instanceof HTMLTextAreaElement)) return;
  if (!(next instanceof HTMLInputElement || next instanceof HTMLTextAreaElement)) return;
  if (old instanceof HTMLInputElement && (old.type === 'checkbox' || old.type === 'radio')) return;
  if (next.value !== old.value) next.value = old.value;
  const end = next.value.length;
  const start = old.selectionStart ?? end;
  const stop = old.selectionEnd ?? end;
  // Number fields have no selection API: set it as a text field for a moment.
  const type = next instanceof HTMLInputElement ? next.type : 'textarea';
  try {
    if (type === 'number' && next instanceof HTMLInputElement) {
      next.type = 'text';
      next.setSelectionRange(start, stop);
      next.type = 'number';
    } else next.setSelectionRange(start, stop);
  } catch {
    /* a field type without a caret (date, range…): nothing to keep */
  }
}

/**
 * What identifies a focusable control across re-renders.
 * @typedef {{tag:string, id?:string, dataset?:Record<string, string|undefined>, name?:string|null, text?:string}} FocusDescriptor
 */

/** @param {HTMLElement} el @returns {FocusDescriptor} */
function describeForFocus(el) {
  return { tag: el.tagName, id: el.id, dataset: { ...el.dataset }, name: el.getAttribute('name'), text: el.textContent || '' };
}

/**
 * A stable key for a control: its id; else its data attributes; else its name; else its tag
 * and text. Pure (tested under node).
 * @param {FocusDescriptor} d @returns {string}
 */
export function focusKey(d) {
  const tag = d.tag.toLowerCase();
  if (d.id) return `#${d.id}`;
  const data = Object.entries(d.dataset || {}).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b));
  if (data.length) return `${tag}[${data.map(([k, v]) => `${k}=${v}`).join(',')}]`;
  if (d.name) return `${tag}[name=${d.name}]`;
  return `${tag}:${(d.text || '').trim().replace(/\s+/g, ' ')}`;
}

/** The focusable element under `root` whose key is `key`. @param {Element} root @param {string} key */
function findFocusTarget(root, key) {
  for (const el of root.querySelectorAll('button, a[href], input, select, textarea, summary, [tabindex]')) {
    const e = /** @type {HTMLElement} */ (el);
    if (focusKey(describeForFocus(e)) === key && !(/** @type {HTMLButtonElement} */ (e).disabled)) return e;
  }
  return null;
}
