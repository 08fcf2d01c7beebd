// Table tools for orders (spread into TOOLS in tools.js): Shoot (click the enemy to shoot at)
// and Free move (the selected unit's outline follows the pointer; a click puts it down, R turns
// it 15°, Enter or "Propose free move" asks the opponent). The ghost shows the server's verdict
// on the proposal as a `preview`, like a move: green, or red with the rule and obstacle.

import { shootAt, proposeStaged } from './orders.js';
import { rotateGeometry, stagedModels } from '../view/manoeuvre.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {{x:number, y:number}} Pt */

const TURN_STEP_DEG = 15;

/** What a staged move is planned from (as table.js compares it). @param {any} unit */
function basisOf(unit) {
  return unit ? JSON.stringify([unit.placement, unit.positions, unit.files]) : '';
}

/** A unit's outline from its footprint (as table.js reads it; not imported from there, which
 * imports the tools). @param {any} unit */
function boundaryOf(unit) {
  const features = unit?.footprint?.features;
  if (!Array.isArray(features) || !features.length) return null;
  const f = features.find((x) => x?.properties?.role === 'boundary') || features[0];
  if (!f?.geometry) return null;
  const p = f.properties || {};
  const pl = unit.placement || {};
  const centre = Array.isArray(p.centre) ? p.centre : [pl.x ?? 0, pl.y ?? 0];
  return { geometry: f.geometry, centre, facing: Number(p.facing ?? pl.facing ?? 0) };
}

/** @param {any} g @param {number} dx @param {number} dy */
function translateGeometry(g, dx, dy) {
  /** @param {any} c @returns {any} */
  const move = (c) => (typeof c[0] === 'number' ? [c[0] + dx, c[1] + dy, ...c.slice(2)] : c.map(move));
  return { ...g, coordinates: move(g.coordinates) };
}

/** @param {number} v */
const r2 = (v) => Math.round(v * 100) / 100;

/**
 * A point turned `deg` (counter-clockwise, as facings grow) about (cx, cy).
 * @param {number} x @param {number} y @param {number} cx @param {number} cy @param {number} deg
 */
export function turnPoint(x, y, cx, cy, deg) {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  return [cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c];
}

/**
 * The free-move proposal for `unit` with its outline's centre put at `at` and turned `deg`:
 * a ranked unit by its placement (front-edge centre) and facing, a 40k unit by its models.
 * Pure (tested under node).
 * @param {any} unit @param {{centre:number[]}} b its boundary @param {Pt} at @param {number} deg
 */
export function freeMoveAction(unit, b, at, deg) {
  const [cx, cy] = b.centre;
  const dx = at.x - cx;
  const dy = at.y - cy;
  if (unit.placement && !(Array.isArray(unit.positions) && unit.positions.length)) {
    const [x, y] = turnPoint(unit.placement.x + dx, unit.placement.y + dy, at.x, at.y, deg);
    const facing = ((((unit.placement.facing || 0) + deg) % 360) + 360) % 360;
    return { type: 'propose', kind: 'free_move', unit: unit.id, x: r2(x), y: r2(y), facing: r2(facing) };
  }
  const positions = (unit.positions || []).map((/** @type {number[]} */ p) => turnPoint(p[0] + dx, p[1] + dy, at.x, at.y, deg).map(r2));
  return { type: 'propose', kind: 'free_move', unit: unit.id, positions };
}

/** @param {Table} t */
function freeUnit(t) {
  const id = t.selected;
  const unit = id ? t.store.state?.units?.[id] : null;
  return unit && unit.status === 'on_table' ? unit : null;
}

/** Put the free-move ghost at `at`, turned `deg`. @param {Table} t @param {Pt} at @param {string} phase */
function placeGhost(t, at, phase) {
  const fm = /** @type {any} */ (t).freeMove;
  const unit = fm ? t.store.state?.units?.[fm.id] : null;
  if (!fm || !unit) return;
  const b = fm.boundary;
  const action = freeMoveAction(unit, b, at, fm.deg);
  const geometry = action.positions
    ? stagedModels(unit, action.positions)
    : rotateGeometry(translateGeometry(b.geometry, at.x - b.centre[0], at.y - b.centre[1]), at.x, at.y, fm.deg);
  fm.at = at;
  const ghost = { id: unit.id, x: at.x, y: at.y, facing: b.facing + fm.deg, width: 2, depth: 2, geometry, phase, proposal: true, basis: basisOf(unit), label: `Free move${fm.deg ? `, turned ${fm.deg}°` : ''}` };
  if (!t.ghost || !(/** @type {any} */ (t.ghost).proposal)) t.setGhost({ ...ghost, verdict: 'unknown' }, action);
  else Object.assign(t.ghost, ghost, { action });
  t.previewWanted = true;
  t.redraw();
}

/** @type {Record<string, import('../tools.js').Tool & {rotate?:(t:Table, sign:number) => void}>} */
export const ORDER_TOOLS = {
  shoot: {
    enterToast: 'Shoot: click the enemy unit to shoot at.',
    tap: (t, _w, hit) => shootAt(t, hit),
    hint: () => 'Click the enemy unit to shoot at (Esc to cancel).',
  },
  free_move: {
    enterToast: 'Free move: click where the unit goes (R turns it), then Propose.',
    enter: (t) => {
      const unit = freeUnit(t);
      const b = unit ? boundaryOf(unit) : null;
      /** @type {any} */ (t).freeMove = unit && b ? { id: unit.id, boundary: b, deg: 0, at: null } : null;
    },
    hover: (t, w) => {
      const fm = /** @type {any} */ (t).freeMove;
      const g = /** @type {any} */ (t.ghost);
      if (!fm || (g && (g.phase === 'staged' || g.phase === 'committing'))) return;
      if (!g && fm.done) return;
      placeGhost(t, { x: r2(w.x), y: r2(w.y) }, 'dragging');
    },
    tap: (t, w) => {
      const fm = /** @type {any} */ (t).freeMove;
      if (!fm) return t.toast('Free move: select a unit on the table first.', 'info');
      placeGhost(t, { x: r2(w.x), y: r2(w.y) }, 'staged');
      t.onChange();
    },
    confirm: (t) => proposeStaged(t),
    rotate: (t, sign) => {
      const fm = /** @type {any} */ (t).freeMove;
      if (!fm) return;
      fm.deg = (fm.deg + TURN_STEP_DEG * sign) % 360;
      const g = /** @type {any} */ (t.ghost);
      placeGhost(t, fm.at || { x: fm.boundary.centre[0], y: fm.boundary.centre[1] }, g?.phase === 'staged' ? 'staged' : 'dragging');
      t.onChange();
    },
    hint: (t) => (/** @type {any} */ (t.ghost)?.phase === 'staged'
      ? 'Propose free move (Enter), click elsewhere to put it there instead, R turns it, Esc resets.'
      : 'Click where the unit goes; R turns it 15° (Esc to stop).'),
  },
};
