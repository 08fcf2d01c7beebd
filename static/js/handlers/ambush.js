// Arriving from Ambush (The 9th Age, seed 000): the `ambush` tool of the table. The pointer
// snaps to the nearest Battlefield Edge point; the server's `ambush_options` (asked at most
// once a frame, the newest position winning) answers the 6 in zone, its verdict on the
// placement and the valid placement nearest to it. The ghost shows that nearest placement in
// green, or the requested one in red with the failing rule when none exists. A click fixes the
// point; the ghost can then be dragged and turned (R), and a click on it or Enter sends
// `arrive_from_ambush` with the snapped placement. Esc cancels. (The tray's Ambush lines, with
// the Arrive button that picks this tool, are in ui/ambush.js.)

import { Tool } from './handler.js';
import { LatestOnly } from '../net.js';
import { pointInGeometry } from '../view/hit.js';
import { round2 } from '../view/transform.js';
import { snapToEdge, placeOutline, outlineBox, turnPlacement, ambushVerdict, ambushOverlay, AMBUSH_TURN_STEP_DEG } from '../view/ambush.js';
import { errorText } from '../format.js';
import { QUESTION_INTERVAL_MS } from '../moves.js';

/** @typedef {import('../view/ambush.js').Placement} Placement */
/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Geometry} Geometry */
/** @typedef {import('../types.js').WireError} WireError */
/** @typedef {{unit:string, point:Pt, placement?:Placement}} AmbushQuestion */
/** @typedef {import('../types.js').AmbushAnswer} AmbushAnswer */

/**
 * The tool's state (`table.tools.ambush.ambush`).
 * @typedef {Object} AmbushState
 * @property {string|null} unit
 * @property {string} name
 * @property {{x:number, y:number, edge:string}|null} point   the chosen (or hovered) edge point
 * @property {boolean} fixed         the point is chosen; the ghost can be adjusted
 * @property {Geometry|null} zone    the 6 in zone
 * @property {number[][]|null} outline  the unit's outline in its own frame
 * @property {Placement|null} requested  what the player asks for (null: the server's default)
 * @property {Placement|null} placement  the valid placement to send, from the last answer
 * @property {Placement|null} shown      where the ghost is drawn
 * @property {{start:Pt, from:Placement}|null} drag
 * @property {boolean} wanted        a question waits for the next frame
 * @property {boolean} committing
 * @property {boolean} confirmSoon   Enter came while a question was out: confirm on its answer
 * @property {LatestOnly<AmbushQuestion, AmbushAnswer>} asker
 */

