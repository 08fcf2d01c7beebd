// Drawing a terrain feature at setup: pick its kind and height, click its corners on the table,
// then Enter (or a click on the first corner) sends `place_terrain`; Backspace takes the last
// corner back, Esc stops. The server checks that it lies on the table and overlaps nothing.

import { h } from './dom.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {{x:number, y:number}} Pt */
/** @typedef {{kind:string, height:string, label:string}} TerrainConfig */
/** @typedef {TerrainConfig & {points:Pt[], hover:Pt|null}} TerrainDraft */

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

/** Corners closer than this (inches) to the first one close the outline. */
export const CLOSE_IN = 0.75;

/** @param {number} v */
const r2 = (v) => Math.round(v * 100) / 100;

/** Does a click at `w` close the outline (on the first corner, with 3 corners or more)?
 * @param {Pt[]} points @param {Pt} w */
export function closesOutline(points, w) {
  return points.length >= 3 && Math.hypot(points[0].x - w.x, points[0].y - w.y) <= CLOSE_IN;
}

/** The `place_terrain` action for a finished draft, or null with fewer than 3 corners.
 * @param {TerrainDraft} d */
export function terrainAction(d) {
  if (!d || d.points.length < 3) return null;
  /** @type {Record<string, any>} */
  const action = {
    type: 'place_terrain',
    kind: d.kind,
    height: d.height,
    points: d.points.map((p) => [r2(p.x), r2(p.y)]),
  };
  if (d.label) action.label = d.label.slice(0, 80);
  return action;
}

/** What the renderer draws: the corners so far and the edge to the pointer.
 * @param {TerrainDraft|null} d */
export function terrainOverlay(d) {
  if (!d || !d.points.length) return null;
  const pts = d.points.map((p) => [p.x, p.y]);
  if (d.hover) pts.push([d.hover.x, d.hover.y]);
  return { points: pts, kind: d.kind, closing: d.hover ? closesOutline(d.points, d.hover) : false };
}

/** @param {Table} t */
async function finish(t) {
  const action = terrainAction(/** @type {TerrainDraft} */ (t.terrainDraft));
  if (!action) return t.toast('A terrain feature needs at least 3 corners.', 'info');
  t.setMode('idle');
  await t.conn.act(action).then(
    () => t.toast(`${action.label || 'Terrain'} placed.`, 'info'),
    (/** @type {any} */ e) => t.toast(`Terrain: ${e?.message || e}`, 'error'),
  );
}

/** The tool entry (static/js/tools.js). */
export const TERRAIN_TOOL = {
  enterToast: 'Terrain: click its corners on the table; Enter or a click on the first corner ends it.',
  /** @param {Table} t */
  enter: (t) => {
    t.terrainDraft = { ...(t.terrainConfig || { kind: 'cover', height: 'standard', label: '' }), points: [], hover: null };
  },
  /** @param {Table} t */
  exit: (t) => { t.terrainDraft = null; },
  /** @param {Table} t @param {Pt} w */
  tap: (t, w) => {
    const d = t.terrainDraft;
    if (!d) return;
    if (closesOutline(d.points, w)) return finish(t);
    d.points.push({ x: r2(w.x), y: r2(w.y) });
    t.redraw();
    t.onChange();
  },
  /** @param {Table} t @param {Pt} w */
  hover: (t, w) => {
    if (!t.terrainDraft) return;
    t.terrainDraft.hover = { x: w.x, y: w.y };
    t.redraw();
  },
  /** @param {Table} t */
  confirm: (t) => finish(t),
  /** @param {Table} t @param {string} cmd */
  command: (t, cmd) => {
    if (cmd !== 'remove' || !t.terrainDraft?.points.length) return false;
    t.terrainDraft.points.pop();
    t.redraw();
    t.onChange();
    return true;
  },
  /** @param {Table} t */
  hint: (t) => {
    const n = t.terrainDraft?.points.length || 0;
    return n < 3
      ? `Click the corners of the terrain feature (${n} so far; Backspace takes one back, Esc stops).`
      : `${n} corners: Enter or a click on the first corner places it.`;
  },
};

/** The setup panel's form: kind, height and name of the next feature, and "Draw".
 * @param {Table} table */
export function terrainForm(table) {
  const cfg = table.terrainConfig;
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
