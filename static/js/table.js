// The table: canvas, view, selection, unit moves (drags, wheel/pivot/reform handles, 40k
// model moves) and the tools (tools.js: place, measure, line of sight, deploy, charge).
// Turns gestures and keys into intents for the server and draws the store's state plus local
// overlays, once per animation frame. It never decides a rule: legality, distances and sight
// come from the server (`preview`, `measure`, `line_of_sight`).

import { makeView, fit, pan, zoomAt, toWorld, toScreen, flipForSeat } from './view/transform.js';
import { topmost } from './view/hit.js';
import { buildScene } from './view/scene.js';
import { drawFrame } from './view/render.js';
import { attachGestures, attachKeys } from './input/gestures.js';
import { LatestOnly } from './net.js';
import { TOOLS, emptyLos } from './tools.js';
import { drawOrderLayer } from './view/orders-layer.js';
import { chargeAckToast } from './ui/orders.js';
import {
  unitFrame, handlesOf, handleAt, wheelDegrees, pivotDegrees, reformFiles, rotateGeometry,
  reformOutline, modelIndexAt, stagedModels,
} from './view/manoeuvre.js';
import { ambushOverlay } from './view/ambush.js';
import { terrainOverlay } from './ui/terrain.js';
import { isLightTroops, centreHandle, lightReform } from './view/light.js';

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./net.js').Connection} Connection */
/** @typedef {import('./view/render.js').Ghost} Ghost */
/** @typedef {{x:number, y:number}} Pt */
/** @typedef {'idle'|keyof typeof TOOLS} Mode */

/** Inches of tolerance when clicking small pieces. */
const CLICK_SLOP_IN = 0.15;
const ROTATE_STEP_DEG = 45;
/** Spacing of previews and live measures: the server allows 20 messages a second a socket. */
const QUESTION_INTERVAL_MS = 80;
/** How long a refused move stays on the table in red with its reason. */
const REFUSED_GHOST_MS = 2500;
/** How long another player's shared measurement stays, and the last part of it fading. */
export const OVERLAY_MS = 5000;
export const OVERLAY_FADE_MS = 1500;
/** Degrees per R press when turning a unit with the keyboard (a staged pivot). */
const PIVOT_KEY_STEP_DEG = 15;
/** How far off the table a measured point may lie (the server refuses points further out). */
const TABLE_MARGIN_IN = 12;

/**
 * @typedef {Object} DragState
 * @property {string} id
 * @property {number} offX  grab point minus piece centre, inches
 * @property {number} offY
 * @property {any} token
 * @property {any} [unit]      a unit being dragged (battle movement)
 * @property {{x:number, y:number}} [start]  where the unit drag began, inches
 * @property {{geometry:any, centre:number[], facing:number}} [boundary]
 * @property {'wheel'|'pivot'|'reform'|'light'|'model'|'models'} [kind]  what a unit drag does
 * @property {import('./view/manoeuvre.js').Handle} [handle]
 * @property {import('./view/manoeuvre.js').UnitFrame} [frame]
 * @property {number} [index]     the model dragged (40k)
 * @property {number[][]} [from]  staged positions when the drag began (40k)
 * @property {number} [turn]      degrees a reform turns the unit (R while dragging)
 * @property {[number, number]} [last]  the last pointer position of a handle drag
 */

export class Table {
  /**
   * @param {Object} o
   * @param {HTMLCanvasElement} o.canvas
   * @param {Store} o.store
   * @param {Connection} o.conn
   * @param {(msg:string, kind?:'info'|'error'|'ok') => void} o.toast
   * @param {() => void} o.onChange    tool or selection changed (panels refresh)
   * @param {() => void} o.toggleHelp
   */
  constructor(o) {
    this.canvas = o.canvas;
    this.ctx = /** @type {CanvasRenderingContext2D} */ (o.canvas.getContext('2d', { alpha: false }));
    this.store = o.store;
    this.conn = o.conn;
    this.toast = o.toast;
    this.onChange = o.onChange;
    this.toggleHelp = o.toggleHelp;
    /** @type {import('./view/transform.js').View|null} */
    this.view = null;
    this.vw = 0;
    this.vh = 0;
    this.dpr = 1;
    this.fitted = false;
    /** @type {import('./view/scene.js').Scene} */
    this.scene = { pieces: [], tray: [], terrain: [] };
    this.sceneOf = null;
    /** @type {string|null} */
    this.selected = null;
    /** @type {string|null} */
    this.hover = null;
    /** @type {Mode} */
    this.mode = 'idle';
    /** @type {DragState|null} */
    this.drag = null;
    /**
     * The would-be position and the server's verdict on it. phase: 'dragging' | 'placing' |
     * 'staged' (waiting for Confirm: 40k model moves, keyboard pivots) | 'committing'.
     * @type {Ghost & {id?:string, phase?:string, action?:any, waitSeq?:number, refused?:boolean, result?:any, positions?:number[][], basis?:string}|null}
     */
    this.ghost = null;
    /** Placement template from the panel. */
    this.placeTemplate = { label: '', width: 2, depth: 1 };
    /** @type {{from:any, to:any, points:number[][], label:string, fixed?:boolean, result?:any}|null} */
    this.measure = null;
    /** @type {ReturnType<typeof emptyLos>|null} */
    this.los = null;
    /** Other players' shared measurements, drawn until they fade. @type {{points:number[][], label:string, seat:number, born:number}[]} */
    this.overlays = [];
    this.overlayTimer = /** @type {any} */ (null);
    /** The unit picked in the tray to deploy with the next click. @type {string|null} */
    this.deployUnit = null;
    /** The ambush tool's state (ui/ambush.js). @type {any} */
    this.ambush = null;
    /** The terrain tool: the feature being drawn, and the kind/height/label picked for the
     * next one (ui/terrain.js). @type {any} */
    this.terrainDraft = null;
    /** @type {{kind:string, height:string, label:string}} */
    this.terrainConfig = { kind: 'cover', height: 'standard', label: '' };
    /** A drag the current tool took (its dragStart said yes). */
    this.toolDrag = false;
    /** Unit drags and wheels make March moves instead of Advance moves. */
    this.march = false;
    this.frameRequested = false;
    this.previewWanted = false;
    this.measureWanted = false;
    /** When set (by a test or the console): each frame's rAF timestamp and draw time, ms. */
    this.frameStats = /** @type {{stamps:number[], draw:number[]}|null} */ (null);
    this.previewer = new LatestOnly(
      (action) => this.conn.preview(action),
      (res, action) => this.onPreview(res, action),
      (err, action) => this.onPreviewError(err, action),
      { minIntervalMs: QUESTION_INTERVAL_MS },
    );
    this.measurer = new LatestOnly(
      (q) => this.conn.measure(q.from, q.to, q.share),
      (res, q) => this.onMeasure(res, q),
      (err) => this.toast(`Measure: ${errorText(err)}`, 'error'),
      { minIntervalMs: QUESTION_INTERVAL_MS },
    );
  }

