// Tokens: drag one of your tokens to move it (the ghost shows the server's verdict); the
// table's R turns the selected token 45° and Backspace removes it, through this handler.

import { Handler } from './handler.js';
import { round2 } from '../view/transform.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Token} Token */

/** @param {Token} token @param {number} x @param {number} y @param {number} facing */
export function moveAction(token, x, y, facing) {
  return { type: 'move_token', id: token.id, x, y, facing };
}

export class TokenDrag extends Handler {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The token in hand and the grab point minus its centre, inches. @type {{token:Token, offX:number, offY:number}|null} */
    this.drag = null;
  }

  removeHooks() {
    this.drag = null;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const t = this.table;
    const token = t.ownToken(t.pieceAt(w));
    if (!token) return false;
    t.selected = token.id;
    this.drag = { token, offX: w.x - token.x, offY: w.y - token.y };
    t.moves.setGhost({ ...token, id: token.id, verdict: 'unknown', phase: 'dragging' }, moveAction(token, token.x, token.y, token.facing));
    t.onChange();
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    const g = this.table.moves.ghost;
    if (!this.drag || !g) return;
    g.x = round2(w.x - this.drag.offX);
    g.y = round2(w.y - this.drag.offY);
    g.action = moveAction(this.drag.token, g.x, g.y, g.facing);
    this.table.moves.ask();
  }

  dragEnd() {
    const drag = this.drag;
    const moves = this.table.moves;
    const g = moves.ghost;
    this.drag = null;
    if (!drag || !g) return;
    if (!g.action || (g.x === drag.token.x && g.y === drag.token.y)) return moves.clearGhost();
    void moves.commit(g.action, `Move ${drag.token.label}`);
  }

  dragCancel() {
    this.drag = null;
    if (!this.table.moves.committing) this.table.moves.clearGhost();
  }

  /** Turn the selected token by `deg` (counter-clockwise) with a move_token at the same spot. @param {number} deg */
  rotateSelected(deg) {
    const t = this.table;
    const token = t.ownToken(t.selected);
    if (!token) return t.toast(t.selected ? 'You can only turn your own tokens.' : 'Select one of your tokens first.', 'info');
    const facing = (((token.facing + deg) % 360) + 360) % 360;
    void t.moves.commit(moveAction(token, token.x, token.y, facing), `Turn ${token.label}`);
  }

  removeSelected() {
    const t = this.table;
    const token = t.ownToken(t.selected);
    if (!token) return;
    void t.moves.commit({ type: 'remove_token', id: token.id }, `Remove ${token.label}`);
  }
}
