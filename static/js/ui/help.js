// The keyboard and mouse help overlay (toggled with ?).

import { h } from './dom.js';

const SHORTCUTS = [
  ['Drag a piece', 'Move your token or unit; the ghost shows the server’s verdict (green / red, the rule, the distance used); release to move'],
  ['Handles', 'On your selected unit: W corners wheel, ↻ knob pivots, ⇔ rear corner reforms'],
  ['✥ (Light Troops)', 'Drag the centre handle of your selected Light Troops unit: a Reform that also moves it (up to twice its Mobility); R turns it 90°; the ghost says when it counts as a March'],
  ['Deploy', 'Pick a unit in the tray: its ghost follows the pointer with the server’s verdict (green / red with the rule); R / Shift+R turn it 15°, [ and ] change its frontage (files); click to deploy it there'],
  ['Arrive (Ambush)', 'In your Movement Phase, after the roll: Arrive in the tray, move along a table edge (the 6 in zone and the nearest valid placement show), click to choose the point, drag the ghost or R to turn it, click it or Enter to arrive'],
  ['Emerge (whfb8 Entombed)', 'In your Movement phase, after the roll: Emerge in the tray, click the table to place the marker; the scatter and artillery dice move it; drag the ghost touching the marker (or against the enemy it landed under), R turns it, click it or Enter to emerge'],
  ['Skirmish move / Vanguard (whfb8)', 'Select your Skirmishers, Skirmish move… (Movement phase) or Vanguard… (before the first turn), click where they go, R turns them, Enter moves them; red with the rule when a model would go too far around what is in the way'],
  ['40k models', 'Drag one model, Shift+drag all of them; Enter confirms the move'],
  ['Drag empty table', 'Pan'],
  ['Wheel / pinch', 'Zoom'],
  ['F', 'Fit the table to the screen'],
  ['R / Shift+R', 'Turn: the selected token 45°, your unit a 15° pivot (Enter to confirm), a reform 90°'],
  ['Enter', 'Confirm a staged move (also in a typed order once Show move has staged it)'],
  ['E, Enter', 'End the phase: E goes to End phase, Enter presses it (from a field: Esc first)'],
  ['M', 'Measure: click two points or units; players’ measures are shown to everyone'],
  ['L', 'Line of sight: click the viewing unit, then the target'],
  ['Draw (setup)', 'Terrain: pick kind and height, Draw, click its corners; Enter or a click on the first corner places it; Backspace takes a corner back'],
  ['Delete', 'Remove the selected token'],
  ['Esc', 'Cancel the current tool, drag or staged move; in a field, leave it for the table'],
  ['Units list', 'Every unit with its place, facing, models and status; a click (or Enter) selects it on the table, or picks it for Charge, Shoot, Measure and Line of sight'],
  ['Typed orders', 'Your selected unit’s card: move a typed distance (Show move, then Confirm), wheel or pivot typed degrees, reform to typed files, charge or shoot a target from the list; deploy at typed x, y and facing'],
  ['?', 'This help'],
];

/**
 * The help dialog: modal (aria-modal, the focus kept inside while it is open, Esc closes), and
 * the focus goes back where it was when it closes (issue 24 item 1). Shown and hidden through
 * its `hidden` property.
 * @returns {HTMLElement}
 */
export function helpOverlay() {
  const close = h('button', { type: 'button', id: 'help-close', onclick: () => (overlay.hidden = true) }, 'Close');
  const overlay = h('div', {
    class: 'overlay',
    hidden: true,
    role: 'dialog',
    'aria-modal': 'true',
    'aria-label': 'Help',
    onclick: (/** @type {Event} */ e) => {
      if (e.target === overlay) overlay.hidden = true;
    },
    onkeydown: (/** @type {KeyboardEvent} */ e) => {
      if (e.key === 'Escape' || e.key === '?') {
        e.preventDefault();
        e.stopPropagation();
        overlay.hidden = true;
      } else if (e.key === 'Tab') {
        // The only control is Close: Tab and Shift+Tab stay on it.
        e.preventDefault();
        close.focus();
      }
    },
  },
  h('div', { class: 'dialog' },
    h('h2', null, 'Shortcuts'),
    h('dl', null, SHORTCUTS.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
    h('p', null, 'The server decides every rule: the client only shows what it answers.'),
    close));
  /** @type {Element|null} */
  let returnTo = null;
  new MutationObserver(() => {
    if (!overlay.hidden) {
      if (!overlay.contains(document.activeElement)) returnTo = document.activeElement;
      close.focus();
    } else if (overlay.contains(document.activeElement) || document.activeElement === document.body) {
      const back = /** @type {HTMLElement|null} */ (returnTo);
      returnTo = null;
      if (back && back.isConnected && typeof back.focus === 'function') back.focus();
    }
  }).observe(overlay, { attributes: true, attributeFilter: ['hidden'] });
  return overlay;
}
