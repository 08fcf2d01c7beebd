// The table: the canvas, the view (pan, zoom, fit, the seat's side), the scene built from the
// store's state, and one frame drawn per animation frame. What gestures and keys do is up to
// the handlers (handlers/*.js, after Leaflet's L.Handler): the idle ones (handles, models,
// units, tokens, select) while no tool is picked, or the one tool `setMode` picked. The would-
// be move and the server's verdict on it are `moves` (moves.js). It never decides a rule:
// legality, distances and sight come from the server.

import { whirlOverlays, drawWhirls, animatedFanatics } from './view/fanatics.js';
import { entombedOverlays } from './view/entombed.js';
import { makeView, fit, pan, zoomAt, toWorld, toScreen, flipForSeat } from './view/transform.js';
import { topmost } from './view/hit.js';
import { buildScene } from './view/scene.js';
import { drawFrame } from './view/render.js';
import { drawOrderLayer } from './view/orders-layer.js';
import { attachGestures, attachKeys } from './input/gestures.js';
import { Moves } from './moves.js';
import { idleHandlers, toolHandlers } from './handlers/index.js';
import { SharedMeasures } from './handlers/measure.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./net.js').Connection} Connection */
/** @typedef {import('./types.js').Pt} Pt */
/** @typedef {import('./handlers/handler.js').Handler} Handler */
/** @typedef {import('./handlers/index.js').Mode} Mode */
/** @typedef {import('./handlers/index.js').Tools} Tools */
/** @typedef {(msg:string, kind?:'info'|'error'|'ok') => void} Toast */

/** Inches of tolerance when clicking small pieces. */
const CLICK_SLOP_IN = 0.15;
const ROTATE_STEP_DEG = 45;
/** Degrees per R press when turning a unit with the keyboard (a staged pivot). */
const PIVOT_KEY_STEP_DEG = 15;

export class Table {
  /**
   * @param {Object} o
   * @param {HTMLCanvasElement} o.canvas
   * @param {Store} o.store
   * @param {Connection} o.conn
   * @param {Toast} o.toast
   * @param {() => void} o.onChange    tool or selection changed (panels refresh)
   * @param {(show?:boolean) => void} o.toggleHelp
   * @param {() => void} [o.endPhase]  E: focus the End phase button
   */
  constructor(o) {
    this.canvas = o.canvas;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (o.canvas.getContext('2d', { alpha: false }));
    this.store = o.store;
    this.conn = o.conn;
    this.toast = o.toast;
    this.onChange = o.onChange;
    this.toggleHelp = o.toggleHelp;
    /** E: take the keyboard to End phase (Enter then presses it). */
    this.endPhase = o.endPhase;
    /** @type {import('./view/transform.js').View|null} */
    this.view = null;
    this.vw = 0;
    this.vh = 0;
    this.dpr = 1;
    this.fitted = false;
    /** @type {import('./view/scene.js').Scene} */
    this.scene = { pieces: [], tray: [], terrain: [], zones: [] };
    /** @type {unknown} the state `scene` was built from */
    this.sceneOf = null;
    /** @type {string|null} */
    this.selected = null;
    /** @type {string|null} */
    this.hover = null;
    /** Swept areas flashing on the table (ui/orders.js flashEvents; view/orders-layer.js). @type {{geometry:import('./types.js').Geometry, born:number, kind:string}[]} */
    this.flashes = [];
    /** Fanatics' whirls animated on the table (ui/orders.js flashEvents; view/fanatics.js). @type {import('./view/fanatics.js').WhirlAnimation[]} */
    this.whirls = [];
    /** The last whirls animated, kept after they end (what was drawn: a test or the console reads it). @type {import('./view/fanatics.js').WhirlAnimation[]} */
    this.whirlsShown = [];
    /** When set (by a test or the console): each frame's rAF timestamp and draw time, ms. @type {{stamps:number[], draw:number[]}|null} */
    this.frameStats = null;
    this.frameRequested = false;
    this.moves = new Moves(this);
    this.handlers = idleHandlers(this);
    this.tools = toolHandlers(this);
    this.shared = new SharedMeasures(this);
    /** @type {Mode} */
    this.mode = 'idle';
    /** The handler that took the current press-and-drag. @type {Handler|null} */
    this.dragger = null;
    for (const h of Object.values(this.handlers)) h.enable();
  }

