// Skirmishers moving model by model (whfb8, seed 002): the selected Skirmishers' outline follows
// the pointer; a click puts it down, R turns it 15°, Enter sends it. In the Movement phase the
// action is `skirmish_move` (Advance, or March with the March switch), before the first turn
// (the first player's Start phase of turn 1) a `vanguard_move`. The server measures every
// model's path around units and Impassable Terrain; the ghost shows its `preview` (green, or
// red with the rule: "Move Distance", "Unit Spacing", "Vanguard: 12 in from enemies").

import { FreeMoveTool, turnPoint } from './free-move.js';
import { round2 } from '../view/transform.js';
import { rotateGeometry, translateGeometry, basisOf } from '../view/manoeuvre.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Unit} Unit */

/**
 * The move for `unit` (a ranked footprint: placement and facing) with its outline's centre put
 * at `at` and turned `deg`: a Vanguard move before the first turn, else a skirmish move.
 * Pure (tested under node).
 * @param {Unit} unit @param {{centre:number[]}} b @param {Pt} at @param {number} deg
 * @param {{turn?:number, phase?:string|null}} st @param {'advance'|'march'} mode
 */
export function skirmishAction(unit, b, at, deg, st, mode) {
  const pl = unit.placement || { x: 0, y: 0, facing: 0 };
  const [x, y] = turnPoint(pl.x + at.x - b.centre[0], pl.y + at.y - b.centre[1], at.x, at.y, deg);
  const facing = round2(((((pl.facing || 0) + deg) % 360) + 360) % 360);
  const vanguard = st.turn === 1 && st.phase === 'Start';
  return vanguard
    ? { type: 'vanguard_move', unit: unit.id, x: round2(x), y: round2(y), facing }
    : { type: 'skirmish_move', unit: unit.id, x: round2(x), y: round2(y), facing, mode };
}

export class SkirmishMoveTool extends FreeMoveTool {
  get enterToast() {
    return 'Skirmish move: click where the unit goes (R turns it), then Enter.';
  }

  /** @returns {string} */
  hint() {
    return this.table.moves.ghost?.phase === 'staged'
      ? 'Enter moves it (every model within its allowance around what is in the way); click elsewhere to put it there instead, R turns it, Esc resets.'
      : 'Click where the Skirmishers go; R turns them 15° (Esc to stop).';
  }

  /** Put the ghost at `at`, turned as chosen. @param {Pt} at @param {'dragging'|'staged'} phase */
  place(at, phase) {
    const t = this.table;
    const fm = this.freeMove;
    const unit = fm ? t.store.state?.units?.[fm.id] : null;
    if (!fm || !unit) return;
    const b = fm.boundary;
    const action = skirmishAction(unit, b, at, fm.deg, t.store.state || {}, t.moves.mode);
    const geometry = rotateGeometry(translateGeometry(b.geometry, at.x - b.centre[0], at.y - b.centre[1]), at.x, at.y, fm.deg);
    fm.at = at;
    const label = action.type === 'vanguard_move' ? 'Vanguard' : `Skirmish ${action.mode}`;
    const ghost = { id: unit.id, x: at.x, y: at.y, facing: b.facing + fm.deg, width: 2, depth: 2, geometry, phase, basis: basisOf(unit), label };
    const moves = t.moves;
    if (!moves.ghost || moves.ghost.id !== unit.id || moves.ghost.proposal) moves.setGhost({ ...ghost, verdict: 'unknown' }, action);
    else Object.assign(moves.ghost, ghost, { action });
    moves.previewWanted = true;
    t.redraw();
  }

  /** @param {Pt} w */
  tap(w) {
    const t = this.table;
    if (!this.freeMove) {
      t.toast('Skirmish move: select your Skirmishers first.', 'info');
      return true;
    }
    this.place({ x: round2(w.x), y: round2(w.y) }, 'staged');
    t.onChange();
    return true;
  }

  confirm() {
    void this.send();
    return true;
  }

  /** Send the staged move, then leave the tool. */
  async send() {
    const t = this.table;
    const g = t.moves.ghost;
    if (!g || g.phase !== 'staged' || !g.action) return;
    const ack = await t.moves.commit(g.action, String(g.label || 'Skirmish move'));
    if (ack) t.setMode('idle');
  }
}
