// The Place tool: the token picked in the panel follows the pointer (the ghost shows whether it
// may go there); a click places it and selects it.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';
import { errorText } from '../format.js';

/** @typedef {import('../types.js').Pt} Pt */

export class PlaceTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** What the next click places (the panel's form sets it). */
    this.template = { label: '', width: 2, depth: 1 };
  }

  get enterToast() {
    return 'Place: click on the table where the token goes.';
  }

  hint() {
    return 'Click on the table to place the token (Esc to cancel).';
  }

  /** @param {number} x @param {number} y */
  action(x, y) {
    const t = this.template;
    const facing = this.table.store.seat === 2 ? 180 : 0;
    return { type: 'place_token', label: t.label, x, y, facing, width: t.width, depth: t.depth };
  }

  /** The would-be token under the cursor. @param {Pt} w */
  hover(w) {
    const moves = this.table.moves;
    const action = this.action(round2(w.x), round2(w.y));
    if (!moves.ghost) moves.setGhost({ ...action, verdict: 'unknown', phase: 'placing' }, action);
    Object.assign(/** @type {NonNullable<typeof moves.ghost>} */ (moves.ghost), { x: action.x, y: action.y, action });
    moves.ask();
  }

  /** @param {Pt} w */
  tap(w) {
    void this.place(w);
    return true;
  }

  /** @param {Pt} w */
  async place(w) {
    const t = this.table;
    if (t.store.seat === null) return t.toast('Spectators cannot place tokens.', 'error');
    const action = this.action(round2(w.x), round2(w.y));
    t.setMode('idle');
    t.toast(`Placing ${action.label || 'a token'}…`, 'info');
    const ack = await t.conn.act(action).catch((e) => {
      t.toast(`Place: ${errorText(e)}`, 'error');
      return null;
    });
    if (!ack) return;
    const placed = t.store.history.find((ev) => ev.seq === ack.seq && ev.type === 'token_placed');
    if (placed) t.select(/** @type {{token:{id:string}}} */ (placed.payload).token.id);
  }
}
