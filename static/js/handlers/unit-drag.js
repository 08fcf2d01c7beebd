// Dragging a ranked unit: it moves straight forward or back along its facing (an Advance, or
// a March with the March switch on); released, the move is sent.

import { Handler } from './handler.js';
import { round2 } from '../view/transform.js';
import { boundaryOf, translateGeometry } from '../view/manoeuvre.js';
import { isModelUnit } from './models.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').Geometry} Geometry */

export class UnitDrag extends Handler {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {{unit:Unit, start:Pt, boundary:{geometry:Geometry, centre:number[], facing:number}}|null} */
    this.drag = null;
  }

  removeHooks() {
    this.drag = null;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const t = this.table;
    const st = t.store.state;
    const unit = st?.stage === 'battle' ? t.ownUnit(t.pieceAt(w)) : null;
    if (!unit || isModelUnit(st, unit)) return false;
    const boundary = boundaryOf(unit);
    if (!boundary) return false;
    t.selected = unit.id;
    this.drag = { unit, start: w, boundary };
    const [cx, cy] = boundary.centre;
    t.moves.setGhost({ id: unit.id, x: cx, y: cy, facing: boundary.facing, width: 4, depth: 4, geometry: boundary.geometry, verdict: 'unknown', phase: 'dragging' }, null);
    t.onChange();
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    const d = this.drag;
    const moves = this.table.moves;
    const g = moves.ghost;
    if (!d || !g) return;
    const b = d.boundary;
    const a = (b.facing * Math.PI) / 180;
    const fx = -Math.sin(a);
    const fy = Math.cos(a);
    const along = round2((w.x - d.start.x) * fx + (w.y - d.start.y) * fy);
    const dx = along * fx;
    const dy = along * fy;
    g.action = Math.abs(along) < 0.01 ? null : {
      type: 'move_unit', unit: d.unit.id, manoeuvre: along >= 0 ? 'forward' : 'backward',
      mode: moves.mode, distance: Math.abs(along),
    };
    g.geometry = translateGeometry(b.geometry, dx, dy);
    g.x = b.centre[0] + dx;
    g.y = b.centre[1] + dy;
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
    void moves.commit(g.action, `Move ${d.unit.name || d.unit.id}`);
  }

  dragCancel() {
    this.drag = null;
    if (!this.table.moves.committing) this.table.moves.clearGhost();
  }
}
