// Fixing terrain at setup (issue 19 item 4): click a piece to select it, drag it to move it,
// R / Shift+R turns it 15°, Delete (or Backspace) removes it; the setup panel has the same
// and typed values (ui/terrain.js). Every change is a `move_terrain` or `remove_terrain` the
// server judges like a placed piece (on the table, overlapping nothing); while a drag is in
// hand the piece's new outline shows dashed.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';

/** @typedef {import('../types.js').Pt} Pt */
/** A terrain piece as this server projects it (server/rules/units.py `_project_units`): its
 * outline as points. @typedef {{id:string, kind:string, height?:string, cover?:string, label?:string, points:number[][]}} TerrainView */

/** Degrees a key press (R) turns the selected piece. */
export const TURN_STEP_DEG = 15;

/** The area centroid of an outline (the average of its corners if it has no area). @param {number[][]} pts */
export function centroid(pts) {
  let a = 0;
  let cx = 0;
  let cy = 0;
  pts.forEach(([x0, y0], i) => {
    const [x1, y1] = pts[(i + 1) % pts.length];
    const cross = x0 * y1 - x1 * y0;
    a += cross;
    cx += (x0 + x1) * cross;
    cy += (y0 + y1) * cross;
  });
  if (Math.abs(a) < 1e-12) {
    return { x: pts.reduce((s, p) => s + p[0], 0) / pts.length, y: pts.reduce((s, p) => s + p[1], 0) / pts.length };
  }
  return { x: cx / (3 * a), y: cy / (3 * a) };
}

/**
 * The outline turned `rotate` degrees (from +x towards +y) and scaled by `scale` about its
 * centroid, then shifted by (dx, dy): what the server's `moved_outline` makes of a
 * `move_terrain` (server/rules/setup.py).
 * @param {number[][]} pts @param {number} dx @param {number} dy @param {number} rotate @param {number} scale
 */
