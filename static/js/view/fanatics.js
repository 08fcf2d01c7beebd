// Night Goblin Fanatics (whfb8, seed 003) as the client shows them: the owner's mark on the
// units that conceal Fanatics (the server sends `concealed` to the owner only), the releases
// waiting for a choice, and a Fanatic's whirl as a path and in words. Pure, no DOM, tested
// under node. The server decides every rule; this module only reads its state and events.

/** Half the width of the drawn whirl path, inches. */
export const WHIRL_HALF_WIDTH_IN = 0.49;

/**
 * How many Fanatics the viewer's unit conceals (0: none, or not the viewer's secret to know).
 * @param {any} state @param {string} unitId
 */
export function concealedCount(state, unitId) {
  const n = state?.concealed?.[unitId];
  return typeof n === 'number' && n > 0 ? n : 0;
}

/**
 * The releases `seat` must make now: [{unit, left, interrupted}].
 * @param {any} state @param {number|null} seat
 * @returns {{unit:string, left:number, interrupted:string}[]}
 */
export function releasesFor(state, seat) {
  if (seat === null || !Array.isArray(state?.fanatic_releases)) return [];
  return state.fanatic_releases
    .filter((/** @type {any} */ r) => r && r.owner === seat && r.left > 0)
    .map((/** @type {any} */ r) => ({ unit: String(r.unit), left: Number(r.left), interrupted: String(r.interrupted) }));
}

/**
 * Where a release starts by default: the middle of the concealing unit's front edge, facing
 * its way (the owner may change both).
 * @param {any} unit @returns {{x:number, y:number, facing:number}|null}
 */
export function defaultRelease(unit) {
  const p = unit?.placement;
  if (!p || typeof p.x !== 'number') return null;
  return { x: p.x, y: p.y, facing: p.facing ?? 0 };
}

/**
 * The band a Fanatic swept from `start` to `end` (GeoJSON Polygon), or null if it did not move.
 * @param {any} p a `fanatic_released` / `fanatic_moved` payload
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
});

/**
 * A whirl in words, for the combat report.
 * @param {any} p a `fanatic_released` / `fanatic_moved` payload
 * @param {(id:string) => string} [name]
 */
export function whirlWords(p, name = (id) => id) {
  if (!p) return '';
  const faces = Array.isArray(p.roll?.dice) ? p.roll.dice.map((/** @type {any} */ d) => d.face ?? d).join(' + ') : '';
  const through = Array.isArray(p.through) && p.through.length ? ` through ${p.through.map(name).join(', ')}` : '';
  const gone = p.removed ? `; ${REMOVED[p.removed] ?? 'removed'}` : '';
  return `Fanatic ${faces ? `${faces}: ` : ''}${p.distance} in${through}${gone}`;
}

/**
 * The hits of a Fanatic on one unit in words.
 * @param {any} p a `fanatic_hits` payload @param {(id:string) => string} [name]
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
 * @param {{type:string, payload:any}[]} history
 * @returns {{points:number[][], label:string, seat:number, alpha:number}[]}
 */
export function whirlOverlays(history) {
  const out = [];
  for (const ev of (history || []).slice(-WHIRLS_SHOWN_WITHIN)) {
    if (ev.type !== 'fanatic_released' && ev.type !== 'fanatic_moved') continue;
    const p = ev.payload;
    if (!Array.isArray(p?.start) || !Array.isArray(p?.end)) continue;
    out.push({ points: [p.start, p.end], label: `Fanatic ${p.distance} in${p.removed ? ' (removed)' : ''}`, seat: Number(p.unit?.owner) || 0, alpha: 0.9 });
  }
  return out;
}
