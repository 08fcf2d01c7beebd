// Handles on a selected ranked unit (wheel, pivot, reform) and the ghost outline each drag
// shows. Pure geometry in inches, no DOM, tested under node. It draws what the player asks
// for; whether that is legal, and how far it goes against the allowance, is the server's
// answer to the `preview` of the action built here.

import { axes, pointInGeometry } from './hit.js';

/** @typedef {[number, number]} Pos */
/** @typedef {import('../types.js').Geometry} Geometry */
/** @typedef {import('../types.js').Unit} Unit */
/**
 * Every position of nested GeoJSON coordinates (any depth: a ring, a polygon's rings, a
 * multipolygon's polygons) mapped by `fn`.
 * @param {unknown[]} c @param {(p:number[]) => number[]} fn @returns {unknown[]}
 */
export function mapCoords(c, fn) {
  return typeof c[0] === 'number' ? fn(/** @type {number[]} */ (c)) : c.map((x) => mapCoords(/** @type {unknown[]} */ (x), fn));
}

/**
 * A ranked unit's frame from its footprint's boundary feature: corners (front-left,
 * front-right, rear-left, rear-right), rectangle centre, facing, width and depth.
 * @typedef {Object} UnitFrame
 * @property {Pos} fl
 * @property {Pos} fr
 * @property {Pos} rl
 * @property {Pos} rr
 * @property {Pos} centre
 * @property {number} facing
 * @property {number} width
 * @property {number} depth
 * @property {Geometry} geometry
 */

/** Pixels from the front centre to the pivot knob. */
export const KNOB_PX = 26;
/** Radius of a handle, pixels (grab slop included). */
export const HANDLE_PX = 9;

/**
 * @param {Unit|null|undefined} unit a unit as the server sends it (with `footprint`)
 * @returns {UnitFrame|null} null for units without ranked corners (40k, off the table)
 */
export function unitFrame(unit) {
  const features = unit?.footprint?.features;
  if (!Array.isArray(features)) return null;
  const b = features.find((f) => f?.properties?.role === 'boundary');
  const p = b?.properties;
  if (!p || !Array.isArray(p.corners) || p.corners.length !== 4 || !Array.isArray(p.centre)) return null;
  const [fl, fr, rl, rr] = /** @type {Pos[]} */ (p.corners.map((/** @type {number[]} */ c) => [c[0], c[1]]));
  const width = Math.hypot(fr[0] - fl[0], fr[1] - fl[1]);
  const depth = Math.hypot(rl[0] - fl[0], rl[1] - fl[1]);
  return { fl, fr, rl, rr, centre: [p.centre[0], p.centre[1]], facing: Number(p.facing) || 0, width, depth, geometry: b.geometry };
}

/**
 * @typedef {Object} Handle
 * @property {'wheel-left'|'wheel-right'|'pivot'|'reform'} kind
 * @property {number} x
 * @property {number} y
 * @property {Pos} [about]   the corner a wheel turns about
 */

/**
 * Where the handles of a unit sit: the outer front corners wheel (the front-right corner
 * wheels to the left about the front-left corner, and the other way round), a knob in front
 * of the front centre pivots about the centre, the rear-right corner reforms.
 * @param {UnitFrame} f @param {number} scale pixels per inch
 * @returns {Handle[]}
 */
export function handlesOf(f, scale) {
  const { fx, fy } = axes(f.facing);
  const mid = [(f.fl[0] + f.fr[0]) / 2, (f.fl[1] + f.fr[1]) / 2];
  const out = KNOB_PX / Math.max(scale, 1e-6);
  return [
    { kind: 'wheel-left', x: f.fr[0], y: f.fr[1], about: f.fl },
    { kind: 'wheel-right', x: f.fl[0], y: f.fl[1], about: f.fr },
    { kind: 'pivot', x: mid[0] + fx * out, y: mid[1] + fy * out },
    { kind: 'reform', x: f.rr[0], y: f.rr[1] },
  ];
}

/**
 * The handle under a point, if any. @param {Handle[]} handles @param {number} x @param {number} y
 * @param {number} scale pixels per inch @returns {Handle|null}
 */
export function handleAt(handles, x, y, scale) {
  const r = HANDLE_PX / Math.max(scale, 1e-6);
  let best = null;
  let bestD = Infinity;
  for (const h of handles) {
    const d = Math.hypot(h.x - x, h.y - y);
    if (d <= r && d < bestD) {
      best = h;
      bestD = d;
    }
  }
  return best;
}

/**
 * Signed angle in degrees (counter-clockwise positive) from `a - o` to `b - o`.
 * @param {Pos} o @param {Pos} a @param {Pos} b
 */
export function turnAngle(o, a, b) {
  const ax = a[0] - o[0];
  const ay = a[1] - o[1];
  const bx = b[0] - o[0];
  const by = b[1] - o[1];
  return (Math.atan2(ax * by - ay * bx, ax * bx + ay * by) * 180) / Math.PI;
}

/** @param {number} v @param {number} step */
function snap(v, step) {
  return Math.round(v / step) * step;
}

/**
 * The degrees a wheel handle asks for when dragged to `pt`: only forward (a wheel to the left
 * from the right corner is positive, to the right from the left corner negative), to 1 degree.
 * @param {Handle} h @param {Pos} pt
 */
export function wheelDegrees(h, pt) {
  const deg = snap(turnAngle(/** @type {Pos} */ (h.about), [h.x, h.y], pt), 1);
  return h.kind === 'wheel-left' ? Math.max(0, deg) : Math.min(0, deg);
}

/** Degrees a pivot asks for when the knob is dragged to `pt` (either way, to 1 degree).
 * @param {UnitFrame} f @param {Handle} h @param {Pos} pt */
