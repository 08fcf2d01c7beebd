// The Measure tool: click a point or a piece, then another; the line follows the pointer in
// between. The server measures (edge to edge between pieces) and, for the finished measure of
// a player, shows it to the table. Other players' shared measures arrive as `overlay` frames
// and fade out (SharedMeasures).

import { Handler, Tool } from './handler.js';
import { LatestOnly } from '../net.js';
import { round2 } from '../view/transform.js';
import { measureLabel, errorText } from '../format.js';
import { QUESTION_INTERVAL_MS } from '../moves.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').MeasureResult} MeasureResult */
/** @typedef {string|Pt} End  a piece id, or a point */
/** @typedef {{from:End|null, to:End|null, points:number[][], label:string, fixed:boolean, result?:MeasureResult}} Measure */
/** @typedef {{from:End, to:End, share:boolean}} MeasureQuestion */

/** How long another player's shared measurement stays, and the last part of it fading. */
export const OVERLAY_MS = 5000;
export const OVERLAY_FADE_MS = 1500;

/** Opacity of an overlay `age` ms old: solid, then fading out over the last OVERLAY_FADE_MS.
 * @param {number} age */
export function overlayAlpha(age) {
  const left = OVERLAY_MS - age;
  return Math.max(0, Math.min(1, left / OVERLAY_FADE_MS));
}

/** How far off the table a measured point may lie (the server refuses points further out). */
const TABLE_MARGIN_IN = 12;

export class MeasureTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The measurement on the table; it stays after the tool is left, until Esc. @type {Measure|null} */
    this.measure = null;
    /** A question waits for the next frame. */
    this.wanted = false;
    /** @type {LatestOnly<MeasureQuestion, MeasureResult>} */
    this.measurer = new LatestOnly(
      (q) => table.conn.measure(q.from, q.to, q.share),
      (res, q) => this.onMeasure(res, q),
      (err) => table.toast(`Measure: ${errorText(err)}`, 'error'),
      { minIntervalMs: QUESTION_INTERVAL_MS },
    );
  }

  get enterToast() {
    return 'Measure: click a point or a unit, then another. Players share it with the table.';
  }

  hint() {
    return this.measure?.from && !this.measure.fixed
      ? 'Click the second point or unit (Esc to stop).'
      : 'Click a point, a unit or a token to measure from.';
  }

  addHooks() {
    this.table.tools.los.clear();
    this.measure = { from: null, to: null, points: [], label: '', fixed: false };
  }

  /** Take the measurement off the table. */
  clear() {
    this.measure = null;
  }

  /** The pointer as a measure point: rounded, and kept within the margin off the table.
   * @param {Pt} w @returns {Pt} */
  inReach(w) {
    const bf = this.table.store.state?.battlefield || { width: 72, depth: 48 };
    /** @param {number} v @param {number} hi */
    const clamp = (v, hi) => round2(Math.min(Math.max(v, -TABLE_MARGIN_IN), hi + TABLE_MARGIN_IN));
    return { x: clamp(w.x, bf.width), y: clamp(w.y, bf.depth) };
  }

  /** @param {Pt} w @param {string|null} hit */
  tap(w, hit) {
    const m = this.measure || (this.measure = { from: null, to: null, points: [], label: '', fixed: false });
    const where = hit || this.inReach(w);
    if (!m.from || m.fixed) {
      Object.assign(m, { from: where, to: null, points: [], label: '', fixed: false });
    } else {
      m.to = where;
      m.fixed = true;
      this.wanted = true;
    }
    this.table.redraw();
    return true;
  }

  /** From or to a piece picked in the units list, as if clicked. @param {string} id */
  pickPiece(id) {
    this.tap({ x: 0, y: 0 }, id);
    this.table.onChange();
    return true;
  }

  /** The line follows the pointer (not shared: only the final click is). @param {Pt} w @param {string|null} hit */
  hover(w, hit) {
    const m = this.measure;
    if (!m?.from || m.fixed) return;
    m.to = hit || this.inReach(w);
    this.wanted = true;
    this.table.redraw();
  }

  frame() {
    const m = this.measure;
    if (!this.wanted || !m?.from || !m.to) return;
    this.wanted = false;
    // Only the finished measurement (the second click) is shared with the table.
    this.measurer.offer({ from: m.from, to: m.to, share: Boolean(m.fixed && this.table.store.seat !== null) });
  }

  /** @param {MeasureResult} res @param {MeasureQuestion} q */
  onMeasure(res, q) {
    const m = this.measure;
    if (!m || m.from !== q.from) return;
    m.points = Array.isArray(res.points) ? res.points : [];
    m.label = measureLabel(res.distance);
    m.result = res;
    this.table.onChange();
    this.table.redraw();
  }

  layers() {
    return { measure: this.measure && this.measure.points.length ? this.measure : null };
  }
}

/** @typedef {{points:number[][], label:string, seat:number, born:number}} Overlay */

/** Other players' shared measurements, drawn until they fade. Enabled for the table's life. */
export class SharedMeasures extends Handler {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {Overlay[]} */
    this.overlays = [];
    /** @type {ReturnType<typeof setTimeout>|null} */
    this.timer = null;
    /** @type {(() => void)|null} */
    this.unsubscribe = null;
  }

  addHooks() {
    this.unsubscribe = this.table.conn.onOverlay?.((msg) => this.add(msg)) || null;
  }

  removeHooks() {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.overlays = [];
  }

  /** An `overlay` frame. @param {{kind?:string, points?:unknown, seat?:unknown, distance?:unknown}} msg */
  add(msg) {
    if (!this.enabled || msg?.kind !== 'measure' || !Array.isArray(msg.points) || msg.points.length < 2) return;
    const seat = Number(msg.seat) || 0;
    this.overlays = this.overlays.filter((o) => o.seat !== seat);
    this.overlays.push({ points: msg.points, label: `${seat ? `P${seat}: ` : ''}${measureLabel(msg.distance)}`, seat, born: performance.now() });
    this.table.redraw();
  }

  /** The overlays still showing at `now`, with their opacity; schedules the next redraw. @param {number} now */
  live(now) {
    this.overlays = this.overlays.filter((o) => now - o.born < OVERLAY_MS);
    if (!this.overlays.length) return [];
    const out = this.overlays.map((o) => ({ ...o, alpha: overlayAlpha(now - o.born) }));
    if (out.some((o) => o.alpha < 1)) this.table.redraw();
    else if (!this.timer) {
      const next = Math.min(...this.overlays.map((o) => o.born + OVERLAY_MS - OVERLAY_FADE_MS)) - now;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.table.redraw();
      }, Math.max(16, next));
    }
    return out;
  }

  layers() {
    return { overlays: this.live(performance.now()) };
  }
}
