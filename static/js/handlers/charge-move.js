// The 40k Charge move (wh40k10, issue 16): after the charge roll, the charging unit's models are
// dragged one by one (Shift-drag: all of them) as in a model-by-model move (handlers/models.js),
// the ghost showing the server's verdict on the `charge_move` (its preview); "Move all towards
// the target" proposes positions (ui/forty-orders.js towardsTargets: straight in, then each
// model that can into base contact) that the server judges the same way. Confirm (Enter) sends the move; Esc puts the models back.

import { Tool } from './handler.js';
import { ModelDrag } from './models.js';
import { unitOffer } from '../ui/offers.js';
import { discsOf, towardsTargets } from '../ui/forty-orders.js';
import { unitName } from '../ui/forty-orders.js';

/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Pt} Pt */

/** The model drags of a Charge move: only the charging unit, sent as `charge_move`. */
class ChargeModelDrag extends ModelDrag {
  /** @param {import('../table.js').Table} table @param {ChargeMoveTool} tool */
  constructor(table, tool) {
    super(table);
    this.tool = tool;
  }

  /** Only the unit whose Charge move waits. @param {GameState|null} st @param {Unit} unit */
  movable(st, unit) {
    return unit.id === this.tool.unit && Boolean(unitOffer(st, unit.id, 'charge_move'));
  }

  /** @param {Unit} unit @param {number[][]} positions */
  actionFor(unit, positions) {
    return { type: 'charge_move', unit: unit.id, positions };
  }
}

export class ChargeMoveTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The unit making its Charge move. @type {string|null} */
    this.unit = null;
    this.models = new ChargeModelDrag(table, this);
    /** Picked by "Move all towards the target": the staged move speaks for itself. */
    this.quiet = false;
  }

  get enterToast() {
    return this.quiet ? '' : 'Charge move: drag the models (Shift-drag moves them all), then Confirm (Enter).';
  }

  hint() {
    const offer = this.unit ? unitOffer(this.table.store.state, this.unit, 'charge_move') : null;
    const most = offer ? ` up to ${offer.range} in` : '';
    return `Drag each model${most} (Shift-drag: all of them); the outline says what the server thinks. Enter confirms, Esc puts them back.`;
  }

  addHooks() {
    const t = this.table;
    const st = t.store.state;
    if (!this.unit || !unitOffer(st, this.unit, 'charge_move')) {
      const mine = Object.keys(st?.units || {}).find((id) => unitOffer(st, id, 'charge_move'));
      this.unit = mine || null;
    }
    this.models.enable();
  }

  removeHooks() {
    this.models.disable();
    this.unit = null;
  }

  /** A click does nothing here: the models are dragged. @param {Pt} _w @param {string|null} _hit */
  tap(_w, _hit) {
    return true;
  }

  /** @param {Pt} w @param {{shiftKey?:boolean}} [e] */
  dragStart(w, e) {
    return this.models.dragStart(w, e);
  }

  /** @param {Pt} w */
  dragMove(w) {
    this.models.dragMove(w);
  }

  dragEnd() {
    this.models.dragEnd();
  }

  dragCancel() {
    this.models.dragCancel();
  }

  /** Pick the tool for `unitId`. @param {string} unitId */
  begin(unitId) {
    const t = this.table;
    this.unit = unitId;
    if (t.mode !== 'charge_move') t.setMode('charge_move');
    t.selected = unitId;
    t.onChange();
  }

  /** Stage "Move all towards the target": the server's preview judges it. @param {string} unitId */
  towards(unitId) {
    const t = this.table;
    this.quiet = true;
    this.begin(unitId);
    this.quiet = false;
    const st = t.store.state;
    const unit = st?.units?.[unitId];
    const offer = unitOffer(st, unitId, 'charge_move');
    if (!unit || !offer) return;
    const aimed = Array.isArray(offer.targets) ? offer.targets.map(String) : [];
    const targets = aimed.flatMap((/** @type {string} */ id) => discsOf(st?.units?.[id]));
    const others = Object.values(st?.units || {})
      .filter((u) => u.id !== unitId && !aimed.includes(u.id) && u.status === 'on_table')
      .flatMap((u) => discsOf(u).map((d) => ({ ...d, enemy: u.owner !== unit.owner })));
    const positions = towardsTargets(discsOf(unit), targets, Number(offer.range), others);
    if (!positions) {
      t.toast(`${unitName(st, unitId)}: no model can get closer to the target.`, 'info');
      return;
    }
    this.models.stage(unit, positions, 'staged');
    t.onChange();
  }

  confirm() {
    void this.send();
    return true;
  }

  /** Send the staged Charge move; on its way back, leave the tool. */
  async send() {
    const t = this.table;
    const g = t.moves.ghost;
    if (g?.phase !== 'staged' || g.action?.type !== 'charge_move') {
      t.toast('Charge move: move the models first (or give the charge up).', 'info');
      return;
    }
    const ack = await t.moves.commit(g.action, `Charge move of ${unitName(t.store.state, String(g.id))}`);
    if (ack && t.mode === 'charge_move') t.setMode('idle');
  }
}
