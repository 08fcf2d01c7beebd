// Selecting: a click picks the piece under the pointer (or nothing); hovering shows what a
// press would do with the cursor.

import { Handler } from './handler.js';

/** @typedef {import('../types.js').Pt} Pt */

export class Select extends Handler {
  /** @param {Pt} _w @param {string|null} hit */
  tap(_w, hit) {
    this.table.select(hit);
    return true;
  }

  /** @param {Pt} _w @param {string|null} hit */
  cursor(_w, hit) {
    const t = this.table;
    return t.ownToken(hit) || t.ownUnit(hit) ? 'grab' : hit ? 'pointer' : null;
  }
}
