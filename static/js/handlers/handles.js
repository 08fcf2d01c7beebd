// The selected ranked unit's handles: drag a wheel handle to wheel about a front corner, the
// pivot handle to turn about the centre, the reform handle to change the frontage (R turns a
// reform 90°), and a Light Troops unit's ✥ centre handle to reform it elsewhere. Without a
// drag, R stages a 15° pivot for Confirm (Enter); the panel's buttons stage
// a 15° wheel the same way (previewed by the server, then Confirm).

import { Handler } from './handler.js';
import {
  unitFrame, handlesOf, handleAt, wheelDegrees, pivotDegrees, reformFiles, rotateGeometry,
  reformOutline, basisOf,
} from '../view/manoeuvre.js';
import { centreHandle, lightReform } from '../view/light.js';
import { unitOffer } from '../ui/offers.js';
import { isModelUnit } from './models.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').Action} Action */
/** @typedef {import('../view/manoeuvre.js').UnitFrame} UnitFrame */
/** @typedef {import('../view/manoeuvre.js').Handle | ReturnType<typeof centreHandle>} AnyHandle */

/**
 * @typedef {Object} HandleDragState
 * @property {Unit} unit
 * @property {'wheel'|'pivot'|'reform'|'light'} kind
 * @property {AnyHandle} handle
 * @property {UnitFrame} frame
 * @property {number} turn            degrees a reform turns the unit (R while dragging)
 * @property {[number, number]|null} last  the last pointer position
 */

