// Ambush (The 9th Age, seed 000) as the client shows it: the Battlefield Edge point under the
// pointer, the ghost of a placement from the unit's outline, the server's verdict in words, and
// each unit's ambush status from the state and the log. Pure, no DOM, tested under node. The
// server decides every rule (where a unit may arrive, whether it rolled to arrive): this module
// only turns its answers into shapes and words.

import { unitName } from '../format.js';

/** @typedef {{x:number, y:number}} Pt */
/** @typedef {{x:number, y:number, facing:number}} Placement  front-edge centre and facing */
/** @typedef {{width:number, depth:number}} Battlefield */

/** The marker the server puts on a unit that rolled to arrive this turn. */
export const READY = 'ambush_ready';
/** Degrees the ghost turns per R press. */
export const AMBUSH_TURN_STEP_DEG = 15;

/** @param {number} v @param {number} step */
function roundTo(v, step) {
  return Math.round(v / step) * step;
}

/**
 * The point of the Battlefield Edge nearest to `pt` (inside or outside the table), exactly on
 * the edge and to 0.1 in along it, with the edge it is on.
 * @param {Pt} pt @param {Battlefield} bf
 * @returns {{x:number, y:number, edge:'near'|'far'|'left'|'right'}}
 */
export function snapToEdge(pt, bf) {
  const x = Math.min(bf.width, Math.max(0, pt.x));
  const y = Math.min(bf.depth, Math.max(0, pt.y));
  const along = (/** @type {number} */ v, /** @type {number} */ max) => Math.min(max, Math.max(0, Math.round(roundTo(v, 0.1) * 10) / 10));
  /** @type {[number, 'near'|'far'|'left'|'right'][]} */
  const options = ([
    [y, 'near'],
    [bf.depth - y, 'far'],
    [x, 'left'],
    [bf.width - x, 'right'],
  ]);
  let best = options[0];
  for (const o of options) if (o[0] < best[0]) best = o;
  switch (best[1]) {
    case 'near': return { x: along(x, bf.width), y: 0, edge: 'near' };
    case 'far': return { x: along(x, bf.width), y: bf.depth, edge: 'far' };
    case 'left': return { x: 0, y: along(y, bf.depth), edge: 'left' };
    default: return { x: bf.width, y: along(y, bf.depth), edge: 'right' };
  }
}

/**
 * A point of the unit's own frame (front-edge centre at the origin, facing 0 = +y) on the
 * table at `pl` (counter-clockwise facing, as the server's geometry).
 * @param {number[]} p @param {Placement} pl @returns {[number, number]}
 */
export function toTable(p, pl) {
  const t = (pl.facing * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  return [pl.x + p[0] * c - p[1] * s, pl.y + p[0] * s + p[1] * c];
}

/**
 * The unit's outline (as `ambush_options` gives it, in the unit's frame) placed at `pl`.
 * @param {number[][]} outline @param {Placement} pl
 * @returns {{type:'Polygon', coordinates:number[][][]}}
 */
export function placeOutline(outline, pl) {
  const ring = outline.map((p) => toTable(p, pl));
  if (ring.length && (ring[0][0] !== ring[ring.length - 1][0] || ring[0][1] !== ring[ring.length - 1][1])) ring.push([...ring[0]]);
  return { type: 'Polygon', coordinates: [ring] };
}

/**
 * Centre (on the table), width and depth of the outline at `pl`.
 * @param {number[][]} outline @param {Placement} pl
 */
export function outlineBox(outline, pl) {
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const [x, y] of outline) {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x);
    minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  if (!Number.isFinite(minX)) return { x: pl.x, y: pl.y, width: 0, depth: 0 };
  const [x, y] = toTable([(minX + maxX) / 2, (minY + maxY) / 2], pl);
  return { x, y, width: maxX - minX, depth: maxY - minY };
}

/**
 * The placement turned `deg` counter-clockwise about the unit's centre.
 * @param {Placement} pl @param {number} deg @param {number[][]} outline @returns {Placement}
 */
export function turnPlacement(pl, deg, outline) {
  const c = outlineBox(outline, pl);
  const t = (deg * Math.PI) / 180;
  const dx = pl.x - c.x;
  const dy = pl.y - c.y;
  const facing = (((pl.facing + deg) % 360) + 360) % 360;
  return {
    x: round3(c.x + dx * Math.cos(t) - dy * Math.sin(t)),
    y: round3(c.y + dx * Math.sin(t) + dy * Math.cos(t)),
    facing: round3(facing),
  };
}

