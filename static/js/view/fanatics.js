// Night Goblin Fanatics (whfb8, seed 003) as the client shows them: the owner's mark on the
// units that conceal Fanatics (the server sends `concealed` to the owner only), the releases
// waiting for a choice, and a Fanatic's whirl as a path and in words, and animated on the
// table. Pure, no DOM, tested under node. The server decides every rule; this module only
// reads its state and events.

import { toScreen } from './transform.js';
import { inches, unitName } from '../format.js';

/** A whirl's length: the dice's whole inches as rolled, a stopped one to 0.1 in (one rounding). @param {unknown} d */
function whirlInches(d) {
  const n = Number(d);
  return Number.isInteger(n) ? `${n} in` : inches(n);
}

/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').WhirlPayload} WhirlPayload */
/** @typedef {{type:string, payload:Record<string, unknown>|null|undefined}} LoggedEvent */

/** Half the width of the drawn whirl path, inches. */
export const WHIRL_HALF_WIDTH_IN = 0.49;

/**
 * How many Fanatics the viewer's unit conceals (0: none, or not the viewer's secret to know).
 * @param {GameState|null|undefined} state @param {string} unitId
 */
export function concealedCount(state, unitId) {
  const n = state?.concealed?.[unitId];
  return typeof n === 'number' && n > 0 ? n : 0;
}

/**
 * The releases `seat` must make now: [{unit, left, interrupted}].
 * @param {GameState|null|undefined} state @param {number|null} seat
 * @returns {{unit:string, left:number, interrupted:string}[]}
 */
export function releasesFor(state, seat) {
  if (seat === null || !Array.isArray(state?.fanatic_releases)) return [];
  return state.fanatic_releases
    .filter((r) => r && r.owner === seat && r.left > 0)
    .map((r) => ({ unit: String(r.unit), left: Number(r.left), interrupted: String(r.interrupted) }));
}

/**
 * What waits for the releases to be made, in words ("" when nothing does): the rest of a flee
 * or pursuit stopped at 8 in and what comes after it (the server's `resolution_waiting`).
 * @param {GameState|null|undefined} state
 */
export function waitingWords(state) {
  const waiting = Array.isArray(state?.resolution_waiting) ? state.resolution_waiting.map(String) : [];
  return waiting.length ? `Then: ${waiting.join('; then ')}.` : '';
}

/**
 * The releases other seats must make now, in words for everyone else (owner by seat number).
 * @param {GameState|null|undefined} state @param {number|null} seat @param {(id:string) => string} [name]
 * @returns {string[]}
 */
export function othersReleasing(state, seat, name = (id) => id) {
  if (!Array.isArray(state?.fanatic_releases)) return [];
  return state.fanatic_releases
    .filter((r) => r && r.owner !== seat && r.left > 0)
    .map((r) => `Waiting for player ${r.owner} to release ${r.left} Fanatic${r.left === 1 ? '' : 's'} from ${name(String(r.unit))}`);
}

/**
 * Where a release starts by default: the middle of the concealing unit's front edge, facing
 * its way (the owner may change both).
 * @param {import('../types.js').Unit|null|undefined} unit @returns {{x:number, y:number, facing:number}|null}
 */
export function defaultRelease(unit) {
  const p = unit?.placement;
  if (!p || typeof p.x !== 'number') return null;
  return { x: p.x, y: p.y, facing: p.facing ?? 0 };
}

/**
 * The band a Fanatic swept from `start` to `end` (GeoJSON Polygon), or null if it did not move.
 * @param {WhirlPayload|null|undefined} p a `fanatic_released` / `fanatic_moved` payload
 */
export function whirlPath(p) {
  if (!p || !Array.isArray(p.start) || !Array.isArray(p.end)) return null;
  const [ax, ay] = p.start;
  const [bx, by] = p.end;
  const len = Math.hypot(bx - ax, by - ay);
  if (len < 1e-6) return null;
  const nx = (-(by - ay) / len) * WHIRL_HALF_WIDTH_IN;
  const ny = ((bx - ax) / len) * WHIRL_HALF_WIDTH_IN;
  return { type: 'Polygon', coordinates: [[[ax + nx, ay + ny], [bx + nx, by + ny], [bx - nx, by - ny], [ax - nx, ay - ny], [ax + nx, ay + ny]]] };
}

const REMOVED = /** @type {Record<string, string>} */ ({
  terrain: 'removed: it hit terrain',
  fanatic: 'removed with the other Fanatic',
  table_edge: 'removed: off the table',
  double: 'removed: it rolled a double',
  contacted: 'removed: a unit moved into it',
});

/**
 * A whirl in words, for the combat report.
 * @param {WhirlPayload|null|undefined} p a `fanatic_released` / `fanatic_moved` payload
 * @param {(id:string) => string} [name]
 */
