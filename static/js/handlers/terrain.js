// Drawing a terrain feature at setup: pick its kind and height (the setup panel's form), click
// its corners on the table, then Enter (or a click on the first corner) sends `place_terrain`;
// Backspace takes the last corner back, Esc stops. The server checks that it lies on the table
// and overlaps nothing.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';

/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {{kind:string, height:string, label:string}} TerrainConfig */
/** @typedef {TerrainConfig & {points:Pt[], hover:Pt|null}} TerrainDraft */

/** Corners closer than this (inches) to the first one close the outline. */
export const CLOSE_IN = 0.75;

/** Does a click at `w` close the outline (on the first corner, with 3 corners or more)?
 * @param {Pt[]} points @param {Pt} w */
export function closesOutline(points, w) {
  return points.length >= 3 && Math.hypot(points[0].x - w.x, points[0].y - w.y) <= CLOSE_IN;
}

/** The `place_terrain` action for a finished draft, or null with fewer than 3 corners.
 * @param {TerrainDraft|null} d */
export function terrainAction(d) {
  if (!d || d.points.length < 3) return null;
  /** @type {{type:'place_terrain', kind:string, height:string, points:number[][], label?:string}} */
  const action = {
    type: 'place_terrain',
    kind: d.kind,
    height: d.height,
    points: d.points.map((p) => [round2(p.x), round2(p.y)]),
  };
  if (d.label) action.label = d.label.slice(0, 80);
  return action;
}

/** What the renderer draws: the corners so far and the edge to the pointer.
 * @param {TerrainDraft|null} d */
export function terrainOverlay(d) {
  if (!d || !d.points.length) return null;
  const pts = d.points.map((p) => [p.x, p.y]);
  if (d.hover) pts.push([d.hover.x, d.hover.y]);
  return { points: pts, kind: d.kind, closing: d.hover ? closesOutline(d.points, d.hover) : false };
}

export class TerrainTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The kind, height and name of the next feature (the setup panel's form). @type {TerrainConfig} */
    this.config = { kind: 'cover', height: 'standard', label: '' };
    /** The feature being drawn. @type {TerrainDraft|null} */
    this.draft = null;
  }

  get enterToast() {
    return 'Terrain: click its corners on the table; Enter or a click on the first corner ends it.';
  }

  hint() {
    const n = this.draft?.points.length || 0;
    return n < 3
      ? `Click the corners of the terrain feature (${n} so far; Backspace takes one back, Esc stops).`
      : `${n} corners: Enter or a click on the first corner places it.`;
  }

  addHooks() {
    this.draft = { ...this.config, points: [], hover: null };
  }

  removeHooks() {
    this.draft = null;
  }

  async finish() {
    const t = this.table;
    const action = terrainAction(this.draft);
    if (!action) return t.toast('A terrain feature needs at least 3 corners.', 'info');
    t.setMode('idle');
    await t.conn.act(action).then(
      () => t.toast(`${action.label || 'Terrain'} placed.`, 'info'),
      (e) => t.toast(`Terrain: ${e?.message || e}`, 'error'),
    );
  }

  /** @param {Pt} w */
  tap(w) {
    const d = this.draft;
    if (!d) return true;
    if (closesOutline(d.points, w)) {
      void this.finish();
      return true;
    }
    d.points.push({ x: round2(w.x), y: round2(w.y) });
    this.table.redraw();
    this.table.onChange();
    return true;
  }

  /** @param {Pt} w */
  hover(w) {
    if (!this.draft) return;
    this.draft.hover = { x: w.x, y: w.y };
    this.table.redraw();
  }

  confirm() {
    void this.finish();
    return true;
  }

  /** Backspace takes the last corner back. @param {string} cmd */
  command(cmd) {
    if (cmd !== 'remove' || !this.draft?.points.length) return false;
    this.draft.points.pop();
    this.table.redraw();
    this.table.onChange();
    return true;
  }

  layers() {
    return { terrainDraft: terrainOverlay(this.draft) };
  }
}
