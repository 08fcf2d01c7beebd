// The table's tools, one entry each: what a click does in the tool, what hovering does, what
// the hint says and what entering the tool resets. The table keeps the state (`table.measure`,
// `table.los`, …) and the server answers every question; a tool only turns clicks into
// questions and intents. Adding a tool (an ambush placer, say) is one more entry here, a
// button or key that calls `table.setMode(name)`, and its drawing in view/render.js.

import { ORDER_TOOLS } from './ui/orders-tools.js';
import { AMBUSH_TOOL } from './ui/ambush.js';
import { ENTOMBED_TOOL } from './ui/entombed.js';
import { TERRAIN_TOOL } from './ui/terrain.js';

/** @typedef {import('./table.js').Table} Table */
/** @typedef {{x:number, y:number}} Pt */

/**
 * @typedef {Object} Tool
 * @property {string} [enterToast]                           said when the tool is picked
 * @property {(t:Table) => void} [enter]                     reset the tool's state
 * @property {(t:Table, w:Pt, hit:string|null) => any} tap   a click on the table (inches)
 * @property {(t:Table, w:Pt, hit:string|null) => void} [hover]
 * @property {(t:Table) => string} hint                      one line for the side panel
 * @property {(t:Table, sign:1|-1) => void} [rotate]         R / Shift+R while in the tool
 * @property {(t:Table) => void} [confirm]                   Enter while in the tool
 * @property {(t:Table) => void} [exit]                      leaving the tool
 * @property {(t:Table, w:Pt, e?:any) => boolean} [dragStart] a press-and-drag in the tool (false: pan)
 * @property {(t:Table, w:Pt) => void} [dragMove]
 * @property {(t:Table) => void} [dragEnd]
 * @property {(t:Table) => void} [dragCancel]
 * @property {(t:Table, cmd:string, e?:any) => boolean} [command]  a key (R, Enter); true: handled
 * @property {(t:Table) => void} [frame]                     once per frame: send questions
 */

/** @type {Record<string, Tool>} */
export const TOOLS = {
  place: {
    enterToast: 'Place: click on the table where the token goes.',
    tap: (t, w) => t.place(w),
    hover: (t, w) => t.placeGhostAt(w),
    hint: () => 'Click on the table to place the token (Esc to cancel).',
  },
  measure: {
    enterToast: 'Measure: click a point or a unit, then another. Players share it with the table.',
    enter: (t) => {
      t.los = null;
      t.measure = { from: null, to: null, points: [], label: '', fixed: false };
    },
    tap: (t, w, hit) => t.measureClick(w, hit),
    hover: (t, w, hit) => t.measureHover(w, hit),
    hint: (t) => (t.measure?.from && !t.measure.fixed
      ? 'Click the second point or unit (Esc to stop).'
      : 'Click a point, a unit or a token to measure from.'),
  },
  los: {
    enterToast: 'Line of sight: click the viewing unit, then the target unit.',
    enter: (t) => {
      t.measure = null;
      t.los = emptyLos();
    },
    tap: (t, _w, hit) => t.losClick(hit),
    hint: (t) => (t.los?.viewer && !t.los.target ? 'Click the target unit.' : 'Click the viewing unit.'),
  },
  deploy: {
    enterToast: 'Deploy: click on the table where the front of the unit goes.',
    tap: (t, w) => t.deployAt(w),
    hint: () => 'Click on the table where the front of the unit goes (Esc to cancel).',
  },
  charge: {
    enterToast: 'Charge: click the enemy unit to charge.',
    tap: (t, _w, hit) => t.chargeClick(hit),
    hint: () => 'Click the enemy unit to charge (Esc to cancel).',
  },
  ...ORDER_TOOLS,
  ambush: AMBUSH_TOOL,
  entombed: ENTOMBED_TOOL,
  terrain: TERRAIN_TOOL,
};

/** A fresh line-of-sight state. */
export function emptyLos() {
  return { viewer: /** @type {string|null} */ (null), target: /** @type {string|null} */ (null), lines: /** @type {number[][][]} */ ([]), blocked: /** @type {number[][][]} */ ([]), blockers: /** @type {string[]} */ ([]), coverFrom: /** @type {string[]} */ ([]), label: '', result: /** @type {any} */ (null) };
}