export function whirlWords(p, name = (id) => id) {
  if (!p) return '';
  const faces = Array.isArray(p.roll?.dice) ? p.roll.dice.map((d) => d.face ?? d).join(' + ') : '';
  const through = Array.isArray(p.through) && p.through.length ? ` through ${p.through.map(name).join(', ')}` : '';
  const gone = p.removed ? `; ${REMOVED[p.removed] ?? 'removed'}` : '';
  return `Fanatic ${faces ? `${faces}: ` : ''}${whirlInches(p.distance)}${through}${gone}`;
}

/**
 * The hits of a Fanatic on one unit in words.
 * @param {import('../types.js').FanaticHitsPayload|null|undefined} p a `fanatic_hits` payload @param {(id:string) => string} [name]
 */
export function hitWords(p, name = (id) => id) {
  if (!p) return '';
  return `${p.hits} S5 Armour Piercing (1) hit${p.hits === 1 ? '' : 's'} on ${name(String(p.target))}`;
}

/** How many of the newest events are searched for whirls to draw. */
export const WHIRLS_SHOWN_WITHIN = 30;

/**
 * The newest whirls as the table's line overlays (start to end, labelled, owner's colour),
 * drawn for every viewer.
 * @param {LoggedEvent[]} history
 * @returns {{points:number[][], label:string, seat:number, alpha:number}[]}
 */
export function whirlOverlays(history) {
  const out = [];
  const recent = (history || []).slice(-WHIRLS_SHOWN_WITHIN);
  // A Fanatic removed later (moved into, say) no longer stands where its whirl ended: its
  // line and label would only cover what is there now.
  const removedLater = new Map();
  recent.forEach((ev, i) => {
    if (ev.type === 'fanatic_removed') removedLater.set(String(/** @type {{unit?:unknown}} */ (ev.payload || {}).unit), i);
  });
  for (const [i, ev] of recent.entries()) {
    if (ev.type !== 'fanatic_released' && ev.type !== 'fanatic_moved') continue;
    const p = /** @type {WhirlPayload|null|undefined} */ (ev.payload);
    if (!p || !Array.isArray(p.start) || !Array.isArray(p?.end)) continue;
    if (!p.removed && (removedLater.get(String(p.unit?.id)) ?? -1) > i) continue;
    out.push({ points: [p.start, p.end], label: `Fanatic ${whirlInches(p.distance)}${p.removed ? ' (removed)' : ''}`, seat: Number(p.unit?.owner) || 0, alpha: 0.9 });
  }
  return out;
}

// --- the whirl animated on the table ----------------------------------------------------------

/** How long one Fanatic's token takes to travel its whirl on the table, ms. */
export const WHIRL_MS = 1600;
/** How long the end of a whirl (its hits, its removal) stays written on the table, ms. */
export const WHIRL_HOLD_MS = 2500;
/** At most this many drawn positions are kept per whirl (what a test or the console reads). */
const DRAWN_KEPT = 240;

/**
 * One Fanatic's whirl as the table animates it: its path, when it starts, the hits it made on
 * each unit it went through and why it was removed (null: it stays). `drawn` is every position
 * the token was drawn at, `finished` true once it reached the end of its path.
 * @typedef {{unit:string, start:number[], end:number[], born:number, through:string[],
 *   hits:Record<string, number>, removed:string|null, drawn:number[][], finished:boolean}} WhirlAnimation
 */

/**
 * The whirls to animate among events that just arrived (live, not the history a page loads),
 * one after another, each with the hits it made and its removal.
 * @param {LoggedEvent[]} events @param {number} now @param {WhirlAnimation[]} [running]
 * @returns {WhirlAnimation[]} the new animations
 */
export function whirlsFrom(events, now, running = []) {
  /** @type {WhirlAnimation[]} */
  const out = [];
  let at = Math.max(now, ...running.map((w) => w.born + WHIRL_MS));
  for (const ev of events || []) {
    const p = ev?.payload;
    const whirl = /** @type {WhirlPayload|null|undefined} */ (p);
    if ((ev.type === 'fanatic_released' || ev.type === 'fanatic_moved') && whirl && Array.isArray(whirl.start) && Array.isArray(whirl.end)) {
      out.push({
        unit: String(whirl.unit?.id ?? ''), start: whirl.start.map(Number), end: whirl.end.map(Number), born: at,
        through: Array.isArray(whirl.through) ? whirl.through.map(String) : [], hits: {}, removed: whirl.removed ?? null,
        drawn: [], finished: false,
      });
      at += WHIRL_MS;
    } else if (ev.type === 'fanatic_hits' && p) {
      const w = [...out].reverse().find((x) => x.unit === String(p.unit) && x.through.includes(String(p.target)));
      if (w) w.hits[String(p.target)] = Number(p.hits) || 0;
    } else if (ev.type === 'fanatic_removed' && p) {
      const w = [...out].reverse().find((x) => x.unit === String(p.unit));
      if (w && !w.removed) w.removed = String(p.reason);
    }
  }
  return out;
}

