// Inches <-> screen pixels for the battlefield: pan, zoom, fit and the seat flip.
//
// World coordinates are the server's: inches, (0,0)-(width,depth), x to the right, y away from
// player 1. On screen player 1's edge is at the bottom for seat 1 and spectators; seat 2 sees
// the table turned 180 degrees so their own edge is at the bottom. Screen coordinates are CSS
// pixels relative to the canvas' top-left corner.
//
// A view is a plain value; every function returns a new one. Nothing here touches the DOM.

/**
 * @typedef {Object} View
 * @property {number} width   battlefield width in inches
 * @property {number} depth   battlefield depth in inches
 * @property {number} scale   CSS pixels per inch
 * @property {number} ox      screen x of the table's top-left corner (as drawn)
 * @property {number} oy      screen y of the table's top-left corner (as drawn)
 * @property {boolean} flip   true when seat 2 looks at the table (turned 180 degrees)
 */

/** @typedef {{x:number, y:number}} Point */

export const MIN_SCALE = 2; // px per inch
export const MAX_SCALE = 200;

/**
 * @param {{width:number, depth:number}} battlefield
 * @param {{flip?:boolean, scale?:number, ox?:number, oy?:number}} [opts]
 * @returns {View}
 */
export function makeView(battlefield, opts = {}) {
  return {
    width: battlefield.width,
    depth: battlefield.depth,
    scale: opts.scale ?? 10,
    ox: opts.ox ?? 0,
    oy: opts.oy ?? 0,
    flip: Boolean(opts.flip),
  };
}

/** Whether a seat sees the table turned around. @param {number|null|undefined} seat */
export function flipForSeat(seat) {
  return seat === 2;
}

/**
 * World inches to screen pixels.
 * @param {View} v @param {number} x @param {number} y @returns {Point}
 */
export function toScreen(v, x, y) {
  const u = v.flip ? v.width - x : x;
  const w = v.flip ? y : v.depth - y;
  return { x: v.ox + u * v.scale, y: v.oy + w * v.scale };
}

/**
 * Screen pixels to world inches.
 * @param {View} v @param {number} sx @param {number} sy @returns {Point}
 */
export function toWorld(v, sx, sy) {
  const u = (sx - v.ox) / v.scale;
  const w = (sy - v.oy) / v.scale;
  return v.flip ? { x: v.width - u, y: w } : { x: u, y: v.depth - w };
}

/**
 * A world-space displacement to screen space (no translation).
 * @param {View} v @param {number} dx @param {number} dy @returns {Point}
 */
export function vecToScreen(v, dx, dy) {
  const s = v.flip ? -1 : 1;
  return { x: s * dx * v.scale, y: -s * dy * v.scale };
}

/**
 * The on-screen angle (radians, canvas convention: clockwise from +x) of a world facing in
 * degrees (0 = +y, counter-clockwise).
 * @param {View} v @param {number} facingDeg @returns {number}
 */
export function screenAngle(v, facingDeg) {
  const f = (facingDeg * Math.PI) / 180;
  const d = vecToScreen(v, -Math.sin(f), Math.cos(f));
  return Math.atan2(d.y, d.x);
}

/**
 * Move the view by a screen displacement.
 * @param {View} v @param {number} dx @param {number} dy @returns {View}
 */
export function pan(v, dx, dy) {
  return { ...v, ox: v.ox + dx, oy: v.oy + dy };
}

/**
 * Zoom by `factor` keeping the world point under screen (sx, sy) fixed.
 * @param {View} v @param {number} factor @param {number} sx @param {number} sy @returns {View}
 */
export function zoomAt(v, factor, sx, sy) {
  const scale = clamp(v.scale * factor, MIN_SCALE, MAX_SCALE);
  const k = scale / v.scale;
  return { ...v, scale, ox: sx - (sx - v.ox) * k, oy: sy - (sy - v.oy) * k };
}

/**
 * Scale and centre the whole battlefield inside a viewport of the given size.
 * @param {View} v @param {number} vw viewport width px @param {number} vh viewport height px
 * @param {number} [margin] px kept free on every side
 * @returns {View}
 */
export function fit(v, vw, vh, margin = 16) {
  const availW = Math.max(1, vw - 2 * margin);
  const availH = Math.max(1, vh - 2 * margin);
  const scale = clamp(Math.min(availW / v.width, availH / v.depth), MIN_SCALE, MAX_SCALE);
  return {
    ...v,
    scale,
    ox: (vw - v.width * scale) / 2,
    oy: (vh - v.depth * scale) / 2,
  };
}

/**
 * The world rectangle visible in a viewport, for culling.
 * @param {View} v @param {number} vw @param {number} vh
 * @returns {{minX:number, minY:number, maxX:number, maxY:number}}
 */
export function visibleWorld(v, vw, vh) {
  const a = toWorld(v, 0, 0);
  const b = toWorld(v, vw, vh);
  return {
    minX: Math.min(a.x, b.x),
    minY: Math.min(a.y, b.y),
    maxX: Math.max(a.x, b.x),
    maxY: Math.max(a.y, b.y),
  };
}

/** @param {number} x @param {number} lo @param {number} hi */
export function clamp(x, lo, hi) {
  return Math.min(hi, Math.max(lo, x));
}

/** Inches to the hundredth, as intents carry them. @param {number} v */
export function round2(v) {
  return Math.round(v * 100) / 100;
}
