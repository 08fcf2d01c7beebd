// The Free move tool (a move by agreement): the selected unit's outline follows the pointer; a
// click puts it down, R turns it 15°, Enter or "Propose free move" asks the opponent. The ghost
// shows the server's verdict on the proposal as a `preview`, like a move: green, or red with
// the rule and obstacle.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';
import { rotateGeometry, stagedModels, boundaryOf, translateGeometry, basisOf } from '../view/manoeuvre.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').Geometry} Geometry */
/** @typedef {{geometry:Geometry, centre:number[], facing:number}} Boundary */
/** @typedef {{id:string, boundary:Boundary, deg:number, at:Pt|null}} FreeMove */

const TURN_STEP_DEG = 15;

/**
 * A point turned `deg` (counter-clockwise, as facings grow) about (cx, cy).
 * @param {number} x @param {number} y @param {number} cx @param {number} cy @param {number} deg
 */
export function turnPoint(x, y, cx, cy, deg) {
  const t = (deg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  return [cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c];
}

/**
 * The free-move proposal for `unit` with its outline's centre put at `at` and turned `deg`:
 * a ranked unit by its placement (front-edge centre) and facing, a 40k unit by its models.
 * Pure (tested under node).
 * @param {Unit} unit @param {{centre:number[]}} b its boundary @param {Pt} at @param {number} deg
 * @returns {{type:'propose', kind:'free_move', unit:string, x?:number, y?:number, facing?:number, positions?:number[][]}}
 */
export function freeMoveAction(unit, b, at, deg) {
  const [cx, cy] = b.centre;
  const dx = at.x - cx;
  const dy = at.y - cy;
  if (unit.placement && !(Array.isArray(unit.positions) && unit.positions.length)) {
    const [x, y] = turnPoint(unit.placement.x + dx, unit.placement.y + dy, at.x, at.y, deg);
    const facing = ((((unit.placement.facing || 0) + deg) % 360) + 360) % 360;
    return { type: 'propose', kind: 'free_move', unit: unit.id, x: round2(x), y: round2(y), facing: round2(facing) };
  }
  const positions = (unit.positions || []).map((p) => turnPoint(p[0] + dx, p[1] + dy, at.x, at.y, deg).map(round2));
  return { type: 'propose', kind: 'free_move', unit: unit.id, positions };
}

export class FreeMoveTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The unit in hand, its outline, the turn and where it was put. @type {FreeMove|null} */
    this.freeMove = null;
  }

  get enterToast() {
    return 'Free move: click where the unit goes (R turns it), then Propose.';
  }

  /** @returns {string} */
  hint() {
    return this.table.moves.ghost?.phase === 'staged'
      ? 'Propose free move (Enter), click elsewhere to put it there instead, R turns it, Esc resets.'
      : 'Click where the unit goes; R turns it 15° (Esc to stop).';
  }

  addHooks() {
    const t = this.table;
    const id = t.selected;
    const unit = id ? t.store.state?.units?.[id] : null;
    const b = unit && unit.status === 'on_table' ? boundaryOf(unit) : null;
    this.freeMove = unit && b ? { id: unit.id, boundary: b, deg: 0, at: null } : null;
  }

  removeHooks() {
    this.freeMove = null;
  }

  /** Put the ghost at `at`, turned as chosen. @param {Pt} at @param {'dragging'|'staged'} phase */
  place(at, phase) {
    const t = this.table;
    const fm = this.freeMove;
    const unit = fm ? t.store.state?.units?.[fm.id] : null;
    if (!fm || !unit) return;
    const b = fm.boundary;
    const action = freeMoveAction(unit, b, at, fm.deg);
    const geometry = action.positions
      ? stagedModels(unit, action.positions)
      : rotateGeometry(translateGeometry(b.geometry, at.x - b.centre[0], at.y - b.centre[1]), at.x, at.y, fm.deg);
    fm.at = at;
    const ghost = { id: unit.id, x: at.x, y: at.y, facing: b.facing + fm.deg, width: 2, depth: 2, geometry, phase, proposal: true, basis: basisOf(unit), label: `Free move${fm.deg ? `, turned ${fm.deg}°` : ''}` };
    const moves = t.moves;
    if (!moves.ghost || !moves.ghost.proposal) moves.setGhost({ ...ghost, verdict: 'unknown' }, action);
    else Object.assign(moves.ghost, ghost, { action });
    moves.previewWanted = true;
    t.redraw();
  }

  /** @param {Pt} w */
  hover(w) {
    const g = this.table.moves.ghost;
    if (!this.freeMove || (g && (g.phase === 'staged' || g.phase === 'committing'))) return;
    this.place({ x: round2(w.x), y: round2(w.y) }, 'dragging');
  }

  /** @param {Pt} w */
  tap(w) {
    const t = this.table;
    if (!this.freeMove) {
      t.toast('Free move: select a unit on the table first.', 'info');
      return true;
    }
    this.place({ x: round2(w.x), y: round2(w.y) }, 'staged');
    t.onChange();
    return true;
  }

  /** @param {1|-1} sign */
  rotate(sign) {
    const fm = this.freeMove;
    if (!fm) return true;
    fm.deg = (fm.deg + TURN_STEP_DEG * sign) % 360;
    this.place(fm.at || { x: fm.boundary.centre[0], y: fm.boundary.centre[1] }, this.table.moves.ghost?.phase === 'staged' ? 'staged' : 'dragging');
    this.table.onChange();
    return true;
  }

  confirm() {
    void this.propose();
    return true;
  }

  /** Send the staged free move as a proposal, then leave the tool. */
  async propose() {
    const t = this.table;
    const g = t.moves.ghost;
    if (!g?.proposal || g.phase !== 'staged' || !g.action) return;
    const ack = await t.moves.commit(g.action, 'Propose free move');
    if (ack) {
      t.setMode('idle');
      t.toast('Free move proposed: waiting for your opponent.', 'info');
    }
  }
}
