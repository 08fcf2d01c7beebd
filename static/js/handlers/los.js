// The Line of sight tool: click the viewing unit, then the target; the server answers with the
// sight lines (clear and blocked), the blockers, the cover and the visible fraction.

import { Tool } from './handler.js';
import { losText, errorText } from '../format.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').LosResult} LosResult */

/**
 * @typedef {Object} Los
 * @property {string|null} viewer
 * @property {string|null} target
 * @property {number[][][]} lines     clear sight lines
 * @property {number[][][]} blocked
 * @property {string[]} blockers
 * @property {string[]} coverFrom
 * @property {string} label
 * @property {LosResult|null} result
 */

/** A fresh line-of-sight state. @returns {Los} */
export function emptyLos() {
  return { viewer: null, target: null, lines: [], blocked: [], blockers: [], coverFrom: [], label: '', result: null };
}

/** Sight lines as point lists, split into clear and blocked. @param {LosResult} res */
export function splitLines(res) {
  /** @type {number[][][]} */
  const seen = [];
  /** @type {number[][][]} */
  const blocked = [];
  for (const line of Array.isArray(res.lines) ? res.lines : []) {
    const pts = Array.isArray(line) ? line : line?.points || line?.coordinates || line?.geometry?.coordinates;
    if (!Array.isArray(pts) || pts.length < 2) continue;
    const clear = Array.isArray(line) ? true : line.clear ?? line.visible ?? !line.blocked;
    (clear ? seen : blocked).push(pts);
  }
  return { seen, blocked };
}

export class LosTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The sight check on the table; it stays after the tool is left, until Esc. @type {Los|null} */
    this.los = null;
  }

  get enterToast() {
    return 'Line of sight: click the viewing unit, then the target unit.';
  }

  hint() {
    return this.los?.viewer && !this.los.target ? 'Click the target unit.' : 'Click the viewing unit.';
  }

  addHooks() {
    this.table.tools.measure.clear();
    this.los = emptyLos();
  }

  /** Take the sight lines off the table. */
  clear() {
    this.los = null;
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
    const unit = hit ? t.store.state?.units?.[hit] : null;
    if (!hit || !unit) return t.toast('Line of sight: click a unit on the table.', 'info');
    const l = this.los || (this.los = emptyLos());
    if (!l.viewer || l.target) {
      Object.assign(l, { ...emptyLos(), viewer: hit });
      t.selected = hit;
      t.onChange();
      t.redraw();
      return;
    }
    if (hit === l.viewer) return t.toast('Line of sight: click another unit as the target.', 'info');
    l.target = hit;
    try {
      const res = await t.conn.lineOfSight(l.viewer, hit);
      if (this.los !== l) return;
      l.result = res;
      const { seen, blocked } = splitLines(res);
      l.lines = seen;
      l.blocked = blocked;
      l.blockers = Array.isArray(res.blockers) ? res.blockers.map(String) : [];
      l.coverFrom = Array.isArray(res.cover_from) ? res.cover_from.map(String) : [];
      l.label = losText(res);
    } catch (err) {
      l.target = null;
      t.toast(`Line of sight: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
    t.onChange();
    t.redraw();
  }

  layers() {
    return { los: this.los && this.los.result ? this.los : null };
  }
}
