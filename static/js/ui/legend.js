// The terrain legend: each kind's swatch (its fill and pattern, as the table draws them) and
// what it means in words (issue 24 item 3).

import { h } from './dom.js';
import { TERRAIN_STYLES, TABLE_COLOR, drawMarks, rgba } from '../view/terrain-style.js';

/** A swatch drawn like the table draws the kind: the table, the fill, the marks. @param {import('../view/terrain-style.js').TerrainStyle} style */
function swatch(style) {
  const size = 24;
  const c = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'swatch', width: size, height: size, 'aria-hidden': 'true' }));
  const g = c.getContext('2d');
  if (g) {
    g.fillStyle = TABLE_COLOR;
    g.fillRect(0, 0, size, size);
    g.fillStyle = rgba(style.fill, style.alpha);
    g.fillRect(0, 0, size, size);
    drawMarks(g, style.mark, 12);
    g.translate(12, 0);
    drawMarks(g, style.mark, 12);
    g.translate(-12, 12);
    drawMarks(g, style.mark, 12);
    g.translate(12, 0);
    drawMarks(g, style.mark, 12);
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.strokeStyle = 'rgba(0,0,0,0.7)';
    g.lineWidth = 1.5;
    g.strokeRect(0.75, 0.75, size - 1.5, size - 1.5);
  }
  return c;
}

/** The legend list. @returns {HTMLElement} */
export function terrainLegend() {
  return h('ul', { class: 'legend-list', 'aria-label': 'Terrain kinds' },
    Object.entries(TERRAIN_STYLES).map(([kind, style]) => h('li', { dataset: { kind } },
      swatch(style), h('span', null, h('b', null, style.name), ` — ${style.says}`))),
    h('li', { class: 'legend-ghost' }, h('span', { class: 'ghost-sign', 'aria-hidden': 'true' }, '⊘'),
      h('span', null, h('b', null, 'Not allowed'), ' — a move the server refuses: dotted black-and-white outline, this sign and the rule in words')));
}
