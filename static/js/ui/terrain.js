// The setup panel's terrain form: the kind, height and name of the next feature, and "Draw",
// which picks the table's `terrain` tool (handlers/terrain.js: click the corners, Enter).

import { h } from './dom.js';
import { terrainWords } from '../handlers/terrain-edit.js';

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

/**
 * Fixing the terrain on the table (issue 19 item 4): "Edit terrain" picks the table's
 * `terrain_edit` tool (handlers/terrain-edit.js); the list names every piece (its words on
 * hover and focus) and selects it; for the selected piece, typed values move, turn and
 * resize it, a height changes what it hides, and "Delete piece" removes it.
 * @param {Table} table @returns {HTMLElement}
 */
export function terrainEditor(table) {
  const tool = table.tools.terrain_edit;
  const pieces = /** @type {import('../handlers/terrain-edit.js').TerrainView[]} */ (Array.isArray(table.store.state?.terrain) ? table.store.state.terrain : []);
  const editing = table.mode === 'terrain_edit';
  const toggle = h('button', {
    type: 'button', id: 'edit-terrain', 'aria-pressed': String(editing),
    onclick: () => table.setMode(editing ? 'idle' : 'terrain_edit'),
  }, editing ? 'Stop editing terrain' : 'Edit terrain');
  if (!pieces.length) return h('div', { class: 'terrain-edit' }, toggle);
  const list = h('ul', { class: 'terrain-pieces', 'aria-label': 'Terrain on the table' },
    pieces.map((t) => {
      const words = terrainWords(t);
      const tipId = `terrain-words-${t.id}`;
      return h('li', null,
        h('button', {
          type: 'button', class: 'terrain-piece', dataset: { terrain: t.id },
          'aria-pressed': String(editing && tool.selected === t.id),
          'aria-describedby': tipId,
          onclick: () => {
            if (!editing) table.setMode('terrain_edit');
            tool.pick(t.id);
          },
        }, words.name),
        h('span', { class: 'terrain-words', id: tipId, role: 'tooltip' }, words.lines.join('; ')));
    }));
  const selected = editing ? tool.piece() : null;
  return h('div', { class: 'terrain-edit' }, toggle, list, selected ? pieceControls(tool, selected) : null);
}

/** A number field with its label; any decimal is accepted (a move of 2.25 in, a turn of 7.5°).
 * @param {string} name @param {string} label @param {number} value */
function numberField(name, label, value) {
  return /** @type {HTMLInputElement} */ (h('input', { type: 'number', name, value: String(value), step: 'any', 'aria-label': label, class: 'short' }));
}

/** The typed controls of the selected piece.
 * @param {import('../handlers/terrain-edit.js').TerrainEditTool} tool @param {import('../handlers/terrain-edit.js').TerrainView} t */
function pieceControls(tool, t) {
  const words = terrainWords(t);
  const dx = numberField('terrain-dx', 'Move across the table, x (inches)', 0);
  const dy = numberField('terrain-dy', "Move towards player 2's edge, y (inches)", 0);
  const turn = numberField('terrain-turn', 'Turn (degrees)', 15);
  const size = numberField('terrain-size', 'Size (percent)', 100);
  const height = /** @type {HTMLSelectElement} */ (h('select', { name: 'terrain-new-height', 'aria-label': 'Height of the selected piece' },
    TERRAIN_HEIGHTS.map((v) => h('option', { value: v, selected: v === t.height }, v))));
  return h('div', { class: 'terrain-piece-controls', id: 'terrain-selected', role: 'group', 'aria-label': `${words.name}, selected` },
    h('p', null, h('b', null, words.name), ` — ${words.lines.join('; ')}`),
    h('div', { class: 'row' }, h('label', null, 'Move ', dx, ' in across (x), ', dy, " in towards player 2's edge (y) "),
      h('button', { type: 'button', id: 'terrain-move', onclick: () => tool.change({ dx: Number(dx.value) || 0, dy: Number(dy.value) || 0 }) }, 'Move')),
    h('div', { class: 'row' }, h('label', null, 'Turn ', turn, '° '),
      h('button', { type: 'button', id: 'terrain-turn-button', onclick: () => tool.change({ rotate: Number(turn.value) || 0 }) }, 'Turn')),
    h('div', { class: 'row' }, h('label', null, 'Size ', size, '% '),
      h('button', { type: 'button', id: 'terrain-resize', onclick: () => tool.change({ scale: (Number(size.value) || 100) / 100 }) }, 'Resize')),
    h('div', { class: 'row' }, h('label', null, 'Height ', height),
      h('button', { type: 'button', id: 'terrain-height', onclick: () => tool.change({ height: height.value }) }, 'Set height')),
    h('button', { type: 'button', id: 'delete-terrain', class: 'danger', onclick: () => tool.remove() }, `Delete ${words.name}`));
}
