// Arriving from Reserves (wh40k10 Deep Strike / Strategic Reserves, issue 16): the `arrive`
// tool. The unit's models follow the pointer, set down around it as the server deploys a unit
// (rows of five); the ghost shows the server's verdict on that `arrive_from_reserves` (more
// than 9 in from every enemy model, near an edge for Strategic Reserves…), and a click sends
// it with those positions. Esc cancels. (The tray's Arrive… button picks the tool.)

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';
import { unitName } from '../ui/forty-orders.js';
import { unitOffer } from '../ui/offers.js';
import { baseInches, basesGeometry, datasheetBases, gridPositions, modelCount } from '../ui/forty-orders.js';

/** @typedef {import('../types.js').Pt} Pt */

export class ArriveTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The unit arriving. @type {string|null} */
    this.unit = null;
    /** Its base, once the datasheets are in. @type {{round:boolean, width:number, depth:number}|null} */
    this.base = null;
  }

  get enterToast() {
    return 'Arrive: the models follow the pointer; click to set the unit up there.';
  }

  hint() {
    const st = this.table.store.state;
    const offer = this.unit ? unitOffer(st, this.unit, 'arrive_from_reserves') : null;
    const name = this.unit ? unitName(st, this.unit) : 'The unit';
    return `${name} (${offer?.rule || 'Reserves'}): set up ${offer?.where || 'on the table'}. The outline says what the server thinks; click to arrive (Esc cancels).`;
  }

  removeHooks() {
    this.unit = null;
    this.base = null;
    const moves = this.table.moves;
    if (moves.ghost?.action?.type === 'arrive_from_reserves' && !moves.committing) moves.clearGhost();
  }

  /** Pick the tool for a unit in Reserves. @param {string} unitId */
  start(unitId) {
    const t = this.table;
    t.setMode('arrive');
    this.unit = unitId;
    const st = t.store.state;
    const sheet = st?.units?.[unitId]?.datasheet;
    datasheetBases(String(st?.system || 'wh40k10'))
      .then((bases) => {
        if (this.unit === unitId) this.base = baseInches(bases[String(sheet)]);
      })
      .catch((err) => t.toast(`Arrive: the datasheets could not be read (${err.message})`, 'error'));
    t.onChange();
  }

  /** The unit's models around `w` and the action that sets them there. @param {Pt} w */
  plan(w) {
    const t = this.table;
    const unit = this.unit ? t.store.state?.units?.[this.unit] : null;
    if (!unit || !this.base) return null;
    const facing = t.store.seat === 2 ? 180 : 0;
    const positions = gridPositions(modelCount(unit), round2(w.x), round2(w.y), facing, this.base);
    return { unit, positions, action: { type: 'arrive_from_reserves', unit: unit.id, positions } };
  }

  /** @param {Pt} w @param {'placing'|'committing'} phase */
  place(w, phase) {
    const t = this.table;
    const p = this.plan(w);
    if (!p || !this.base) return null;
    const moves = t.moves;
    const ghost = { id: p.unit.id, x: w.x, y: w.y, facing: 0, width: 2, depth: 2, geometry: basesGeometry(p.positions, this.base), phase, label: `${unitName(t.store.state, p.unit.id)} arrives` };
    if (moves.ghost?.action?.type !== 'arrive_from_reserves') moves.setGhost({ ...ghost, verdict: 'unknown' }, p.action);
    else Object.assign(moves.ghost, ghost, { action: p.action });
    moves.previewWanted = true;
    t.redraw();
    return p;
  }

  /** @param {Pt} w */
  hover(w) {
    if (this.table.moves.committing) return;
    this.place(w, 'placing');
  }

  /** @param {Pt} w */
  tap(w) {
    void this.arriveAt(w);
    return true;
  }

  /** Set the unit up around `w` (also typed or tested). @param {Pt} w */
  async arriveAt(w) {
    const t = this.table;
    if (t.moves.committing) return;
    const p = this.place(w, 'placing');
    if (!p) {
      t.toast('Arrive: pick a unit in Reserves first (the datasheets may still be loading).', 'info');
      return;
    }
    const ack = await t.moves.commit(p.action, `Arrive ${unitName(t.store.state, p.unit.id)}`);
    if (ack) {
      t.setMode('idle');
      t.toast(`${unitName(t.store.state, p.unit.id)} arrived from Reserves.`, 'ok');
    }
  }
}
