// From server state to drawable, hittable pieces: tokens, models on their bases, terrain, and
// the units that are not on the table (reserve, ambush) for the side tray.
//
// The server owns the geometry: a model's footprint comes as GeoJSON when the server sends one;
// otherwise its base is a rectangle (x, y, facing, width, depth) or a round base (x, y,
// diameter). Nothing here decides a rule. Pure; tested under node.

import { objectiveMarks } from '../ui/forty.js';
import { tableLabel } from '../format.js';

/** @typedef {import('./hit.js').Rect} Rect */
/** @typedef {import('./hit.js').Geometry} Geometry */

/**
 * @typedef {Object} Piece
 * @property {string} id          what a click selects (a token id or a unit id)
 * @property {string} [modelId]
 * @property {'token'|'model'|'boundary'} kind   a boundary is outlined, not filled
 * @property {{x:number, y:number, facing:number}} [front]  front-centre marker of a unit
 * @property {boolean} [character]
 * @property {number} owner
 * @property {string} label
 * @property {Rect} [rect]
 * @property {Geometry} [geometry]
 * @property {{x:number, y:number, r:number}} [circle]
 * @property {number} [facing]
 * @property {string} [wounds]    e.g. "2/3"
 * @property {boolean} [labelHere] draw the unit's label on this piece
 */

/**
 * What the scene reads of a model or a unit's drawable shape: the server's footprint as
 * GeoJSON, else a base around (x, y): round (diameter or radius) or a rectangle (width, depth,
 * facing), given on the model or in its `base`; wounds left of how many, by any of the names
 * a game's projection uses.
 * @typedef {Object} ModelShape
 * @property {string} [id]
 * @property {number} [x]
 * @property {number} [y]
 * @property {number} [facing]
 * @property {number} [width]
 * @property {number} [depth]
 * @property {number} [diameter]
 * @property {number} [radius]
 * @property {{diameter?:number, radius?:number, width?:number, depth?:number}} [base]
 * @property {Geometry|null} [footprint]
 * @property {Geometry} [polygon]
 * @property {Geometry} [geometry]
 * @property {Geometry} [base_polygon]
 * @property {string} [status]
 * @property {boolean} [removed]
 * @property {number} [wounds_left]
 * @property {number} [hp_left]
 * @property {number} [health_left]
 * @property {number} [wounds]
 * @property {number} [hp]
 * @property {number} [health]
 */
/**
 * A unit as the scene reads it: the server's unit view (types.js `Unit`), whose `footprint`
 * is a FeatureCollection; a unit may instead list its models with their shapes.
 * @typedef {Omit<import('../types.js').Unit, 'models'|'footprint'> & Omit<ModelShape, 'id'|'status'|'footprint'> & {label?:string,
 *   models?:number|ModelShape[], footprint?:{type?:string, features?:FootprintFeature[]}|null}} SceneUnit
 */
/** @typedef {{geometry?:Geometry, properties?:{role?:string, front_centre?:number[], facing?:number, index?:number, character?:number|boolean|null}}} FootprintFeature */

/** @typedef {{id:string, owner:number, label:string, status:string}} TrayEntry */
/** @typedef {{id:string, kind:string, geometry:Geometry, label:string}} TerrainPiece */
/** @typedef {{owner:number, geometry:Geometry}} Zone */
/** @typedef {{id:string, name:string, x:number, y:number, controller:number|null, label:string}} Objective */
/** @typedef {{pieces:Piece[], tray:TrayEntry[], terrain:TerrainPiece[], zones:Zone[], objectives?:Objective[]}} Scene */

/** Statuses that keep a unit off the table. */
export const OFF_TABLE = new Set(['undeployed', 'in_reserve', 'in_ambush', 'reserve', 'ambush', 'hidden']);
const GONE = new Set(['destroyed', 'removed', 'fled']);

/** @param {import('../types.js').GameState|null|undefined} state @returns {Scene} */
export function buildScene(state) {
  /** @type {Piece[]} */
  const pieces = [];
  /** @type {TrayEntry[]} */
  const tray = [];
  for (const unit of valuesOf(state?.units)) addUnit(unit, pieces, tray, state);
  for (const t of valuesOf(state?.tokens)) {
    if (!isNum(t.x) || !isNum(t.y)) continue;
    pieces.push({
      id: t.id,
      kind: 'token',
      owner: t.owner,
      label: t.label || t.id,
      rect: { x: t.x, y: t.y, facing: t.facing || 0, width: t.width || 1, depth: t.depth || 1 },
      facing: t.facing || 0,
      labelHere: true,
    });
  }
  const terrain = valuesOf(state?.terrain).map(terrainPiece).filter(Boolean);
  /** @type {Zone[]} */
  const zones = [];
  if (state?.stage === 'deployment' && state.deployment_zones) {
    for (const [owner, geometry] of Object.entries(state.deployment_zones)) {
      if (geometry?.type) zones.push({ owner: Number(owner), geometry });
    }
  }
  return { pieces, tray, terrain: /** @type {TerrainPiece[]} */ (terrain), zones, objectives: objectiveMarks(state) };
}