  mount() {
    attachGestures(this.canvas, {
      tap: (pt) => this.tap(pt),
      dragStart: (pt, e) => this.dragStart(pt, e),
      dragMove: (pt) => this.dragMove(pt),
      dragEnd: () => this.dragEnd(),
      dragCancel: () => this.cancelDrag(),
      pan: (dx, dy) => this.panBy(dx, dy),
      zoom: (k, pt) => this.zoomBy(k, pt),
      hover: (pt) => this.hoverAt(pt),
    });
    attachKeys(window, (cmd, e) => this.command(cmd, e));
    this.conn.onOverlay?.((msg) => this.addOverlay(msg));
    new ResizeObserver(() => this.resize()).observe(/** @type {Element} */ (this.canvas.parentElement));
    this.store.subscribe(() => this.onStore());
    this.resize();
  }

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

  /** @param {Pt} pt @returns {Pt} */
  world(pt) {
    return toWorld(/** @type {any} */ (this.view), pt.x, pt.y);
  }

  /** World inches to page (client) pixels, for tests and tooltips. @param {number} x @param {number} y */
  clientPoint(x, y) {
    const s = toScreen(/** @type {any} */ (this.view), x, y);
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
    // Unit events come back as a fresh state from the server: keep the ghost until it is here.
    if (this.ghost?.waitSeq !== undefined && (this.store.seq ?? 0) >= this.ghost.waitSeq && !this.store.needsRefresh) this.clearGhost();
    // A staged move was planned from where the unit stood; if it stands elsewhere now, drop it.
    if (this.ghost?.phase === 'staged' && this.ghost.basis !== basisOf(st.units?.[this.ghost.id || ''])) this.clearGhost();
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

  /** @param {Pt} pt world inches */
  pieceAt(pt) {
    return topmost(this.currentScene().pieces, pt.x, pt.y, CLICK_SLOP_IN);
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

  // --- drawing ----------------------------------------------------------------------------------

  redraw() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame((ts) => this.frame(ts));
  }

  /** @param {number} ts */
  frame(ts) {
    this.frameRequested = false;
    this.flushQuestions();
    if (!this.view) return;
    const t0 = this.frameStats ? performance.now() : 0;
    const overlays = this.liveOverlays(performance.now());
    drawFrame(this.ctx, {
      view: this.view,
      vw: this.vw,
      vh: this.vh,
      dpr: this.dpr,
      scene: this.currentScene(),
      selected: this.selected,
      hover: this.hover,
      hidden: this.ghost?.id ? new Set([this.ghost.id]) : undefined,
      ghost: this.ghost,
      measure: this.measure && this.measure.points.length ? this.measure : null,
      los: this.los && this.los.result ? this.los : null,
      handles: this.drag || this.mode !== 'idle' ? null : this.handles(),
      overlays,
      ambush: ambushOverlay(this.ambush),
      terrainDraft: terrainOverlay(this.terrainDraft),
    });
    if (drawOrderLayer(this.ctx, this.view, this.store.state, /** @type {any} */ (this), performance.now())) this.redraw();
    if (this.frameStats) {
      this.frameStats.stamps.push(ts);
      this.frameStats.draw.push(performance.now() - t0);
    }
  }

  /** Previews and live measures go out at most once per frame (the newest position wins). */
  flushQuestions() {
    if (this.mode !== 'idle') TOOLS[this.mode].frame?.(this);
    if (this.previewWanted && this.ghost?.action) {
      this.previewWanted = false;
      this.previewer.offer(this.ghost.action);
    }
    if (this.measureWanted && this.measure?.from && this.measure.to) {
      this.measureWanted = false;
      // Only the finished measurement (the second click) is shared with the table.
      this.measurer.offer({ from: this.measure.from, to: this.measure.to, share: Boolean(this.measure.fixed && this.store.seat !== null) });
    }
  }

  // --- gestures ---------------------------------------------------------------------------------

  /** @param {Pt} pt */
  tap(pt) {
    if (!this.view) return;
    const w = this.world(pt);
    const hit = this.pieceAt(w);
    const tool = this.mode === 'idle' ? null : TOOLS[this.mode];
    if (tool) return tool.tap(this, w, hit);
    this.select(hit);
  }

  /** @param {string|null} id */
  select(id) {
    if (id !== this.selected && this.ghost?.phase === 'staged') this.clearGhost();
    this.selected = id;
    this.onChange();
    this.redraw();
  }

  /** @param {Pt} pt @param {{shiftKey?:boolean}} [e] @returns {boolean} */
  dragStart(pt, e) {
    if (this.ghost?.refused) this.clearGhost();
    const tool = this.mode === 'idle' ? null : TOOLS[this.mode];
    if (tool?.dragStart && this.view) return (this.toolDrag = tool.dragStart(this, this.world(pt), e));
    if (!this.view || this.mode !== 'idle' || (this.ghost && this.ghost.phase === 'committing')) return false;
    const w = this.world(pt);
    const handle = this.handleAt(w);
    if (handle) return this.handleDragStart(handle, w);
    const hit = this.pieceAt(w);
    const unit = this.store.state?.stage === 'battle' ? this.ownUnit(hit) : null;
    if (unit && this.isModelUnit(unit)) {
      const index = modelIndexAt(unit, w.x, w.y);
      return this.modelDragStart(unit, e?.shiftKey ? -1 : index, w);
    }
    if (unit) return this.unitDragStart(unit, w);
    const token = this.ownToken(hit);
    if (!token) return false;
    this.selected = token.id;
    this.drag = { id: token.id, offX: w.x - token.x, offY: w.y - token.y, token };
    this.setGhost({ ...token, id: token.id, verdict: 'unknown', phase: 'dragging' }, this.moveAction(token, token.x, token.y, token.facing));
    this.onChange();
    return true;
  }

  /** @param {Pt} pt */
  dragMove(pt) {
    if (this.toolDrag) return TOOLS[/** @type {keyof typeof TOOLS} */ (this.mode)]?.dragMove?.(this, this.world(pt));
    if (!this.drag || !this.ghost) return;
    const w = this.world(pt);
    if (this.drag.kind === 'wheel' || this.drag.kind === 'pivot' || this.drag.kind === 'reform' || this.drag.kind === 'light') return this.handleDragMove(w);
    if (this.drag.kind === 'model' || this.drag.kind === 'models') return this.modelDragMove(w);
    if (this.drag.unit) return this.unitDragMove(w);
    const x = round2(w.x - this.drag.offX);
    const y = round2(w.y - this.drag.offY);
    this.ghost.x = x;
    this.ghost.y = y;
    this.ghost.action = this.moveAction(this.drag.token, x, y, this.ghost.facing);
    this.previewWanted = true;
    this.redraw();
  }

  dragEnd() {
    if (this.toolDrag) {
      this.toolDrag = false;
      return TOOLS[/** @type {keyof typeof TOOLS} */ (this.mode)]?.dragEnd?.(this);
    }
    const drag = this.drag;
    const ghost = this.ghost;
    this.drag = null;
    if (!drag || !ghost) return;
    if (drag.kind === 'model' || drag.kind === 'models') {
      if (!ghost.action) return this.clearGhost();
      ghost.phase = 'staged';
      this.onChange();
      return this.redraw();
    }
    if (drag.unit) {
      if (!ghost.action) return this.clearGhost();
      const what = drag.kind === 'wheel' ? 'Wheel' : drag.kind === 'pivot' ? 'Pivot' : drag.kind === 'reform' || drag.kind === 'light' ? 'Reform' : 'Move';
      return this.commit(ghost.action, `${what} ${drag.unit.name || drag.unit.id}`);
    }
    if (ghost.x === drag.token.x && ghost.y === drag.token.y) return this.clearGhost();
    this.commit(ghost.action, `Move ${drag.token.label}`);
  }

  cancelDrag() {
    if (this.toolDrag) {
      this.toolDrag = false;
      return TOOLS[/** @type {keyof typeof TOOLS} */ (this.mode)]?.dragCancel?.(this);
    }
    const drag = this.drag;
    this.drag = null;
    if ((drag?.kind === 'model' || drag?.kind === 'models') && this.ghost && drag.from && drag.unit) {
      // Back to what was staged before this drag.
      const moved = drag.from.some((p, i) => p[0] !== drag.unit.positions[i]?.[0] || p[1] !== drag.unit.positions[i]?.[1]);
      if (moved) return this.stageModels(drag.unit, drag.from, 'staged');
    }
    if (this.ghost?.phase !== 'committing') this.clearGhost();
  }

  /** @param {Pt|null} pt */
  hoverAt(pt) {
    if (!this.view) return;
    const w = pt ? this.world(pt) : null;
    const id = w ? this.pieceAt(w) : null;
    const tool = this.mode === 'idle' ? null : TOOLS[this.mode];
    if (tool?.hover && w) tool.hover(this, w, id);
    const onHandle = !tool && w && this.handleAt(w);
    this.canvas.style.cursor = tool ? 'crosshair' : onHandle ? 'move' : this.ownToken(id) || this.ownUnit(id) ? 'grab' : id ? 'pointer' : 'default';
    if (id !== this.hover) {
      this.hover = id;
      this.redraw();
    }
  }

  // --- units: movement, deployment, charges --------------------------------------------------

  /** @param {any} unit @param {Pt} w */
  unitDragStart(unit, w) {
    const boundary = boundaryOf(unit);
    if (!boundary) return false;
    this.selected = unit.id;
    this.drag = { id: unit.id, offX: 0, offY: 0, token: null, unit, start: w, boundary };
    const [cx, cy] = boundary.centre;
    this.setGhost({ id: unit.id, x: cx, y: cy, facing: boundary.facing, width: 4, depth: 4, geometry: boundary.geometry, verdict: 'unknown', phase: 'dragging' }, null);
    this.onChange();
    return true;
  }

  /** Ranked units move straight forward or back along their facing (40k models: modelDragMove).
   * @param {Pt} w */
  unitDragMove(w) {
    const d = /** @type {DragState} */ (this.drag);
    const g = /** @type {any} */ (this.ghost);
    const u = d.unit;
    const b = /** @type {any} */ (d.boundary);
    const start = /** @type {Pt} */ (d.start);
    const t = (b.facing * Math.PI) / 180;
    const fx = -Math.sin(t);
    const fy = Math.cos(t);
    const along = round2((w.x - start.x) * fx + (w.y - start.y) * fy);
    const dx = along * fx;
    const dy = along * fy;
    g.action = Math.abs(along) < 0.01 ? null : {
      type: 'move_unit', unit: u.id, manoeuvre: along >= 0 ? 'forward' : 'backward',
      mode: this.march ? 'march' : 'advance', distance: Math.abs(along),
    };
    g.geometry = translateGeometry(b.geometry, dx, dy);
    g.x = b.centre[0] + dx;
    g.y = b.centre[1] + dy;
    if (!g.action) {
      g.verdict = 'unknown';
      g.swept = null;
      g.text = '';
    }
    this.previewWanted = Boolean(g.action);
    this.redraw();
  }

  /** A unit placed model by model (40k): its models move one by one. @param {any} unit */
  isModelUnit(unit) {
    return this.store.state?.system === 'wh40k10' || !unit?.placement;
  }

  /** The selected own ranked unit that may manoeuvre now, with its frame; else null. */
  manoeuvrable() {
    const st = this.store.state;
    if (st?.stage !== 'battle' || st.active_player !== this.store.seat) return null;
    const unit = this.ownUnit(this.selected);
    if (!unit || this.isModelUnit(unit)) return null;
    const frame = unitFrame(unit);
    return frame ? { unit, frame } : null;
  }

  /** Wheel, pivot and reform handles of the selected unit (none while a move is staged). */
  handles() {
    if (this.ghost?.phase === 'staged' || this.ghost?.phase === 'committing') return null;
    const m = this.manoeuvrable();
    if (!m || !this.view) return null;
    const hs = /** @type {any[]} */ (handlesOf(m.frame, this.view.scale));
    return isLightTroops(m.unit) ? [...hs, centreHandle(m.frame)] : hs;
  }

  /** @param {Pt} w */
  handleAt(w) {
    const hs = this.mode === 'idle' ? this.handles() : null;
    return hs && this.view ? handleAt(hs, w.x, w.y, this.view.scale) : null;
  }

  /** @param {import('./view/manoeuvre.js').Handle} handle @param {Pt} w */
  handleDragStart(handle, w) {
    const m = /** @type {{unit:any, frame:import('./view/manoeuvre.js').UnitFrame}} */ (this.manoeuvrable());
    const kind = handle.kind === 'pivot' ? 'pivot' : handle.kind === 'reform' ? 'reform' : /** @type {string} */ (handle.kind) === 'move' ? 'light' : 'wheel';
    this.drag = { id: m.unit.id, offX: 0, offY: 0, token: null, unit: m.unit, start: w, kind, handle, frame: m.frame, turn: 0 };
    const [cx, cy] = m.frame.centre;
    this.setGhost({ id: m.unit.id, x: cx, y: cy, facing: m.frame.facing, width: m.frame.width, depth: m.frame.depth, geometry: m.frame.geometry, verdict: 'unknown', phase: 'dragging' }, null);
    this.previewWanted = false;
    this.onChange();
    return true;
  }

  /** A wheel, pivot or reform handle dragged to `w`: the ghost and the action to preview.
   * @param {Pt} [w] */
  handleDragMove(w) {
    const d = /** @type {DragState} */ (this.drag);
    const g = /** @type {any} */ (this.ghost);
    const f = /** @type {import('./view/manoeuvre.js').UnitFrame} */ (d.frame);
    const h = /** @type {import('./view/manoeuvre.js').Handle} */ (d.handle);
    const u = d.unit;
    const pt = /** @type {[number, number]} */ (w ? [w.x, w.y] : d.last || [h.x, h.y]);
    d.last = pt;
    const mode = this.march ? 'march' : 'advance';
    if (d.kind === 'wheel') {
      const deg = wheelDegrees(h, pt);
      const about = /** @type {[number, number]} */ (h.about);
      g.geometry = rotateGeometry(f.geometry, about[0], about[1], deg);
      g.action = deg ? { type: 'move_unit', unit: u.id, manoeuvre: 'wheel', mode, degrees: deg } : null;
      g.label = `Wheel ${Math.abs(deg)}° ${deg >= 0 ? 'left' : 'right'}`;
    } else if (d.kind === 'pivot') {
      const deg = pivotDegrees(f, h, pt);
      g.geometry = rotateGeometry(f.geometry, f.centre[0], f.centre[1], deg);
      g.action = deg ? { type: 'move_unit', unit: u.id, manoeuvre: 'pivot', mode, degrees: deg } : null;
      g.label = `Pivot ${Math.abs(deg)}°`;
    } else if (d.kind === 'light') {
      // Light Troops: a Reform that moves the unit's centre (view/light.js).
      const r = lightReform(f, [h.x, h.y], pt, u, d.turn || 0, mode);
      Object.assign(g, { geometry: r.geometry, facing: r.facing, action: r.action, label: r.label });
    } else {
      const models = (u.models || 1) + (Array.isArray(u.characters) ? u.characters.length : 0);
      const filesNow = u.files || 1;
      const files = reformFiles(f, pt, filesNow, models);
      const facing = (((f.facing + (d.turn || 0)) % 360) + 360) % 360;
      g.geometry = reformOutline(f, filesNow, models, files, facing);
      g.facing = facing;
      const changed = files !== filesNow || (d.turn || 0) % 360 !== 0;
      g.action = changed ? { type: 'move_unit', unit: u.id, manoeuvre: 'reform', mode, files, facing } : null;
      g.label = `Reform: ${files} wide${d.turn ? `, turned ${d.turn}°` : ''}`;
    }
    if (!g.action) {
      g.verdict = 'unknown';
      g.swept = null;
      g.text = '';
    }
    this.previewWanted = Boolean(g.action);
    this.redraw();
  }

  /**
   * Start moving a 40k unit's models: one model (`index` >= 0) or all of them together. The
   * move is staged: each drag adds to it, the ghost shows the server's verdict on the whole
   * unit's `move_models`, and Confirm (Enter) sends it; Esc puts the models back.
   * @param {any} unit @param {number} index @param {Pt} w
   */
  modelDragStart(unit, index, w) {
    const staged = this.ghost?.phase === 'staged' && this.ghost.id === unit.id && this.ghost.positions
      ? this.ghost.positions
      : (unit.positions || []).map((/** @type {number[]} */ p) => [p[0], p[1]]);
    if (!staged.length) return false;
    this.selected = unit.id;
    this.drag = { id: unit.id, offX: 0, offY: 0, token: null, unit, start: w, kind: index >= 0 ? 'model' : 'models', index, from: staged.map((/** @type {number[]} */ p) => [...p]) };
    this.stageModels(unit, staged, 'dragging', index);
    this.onChange();
    return true;
  }

  /** @param {Pt} w */
  modelDragMove(w) {
    const d = /** @type {DragState} */ (this.drag);
    const start = /** @type {Pt} */ (d.start);
    const dx = w.x - start.x;
    const dy = w.y - start.y;
    const from = /** @type {number[][]} */ (d.from);
    const positions = from.map((p, i) => (d.kind === 'models' || i === d.index ? [round2(p[0] + dx), round2(p[1] + dy)] : p));
    this.stageModels(d.unit, positions, 'dragging', d.index);
  }

  /**
   * The ghost of a 40k unit with its models at `positions`, and its move_models to preview.
   * @param {any} unit @param {number[][]} positions @param {string} phase @param {number} [index]
   */
  stageModels(unit, positions, phase, index = -1) {
    const moved = positions.some((p, i) => Math.hypot(p[0] - unit.positions[i][0], p[1] - unit.positions[i][1]) >= 0.01);
    const focus = positions[index >= 0 ? index : 0] || [0, 0];
    const geometry = stagedModels(unit, positions);
    const action = moved ? { type: 'move_models', unit: unit.id, positions } : null;
    const keep = this.ghost?.id === unit.id && this.ghost.positions ? this.ghost : null;
    if (!keep) this.setGhost({ id: unit.id, x: focus[0], y: focus[1], facing: 0, width: 2, depth: 2, geometry, verdict: 'unknown', phase, positions, basis: basisOf(unit) }, action);
    else Object.assign(keep, { x: focus[0], y: focus[1], geometry, phase, positions, action });
    const g = /** @type {any} */ (this.ghost);
    if (!action) Object.assign(g, { verdict: 'unknown', swept: null, text: '' });
    this.previewWanted = Boolean(action);
    if (!action && phase === 'staged') return this.clearGhost();
    this.redraw();
  }

  /** Send the staged move (40k models, keyboard pivot). */
  confirmStaged() {
    const g = this.ghost;
    if (g?.phase !== 'staged' || !g.action) return;
    const u = this.store.state?.units?.[g.id || ''];
    this.commit(g.action, `Move ${u?.name || g.id}`);
  }

  /** R on a selected ranked unit: stage a pivot, 15 degrees a press, for Confirm (Enter).
   * @param {number} deg */
  nudgePivot(deg) {
    const m = this.manoeuvrable();
    if (!m) return false;
    const g = this.ghost;
    const before = g?.phase === 'staged' && g.id === m.unit.id && g.action?.manoeuvre === 'pivot' ? g.action.degrees : 0;
    const total = before + deg;
    const geometry = rotateGeometry(m.frame.geometry, m.frame.centre[0], m.frame.centre[1], total);
    const action = total % 360 ? { type: 'move_unit', unit: m.unit.id, manoeuvre: 'pivot', mode: this.march ? 'march' : 'advance', degrees: total } : null;
    if (!action) {
      this.clearGhost();
      this.onChange();
      return true;
    }
    const [cx, cy] = m.frame.centre;
    this.setGhost({ id: m.unit.id, x: cx, y: cy, facing: m.frame.facing + total, width: m.frame.width, depth: m.frame.depth, geometry, verdict: 'unknown', phase: 'staged', basis: basisOf(m.unit), label: `Pivot ${Math.abs(total)}°` }, action);
    this.onChange();
    return true;
  }

  /** Wheel the selected unit by `deg` (positive: to the left). @param {number} deg */
  wheelSelected(deg) {
    const u = this.ownUnit(this.selected);
    if (!u) return this.toast('Select one of your units first.', 'info');
    this.commit({ type: 'move_unit', unit: u.id, manoeuvre: 'wheel', mode: this.march ? 'march' : 'advance', degrees: deg }, `Wheel ${u.name}`);
  }

  /** Pick a unit in the tray; the next click on the table deploys it. @param {string} id */
  startDeploy(id) {
    this.setMode('deploy');
    this.deployUnit = id;
    this.onChange();
  }

  /** @param {Pt} w */
  async deployAt(w) {
    const id = this.deployUnit;
    if (!id) return this.setMode('idle');
    const name = this.store.state?.units?.[id]?.name || id;
    const action = { type: 'deploy_unit', unit: id, x: round2(w.x), y: round2(w.y), facing: this.store.seat === 2 ? 180 : 0 };
    try {
      await this.conn.act(action);
      this.setMode('idle');
      this.toast(`${name} deployed.`, 'ok');
    } catch (err) {
      this.toast(`Deploy ${name}: ${errorText(err)}`, 'error');
    }
  }

  /** @param {string|null} hit */
  async chargeClick(hit) {
    const unit = this.ownUnit(this.selected);
    if (!unit) return this.setMode('idle');
    const target = hit ? this.store.state?.units?.[hit] : null;
    if (!target || target.owner === this.store.seat) return this.toast('Charge: click an enemy unit.', 'info');
    this.setMode('idle');
    try {
      const ack = await this.conn.act({ type: 'declare_charge', unit: unit.id, target: target.id });
      const said = chargeAckToast(this.store.history, ack.seq, this.store.state);
      if (said) this.toast(said.text, said.kind);
    } catch (err) {
      this.toast(`Charge: ${errorText(err)}`, 'error');
    }
  }

  // --- moving and placing ---------------------------------------------------------------------

  /** @param {any} token @param {number} x @param {number} y @param {number} facing */
  moveAction(token, x, y, facing) {
    return { type: 'move_token', id: token.id, x, y, facing };
  }

  /** @param {number} x @param {number} y */
  placeAction(x, y) {
    const t = this.placeTemplate;
    const facing = this.store.seat === 2 ? 180 : 0;
    return { type: 'place_token', label: t.label, x, y, facing, width: t.width, depth: t.depth };
  }

  /** The would-be token under the cursor while placing. @param {Pt} w */
  placeGhostAt(w) {
    const action = this.placeAction(round2(w.x), round2(w.y));
    if (!this.ghost) this.setGhost({ ...action, verdict: 'unknown', phase: 'placing' }, action);
    this.ghost = Object.assign(/** @type {any} */ (this.ghost), { x: action.x, y: action.y, action });
    this.previewWanted = true;
    this.redraw();
  }

  /** @param {any} ghost @param {any} action */
  setGhost(ghost, action) {
    this.previewer.cancel();
    this.ghost = { ...ghost, action };
    this.previewWanted = true;
    this.redraw();
  }

  clearGhost() {
    this.previewer.cancel();
    this.ghost = null;
    this.previewWanted = false;
    this.redraw();
  }

  /** The server's verdict on the ghost. @param {any} res @param {any} action */
  onPreview(res, action) {
    const g = this.ghost;
    if (!g || g.phase === 'committing' || !action) return;
    // Answers come in order; one for an older spot is still the best news until the next.
    g.verdict = res.legal ? 'legal' : 'illegal';
    g.swept = res.swept || null;
    g.text = `${g.label ? `${g.label} · ` : ''}${verdictText(res)}`;
    g.result = res;
    this.onChange();
    this.redraw();
  }

  /**
   * A preview the server could not answer. A refusal with a rule (an illegal spot, another
   * player's token) is a verdict; anything else (rate limit, preview not offered) leaves the
   * ghost's verdict as it was.
   * @param {any} err @param {any} action
   */
  onPreviewError(err, action) {
    if (['illegal_move', 'forbidden', 'out_of_phase', 'not_found'].includes(err?.code)) {
      return this.onPreview({ legal: false, rule: err.details?.rule || null, obstacle: err.details?.obstacle || null, message: err.message }, action);
    }
    if (err?.code === 'bad_request' && /unknown message type/.test(err.message || '') && this.ghost) {
      this.ghost.text = 'No preview from this server: the move is checked on release';
      this.redraw();
    }
  }

  /**
   * Send an action; keep the ghost until the event arrives, or drop it with the reason.
   * @param {any} action @param {string} what
   */
  async commit(action, what) {
    if (this.ghost) {
      this.previewer.cancel();
      this.ghost.phase = 'committing';
      this.ghost.verdict = this.ghost.verdict === 'illegal' ? 'illegal' : 'pending';
    }
    this.redraw();
    try {
      const ack = await this.conn.act(action);
      if (this.ghost) {
        if ((this.store.seq ?? 0) >= ack.seq) this.clearGhost();
        else this.ghost.waitSeq = ack.seq;
      }
      return ack;
    } catch (err) {
      const e = /** @type {any} */ (err);
      this.toast(`${what}: ${errorText(e)}`, 'error');
      const g = this.ghost;
      if (g && e?.code === 'illegal_move') {
        // Leave the refused spot in red with the rule for a moment, then let it go.
        g.verdict = 'illegal';
        g.refused = true;
        g.text = verdictText({ legal: false, rule: e.details?.rule, obstacle: e.details?.obstacle, message: e.message, distance: e.details?.distance });
        this.redraw();
        setTimeout(() => this.ghost === g && this.clearGhost(), REFUSED_GHOST_MS);
      } else this.clearGhost();
      return null;
    }
  }

  /** @param {Pt} w world point */
  async place(w) {
    if (this.store.seat === null) return this.toast('Spectators cannot place tokens.', 'error');
    const action = this.placeAction(round2(w.x), round2(w.y));
    this.setMode('idle');
    this.toast(`Placing ${action.label || 'a token'}…`, 'info');
    const ack = await this.conn.act(action).catch((e) => {
      this.toast(`Place: ${errorText(e)}`, 'error');
      return null;
    });
    if (!ack) return;
    const placed = this.store.history.find((ev) => ev.seq === ack.seq && ev.type === 'token_placed');
    if (placed) this.select(placed.payload.token.id);
  }

  /** Turn the selected token by `deg` (counter-clockwise) with a move_token at the same spot. @param {number} deg */
  rotateSelected(deg) {
    const t = this.ownToken(this.selected);
    if (!t) return this.toast(this.selected ? 'You can only turn your own tokens.' : 'Select one of your tokens first.', 'info');
    const facing = (((t.facing + deg) % 360) + 360) % 360;
    this.commit(this.moveAction(t, t.x, t.y, facing), `Turn ${t.label}`);
  }

  removeSelected() {
    const t = this.ownToken(this.selected);
    if (!t) return;
    this.commit({ type: 'remove_token', id: t.id }, `Remove ${t.label}`);
  }

  // --- tools ----------------------------------------------------------------------------------

  /** Pick a tool (TOOLS in tools.js) or go back to 'idle'. @param {Mode} mode */
  setMode(mode) {
    if (this.ghost && this.ghost.phase !== 'committing') this.clearGhost();
    if (this.mode !== 'idle') TOOLS[this.mode].exit?.(this);
    this.toolDrag = false;
    this.mode = mode;
    if (mode !== 'deploy') this.deployUnit = null;
    const tool = mode === 'idle' ? null : TOOLS[mode];
    tool?.enter?.(this);
    if (tool?.enterToast) this.toast(tool.enterToast, 'info');
    this.canvas.style.cursor = tool ? 'crosshair' : 'default';
    this.onChange();
    this.redraw();
  }

  /** The pointer as a measure point: rounded, and kept within the margin off the table.
   * @param {Pt} w @returns {Pt} */
  inReach(w) {
    const bf = this.store.state?.battlefield || { width: 72, depth: 48 };
    const clamp = (v, hi) => round2(Math.min(Math.max(v, -TABLE_MARGIN_IN), hi + TABLE_MARGIN_IN));
    return { x: clamp(w.x, bf.width), y: clamp(w.y, bf.depth) };
  }

  /** @param {Pt} w @param {string|null} hit */
  measureClick(w, hit) {
    const m = this.measure || (this.measure = { from: null, to: null, points: [], label: '', fixed: false });
    const where = hit || this.inReach(w);
    if (!m.from || m.fixed) {
      Object.assign(m, { from: where, to: null, points: [], label: '', fixed: false });
    } else {
      m.to = where;
      m.fixed = true;
      this.measureWanted = true;
    }
    this.redraw();
  }

  /** While measuring, the line follows the pointer (not shared: only the final click is).
   * @param {Pt} w @param {string|null} hit */
  measureHover(w, hit) {
    const m = this.measure;
    if (!m?.from || m.fixed) return;
    m.to = hit || this.inReach(w);
    this.measureWanted = true;
    this.redraw();
  }

  /** @param {any} res @param {{from:any, to:any}} q */
  onMeasure(res, q) {
    const m = this.measure;
    if (!m || m.from !== q.from) return;
    m.points = Array.isArray(res.points) ? res.points : [];
    m.label = measureLabel(res.distance);
    m.result = res;
    this.onChange();
    this.redraw();
  }

  /** Another player's shared measurement (an `overlay` frame). @param {any} msg */
  addOverlay(msg) {
    if (msg?.kind !== 'measure' || !Array.isArray(msg.points) || msg.points.length < 2) return;
    const seat = Number(msg.seat) || 0;
    this.overlays = this.overlays.filter((o) => o.seat !== seat);
    this.overlays.push({ points: msg.points, label: `${seat ? `P${seat}: ` : ''}${measureLabel(msg.distance)}`, seat, born: performance.now() });
    this.redraw();
  }

  /** The overlays still showing at `now`, with their opacity; schedules the next redraw. @param {number} now */
  liveOverlays(now) {
    this.overlays = this.overlays.filter((o) => now - o.born < OVERLAY_MS);
    if (!this.overlays.length) return [];
    const out = this.overlays.map((o) => ({ ...o, alpha: overlayAlpha(now - o.born) }));
    const fading = out.some((o) => o.alpha < 1);
    if (fading) this.redraw();
    else if (!this.overlayTimer) {
      const next = Math.min(...this.overlays.map((o) => o.born + OVERLAY_MS - OVERLAY_FADE_MS)) - now;
      this.overlayTimer = setTimeout(() => {
        this.overlayTimer = null;
        this.redraw();
      }, Math.max(16, next));
    }
    return out;
  }

  /** @param {string|null} hit */
  async losClick(hit) {
    const unit = hit ? this.store.state?.units?.[hit] : null;
    if (!unit) return this.toast('Line of sight: click a unit on the table.', 'info');
    const l = this.los || (this.los = emptyLos());
    if (!l.viewer || l.target) {
      Object.assign(l, { ...emptyLos(), viewer: hit });
      this.selected = hit;
      this.onChange();
      this.redraw();
      return;
    }
    if (hit === l.viewer) return this.toast('Line of sight: click another unit as the target.', 'info');
    l.target = hit;
    try {
      const res = await this.conn.lineOfSight(l.viewer, hit);
      if (this.los !== l) return;
      l.result = res;
      const { seen, blocked } = splitLines(res);
      l.lines = seen;
      l.blocked = blocked;
      l.blockers = Array.isArray(res.blockers) ? res.blockers.map(String) : [];
      l.coverFrom = Array.isArray(res.cover_from) ? res.cover_from.map(String) : [];
      l.label = losText(res);
    } catch (err) {
      l.target = null;
      this.toast(`Line of sight: ${errorText(err)}`, 'error');
    }
    this.onChange();
    this.redraw();
  }

  /** @param {string} cmd @param {KeyboardEvent} e */
  command(cmd, e) {
    if (this.mode !== 'idle' && TOOLS[this.mode].command?.(this, cmd, e)) return;
    switch (cmd) {
      case 'measure':
        return this.setMode(this.mode === 'measure' ? 'idle' : 'measure');
      case 'los':
        return this.setMode(this.mode === 'los' ? 'idle' : 'los');
      case 'rotate':
      case 'rotateBack':
        return this.rotate(cmd === 'rotateBack' || e?.shiftKey ? -1 : 1);
      case 'confirm':
        return this.mode !== 'idle' && TOOLS[this.mode].confirm ? TOOLS[this.mode].confirm?.(this) : this.confirmStaged();
      case 'fit':
        return this.fitView();
      case 'remove':
        return this.removeSelected();
      case 'help':
        return this.toggleHelp();
      case 'cancel':
        return this.cancel();
    }
  }

  /** R: turn what is in hand — a reform being dragged (90°), the selected ranked unit (a
   * staged pivot, 15°) or the selected token (45°). @param {1|-1} sign */
  rotate(sign) {
    if (this.mode !== 'idle' && TOOLS[this.mode].rotate) return TOOLS[this.mode].rotate?.(this, sign);
    if (this.drag?.kind === 'reform' || this.drag?.kind === 'light') {
      this.drag.turn = (this.drag.turn || 0) + 90 * sign;
      return this.handleDragMove();
    }
    if (!this.drag && this.mode === 'idle' && this.nudgePivot(PIVOT_KEY_STEP_DEG * sign)) return;
    return this.rotateSelected(ROTATE_STEP_DEG * sign);
  }

  cancel() {
    if (this.drag) return this.cancelDrag();
    if (this.ghost?.phase === 'staged') {
      this.clearGhost();
      return this.onChange();
    }
    if (this.mode !== 'idle') {
      this.measure = null;
      this.los = null;
      return this.setMode('idle');
    }
    if (this.measure || this.los) {
      this.measure = null;
      this.los = null;
      this.onChange();
      return this.redraw();
    }
    this.toggleHelp(false);
    this.select(null);
  }
}

/** The outline of a unit from its footprint: geometry, centre and facing. @param {any} unit */
export function boundaryOf(unit) {
  const features = unit?.footprint?.features;
  if (!Array.isArray(features) || !features.length) return null;
  const f = features.find((x) => x?.properties?.role === 'boundary') || features[0];
  if (!f?.geometry) return null;
  const p = f.properties || {};
  const pl = unit.placement || {};
  const centre = Array.isArray(p.centre) ? p.centre : [pl.x ?? 0, pl.y ?? 0];
  return { geometry: f.geometry, centre, facing: Number(p.facing ?? pl.facing ?? 0) };
}

/** A GeoJSON Polygon or MultiPolygon moved by (dx, dy). @param {any} g @param {number} dx @param {number} dy */
export function translateGeometry(g, dx, dy) {
  /** @param {any} c @returns {any} */
  const move = (c) => (typeof c[0] === 'number' ? [c[0] + dx, c[1] + dy, ...c.slice(2)] : c.map(move));
  return { ...g, coordinates: move(g.coordinates) };
}

/** What a staged move was planned from: the unit's placement or its models' positions. @param {any} unit */
function basisOf(unit) {
  return unit ? JSON.stringify([unit.placement, unit.positions, unit.files]) : '';
}

/** A distance as the table shows it: to 0.1 in. @param {any} d */
export function measureLabel(d) {
  return typeof d === 'number' ? `${d.toFixed(1)} in` : '';
}

/** Opacity of an overlay `age` ms old: solid, then fading out over the last OVERLAY_FADE_MS.
 * @param {number} age */
export function overlayAlpha(age) {
  const left = OVERLAY_MS - age;
  return Math.max(0, Math.min(1, left / OVERLAY_FADE_MS));
}

/** @param {number} v */
function round2(v) {
  return Math.round(v * 100) / 100;
}

/** Words for a preview verdict: the rule and obstacle when illegal, the distance used. @param {any} res */
export function verdictText(res) {
  const parts = [];
  if (res.legal) parts.push(res.counts_as_march ? 'Legal, counts as a March' : 'Legal');
  else parts.push(res.rule || res.message || 'Illegal');
  if (!res.legal && res.obstacle) parts.push(`(${res.obstacle})`);
  if (typeof res.used === 'number') {
    const allowance = typeof res.allowance === 'number' ? ` / ${res.allowance.toFixed(1)}` : '';
    parts.push(`· used ${res.used.toFixed(1)}${allowance} in`);
  } else if (typeof res.distance === 'number') {
    const allowance = typeof res.allowance === 'number' ? ` / ${res.allowance.toFixed(1)}` : '';
    parts.push(`· ${res.distance.toFixed(1)}${allowance} in`);
  }
  return parts.join(' ');
}

/** @param {any} res */
export function losText(res) {
  const bits = [res.visible ? 'Visible' : 'Not visible'];
  if (typeof res.fraction === 'number') bits.push(`${Math.round(res.fraction * 100)}%`);
  if (res.cover && res.cover !== 'none') bits.push(`${res.cover} cover`);
  return bits.join(' · ');
}

/** Sight lines as point lists, split into clear and blocked. @param {any} res */
export function splitLines(res) {
  /** @type {number[][][]} */
  const seen = [];
  /** @type {number[][][]} */
  const blocked = [];
  for (const line of Array.isArray(res.lines) ? res.lines : []) {
    const pts = Array.isArray(line) ? line : line?.points || line?.coordinates || line?.geometry?.coordinates;
    if (!Array.isArray(pts) || pts.length < 2) continue;
    const clear = Array.isArray(line) ? true : line.clear ?? line.visible ?? !line.blocked;
    (clear ? seen : blocked).push(pts);
  }
  return { seen, blocked };
}

/** @param {any} e */
export function errorText(e) {
  if (!e) return 'failed';
  const rule = e.details?.rule ? `${e.details.rule}: ` : '';
  return `${rule}${e.message || e.code || 'failed'}`;
}