export function movedOutline(pts, dx, dy, rotate, scale) {
  const c = centroid(pts);
  const a = (rotate * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return pts.map(([x, y]) => {
    const ux = (x - c.x) * scale;
    const uy = (y - c.y) * scale;
    return [c.x + ux * cos - uy * sin + dx, c.y + ux * sin + uy * cos + dy];
  });
}

/** Is (x, y) inside the outline (even-odd rule)? @param {number[][]} pts @param {number} x @param {number} y */
export function insideOutline(pts, x, y) {
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i];
    const [xj, yj] = pts[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The terrain piece under a world point (the last drawn on top), or null.
 * @param {import('../types.js').GameState|null|undefined} state @param {Pt} w @returns {TerrainView|null} */
export function terrainAt(state, w) {
  const pieces = /** @type {TerrainView[]} */ (Array.isArray(state?.terrain) ? state.terrain : []);
  for (let i = pieces.length - 1; i >= 0; i--) {
    const t = pieces[i];
    if (Array.isArray(t?.points) && t.points.length >= 3 && insideOutline(t.points, w.x, w.y)) return t;
  }
  return null;
}

/** Kinds in words (server/rules/naming.py's names for them). */
const KIND_WORDS = /** @type {Record<string, string>} */ ({
  impassable: 'Impassable terrain',
  blocks_los: 'Blocks line of sight',
  cover: 'Cover',
  dangerous: 'Dangerous terrain',
  open: 'Open ground',
});

/** What hides behind a piece of each height (server/geometry/los.py: a piece blocks a line
 * when its height is at least the taller of the viewer's and the target's). */
const HEIGHT_WORDS = /** @type {Record<string, string>} */ ({
  flat: 'flat (hides nothing)',
  standard: 'standard height (hides standard models)',
  large: 'large (hides standard and large models)',
  gigantic: 'gigantic (hides all but infinite)',
  infinite: 'infinite (hides everything)',
});

/** The words for Dangerous Terrain while no test is rolled for it. */
export const DANGEROUS_WORDS = 'Dangerous Terrain tests: not automated (roll them yourselves)';

/**
 * What a piece is, in words, for the tooltip and the piece list: its name, kind, height (what
 * line of sight does with it), cover and whether it is dangerous.
 * @param {TerrainView} t @returns {{name:string, lines:string[]}}
 */
export function terrainWords(t) {
  const kind = KIND_WORDS[t.kind] || String(t.kind || 'terrain').replace(/_/g, ' ');
  const sight = t.kind === 'impassable' || t.kind === 'blocks_los';
  const lines = [
    `Kind: ${kind}`,
    `Height: ${HEIGHT_WORDS[String(t.height)] || String(t.height || 'unknown')}${sight ? '' : ' — does not block line of sight'}`,
    `Cover: ${t.cover || 'none'}`,
    t.kind === 'dangerous' ? `Dangerous: yes. ${DANGEROUS_WORDS}` : 'Dangerous: no',
  ];
  return { name: t.label || kind, lines };
}

export class TerrainEditTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The selected piece's id. @type {string|null} */
    this.selected = null;
    /** A drag in hand: where it started and where the pointer is. @type {{from:Pt, to:Pt}|null} */
    this.drag = null;
    /** A change on its way to the server. */
    this.sending = false;
  }

  get enterToast() {
    return 'Edit terrain: click a piece to select it and drag it to move it; R turns it, Delete removes it.';
  }

  hint() {
    const t = this.piece();
    return t
      ? `${terrainWords(t).name} selected: drag it to move it, R / Shift+R turns it ${TURN_STEP_DEG}°, Delete removes it, Esc stops.`
      : 'Click a terrain piece (or pick it in the list) to select it.';
  }

  /** The selected piece as the server last said, or null. @returns {TerrainView|null} */
  piece() {
    const pieces = /** @type {TerrainView[]|undefined} */ (this.table.store.state?.terrain);
    return (Array.isArray(pieces) && pieces.find((t) => t.id === this.selected)) || null;
  }

  /** Select a piece (or none). @param {string|null} id */
  pick(id) {
    this.selected = id;
    this.drag = null;
    this.table.redraw();
    this.table.onChange();
  }

  removeHooks() {
    this.drag = null;
  }

  /** @param {Pt} w */
  tap(w) {
    this.pick(terrainAt(this.table.store.state, w)?.id || null);
    return true;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const t = terrainAt(this.table.store.state, w);
    if (!t || this.sending) return false;
    if (t.id !== this.selected) this.pick(t.id);
    this.drag = { from: w, to: w };
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    if (!this.drag) return;
    this.drag.to = w;
    this.table.redraw();
  }

  dragEnd() {
    const d = this.drag;
    if (!d) return;
    const dx = round2(d.to.x - d.from.x);
    const dy = round2(d.to.y - d.from.y);
    if (Math.abs(dx) + Math.abs(dy) < 0.01) {
      this.drag = null;
      this.table.redraw();
      return;
    }
    void this.change({ dx, dy });
  }

  dragCancel() {
    this.drag = null;
    this.table.redraw();
  }

  /** @param {1|-1} sign */
  rotate(sign) {
    if (!this.selected) return false;
    void this.change({ rotate: TURN_STEP_DEG * sign });
    return true;
  }

  /** Delete / Backspace removes the selected piece. @param {string} cmd */
  command(cmd) {
    if (cmd !== 'remove' || !this.selected) return false;
    void this.remove();
    return true;
  }

  /** Send a `move_terrain` for the selected piece; the server says if it may stand there.
   * @param {{dx?:number, dy?:number, rotate?:number, scale?:number, height?:string}} change */
  async change(change) {
    const t = this.piece();
    if (!t) return false;
    this.sending = true;
    try {
      await this.table.conn.act({ type: 'move_terrain', terrain: t.id, ...change });
      return true;
    } catch (e) {
      this.table.toast(`${terrainWords(t).name}: ${/** @type {Error|null} */ (e)?.message || e}`, 'error');
      return false;
    } finally {
      this.sending = false;
      this.drag = null;
      this.table.redraw();
      this.table.onChange();
    }
  }

  /** Take the selected piece off the table. */
  async remove() {
    const t = this.piece();
    if (!t) return false;
    try {
      await this.table.conn.act({ type: 'remove_terrain', terrain: t.id });
      this.table.toast(`${terrainWords(t).name} removed.`, 'info');
      this.pick(null);
      return true;
    } catch (e) {
      this.table.toast(`${terrainWords(t).name}: ${/** @type {Error|null} */ (e)?.message || e}`, 'error');
      return false;
    }
  }

  layers() {
    const t = this.enabled ? this.piece() : null;
    if (!t) return {};
    const d = this.drag;
    const pts = d ? movedOutline(t.points, d.to.x - d.from.x, d.to.y - d.from.y, 0, 1) : t.points;
    return { terrainDraft: { points: [...pts, pts[0]], kind: t.kind, closing: true } };
  }
}