  mount() {
    attachGestures(this.canvas, {
      tap: (pt) => this.tap(pt),
      dragStart: (pt, e) => this.dragStart(pt, e),
      dragMove: (pt) => this.dragger?.dragMove(this.world(pt)),
      dragEnd: () => this.dragEnd(),
      dragCancel: () => this.cancelDrag(),
      pan: (dx, dy) => this.panBy(dx, dy),
      zoom: (k, pt) => this.zoomBy(k, pt),
      hover: (pt) => this.hoverAt(pt),
    });
    attachKeys(window, (cmd, e) => this.command(cmd, e), { home: this.canvas });
    this.shared.enable();
    new ResizeObserver(() => this.resize()).observe(/** @type {Element} */ (this.canvas.parentElement));
    this.store.subscribe(() => this.onStore());
    this.resize();
  }

  /** The tool picked, or null when idle. */
  get tool() {
    return this.mode === 'idle' ? null : this.tools[this.mode];
  }

  /** The enabled handlers, in the order they are asked. @returns {Handler[]} */
  get active() {
    const tool = this.tool;
    return tool ? [tool] : Object.values(this.handlers).filter((h) => h.enabled);
  }

  /** A press-and-drag is in progress. */
  get dragging() {
    return this.dragger !== null;
  }

  // Read-only views of the handlers' state, for the console and the browser tests.
  get ghost() { return this.moves.ghost; }
  get measure() { return this.tools.measure.measure; }
  get los() { return this.tools.los.los; }
  get ambush() { return this.tools.ambush.ambush; }
  get overlays() { return this.shared.overlays; }
  handles() { return this.handlers.handles.handles(); }

  // --- view -------------------------------------------------------------------------------------

