// The 40k Charge tool (wh40k10, issue 16): with one of your units selected, click the enemy
// units it charges (one or more, as the server's `charge` order lists them: each within 12 in,
// or refused with the reason), then Roll the charge (Enter). The server rolls 2D6; the Charge
// move is then made with the Charge move tool (handlers/charge-move.js).

import { Tool } from './handler.js';
import { errorText } from '../format.js';
import { unitName } from '../ui/forty-orders.js';
import { unitOffer } from '../ui/offers.js';

/** @typedef {import('../types.js').Pt} Pt */

export class FortyChargeTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The charging unit. @type {string|null} */
    this.unit = null;
    /** The targets picked, in order. @type {string[]} */
    this.picked = [];
  }

  get enterToast() {
    return 'Charge: click the enemy units to charge, then Roll the charge (Enter).';
  }

  hint() {
    const st = this.table.store.state;
    const names = this.picked.map((id) => unitName(st, id));
    return names.length
      ? `Targets: ${names.join(', ')}. Click another enemy unit to add it (again to drop it); Enter rolls the charge (Esc cancels).`
      : 'Click an enemy unit within 12 in to charge it (Esc cancels).';
  }

  addHooks() {
    const t = this.table;
    this.unit = t.selected && unitOffer(t.store.state, t.selected, 'charge') ? t.selected : null;
    this.picked = [];
  }

  removeHooks() {
    this.unit = null;
    this.picked = [];
  }

  /** @param {Pt} _w @param {string|null} hit */
  tap(_w, hit) {
    if (hit) this.toggle(hit);
    return true;
  }

  /** The same as a click on the piece, from the units list. @param {string} id */
  pickPiece(id) {
    this.toggle(id);
    return true;
  }

  /** Add or drop a target, as the server's order allows. @param {string} id */
  toggle(id) {
    const t = this.table;
    const st = t.store.state;
    const offer = this.unit ? unitOffer(st, this.unit, 'charge') : null;
    if (!offer) return t.setMode('idle');
    const entry = (Array.isArray(offer.targets) ? offer.targets : []).find((x) => x.unit === id);
    if (!entry) {
      if (st?.units?.[id]?.owner !== t.store.seat) t.toast(`Charge: ${unitName(st, id)} is not within 12 in.`, 'info');
      return;
    }
    if (!entry.available) return t.toast(`Charge ${unitName(st, id)}: ${entry.reason}`, 'error');
    this.picked = this.picked.includes(id) ? this.picked.filter((x) => x !== id) : [...this.picked, id];
    t.onChange();
    t.redraw();
  }

  confirm() {
    void this.declare();
    return true;
  }

  /** Send `charge` with the picked targets; the roll's words come back in a toast. */
  async declare() {
    const t = this.table;
    const unit = this.unit;
    if (!unit || !this.picked.length) {
      t.toast('Charge: pick a target first.', 'info');
      return;
    }
    const action = { type: 'charge', unit, targets: [...this.picked] };
    const name = unitName(t.store.state, unit);
    try {
      const ack = await t.conn.act(action);
      t.setMode('idle');
      // A charge the charged player may answer first (Fire Overwatch) comes back declared,
      // not rolled: the toast says so and the turn bar says who is being waited for.
      const said = t.store.history.find((e) => e.seq === ack.seq && (e.type === 'charge_rolled' || e.type === 'charge_failed' || e.type === 'charge_declared'));
      if (said) t.toast(String(said.payload?.text || ''), said.type === 'charge_failed' ? 'error' : 'ok');
    } catch (err) {
      t.toast(`Charge ${name}: ${errorText(err)}`, 'error');
    }
  }

  /** A line from the charging unit to each target picked, labelled, over the table. */
  layers() {
    const st = this.table.store.state;
    const from = centre(st?.units?.[this.unit || '']);
    if (!from || !this.picked.length) return {};
    const overlays = [];
    for (const id of this.picked) {
      const to = centre(st?.units?.[id]);
      if (to) overlays.push({ points: [from, to], label: `Charge target: ${unitName(st, id)}`, seat: Number(this.table.store.seat), alpha: 1 });
    }
    return { overlays };
  }
}

/** The middle of a unit's models. @param {import('../types.js').Unit|null|undefined} unit @returns {number[]|null} */
function centre(unit) {
  const p = Array.isArray(unit?.positions) ? unit.positions : [];
  if (!p.length) return null;
  return [p.reduce((/** @type {number} */ a, /** @type {number[]} */ q) => a + q[0], 0) / p.length, p.reduce((/** @type {number} */ a, /** @type {number[]} */ q) => a + q[1], 0) / p.length];
}
