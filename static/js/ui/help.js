// The keyboard and mouse help overlay (toggled with ?).

import { h } from './dom.js';

const SHORTCUTS = [
  ['Drag a piece', 'Move your token; the ghost shows the server’s verdict; release to move'],
  ['Drag empty table', 'Pan'],
  ['Wheel / pinch', 'Zoom'],
  ['F', 'Fit the table to the screen'],
  ['R / Shift+R', 'Turn the selected token 45° left / right'],
  ['M', 'Measure: click two points or tokens'],
  ['L', 'Line of sight: click the viewer, then the target'],
  ['Delete', 'Remove the selected token'],
  ['Esc', 'Cancel the current tool or drag'],
  ['?', 'This help'],
];

export function helpOverlay() {
  const overlay = h('div', {
    class: 'overlay',
    hidden: true,
    role: 'dialog',
    'aria-label': 'Help',
    onclick: (/** @type {Event} */ e) => {
      if (e.target === overlay) overlay.hidden = true;
    },
  },
  h('div', { class: 'dialog' },
    h('h2', null, 'Shortcuts'),
    h('dl', null, SHORTCUTS.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
    h('p', null, 'The server decides every rule: the client only shows what it answers.'),
    h('button', { type: 'button', onclick: () => (overlay.hidden = true) }, 'Close')));
  return overlay;
}
