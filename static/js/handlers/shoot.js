// The Shoot tool: the selected unit shoots at the enemy unit clicked, with the weapon picked in
// the panel (when it has several).

import { Tool } from './handler.js';
import { errorText } from '../format.js';
import { isForty, shootAction } from '../ui/forty.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Action} Action */

export class ShootTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The weapon picked in the panel, if any. @type {string|undefined} */
    this.weapon = undefined;
  }

  get enterToast() {
    return 'Shoot: click the enemy unit to shoot at.';
  }

  hint() {
    return 'Click the enemy unit to shoot at (Esc to cancel).';
  }

  /** @param {Pt} _w @param {string|null} hit */
  tap(_w, hit) {
    void this.shootAt(hit);
    return true;
  }

  /** The same as a click on the piece, from the units list. @param {string} id */
  pickPiece(id) {
    void this.shootAt(id);
    this.table.onChange();
    return true;
  }

  /** @param {string|null} hit */
  async shootAt(hit) {
    const t = this.table;
    const unit = t.ownUnit(t.selected);
    if (!unit) return t.setMode('idle');
    const target = hit ? t.store.state?.units?.[hit] : null;
    if (!target || target.owner === t.store.seat) return t.toast('Shoot: click an enemy unit.', 'info');
    t.setMode('idle');
    /** @type {Action} */
    let action = { type: 'shoot', unit: unit.id, target: target.id };
    if (this.weapon) action.weapon = this.weapon;
    if (isForty(t.store.state)) action = shootAction(t.store.state, unit.id, target.id, this.weapon);
    try {
      await t.conn.act(action);
    } catch (err) {
      t.toast(`Shoot ${unit.name || unit.id}: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }
}