/** @param {number} v */
function round3(v) {
  return Math.round(v * 1000) / 1000;
}

/**
 * What to draw and say from an `ambush_options_result`: the placement to send (null when no
 * valid placement exists from this point), the ghost's verdict and words, and the requested
 * placement when the ghost was snapped away from it.
 * @param {import('../types.js').AmbushAnswer|null|undefined} res
 * @returns {{verdict:'legal'|'illegal', placement:Placement|null, shown:Placement|null, requested:Placement|null, snapped:boolean, swept:import('../types.js').Geometry|null, text:string}}
 */
export function ambushVerdict(res) {
  const req = res?.requested || {};
  const asked = isPlacement(req.placement) ? req.placement : null;
  const why = `${req.rule || 'Not allowed'}${req.obstacle_name ? ` (${req.obstacle_name} is in the way)` : ''}`;
  if (req.legal && asked) {
    const corners = typeof req.corners_within === 'number' ? ` · ${req.corners_within} of 4 corners within 6 in` : '';
    return { verdict: 'legal', placement: asked, shown: asked, requested: asked, snapped: false, swept: req.region || null, text: `Arrive here${corners}` };
  }
  if (isPlacement(res?.nearest)) {
    return { verdict: 'legal', placement: res.nearest, shown: res.nearest, requested: asked, snapped: true, swept: null, text: `Snapped to the nearest valid placement (${why})` };
  }
  return { verdict: 'illegal', placement: null, shown: asked, requested: asked, snapped: false, swept: req.region || null, text: `${why}: no valid placement from this point` };
}

/** @param {unknown} p @returns {p is Placement} */
function isPlacement(p) {
  const q = /** @type {Partial<Placement>|null} */ (p);
  return Boolean(q) && Number.isFinite(q?.x) && Number.isFinite(q?.y) && Number.isFinite(q?.facing);
}

/**
 * An ambush roll in words: its total, and with Maximised the kept and discarded dice.
 * @param {import('../types.js').AmbushRolledPayload|null|undefined} p an `ambush_rolled` payload
 */
export function ambushRollWords(p) {
  const roll = p?.roll;
  if (!roll || typeof roll !== 'object') return '?';
  const dice = Array.isArray(roll.dice) ? roll.dice : [];
  if (!p.maximised || dice.length < 2) return String(roll.total ?? '?');
  const kept = dice.filter((d) => d.kept).map((d) => d.face);
  const dropped = dice.filter((d) => !d.kept).map((d) => d.face);
  return `${roll.total} (Maximised x${p.maximised}: kept ${kept.join(', ')}, discarded ${dropped.join(', ')})`;
}

/**
 * @typedef {Object} AmbushEntry
 * @property {string} id
 * @property {number} owner
 * @property {string} name
 * @property {string} status      'in Ambush', 'rolled to arrive', 'stays in Ambush'; a unit kept
 *   off the table by another rule (whfb8 Entombed Beneath the Sands) names that rule instead
 * @property {boolean} ready       may arrive now (rolled to arrive this turn)
 * @property {string} detail       the roll in words, or the host a character arrives with
 * @property {import('../types.js').AmbushRolledPayload|null} roll  the ambush_rolled payload of this turn, if any
 * @property {string|null} host    the unit a character in Ambush arrives with
 * @property {string[]} riders     characters arriving with this unit
 */

/**
 * Every unit in Ambush with its status: rolled to arrive (the server's `ambush_ready`
 * marker), rolled and stays, or waiting; the roll of this turn from the log; the host a
 * character arrives with, and the characters riding with a unit (`ambush_hosts`).
 * @param {import('../types.js').GameState|null|undefined} state @param {import('../store.js').GameEvent[]} history
 * @returns {AmbushEntry[]}
 */