  resize() {
    const box = /** @type {Element} */ (this.canvas.parentElement).getBoundingClientRect();
    this.vw = Math.max(1, Math.floor(box.width));
    this.vh = Math.max(1, Math.floor(box.height));
    this.dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.vw * this.dpr);
    this.canvas.height = Math.round(this.vh * this.dpr);
    this.canvas.style.width = `${this.vw}px`;
    this.canvas.style.height = `${this.vh}px`;
    if (this.view && !this.fitted) this.fitView();
    this.redraw();
  }

  fitView() {
    if (!this.view) return;
    this.view = fit(this.view, this.vw, this.vh, 24);
    this.fitted = true;
    this.redraw();
  }

  /** @param {number} dx @param {number} dy */
  panBy(dx, dy) {
    if (!this.view) return;
    this.view = pan(this.view, dx, dy);
    this.redraw();
  }

  /** @param {number} k @param {Pt} pt */
  zoomBy(k, pt) {
    if (!this.view) return;
    this.view = zoomAt(this.view, k, pt.x, pt.y);
    this.redraw();
  }

  /** Canvas pixels to world inches (the view is set whenever input arrives). @param {Pt} pt @returns {Pt} */
  world(pt) {
    return this.view ? toWorld(this.view, pt.x, pt.y) : { x: 0, y: 0 };
  }

  /** World inches to page (client) pixels, for tests and tooltips. @param {number} x @param {number} y */
  clientPoint(x, y) {
    const s = this.view ? toScreen(this.view, x, y) : { x: 0, y: 0 };
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + s.x, y: r.top + s.y };
  }

  // --- state ------------------------------------------------------------------------------------

  onStore() {
    const st = this.store.state;
    if (!st) return;
    const bf = st.battlefield || { width: 72, depth: 48 };
    const flip = flipForSeat(this.store.seat);
    if (!this.view || this.view.width !== bf.width || this.view.depth !== bf.depth || this.view.flip !== flip) {
      this.view = makeView(bf, { flip });
      this.fitted = false;
      this.fitView();
    }
    this.moves.onStore();
    if (this.selected && !this.pieceById(this.selected)) this.selected = null;
    this.redraw();
  }

  currentScene() {
    if (this.sceneOf !== this.store.state) {
      this.scene = buildScene(this.store.state);
      this.sceneOf = this.store.state;
    }
    return this.scene;
  }

  /** @param {string} id */
  pieceById(id) {
    return this.currentScene().pieces.find((p) => p.id === id) || null;
  }

  /** The id of the piece at a world point, or null. @param {Pt} w */
  pieceAt(w) {
    return topmost(this.currentScene().pieces, w.x, w.y, CLICK_SLOP_IN);
  }

  /** The token (not unit) the seat may move, or null. @param {string|null} id */
  ownToken(id) {
    const t = id ? this.store.state?.tokens?.[id] : null;
    return t && this.store.seat !== null && t.owner === this.store.seat ? t : null;
  }

  /** The seat's own unit on the table, or null. @param {string|null} id */
  ownUnit(id) {
    const u = id ? this.store.state?.units?.[id] : null;
    return u && this.store.seat !== null && u.owner === this.store.seat && u.status === 'on_table' ? u : null;
  }

  /** @param {string|null} id */
  select(id) {
    if (id !== this.selected && this.moves.ghost?.phase === 'staged') this.moves.clearGhost();
    this.selected = id;
    this.onChange();
    this.redraw();
  }

  // --- drawing ----------------------------------------------------------------------------------

  redraw() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame((ts) => this.frame(ts));
  }

  /** @param {number} ts */
  frame(ts) {
    this.frameRequested = false;
    // Questions (previews, measures, ambush options) go out at most once a frame.
    for (const h of Object.values(this.tools)) h.frame();
    this.moves.flush();
    if (!this.view) return;
    const t0 = this.frameStats ? performance.now() : 0;
    const ghost = this.moves.ghost;
    const layers = [this.shared, ...Object.values(this.tools), ...Object.values(this.handlers)].map((h) => h.layers());
    // whfb8 Fanatics' whirls (seed 003) and Entombed markers waiting for their unit (seed
    // 002), drawn for everyone beside the shared measures.
    const whirls = [...whirlOverlays(this.store.history), ...entombedOverlays(this.store.state, this.store.history)];
    if (whirls.length) layers.push({ overlays: [...(this.shared.layers().overlays || []), ...whirls] });
    drawFrame(this.ctx, Object.assign({
      view: this.view,
      vw: this.vw,
      vh: this.vh,
      dpr: this.dpr,
      scene: this.currentScene(),
      selected: this.selected,
      hover: this.hover,
      hidden: ghost?.id || this.whirls.length ? new Set([...(ghost?.id ? [ghost.id] : []), ...animatedFanatics(this)]) : undefined,
      ghost,
      measure: null,
      los: null,
    }, ...layers));
    if (drawOrderLayer(this.ctx, this.view, this.store.state, this, performance.now())) this.redraw();
    if (drawWhirls(this.ctx, this.view, this, this.store.state, performance.now())) this.redraw();
    if (this.frameStats) {
      this.frameStats.stamps.push(ts);
      this.frameStats.draw.push(performance.now() - t0);
    }
  }

  // --- input: passed to the enabled handlers ------------------------------------------------

  /** @param {Pt} pt */
  tap(pt) {
    if (!this.view) return;
    const w = this.world(pt);
    const hit = this.pieceAt(w);
    for (const h of this.active) if (h.tap(w, hit)) return;
  }

  /** @param {Pt} pt @param {{shiftKey?:boolean}} [e] @returns {boolean} true: a handler took it (false: pan) */
  dragStart(pt, e) {
    if (this.moves.ghost?.refused) this.moves.clearGhost();
    if (!this.view) return false;
    // No new move while one is on its way (a tool minds its own ghost).
    if (!this.tool && this.moves.committing) return false;
    const w = this.world(pt);
    this.dragger = this.active.find((h) => h.dragStart(w, e)) || null;
    return this.dragger !== null;
  }

  dragEnd() {
    const h = this.dragger;
    this.dragger = null;
    h?.dragEnd();
  }

  cancelDrag() {
    const h = this.dragger;
    this.dragger = null;
    if (h) h.dragCancel();
    else if (!this.moves.committing) this.moves.clearGhost();
  }

  /** @param {Pt|null} pt */
  hoverAt(pt) {
    if (!this.view) return;
    const w = pt ? this.world(pt) : null;
    const id = w ? this.pieceAt(w) : null;
    const tool = this.tool;
    if (tool && w) tool.hover(w, id);
    let cursor = tool ? 'crosshair' : null;
    if (!tool && w) for (const h of this.active) cursor = cursor || h.cursor(w, id);
    this.canvas.style.cursor = cursor || 'default';
    if (id !== this.hover) {
      this.hover = id;
      this.redraw();
    }
  }

  /** Pick a tool (handlers/index.js) or go back to 'idle'. @param {Mode} mode */
  setMode(mode) {
    if (this.moves.ghost && !this.moves.committing) this.moves.clearGhost();
    this.tool?.disable();
    this.dragger = null;
    this.mode = mode;
    const tool = this.tool;
    for (const h of Object.values(this.handlers)) {
      if (tool) h.disable();
      else h.enable();
    }
    tool?.enable();
    if (tool?.enterToast) this.toast(tool.enterToast, 'info');
    this.canvas.style.cursor = tool ? 'crosshair' : 'default';
    this.onChange();
    this.redraw();
  }

  /** A key (input/gestures.js) or a panel button. @param {string} cmd @param {{shiftKey?:boolean}} [e] */
  command(cmd, e) {
    const tool = this.tool;
    if (tool?.command(cmd, e)) return;
    switch (cmd) {
      case 'measure':
        return this.setMode(this.mode === 'measure' ? 'idle' : 'measure');
      case 'los':
        return this.setMode(this.mode === 'los' ? 'idle' : 'los');
      case 'rotate':
      case 'rotateBack':
        return this.rotate(cmd === 'rotateBack' || e?.shiftKey ? -1 : 1);
      case 'confirm':
        if (tool?.confirm()) return;
        return this.moves.confirmStaged();
      case 'fit':
        return this.fitView();
      case 'remove':
        return this.handlers.tokens.removeSelected();
      case 'help':
        return this.toggleHelp();
      case 'cancel':
        return this.cancel();
      case 'endPhase':
        return this.endPhase?.();
    }
  }

  /** R: turn what is in hand — the tool's piece, a reform being dragged (90°), the selected
   * ranked unit (a staged pivot, 15°) or the selected token (45°). @param {1|-1} sign */
  rotate(sign) {
    if (this.tool?.rotate(sign)) return;
    if (this.dragger?.rotate(sign)) return;
    if (!this.dragger && !this.tool && this.handlers.handles.nudgePivot(PIVOT_KEY_STEP_DEG * sign)) return;
    this.handlers.tokens.rotateSelected(ROTATE_STEP_DEG * sign);
  }

  /** Esc: drop what is in hand, then the staged move, the tool, the measures, the selection. */
  cancel() {
    if (this.dragger && !this.tool) return this.cancelDrag();
    if (this.moves.ghost?.phase === 'staged') {
      this.moves.clearGhost();
      return this.onChange();
    }
    const { measure, los } = this.tools;
    if (this.tool) {
      measure.clear();
      los.clear();
      return this.setMode('idle');
    }
    if (measure.measure || los.los) {
      measure.clear();
      los.clear();
      this.onChange();
      return this.redraw();
    }
    this.toggleHelp(false);
    this.select(null);
  }
}
