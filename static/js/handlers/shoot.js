// The Shoot tool: the selected unit shoots at the enemy unit clicked, with the weapon picked in
// the panel (when it has several). A 40k unit (its `shoot_weapons` order) does not roll on the
// click: the unit clicked becomes the target in its Shoot panel, where the player sees range and
// visibility and ticks the weapons before rolling (ui/forty.js).

import { Tool } from './handler.js';
import { errorText } from '../format.js';
import { aimLine, pickShootTarget } from '../ui/forty.js';
import { unitOffer } from '../ui/offers.js';
import { sightOf } from '../view/sight.js';

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
    return this.fortyOrder() ? 'Shoot: click the enemy unit to make it the target.' : 'Shoot: click the enemy unit to shoot at.';
  }

  hint() {
    return this.fortyOrder() ? 'Click the enemy unit to make it the target (Esc to cancel).' : 'Click the enemy unit to shoot at (Esc to cancel).';
  }

  /** Drawn while a shooter is selected, whatever the tool: a 40k unit's line to its target,
   * with the distance and whether it is visible (the player sees them before rolling); a
   * t9a / whfb8 unit's weapon areas and its targets marked (view/sight.js). */
  layers() {
    const aim = aimLine(this.table.store.state, this.table.selected);
    // t9a / whfb8: the selected shooter's weapon areas and its targets marked, before a click
    // (issue 19 item 7): from the server's `shoot` order, only while it offers one.
    const sight = sightOf(this.table.store.state, this.table.selected);
    return { ...(aim ? { aim } : {}), ...(sight ? { sight } : {}) };
  }

  /** The selected unit's 40k Shoot order, if the server offers one. */
  fortyOrder() {
    const t = this.table;
    return t.selected ? unitOffer(t.store.state, t.selected, 'shoot_weapons') : null;
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
    const forty = this.fortyOrder();
    if (forty) {
      const listed = Array.isArray(forty.targets) && forty.targets.some((x) => x.unit === target?.id);
      if (!target || !listed) return t.toast('Shoot: click an enemy unit on the table.', 'info');
      pickShootTarget(unit.id, target.id);
      return t.setMode('idle');
    }
    // The server's order lists the units this one may be given as targets (each with why not).
    const offered = unitOffer(t.store.state, unit.id, 'shoot');
    const listed = Array.isArray(offered?.targets) && offered.targets.some((x) => x.unit === target?.id);
    if (!target || (offered && !listed)) return t.toast('Shoot: click an enemy unit.', 'info');
    t.setMode('idle');
    /** @type {Action} */
    const action = { type: 'shoot', unit: unit.id, target: target.id };
    if (this.weapon) action.weapon = this.weapon;
    try {
      await t.conn.act(action);
    } catch (err) {
      t.toast(`Shoot ${unit.name || unit.id}: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }
}
