// The terrain tooltip (issue 19 item 4): over a terrain piece on the table, a small card says
// what it is — its name, kind, height (what line of sight does with it), cover and whether it
// is dangerous (Dangerous Terrain tests are not automated, and it says so). From the keyboard
// the same words come with each piece in the setup panel's list (ui/terrain.js).

import { h } from './dom.js';
import { terrainAt, terrainWords } from '../handlers/terrain-edit.js';

/** @typedef {import('../table.js').Table} Table */

/** Show the tooltip over the table's canvas while the pointer is on a piece. @param {Table} table */
export function attachTerrainTip(table) {
  const tip = h('div', { id: 'terrain-tip', class: 'terrain-tip', role: 'tooltip', hidden: true });
  document.body.append(tip);
  const canvas = table.canvas;
  let shown = '';
  /** @param {PointerEvent} e */
  const move = (e) => {
    if (e.buttons) return hide(); // a drag or a pan in hand: the piece speaks for itself
    const r = canvas.getBoundingClientRect();
    const t = table.view ? terrainAt(table.store.state, table.world({ x: e.clientX - r.left, y: e.clientY - r.top })) : null;
    if (!t) return hide();
    const key = JSON.stringify([t.id, t.height, t.points]);
    if (key !== shown) {
      const words = terrainWords(t);
      tip.replaceChildren(h('b', null, words.name), ...words.lines.map((line) => h('div', null, line)));
      shown = key;
    }
    tip.hidden = false;
    tip.style.left = `${Math.min(e.clientX + 14, window.innerWidth - 260)}px`;
    tip.style.top = `${e.clientY + 14}px`;
    canvas.setAttribute('aria-describedby', 'terrain-tip');
  };
  const hide = () => {
    tip.hidden = true;
    shown = '';
    canvas.removeAttribute('aria-describedby');
  };
  canvas.addEventListener('pointermove', move);
  canvas.addEventListener('pointerleave', hide);
  canvas.addEventListener('pointerdown', hide);
  return () => {
    canvas.removeEventListener('pointermove', move);
    canvas.removeEventListener('pointerleave', hide);
    canvas.removeEventListener('pointerdown', hide);
    tip.remove();
  };
}