/**
 * Where the token of `w` is at `now` (eased along its straight path) and how far along (0..1);
 * null before it starts.
 * @param {WhirlAnimation} w @param {number} now @returns {{at:number[], t:number}|null}
 */
export function whirlAt(w, now) {
  if (now < w.born) return null;
  const t = Math.min(1, (now - w.born) / WHIRL_MS);
  const e = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
  return { at: [w.start[0] + (w.end[0] - w.start[0]) * e, w.start[1] + (w.end[1] - w.start[1]) * e], t };
}

/** The words written at the end of a whirl. @param {WhirlAnimation} w @param {(id:string) => string} name */
export function whirlEndWords(w, name) {
  const hits = Object.entries(w.hits).map(([id, n]) => `${n} hit${n === 1 ? '' : 's'} on ${name(id)}`);
  const gone = w.removed ? (REMOVED[w.removed] ?? 'removed') : '';
  return [...hits, gone].filter(Boolean);
}

/**
 * Draw the running whirls: the path travelled so far, the token on it (a disc marked "F"), and
 * at the end the hits in words and a cross when it was removed. Keeps `holder.whirls` to the
 * live ones. Returns true while something still moves or is shown (ask for another frame).
 * @param {CanvasRenderingContext2D} ctx @param {import('./transform.js').View} v
 * @param {{whirls?:WhirlAnimation[]}} holder @param {GameState|null|undefined} state @param {number} now
 */
export function drawWhirls(ctx, v, holder, state, now) {
  const toScreenAt = (/** @type {number} */ x, /** @type {number} */ y) => toScreen(v, x, y);
  const live = (holder.whirls || []).filter((w) => now - w.born < WHIRL_MS + WHIRL_HOLD_MS);
  holder.whirls = live;
  const name = (/** @type {string} */ id) => (state?.units?.[id] ? unitName(state, id) : 'a unit');
  const r = WHIRL_HALF_WIDTH_IN * v.scale;
  for (const w of live) {
    const pos = whirlAt(w, now);
    if (!pos) continue;
    if (w.drawn.length < DRAWN_KEPT) w.drawn.push(pos.at);
    if (pos.t >= 1) w.finished = true;
    const a = toScreenAt(w.start[0], w.start[1]);
    const b = toScreenAt(pos.at[0], pos.at[1]);
    ctx.save();
    ctx.setLineDash([6, 4]);
    ctx.strokeStyle = '#ffe14d';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = '#3a7d2c';
    ctx.strokeStyle = '#111';
    ctx.beginPath();
    ctx.arc(b.x, b.y, Math.max(5, r), 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
    ctx.fillStyle = '#fff';
    ctx.font = '700 11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('F', b.x, b.y + 0.5);
    if (pos.t >= 1) {
      if (w.removed) {
        const k = Math.max(6, r * 1.4);
        ctx.strokeStyle = '#ff5050';
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.moveTo(b.x - k, b.y - k);
        ctx.lineTo(b.x + k, b.y + k);
        ctx.moveTo(b.x + k, b.y - k);
        ctx.lineTo(b.x - k, b.y + k);
        ctx.stroke();
      }
      const lines = whirlEndWords(w, name);
      ctx.font = '600 12px system-ui, sans-serif';
      ctx.textAlign = 'left';
      lines.forEach((line, i) => {
        const y = b.y - Math.max(5, r) - 8 - (lines.length - 1 - i) * 15;
        ctx.lineWidth = 3;
        ctx.strokeStyle = '#111';
        ctx.strokeText(line, b.x + 8, y);
        ctx.fillStyle = '#fff';
        ctx.fillText(line, b.x + 8, y);
      });
    }
    ctx.restore();
  }
  return live.length > 0;
}

/** Fanatics whose token is animated now (their resting token is hidden meanwhile). @param {{whirls?:WhirlAnimation[]}} holder */
export function animatedFanatics(holder) {
  return (holder.whirls || []).filter((w) => !w.finished).map((w) => w.unit);
}

/** Which way a release's direction points, as the releasing player sees the table (facings
 * count counter-clockwise from Player 2's edge; seat 2 sees the table turned 180°).
 * @param {number|null|undefined} seat @returns {string} */
export function directionHint(seat) {
  return seat === 2
    ? 'Direction, as you see the table: 0° towards you, 90° to your right, 180° away from you, 270° to your left.'
    : 'Direction, as you see the table: 0° away from you, 90° to your left, 180° towards you, 270° to your right.';
}
