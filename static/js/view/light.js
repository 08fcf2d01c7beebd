// Light Troops (The 9th Age, seed 000): a Reform that also moves the unit's centre. The
// selected Light Troops unit gets one more handle, ✥ at its centre; dragging it asks the
// server for a `move_unit` reform with `centre` (files kept, R turns it 90°); the handle is shown
// when the server's move order says the unit may reform around a new centre (`reform_centre`). Whether that is
// within twice the Mobility, and whether it counts as a March, is the server's answer. Pure.

import { rotateGeometry, translateGeometry } from './manoeuvre.js';
import { round2 } from './transform.js';
import { inches } from '../format.js';

/** @typedef {import('./manoeuvre.js').UnitFrame} UnitFrame */
/** @typedef {[number, number]} Pos */

/** The ✥ handle at the unit's centre. @param {UnitFrame} f */
export function centreHandle(f) {
  return { kind: /** @type {const} */ ('move'), x: f.centre[0], y: f.centre[1] };
}

/**
 * The ghost and the action of a Light Troops reform whose centre is dragged from the handle
 * (`from`) to `pt`, the unit turned `turn` degrees.
 * @param {UnitFrame} f @param {Pos} from @param {Pos} pt @param {{id:string, files?:number}} unit @param {number} turn
 * @param {'advance'|'march'} mode
 */
export function lightReform(f, from, pt, unit, turn, mode) {
  const dx = round2(pt[0] - from[0]);
  const dy = round2(pt[1] - from[1]);
  const centre = /** @type {Pos} */ ([round2(f.centre[0] + dx), round2(f.centre[1] + dy)]);
  const facing = (((f.facing + turn) % 360) + 360) % 360;
  const moved = translateGeometry(f.geometry, dx, dy);
  const geometry = turn % 360 ? rotateGeometry(moved, centre[0], centre[1], turn) : moved;
  const shift = Math.hypot(dx, dy);
  const changed = shift >= 0.05 || turn % 360 !== 0;
  const action = changed
    ? { type: 'move_unit', unit: unit.id, manoeuvre: 'reform', mode, files: unit.files || 1, facing, centre }
    : null;
  const label = `Reform, centre moved ${inches(shift)}${turn % 360 ? `, turned ${turn}°` : ''}`;
  return { geometry, facing, centre, action, label };
}
