// The Charge tool: with one of your units selected, click the enemy unit it charges. The
// server rolls and says what came of it (a toast; the reaction waits for the other player).

import { Tool } from './handler.js';
import { chargeAckToast, errorText } from '../format.js';
import { unitOffer } from '../ui/offers.js';

/** @typedef {import('../types.js').Pt} Pt */

export class ChargeTool extends Tool {
  get enterToast() {
    return 'Charge: click the enemy unit to charge.';
  }

  hint() {
    return 'Click the enemy unit to charge (Esc to cancel).';
  }

  /** @param {Pt} _w @param {string|null} hit */
  tap(_w, hit) {
    void this.click(hit);
    return true;
  }

  /** The same as a click on the piece, from the units list. @param {string} id */
  pickPiece(id) {
    void this.click(id);
    this.table.onChange();
    return true;
  }

  /** @param {string|null} hit */
  async click(hit) {
    const t = this.table;
    const unit = t.ownUnit(t.selected);
    if (!unit) return t.setMode('idle');
    const target = hit ? t.store.state?.units?.[hit] : null;
    // The server's order lists the units this one may be given as targets (each with why not).
    const offered = unitOffer(t.store.state, unit.id, 'declare_charge');
    const listed = Array.isArray(offered?.targets) && offered.targets.some((/** @type {any} */ x) => x.unit === target?.id);
    if (!target || (offered && !listed)) return t.toast('Charge: click an enemy unit.', 'info');
    t.setMode('idle');
    try {
      const ack = await t.conn.act({ type: 'declare_charge', unit: unit.id, target: target.id });
      const said = chargeAckToast(t.store.history, ack.seq, t.store.state);
      if (said) t.toast(said.text, said.kind);
    } catch (err) {
      t.toast(`Charge: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }
}
