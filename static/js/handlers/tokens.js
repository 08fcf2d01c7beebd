// Tokens: drag one of your tokens to move it (the ghost shows the server's verdict); the
// table's R turns the selected token 45° and Backspace removes it, through this handler.
// Each action carries the seq it was made from (`expected_seq`), so the table sends one at a
// time: R pressed again before the last turn is back adds up, and goes as one turn when it is.

import { Handler } from './handler.js';
import { round2 } from '../view/transform.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Token} Token */
/** @typedef {import('../store.js').Store} Store */

/** How long a turn waits for its own event before the next one goes anyway (the connection
 * may be down: the next turn then meets the server's answer, and its toast, instead). */
const TURN_EVENT_WAIT_MS = 5000;

/** Resolves when the store holds batch `seq` (or after `ms`). @param {Store} store @param {number} seq @param {number} ms @returns {Promise<void>} */
export function storeReaches(store, seq, ms) {
  return new Promise((resolve) => {
    /** @type {() => void} */
    let off = () => {};
    const timer = setTimeout(() => { off(); resolve(); }, ms);
    const check = () => {
      if ((store.seq ?? 0) < seq || store.needsRefresh) return;
      off();
      clearTimeout(timer);
      resolve();
    };
    off = store.subscribe(check);
    check();
  });
}

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
    /** Turns pressed while one is in flight, by token: degrees to add when it is back.
     * @type {Map<string, number>} */
    this.queuedTurns = new Map();
    /** Is a turn on its way (sent, its event not yet in the store)? */
    this.turning = false;
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
    if (this.turning) {
      this.queuedTurns.set(token.id, (this.queuedTurns.get(token.id) ?? 0) + deg);
      return;
    }
    void this.turn(token.id, deg);
  }

  /** Send a turn, wait for its event, then the turns pressed meanwhile, one token at a time.
   * A refused turn drops the ones queued after it (its toast says why).
   * @param {string} id @param {number} deg */
  async turn(id, deg) {
    const t = this.table;
    this.turning = true;
    try {
      /** @type {[string, number]|undefined} */
      let next = [id, deg];
      while (next) {
        const token = t.ownToken(next[0]);
        if (token && next[1] % 360 !== 0) {
          const facing = (((token.facing + next[1]) % 360) + 360) % 360;
          const ack = await t.moves.commit(moveAction(token, token.x, token.y, facing), `Turn ${token.label}`);
          if (!ack) {
            this.queuedTurns.clear();
            return;
          }
          await storeReaches(t.store, ack.seq, TURN_EVENT_WAIT_MS);
        }
        next = this.queuedTurns.entries().next().value;
        if (next) this.queuedTurns.delete(next[0]);
      }
    } finally {
      this.turning = false;
    }
  }

  removeSelected() {
    const t = this.table;
    const token = t.ownToken(t.selected);
    if (!token) return;
    void t.moves.commit({ type: 'remove_token', id: token.id }, `Remove ${token.label}`);
  }
}