/** Two units of one name are numbered as everywhere else (`unitName`).
 * @param {SceneUnit|null|undefined} unit @param {Piece[]} pieces @param {TrayEntry[]} tray @param {import('../types.js').GameState|null|undefined} state */
function addUnit(unit, pieces, tray, state) {
  if (!unit || typeof unit !== 'object') return;
  const label = unit.label || (unit.name ? tableLabel(state, unit.id) : unit.datasheet || unit.id);
  const status = String(unit.status || 'on_table');
  if (GONE.has(status)) return;
  if (OFF_TABLE.has(status)) {
    tray.push({ id: unit.id, owner: unit.owner, label, status });
    return;
  }
  const before = pieces.length;
  if (unit.footprint?.type === 'FeatureCollection') {
    addFootprint(unit, label, pieces);
    if (pieces.length > before) return;
  }
  /** @type {ModelShape[]} */
  const models = Array.isArray(unit.models) ? unit.models : [];
  models.forEach((m, i) => {
    const shape = shapeOf(m);
    if (!shape || m.status === 'destroyed' || m.removed) return;
    pieces.push({
      id: unit.id,
      modelId: m.id ?? `${unit.id}.${i}`,
      kind: 'model',
      owner: unit.owner,
      label,
      facing: m.facing ?? unit.facing ?? 0,
      wounds: woundsOf(m),
      ...shape,
    });
  });
  if (pieces.length === before) {
    const shape = shapeOf(unit);
    if (shape) pieces.push({ id: unit.id, kind: 'model', owner: unit.owner, label, facing: unit.facing ?? 0, ...shape });
    else {
      tray.push({ id: unit.id, owner: unit.owner, label, status });
      return;
    }
  }
  pieces[before].labelHere = true;
}

/**
 * A unit footprint as the server sends it: a GeoJSON FeatureCollection whose first feature is
 * the unit boundary (with centre, front_centre and facing) and the rest the models' bases.
 * The boundary comes first so a click in a skirmish gap still selects the unit, and carries
 * the facing marker and the label.
 * @param {SceneUnit} unit @param {string} label @param {Piece[]} pieces
 */
function addFootprint(unit, label, pieces) {
  for (const f of unit.footprint?.features || []) {
    if (!f?.geometry?.type) continue;
    const props = f.properties || {};
    if (props.role === 'boundary') {
      const fc = Array.isArray(props.front_centre) ? props.front_centre : null;
      pieces.push({
        id: unit.id,
        kind: 'boundary',
        owner: unit.owner,
        label,
        geometry: f.geometry,
        labelHere: true,
        front: fc && isNum(props.facing) ? { x: fc[0], y: fc[1], facing: props.facing } : undefined,
      });
    } else {
      pieces.push({
        id: unit.id,
        modelId: `${unit.id}.${props.index ?? pieces.length}`,
        kind: 'model',
        owner: unit.owner,
        label,
        geometry: f.geometry,
        // The server gives the joined character's index (0 for the first one), or null.
        character: props.character !== null && props.character !== undefined && props.character !== false,
      });
    }
  }
}

/**
 * The drawable shape of a model (or a unit's whole footprint).
 * @param {ModelShape|SceneUnit} m @returns {{rect?:Rect, geometry?:Geometry, circle?:{x:number,y:number,r:number}}|null}
 */
export function shapeOf(m) {
  const geom = m.footprint || m.polygon || m.geometry || m.base_polygon;
  // (a unit's footprint is a FeatureCollection, drawn feature by feature by addFootprint)
  if (geom && typeof geom === 'object' && geom.type) return { geometry: /** @type {Geometry} */ (geom) };
  if (!isNum(m.x) || !isNum(m.y)) return null;
  const base = m.base && typeof m.base === 'object' ? m.base : m;
  const diameter = base.diameter ?? (isNum(base.radius) ? base.radius * 2 : undefined);
  if (isNum(diameter)) return { circle: { x: m.x, y: m.y, r: diameter / 2 } };
  if (isNum(base.width) && isNum(base.depth)) {
    return { rect: { x: m.x, y: m.y, facing: m.facing || 0, width: base.width, depth: base.depth } };
  }
  return null;
}

/** @param {ModelShape} m @returns {string|undefined} */
function woundsOf(m) {
  const left = m.wounds_left ?? m.hp_left ?? m.health_left;
  const max = m.wounds ?? m.hp ?? m.health;
  if (!isNum(left)) return undefined;
  return isNum(max) ? `${left}/${max}` : String(left);
}

/** @param {import('../types.js').Terrain|null|undefined} t @returns {TerrainPiece|null} */
function terrainPiece(t) {
  if (!t || typeof t !== 'object') return null;
  let geometry = t.geometry || t.polygon || t.footprint || t.points;
  if (Array.isArray(geometry)) geometry = { type: 'Polygon', coordinates: [geometry] };
  if (!geometry?.type) return null;
  return { id: String(t.id ?? ''), kind: String(t.kind || 'open'), geometry, label: t.label || t.name || t.kind || '' };
}

/** @template T @param {Record<string, T>|T[]|null|undefined} coll @returns {T[]} */
function valuesOf(coll) {
  if (!coll) return [];
  return Array.isArray(coll) ? coll : Object.values(coll);
}

/** @param {unknown} v @returns {v is number} */
function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}
