// Entombed Beneath the Sands (whfb8, seed 002) as the client shows it: the marker, the path the
// scatter and artillery dice moved it, and where the unit waits to be placed. Pure, no DOM,
// tested under node. The server decides every rule (where the marker lands, whether the unit
// may emerge at a placement); this module only turns its events and state into shapes and words.

import { round2 } from './transform.js';

/** @typedef {{x:number, y:number}} Pt */
/** @typedef {{x:number, y:number, facing:number}} Placement */
/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').EntombedMarkerPayload} EntombedMarkerPayload */

/** Half the width of the drawn scatter path, inches. */
export const PATH_HALF_WIDTH_IN = 0.12;

/**
 * Where a drag from `start` to `w` puts a placement that was at `from`: moved by the drag's
 * delta rounded to 0.01 in, and `from` itself, to the last digit, when the pointer came back to
 * where it started. (The server's suggestion can touch the edge of what is legal, in base
 * contact or at exactly 1 in; rounding the placement itself could push it over.)
 * @param {Placement} from @param {Pt} start @param {Pt} w @returns {Placement}
 */
export function draggedPlacement(from, start, w) {
  return { x: from.x + round2(w.x - start.x), y: from.y + round2(w.y - start.y), facing: from.facing };
}

/**
 * The unit's pending emergence from the state (`entombed`), or null: `mode` "marker" (touch
 * the marker), "enemy" (flush against that enemy's front, charging) or "edge" (from a table
 * edge after a Mishap), with the suggested placement and the unit's outline.
 * @param {GameState|null|undefined} state @param {string} unitId
 * @returns {{mode:string, marker:number[]|null, enemy:string|null, edge:string|null, suggested:Placement|null, outline:number[][]|null}|null}
 */
export function pendingEmergence(state, unitId) {
  const e = state?.entombed?.[unitId];
  if (!e || typeof e !== 'object') return null;
  return {
    mode: String(e.mode), marker: Array.isArray(e.marker) ? e.marker : null, enemy: e.enemy ?? null,
    edge: e.edge ?? null, suggested: e.suggested ?? null, outline: Array.isArray(e.outline) ? e.outline : null,
  };
}

/**
 * The newest `entombed_marker` payload of a unit in the log, or null.
 * @param {{type:string, payload:Record<string, unknown>|null|undefined}[]} history @param {string} unitId
 * @returns {EntombedMarkerPayload|null}
 */
export function lastMarker(history, unitId) {
  let found = null;
  for (const ev of history || []) if (ev.type === 'entombed_marker' && ev.payload?.unit === unitId) found = /** @type {EntombedMarkerPayload} */ (ev.payload);
  return found;
}

/**
 * A thin polygon along the path chosen point -> where the dice put it -> where it was put clear
 * (GeoJSON MultiPolygon), or null when the marker never moved.
 * @param {EntombedMarkerPayload|null|undefined} p an `entombed_marker` payload
 * @returns {import('../types.js').Geometry|null}
 */
export function scatterPath(p) {
  if (!p || !Array.isArray(p.chosen)) return null;
  const pts = [p.chosen, p.landed, p.marker].filter((q) => Array.isArray(q));
  /** @type {number[][][][]} */
  const polys = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const [ax, ay] = pts[i];
    const [bx, by] = pts[i + 1];
    const len = Math.hypot(bx - ax, by - ay);
    if (len < 1e-6) continue;
    const nx = (-(by - ay) / len) * PATH_HALF_WIDTH_IN;
    const ny = ((bx - ax) / len) * PATH_HALF_WIDTH_IN;
    polys.push([[[ax + nx, ay + ny], [bx + nx, by + ny], [bx - nx, by - ny], [ax - nx, ay - ny], [ax + nx, ay + ny]]]);
  }
  return polys.length ? { type: 'MultiPolygon', coordinates: polys } : null;
}

/**
 * What a marker was put clear of, by name: a unit's name, a terrain piece's label or kind.
 * @param {GameState|null|undefined} state @param {string} id
 */