export class HandleDrag extends Handler {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {HandleDragState|null} */
    this.drag = null;
  }

  removeHooks() {
    this.drag = null;
  }

  /** The selected own ranked unit that may manoeuvre now, with its frame; else null. */
  manoeuvrable() {
    const t = this.table;
    const st = t.store.state;
    if (st?.stage !== 'battle' || st.active_player !== t.store.seat) return null;
    const unit = t.ownUnit(t.selected);
    if (!unit || isModelUnit(st, unit)) return null;
    // Only where the server shows the move order (its Movement phase, its own unit). When the
    // order is shown but not possible (already reformed, engaged), a drag still previews and
    // the ghost names the server's rule.
    const move = unitOffer(st, unit.id, 'move_unit');
    if (!move) return null;
    const frame = unitFrame(unit);
    return frame ? { unit, frame, move } : null;
  }

  /** Wheel, pivot and reform handles of the selected unit (none while a move is staged or sent).
   * @returns {AnyHandle[]|null} */
  handles() {
    const t = this.table;
    const phase = t.moves.ghost?.phase;
    if (phase === 'staged' || phase === 'committing') return null;
    const m = this.manoeuvrable();
    if (!m || !t.view) return null;
    /** @type {AnyHandle[]} */
    const hs = handlesOf(m.frame, t.view.scale);
    return m.move.reform_centre ? [...hs, centreHandle(m.frame)] : hs;
  }

  /** @param {Pt} w */
  handleAt(w) {
    const hs = this.enabled ? this.handles() : null;
    const view = this.table.view;
    return hs && view ? /** @type {AnyHandle|null} */ (handleAt(/** @type {import('../view/manoeuvre.js').Handle[]} */ (hs), w.x, w.y, view.scale)) : null;
  }

  /** Drawn while nothing is dragged. */
  layers() {
    return { handles: this.enabled && !this.table.dragging ? /** @type {import('../view/manoeuvre.js').Handle[]|null} */ (this.handles()) : null };
  }

  /** @param {Pt} w */
  cursor(w) {
    return this.handleAt(w) ? 'move' : null;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const handle = this.handleAt(w);
    const m = handle ? this.manoeuvrable() : null;
    if (!handle || !m) return false;
    const kind = handle.kind === 'pivot' ? 'pivot' : handle.kind === 'reform' ? 'reform' : handle.kind === 'move' ? 'light' : 'wheel';
    this.drag = { unit: m.unit, kind, handle, frame: m.frame, turn: 0, last: null };
    const [cx, cy] = m.frame.centre;
    const moves = this.table.moves;
    moves.setGhost({ id: m.unit.id, x: cx, y: cy, facing: m.frame.facing, width: m.frame.width, depth: m.frame.depth, geometry: m.frame.geometry, verdict: 'unknown', phase: 'dragging' }, null);
    moves.previewWanted = false;
    this.table.onChange();
    return true;
  }

  /** A handle dragged to `w` (or where it was, after R): the ghost and the action to preview.
   * @param {Pt} [w] */
  dragMove(w) {
    const d = this.drag;
    const moves = this.table.moves;
    const g = moves.ghost;
    if (!d || !g) return;
    const f = d.frame;
    const h = d.handle;
    const u = d.unit;
    /** @type {[number, number]} */
    const pt = w ? [w.x, w.y] : d.last || [h.x, h.y];
    d.last = pt;
    const mode = moves.mode;
    if (d.kind === 'wheel' && h.kind !== 'move') {
      const deg = wheelDegrees(h, pt);
      const about = /** @type {[number, number]} */ (h.about);
      g.geometry = rotateGeometry(f.geometry, about[0], about[1], deg);
      g.action = deg ? { type: 'move_unit', unit: u.id, manoeuvre: 'wheel', mode, degrees: deg } : null;
      g.label = `Wheel ${Math.abs(deg)}° ${deg >= 0 ? 'left' : 'right'}`;
    } else if (d.kind === 'pivot' && h.kind !== 'move') {
      const deg = pivotDegrees(f, h, pt);
      g.geometry = rotateGeometry(f.geometry, f.centre[0], f.centre[1], deg);
      g.action = deg ? { type: 'move_unit', unit: u.id, manoeuvre: 'pivot', mode, degrees: deg } : null;
      g.label = `Pivot ${Math.abs(deg)}°`;
    } else if (d.kind === 'light') {
      // Light Troops: a Reform that moves the unit's centre (view/light.js).
      const r = lightReform(f, [h.x, h.y], pt, u, d.turn, mode);
      Object.assign(g, { geometry: r.geometry, facing: r.facing, action: r.action, label: r.label });
    } else {
      const models = (u.models || 1) + (Array.isArray(u.characters) ? u.characters.length : 0);
      const filesNow = u.files || 1;
      const files = reformFiles(f, pt, filesNow, models);
      const facing = (((f.facing + d.turn) % 360) + 360) % 360;
      g.geometry = reformOutline(f, filesNow, models, files, facing);
      g.facing = facing;
      const changed = files !== filesNow || d.turn % 360 !== 0;
      g.action = changed ? { type: 'move_unit', unit: u.id, manoeuvre: 'reform', mode, files, facing } : null;
      g.label = `Reform: ${files} wide${d.turn ? `, turned ${d.turn}°` : ''}`;
    }
    if (!g.action) moves.noVerdict();
    moves.ask();
  }

  dragEnd() {
    const d = this.drag;
    const moves = this.table.moves;
    const g = moves.ghost;
    this.drag = null;
    if (!d || !g) return;
    if (!g.action) return moves.clearGhost();
    const what = d.kind === 'wheel' ? 'Wheel' : d.kind === 'pivot' ? 'Pivot' : 'Reform';
    void moves.commit(g.action, `${what} ${d.unit.name || d.unit.id}`);
  }

  dragCancel() {
    this.drag = null;
    if (!this.table.moves.committing) this.table.moves.clearGhost();
  }

  /** R while dragging a reform turns it 90°. @param {1|-1} sign */
  rotate(sign) {
    if (this.drag?.kind !== 'reform' && this.drag?.kind !== 'light') return false;
    this.drag.turn += 90 * sign;
    this.dragMove();
    return true;
  }

  /** R on a selected ranked unit: stage a pivot, `deg` more, for Confirm (Enter).
   * @param {number} deg @returns {boolean} false: no unit to pivot */
  nudgePivot(deg) {
    const m = this.manoeuvrable();
    if (!m) return false;
    const t = this.table;
    const moves = t.moves;
    const g = moves.ghost;
    const before = g?.phase === 'staged' && g.id === m.unit.id && g.action?.manoeuvre === 'pivot' ? Number(g.action.degrees) : 0;
    const total = before + deg;
    const geometry = rotateGeometry(m.frame.geometry, m.frame.centre[0], m.frame.centre[1], total);
    /** @type {Action|null} */
    const action = total % 360 ? { type: 'move_unit', unit: m.unit.id, manoeuvre: 'pivot', mode: moves.mode, degrees: total } : null;
    if (!action) {
      moves.clearGhost();
      t.onChange();
      return true;
    }
    const [cx, cy] = m.frame.centre;
    moves.setGhost({ id: m.unit.id, x: cx, y: cy, facing: m.frame.facing + total, width: m.frame.width, depth: m.frame.depth, geometry, verdict: 'unknown', phase: 'staged', basis: basisOf(m.unit), label: `Pivot ${Math.abs(total)}°` }, action);
    t.onChange();
    return true;
  }

  /** Stage a reform of the selected unit to `files` wide, turned `turn`°, for Confirm (a typed
   * order, ui/typed.js; the server says whether it may). @param {number} files @param {number} [turn]
   * @returns {boolean} false: no unit to reform */
  stageReform(files, turn = 0) {
    const m = this.manoeuvrable();
    if (!m) return false;
    const t = this.table;
    const u = m.unit;
    const models = (u.models || 1) + (Array.isArray(u.characters) ? u.characters.length : 0);
    const filesNow = u.files || 1;
    const facing = (((m.frame.facing + turn) % 360) + 360) % 360;
    const [cx, cy] = m.frame.centre;
    if (files === filesNow && turn % 360 === 0) {
      t.moves.clearGhost();
      t.onChange();
      return true;
    }
    t.moves.setGhost({
      id: u.id, x: cx, y: cy, facing, width: m.frame.width, depth: m.frame.depth,
      geometry: reformOutline(m.frame, filesNow, models, files, facing), verdict: 'unknown', phase: 'staged',
      basis: basisOf(u), label: `Reform: ${files} wide${turn % 360 ? `, turned ${turn}°` : ''}`,
    }, { type: 'move_unit', unit: u.id, manoeuvre: 'reform', mode: t.moves.mode, files, facing });
    t.onChange();
    return true;
  }

  /** Stage a wheel of the selected unit, `deg` more (positive: to the left, turning about
   * the front-left corner; negative about the front-right), for Confirm (Enter): the ghost shows where
   * it would stand with the server's verdict before anything is sent (issue 19 item 5). A wheel
   * the other way while one is staged takes degrees off it.
   * @param {number} deg @returns {boolean} false: no unit to wheel */
  wheelSelected(deg) {
    const m = this.manoeuvrable();
    const t = this.table;
    if (!m) {
      t.toast('Select one of your units that may move now.', 'info');
      return false;
    }
    const moves = t.moves;
    const g = moves.ghost;
    const before = g?.phase === 'staged' && g.id === m.unit.id && g.action?.manoeuvre === 'wheel' ? Number(g.action.degrees) : 0;
    const total = before + deg;
    if (!total) {
      moves.clearGhost();
      t.onChange();
      return true;
    }
    const f = m.frame;
    // A wheel to the left turns about the front-left corner, to the right about the front-right.
    const about = total > 0 ? f.fl : f.fr;
    const geometry = rotateGeometry(f.geometry, about[0], about[1], total);
    const [cx, cy] = f.centre;
    moves.setGhost({
      id: m.unit.id, x: cx, y: cy, facing: f.facing + total, width: f.width, depth: f.depth, geometry,
      verdict: 'unknown', phase: 'staged', basis: basisOf(m.unit), label: `Wheel ${Math.abs(total)}° ${total > 0 ? 'left' : 'right'}`,
    }, { type: 'move_unit', unit: m.unit.id, manoeuvre: 'wheel', mode: moves.mode, degrees: total });
    t.onChange();
    return true;
  }
}