export function pivotDegrees(f, h, pt) {
  return snap(turnAngle(f.centre, [h.x, h.y], pt), 1);
}

/**
 * Files a reform asks for when the rear-right corner is dragged to `pt`: the width across the
 * unit's front divided by one file's width, between 1 and the number of models.
 * @param {UnitFrame} f @param {Pos} pt @param {number} files now @param {number} models
 */
export function reformFiles(f, pt, files, models) {
  const { rx, ry } = axes(f.facing);
  const across = (pt[0] - f.rl[0]) * rx + (pt[1] - f.rl[1]) * ry;
  const fileWidth = f.width / Math.max(1, files);
  return Math.max(1, Math.min(Math.max(1, models), Math.round(across / fileWidth)));
}

/** A GeoJSON polygon or multipolygon turned `deg` counter-clockwise about (cx, cy).
 * @param {Geometry} g @param {number} cx @param {number} cy @param {number} deg @returns {Geometry} */
export function rotateGeometry(g, cx, cy, deg) {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  const turn = (/** @type {number[]} */ p) => [cx + (p[0] - cx) * c - (p[1] - cy) * s, cy + (p[0] - cx) * s + (p[1] - cy) * c];
  if (!('coordinates' in g)) throw new TypeError(`a ${g.type} has no coordinates to turn`);
  return /** @type {Geometry} */ ({ ...g, coordinates: mapCoords(g.coordinates, turn) });
}

/**
 * The outline a reform to `files` files (and `facing`) would roughly have: the same file
 * width and rank depth, about the same centre. The server's answer (its swept area) is the
 * exact shape; this only shows what was asked.
 * @param {UnitFrame} f @param {number} filesNow @param {number} models all models, characters included
 * @param {number} files @param {number} facing
 * @returns {Geometry}
 */
export function reformOutline(f, filesNow, models, files, facing) {
  const ranksNow = Math.max(1, Math.ceil(models / Math.max(1, filesNow)));
  const fileWidth = f.width / Math.max(1, filesNow);
  const rankDepth = f.depth / ranksNow;
  const w = fileWidth * files;
  const d = rankDepth * Math.ceil(models / Math.max(1, files));
  const { fx, fy, rx, ry } = axes(facing);
  const [cx, cy] = f.centre;
  /** @param {number} a @param {number} b @returns {Pos} */
  const p = (a, b) => [cx + a * rx + b * fx, cy + a * ry + b * fy];
  const ring = [p(-w / 2, d / 2), p(w / 2, d / 2), p(w / 2, -d / 2), p(-w / 2, -d / 2)];
  return { type: 'Polygon', coordinates: [[...ring, ring[0]]] };
}

/**
 * The model of a unit under a point, by its footprint feature (`index` is its place in the
 * unit's `positions`), or -1.
 * @param {Unit} unit @param {number} x @param {number} y
 */
export function modelIndexAt(unit, x, y) {
  const features = unit?.footprint?.features;
  if (!Array.isArray(features)) return -1;
  for (let i = features.length - 1; i >= 0; i--) {
    const f = features[i];
    if (f?.properties?.role !== 'model') continue;
    if (pointInGeometry(f.geometry, x, y)) return Number(f.properties.index ?? -1);
  }
  return -1;
}

/**
 * A 40k unit's models as the ghost draws them: each model's base moved from where the server
 * has it to its staged position.
 * @param {Unit} unit @param {number[][]} positions staged centres, one per model
 * @returns {Geometry}
 */
export function stagedModels(unit, positions) {
  const from = Array.isArray(unit?.positions) ? unit.positions : [];
  const polys = [];
  for (const f of unit?.footprint?.features || []) {
    if (f?.properties?.role !== 'model' || f.geometry?.type !== 'Polygon') continue;
    const i = Number(f.properties.index);
    const a = from[i];
    const b = positions[i];
    if (!a || !b) continue;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    polys.push(f.geometry.coordinates.map((/** @type {number[][]} */ ring) => ring.map(([x, y]) => [x + dx, y + dy])));
  }
  return { type: 'MultiPolygon', coordinates: polys };
}

/** The outline of a unit from its footprint: geometry, centre and facing (null without one).
 * @param {Unit|null|undefined} unit @returns {{geometry:Geometry, centre:number[], facing:number}|null} */
export function boundaryOf(unit) {
  const features = unit?.footprint?.features;
  if (!unit || !Array.isArray(features) || !features.length) return null;
  const f = features.find((x) => x?.properties?.role === 'boundary') || features[0];
  if (!f?.geometry) return null;
  const p = f.properties || {};
  const pl = unit.placement || { x: 0, y: 0, facing: 0 };
  const centre = Array.isArray(p.centre) ? p.centre : [pl.x ?? 0, pl.y ?? 0];
  return { geometry: f.geometry, centre, facing: Number(p.facing ?? pl.facing ?? 0) };
}

/** A GeoJSON Polygon or MultiPolygon moved by (dx, dy). @param {Geometry} g @param {number} dx @param {number} dy @returns {Geometry} */
export function translateGeometry(g, dx, dy) {
  if (!('coordinates' in g)) throw new TypeError(`a ${g.type} has no coordinates to move`);
  return /** @type {Geometry} */ ({ ...g, coordinates: mapCoords(g.coordinates, (p) => [p[0] + dx, p[1] + dy, ...p.slice(2)]) });
}

/** What a staged move was planned from: the unit's placement, models' positions and files.
 * A staged move whose basis changed (the unit moved meanwhile) is dropped. @param {Unit|null|undefined} unit */
export function basisOf(unit) {
  return unit ? JSON.stringify([unit.placement, unit.positions, unit.files]) : '';
}