export function pieceName(state, id) {
  const unit = state?.units?.[id];
  if (unit) return String(unit.name || id);
  const t = (Array.isArray(state?.terrain) ? state.terrain : []).find((x) => x?.id === id);
  if (!t) return 'a piece of terrain';
  const kind = String(t.kind || 'terrain').replace(/_/g, ' ');
  return t.label ? String(t.label) : `${kind[0].toUpperCase()}${kind.slice(1)} terrain`;
}

/**
 * The dice of a marker in words (`state` names what it was put clear of).
 * @param {EntombedMarkerPayload|null|undefined} p an `entombed_marker` payload @param {GameState|null} [state]
 */
export function markerWords(p, state) {
  if (!p) return '';
  if (p.misfire) return 'Misfire: no emergence, Mishap';
  const moved = p.hit ? 'Hit: the marker stays' : `arrow ${Math.round(p.direction ?? 0)}°, ${p.scattered} in`;
  const clear = Array.isArray(p.moved_off) && p.moved_off.length
    ? `; put 1 in clear of ${p.moved_off.map((/** @type {string} */ id) => (state ? pieceName(state, id) : id)).join(', ')}` : '';
  const where = p.outcome === 'enemy' ? '; under an enemy: emerge against its front, charging' : p.outcome === 'mishap' ? '; no room: Mishap' : '';
  return `${moved}${clear}${where}`;
}

/** The server's table edges (south is y = 0) in the words the table shows: the long edges are
 * labelled with their player. */
const EDGE_WORDS = /** @type {Record<string, string>} */ ({
  south: "south table edge (Player 1's)", north: "north table edge (Player 2's)",
  east: 'east (short) table edge', west: 'west (short) table edge',
});

/** A table edge in words. @param {string|null|undefined} edge */
export function edgeWords(edge) {
  return EDGE_WORDS[String(edge)] || `${edge} table edge`;
}

/**
 * What the tool's hint says for a pending emergence.
 * @param {{mode:string, edge:string|null}|null} pending @param {string} name
 */
export function placingHint(pending, name) {
  const who = name ? `${name}: ` : '';
  if (!pending) return `${who}click the table to place the marker (not in Impassable Terrain, more than 1 in from any unit); the dice scatter it (Esc cancels).`;
  const where = pending.mode === 'enemy' ? 'flush against the enemy\'s front (it counts as charging)'
    : pending.mode === 'edge' ? `with its rear edge on the ${edgeWords(pending.edge)}, facing in`
      : 'touching the marker, facing any way';
  return `${who}drag the ghost ${where}; R turns it; click it or press Enter to emerge (Esc leaves it for later).`;
}

/**
 * Every Entombed marker still waiting for its unit, as a table overlay every viewer sees (the
 * owner's Emerge tool draws its own as well): the scatter from the chosen point to where the
 * marker stands, labelled with the unit's name. Pure.
 * @param {GameState|null|undefined} state
 * @param {{type:string, payload:Record<string, unknown>|null|undefined}[]} history
 * @returns {{points:number[][], label:string, seat:number, alpha:number}[]}
 */
export function entombedOverlays(state, history) {
  const out = [];
  for (const unitId of Object.keys(state?.entombed || {})) {
    const pending = pendingEmergence(state, unitId);
    if (!pending?.marker) continue;
    const p = lastMarker(history, unitId);
    const path = [p?.chosen, p?.landed, pending.marker]
      .filter((q) => Array.isArray(q))
      .filter((q, i, all) => i === 0 || q[0] !== all[i - 1][0] || q[1] !== all[i - 1][1]);
    const points = path.length >= 2 ? path : [pending.marker, pending.marker];
    const unit = state?.units?.[unitId];
    out.push({ points, label: `${pieceName(state, unitId)}: Entombed marker`, seat: Number(unit?.owner) || 0, alpha: 0.9 });
  }
  return out;
}