export function ambushEntries(state, history) {
  const units = state?.units || {};
  /** @type {Record<string, string>} */
  const hosts = state?.ambush_hosts || {};
  /** @type {Map<string, import('../types.js').AmbushRolledPayload>} */
  const rolls = new Map();
  /** Units that rolled to arrive but found no suitable point (`ambush_delayed`) after it. */
  const delayed = new Set();
  /** The rule each unit was kept off the table by (`unit_deployed`'s rule). @type {Map<string, string>} */
  const keptBy = new Map();
  for (const ev of history || []) {
    const p = ev.payload || {};
    // `unit` is the unit's id in the ambush rolls, the unit itself (`Unit.to_json`) in
    // `unit_deployed` and `unit_arrived`
    const id = typeof p.unit === 'string' ? p.unit : null;
    const unit = p.unit && typeof p.unit === 'object' ? /** @type {{id?:string}} */ (p.unit) : null;
    if (ev.type === 'unit_deployed' && unit?.id && typeof p.rule === 'string') keptBy.set(String(unit.id), p.rule);
    if (ev.type === 'ambush_rolled' && id) {
      rolls.set(id, /** @type {import('../types.js').AmbushRolledPayload} */ (p));
      delayed.delete(id);
    }
    if (ev.type === 'ambush_delayed' && id) delayed.add(id);
    if (ev.type === 'unit_arrived' && unit?.id) rolls.delete(unit.id);
  }
  /** @type {AmbushEntry[]} */
  const out = [];
  for (const u of Object.values(units)) {
    if (!u || u.status !== 'ambush') continue;
    const ready = Array.isArray(u.markers) && u.markers.includes(READY);
    const last = rolls.get(u.id);
    // A roll of this turn (the owner's Player Turn n is in Game Turn n).
    const roll = last && last.player_turn === state?.turn ? last : null;
    const host = hosts[u.id] ?? null;
    const riders = Object.entries(hosts).filter(([, h]) => h === u.id).map(([c]) => unitName(state, c));
    const rule = keptBy.get(String(u.id));
    const own = rule && rule !== 'Ambush' ? rule : null;
    const stays = roll && (!roll.arrives || delayed.has(u.id));
    const status = ready ? 'rolled to arrive'
      : stays ? (own ? `stays off the table (${own})` : 'stays in Ambush')
        : own || 'in Ambush';
    let detail = '';
    if (roll && delayed.has(u.id)) detail = 'no suitable point on the Battlefield Edge this turn';
    else if (roll) detail = roll.automatic ? `Player Turn ${roll.player_turn}: counts as a 3+` : `rolled ${ambushRollWords(roll)}, needs ${roll.needed ?? 3}+`;
    else if (host) detail = `with ${unitName(state, host)}`;
    out.push({ id: String(u.id), owner: Number(u.owner), name: unitName(state, u.id), status, ready, detail, roll, host, riders });
  }
  return out;
}

/**
 * The spells a player logged in the current player turn's Magic Phase: successes from the
 * state's `magic` record (what the Gremlins' rule reads), every attempt from the log.
 * @param {import('../types.js').GameState|null|undefined} state @param {import('../store.js').GameEvent[]} history @param {number} seat
 * @returns {{cast:number, failed:number, spells:{spell:string, outcome:string, caster:string|null}[]}}
 */
export function spellTally(state, history, seat) {
  const turn = state?.player_turn;
  const spells = (history || [])
    .filter((ev) => ev.type === 'spell_cast' && ev.payload?.seat === seat && ev.payload?.player_turn === turn)
    .map((ev) => ({ spell: String(ev.payload.spell), outcome: String(ev.payload.outcome), caster: typeof ev.payload.caster === 'string' ? ev.payload.caster : null }));
  const recorded = state?.magic?.[String(seat)]?.[String(turn)];
  const cast = typeof recorded === 'number' ? recorded : spells.filter((s) => s.outcome === 'success').length;
  return { cast, failed: spells.filter((s) => s.outcome !== 'success').length, spells };
}

/**
 * What the table draws for the tool besides the ghost: the 6 in zone, the chosen point, and
 * the placement the player asks for when the ghost was snapped away from it.
 * @param {{zone:import('../types.js').Geometry|null, point:{x:number, y:number}|null, fixed:boolean, outline:number[][]|null, requested:Placement|null, shown:Placement|null}|null} a
 * @returns {import('./render.js').AmbushOverlay|null}
 */
export function ambushOverlay(a) {
  if (!a || !a.point) return null;
  const r = a.requested;
  const s = a.shown;
  const apart = r && a.outline && (!s || Math.hypot(r.x - s.x, r.y - s.y) > 0.01 || Math.abs(r.facing - s.facing) > 0.01);
  return { zone: a.zone, point: a.point, fixed: a.fixed, requested: apart && r && a.outline ? placeOutline(a.outline, r) : null };
}