export class AmbushTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {AmbushState|null} */
    this.ambush = null;
  }

  get enterToast() {
    return 'Arrive from Ambush: move along a table edge, click to choose the point.';
  }

  hint() {
    const a = this.ambush;
    const who = a?.name ? `${a.name}: ` : '';
    return a?.fixed
      ? `${who}drag the ghost to adjust it, R turns it ${AMBUSH_TURN_STEP_DEG}°; click it or press Enter to arrive. A click elsewhere picks another edge point (Esc cancels).`
      : `${who}move along a table edge; the ghost shows where the unit would arrive. Click to choose the point (Esc cancels).`;
  }

  addHooks() {
    const t = this.table;
    t.tools.measure.clear();
    t.tools.los.clear();
    this.ambush = {
      unit: null, name: '', point: null, fixed: false, zone: null, outline: null, requested: null,
      placement: null, shown: null, drag: null, wanted: false, committing: false, confirmSoon: false,
      asker: new LatestOnly(
        (q) => t.conn.ambushOptions(q.unit, q.point, q.placement),
        (res, q) => this.onAnswer(res, q),
        (err) => this.onRefusal(err),
        { minIntervalMs: QUESTION_INTERVAL_MS },
      ),
    };
  }

  removeHooks() {
    this.ambush?.asker.cancel();
    this.ambush = null;
  }

  /** Pick the tool for a unit that rolled to arrive (the tray's Arrive button). @param {string} unitId */
  start(unitId) {
    const t = this.table;
    t.setMode('ambush');
    const a = this.ambush;
    if (!a) return;
    a.unit = unitId;
    a.name = String(t.store.state?.units?.[unitId]?.name || unitId);
    t.onChange();
  }

  /** Ask the server about the current point and placement with the next frame. */
  ask() {
    if (!this.ambush) return;
    this.ambush.wanted = true;
    this.table.redraw();
  }

  /** Nothing is waiting for an answer. @param {AmbushState} a */
  static settled(a) {
    return !a.wanted && a.asker.idle;
  }

  /** @param {AmbushAnswer} res @param {AmbushQuestion} q */
  onAnswer(res, q) {
    const a = this.ambush;
    if (!a || a.committing || q.unit !== a.unit) return;
    a.zone = res.zone || null;
    if (Array.isArray(res.outline) && res.outline.length >= 3) a.outline = res.outline;
    const v = ambushVerdict(res);
    a.placement = v.placement;
    a.shown = v.shown;
    // Once the player lets go, what they ask for becomes the snapped placement.
    if (a.fixed && !a.drag && v.placement) a.requested = v.placement;
    this.showGhost(v.verdict, v.text, v.swept);
    if (a.confirmSoon && AmbushTool.settled(a)) {
      a.confirmSoon = false;
      void this.arrive();
    }
    this.table.onChange();
  }

  /** @param {WireError} err */
  onRefusal(err) {
    const a = this.ambush;
    if (!a) return;
    a.placement = null;
    this.showGhost('illegal', errorText({ ...err, message: err?.message || err?.code || 'refused' }), null);
    this.table.onChange();
  }

  /** The table's ghost at `shown`. @param {'legal'|'illegal'|'unknown'} verdict @param {string} text @param {Geometry|null} swept */
  showGhost(verdict, text, swept) {
    const t = this.table;
    const a = this.ambush;
    if (!a?.shown || !a.outline) {
      t.moves.ghost = null;
      return t.redraw();
    }
    const box = outlineBox(a.outline, a.shown);
    t.moves.ghost = {
      x: box.x, y: box.y, facing: a.shown.facing, width: box.width, depth: box.depth,
      geometry: placeOutline(a.outline, a.shown), verdict, text: `${a.name} · ${text}`, swept,
      phase: 'placing',
    };
    t.redraw();
  }

  /** The point under the pointer, snapped to the edge. @param {Pt} w */
  pointAt(w) {
    return snapToEdge(w, this.table.store.state?.battlefield || { width: 72, depth: 48 });
  }

  /** Send `arrive_from_ambush` with the placement the server last found valid. */
  async arrive() {
    const t = this.table;
    const a = this.ambush;
    if (!a || a.committing || !a.unit) return;
    if (!a.fixed || !a.point) return t.toast('Arrive: click a point on a table edge first.', 'info');
    if (!AmbushTool.settled(a)) {
      a.confirmSoon = true;
      return;
    }
    if (!a.placement || !a.outline) return t.toast('Arrive: no valid placement from this point; pick another.', 'error');
    const pl = a.placement;
    a.shown = pl;
    this.showGhost('legal', 'arriving…', null);
    a.committing = true;
    const action = { type: 'arrive_from_ambush', unit: a.unit, point: [a.point.x, a.point.y], x: pl.x, y: pl.y, facing: pl.facing };
    const ack = await t.moves.commit(action, `Arrive ${a.name}`);
    if (this.ambush !== a) return;
    if (ack) {
      t.toast(`${a.name} arrive from Ambush.`, 'ok');
      t.setMode('idle');
    } else {
      a.committing = false;
    }
  }

  /** @param {Pt} w */
  hover(w) {
    const a = this.ambush;
    if (!a || a.fixed || a.committing) return;
    const p = this.pointAt(w);
    if (a.point && a.point.x === p.x && a.point.y === p.y) return;
    a.point = p;
    this.ask();
  }

  /** @param {Pt} w */
  tap(w) {
    const a = this.ambush;
    if (!a || a.committing) return true;
    const g = this.table.moves.ghost;
    const onGhost = a.fixed && g?.geometry && pointInGeometry(g.geometry, w.x, w.y);
    if (onGhost) {
      void this.arrive();
      return true;
    }
    // A click away from the ghost chooses (again) the point on the edge.
    a.point = this.pointAt(w);
    a.fixed = true;
    a.requested = null;
    a.placement = null;
    this.ask();
    this.table.onChange();
    return true;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const a = this.ambush;
    const from = a?.requested || a?.placement;
    const g = this.table.moves.ghost;
    if (!a || !a.fixed || a.committing || !from || !g?.geometry) return false;
    if (!pointInGeometry(g.geometry, w.x, w.y)) return false;
    a.drag = { start: w, from };
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    const a = this.ambush;
    if (!a?.drag) return;
    const { start, from } = a.drag;
    a.requested = { x: round2(from.x + w.x - start.x), y: round2(from.y + w.y - start.y), facing: from.facing };
    this.ask();
  }

  dragEnd() {
    const a = this.ambush;
    if (!a) return;
    a.drag = null;
    if (a.placement && AmbushTool.settled(a)) a.requested = a.placement;
    this.table.redraw();
  }

  dragCancel() {
    const a = this.ambush;
    if (!a?.drag) return;
    a.requested = a.drag.from;
    a.drag = null;
    this.ask();
  }

  /** @param {string} cmd @param {{shiftKey?:boolean}} [e] */
  command(cmd, e) {
    const a = this.ambush;
    if (!a) return false;
    if (cmd === 'confirm') {
      void this.arrive();
      return true;
    }
    if (cmd === 'rotate' || cmd === 'rotateBack') {
      const base = a.requested || a.placement;
      if (!a.fixed || !base || !a.outline) {
        this.table.toast('Arrive: click a point on a table edge first, then R turns the unit.', 'info');
        return true;
      }
      const sign = cmd === 'rotateBack' || e?.shiftKey ? -1 : 1;
      a.requested = turnPlacement(base, AMBUSH_TURN_STEP_DEG * sign, a.outline);
      this.ask();
      return true;
    }
    return false;
  }

  frame() {
    const t = this.table;
    const a = this.ambush;
    if (!this.enabled || !a || a.committing) return;
    const unit = a.unit ? t.store.state?.units?.[a.unit] : null;
    if (a.unit && (!unit || unit.status !== 'ambush')) {
      // It arrived (or left) meanwhile: nothing to place any more.
      t.setMode('idle');
      return;
    }
    if (!a.wanted || !a.point || !a.unit) return;
    a.wanted = false;
    /** @type {AmbushQuestion} */
    const q = { unit: a.unit, point: { x: a.point.x, y: a.point.y } };
    if (a.fixed && a.requested) q.placement = a.requested;
    a.asker.offer(q);
  }

  layers() {
    return { ambush: ambushOverlay(this.ambush) };
  }
}
