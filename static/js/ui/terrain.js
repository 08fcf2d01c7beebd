// The setup panel's terrain form: the kind, height and name of the next feature, and "Draw",
// which picks the table's `terrain` tool (handlers/terrain.js: click the corners, Enter).

import { h } from './dom.js';

/** @typedef {import('../table.js').Table} Table */

/** The kinds the server knows (server/geometry/kinds.py TerrainKind), in words. */
export const TERRAIN_KINDS = [
  ['impassable', 'Impassable'],
  ['blocks_los', 'Blocks line of sight'],
  ['cover', 'Cover'],
  ['dangerous', 'Dangerous'],
  ['open', 'Open ground'],
];

/** Height classes (what it hides; flat hides nothing). */
export const TERRAIN_HEIGHTS = ['flat', 'standard', 'large', 'gigantic', 'infinite'];

/** The setup panel's form: kind, height and name of the next feature, and "Draw".
 * @param {Table} table */
export function terrainForm(table) {
  const cfg = table.tools.terrain.config;
  const kind = /** @type {HTMLSelectElement} */ (h('select', { name: 'terrain-kind', 'aria-label': 'Terrain kind',
    onchange: (/** @type {Event} */ e) => { cfg.kind = /** @type {HTMLSelectElement} */ (e.target).value; } },
  TERRAIN_KINDS.map(([v, label]) => h('option', { value: v, selected: v === cfg.kind }, label))));
  const height = /** @type {HTMLSelectElement} */ (h('select', { name: 'terrain-height', 'aria-label': 'Terrain height',
    onchange: (/** @type {Event} */ e) => { cfg.height = /** @type {HTMLSelectElement} */ (e.target).value; } },
  TERRAIN_HEIGHTS.map((v) => h('option', { value: v, selected: v === cfg.height }, v))));
  const label = /** @type {HTMLInputElement} */ (h('input', { name: 'terrain-label', placeholder: 'Name (optional)', value: cfg.label,
    maxlength: 80, 'aria-label': 'Terrain name',
    oninput: (/** @type {Event} */ e) => { cfg.label = /** @type {HTMLInputElement} */ (e.target).value; } }));
  const draw = h('button', { type: 'button', id: 'draw-terrain', onclick: () => table.setMode('terrain') }, 'Draw');
  return h('div', { class: 'row terrain-form' }, kind, height, label, draw);
}
