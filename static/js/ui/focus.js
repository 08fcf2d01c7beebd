// Where the keyboard focus goes once an action is answered. A button keeps the focus after a
// click (and a panel that redraws gives it back to the button that replaced it), so the next
// Enter would press it again: roll the charge again, shoot again, roll the dice of the Dice
// panel again, in front of everyone. Once the server has answered, the focus moves to the table
// (the canvas, where Enter only confirms a staged move) when it is still on the control that
// sent the action (or that control's replacement, or nowhere): not when the player has moved on
// meanwhile, is typing in a field, or a question the page asked since holds it (the order
// banner, a dialog).

import { focusKey } from './dom.js';

/**
 * @typedef {Object} FocusLike  what the decision reads of the focused element (a DOM element in
 *   the page; a plain object in the node tests)
 * @property {string} tagName
 * @property {boolean} [isConnected]
 * @property {boolean} [isContentEditable]
 * @property {(selector:string) => unknown} [closest]
 */

/** Where a question of the page holds the focus itself: the banner asking an answer, dialogs. */
const ASKING = '#order-banner, [role=dialog]';
/** Fields whose Enter sends a roll: the Dice panel's form. */
const ROLLING_FORM = 'form.roll';

/**
 * Should the focus leave `active` for the table once an action is answered?
 * @param {FocusLike|null|undefined} active  document.activeElement now
 * @param {boolean} [sentFromHere]  `active` is the control the action was sent from (or its
 *   replacement after a redraw)
 */
export function leaveFocus(active, sentFromHere = true) {
  if (!active || active.isConnected === false) return true;
  const tag = String(active.tagName || '').toUpperCase();
  if (tag === 'BODY' || tag === 'HTML') return true;
  if (!sentFromHere || tag === 'CANVAS') return false;
  if (active.closest?.(ASKING)) return false;
  const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || active.isContentEditable;
  if (typing) return Boolean(active.closest?.(ROLLING_FORM));
  return true;
}

/** A control's identity across redraws (ui/dom.js `focusKey`). @param {Element|null} el */
function keyOf(el) {
  if (!el || !(el instanceof HTMLElement)) return '';
  return focusKey({ tag: el.tagName, id: el.id, dataset: { ...el.dataset }, name: el.getAttribute('name'), text: el.textContent || '' });
}

/**
 * After each answered action, put the focus on `home` (the table) when `leaveFocus` says so.
 * @param {{onAct:(fn:() => (ok:boolean) => void) => unknown}} conn @param {HTMLElement} home
 */
export function neutralFocusAfterActions(conn, home) {
  conn.onAct(() => {
    const from = keyOf(document.activeElement);
    return () => {
      // After the frame: the panels redraw from the events first (and give the focus back).
      const settle = () => {
        const now = document.activeElement;
        if (leaveFocus(/** @type {FocusLike|null} */ (now), keyOf(now) === from)) home.focus({ preventScroll: true });
      };
      if (typeof requestAnimationFrame === 'function') requestAnimationFrame(settle);
      else settle();
    };
  });
}
