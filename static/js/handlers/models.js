// Moving a unit placed model by model (40k): drag one model, or Shift-drag the whole unit. The
// move is staged: each drag adds to it, the ghost shows the server's verdict on the whole
// unit's `move_models`, and Confirm (Enter) sends it; Esc puts the models back.

import { Handler } from './handler.js';
import { round2 } from '../view/transform.js';
import { movesModelByModel, unitOffer } from '../ui/offers.js';
import { modelIndexAt, stagedModels, basisOf } from '../view/manoeuvre.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').GameState} GameState */

/** A unit placed model by model (40k): its models move one by one. Read from the unit's
 * projected shape (model positions, no ranked block) and the server's orders (`move_models`).
 * @param {GameState|null} state @param {Unit|null} unit */
export function isModelUnit(state, unit) {
  return Boolean(unit && unitOffer(state, unit.id, 'move_models')) || movesModelByModel(unit);
}

/**
 * @typedef {Object} ModelDragState
 * @property {Unit} unit
 * @property {Pt} start        where the drag began, inches
 * @property {number} index    the model dragged; -1: all of them
 * @property {number[][]} from staged positions when the drag began
 */

export class ModelDrag extends Handler {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {ModelDragState|null} */
    this.drag = null;
  }

  removeHooks() {
    this.drag = null;
  }

  /** @param {Pt} w @param {{shiftKey?:boolean}} [e] */
  dragStart(w, e) {
    const t = this.table;
    const st = t.store.state;
    const unit = st?.stage === 'battle' ? t.ownUnit(t.pieceAt(w)) : null;
    if (!unit || !this.movable(st, unit)) return false;
    const index = e?.shiftKey ? -1 : modelIndexAt(unit, w.x, w.y);
    const g = t.moves.ghost;
    const staged = g?.phase === 'staged' && g.id === unit.id && g.positions
      ? g.positions
      : (unit.positions || []).map((p) => [p[0], p[1]]);
    if (!staged.length) return false;
    t.selected = unit.id;
    this.drag = { unit, start: w, index, from: staged.map((p) => [...p]) };
    this.stage(unit, staged, 'dragging', index);
    t.onChange();
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    const d = this.drag;
    if (!d || !this.table.moves.ghost) return;
    const dx = w.x - d.start.x;
    const dy = w.y - d.start.y;
    const positions = d.from.map((p, i) => (d.index < 0 || i === d.index ? [round2(p[0] + dx), round2(p[1] + dy)] : p));
    this.stage(d.unit, positions, 'dragging', d.index);
  }

  dragEnd() {
    const moves = this.table.moves;
    const g = moves.ghost;
    const d = this.drag;
    this.drag = null;
    if (!d || !g) return;
    if (!g.action) return moves.clearGhost();
    g.phase = 'staged';
    this.table.onChange();
    this.table.redraw();
  }

  dragCancel() {
    const d = this.drag;
    const moves = this.table.moves;
    this.drag = null;
    if (d && moves.ghost) {
      // Back to what was staged before this drag.
      const now = d.unit.positions || [];
      const moved = d.from.some((p, i) => p[0] !== now[i]?.[0] || p[1] !== now[i]?.[1]);
      if (moved) return this.stage(d.unit, d.from, 'staged');
    }
    if (!moves.committing) moves.clearGhost();
  }

  /** May this unit's models be dragged now? (A charge move takes only the charging unit.)
   * @param {GameState|null} st @param {Unit} unit */
  movable(st, unit) {
    return isModelUnit(st, unit);
  }

  /** The action a staged move of `unit` to `positions` sends (and previews).
   * @param {Unit} unit @param {number[][]} positions @returns {import('../types.js').Action} */
  actionFor(unit, positions) {
    return { type: 'move_models', unit: unit.id, positions };
  }

  /**
   * The ghost of a unit with its models at `positions`, and its action to preview.
   * @param {Unit} unit @param {number[][]} positions @param {'dragging'|'staged'} phase @param {number} [index]
   */
  stage(unit, positions, phase, index = -1) {
    const moves = this.table.moves;
    const now = unit.positions || [];
    const moved = positions.some((p, i) => Math.hypot(p[0] - now[i][0], p[1] - now[i][1]) >= 0.01);
    const focus = positions[index >= 0 ? index : 0] || [0, 0];
    const geometry = stagedModels(unit, positions);
    const action = moved ? this.actionFor(unit, positions) : null;
    const keep = moves.ghost?.id === unit.id && moves.ghost.positions ? moves.ghost : null;
    if (!keep) moves.setGhost({ id: unit.id, x: focus[0], y: focus[1], facing: 0, width: 2, depth: 2, geometry, verdict: 'unknown', phase, positions, basis: basisOf(unit) }, action);
    else Object.assign(keep, { x: focus[0], y: focus[1], geometry, phase, positions, action });
    if (!action) moves.noVerdict();
    if (!action && phase === 'staged') return moves.clearGhost();
    moves.ask();
  }
}
