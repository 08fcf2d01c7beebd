// Emerging from the sands (whfb8 Entombed Beneath the Sands, seed 002), in the browser: the
// `entombed` tool of the table (tools.js), started by the tray's Emerge button (ui/ambush.js).
//
// Step 1, the marker: the pointer's spot is drawn; a click sends `place_entombed_marker` and
// the server rolls the scatter and artillery dice. Step 2, the unit: the marker, the path the
// dice moved it and a ghost at the server's suggested placement are drawn; the ghost can be
// dragged and turned (R), each spot is asked with `preview` (green, or red with the failing
// rule), and a click on it or Enter sends `emerge`. A Misfire or no room is a Mishap: the tool
// closes and the log says what happened. Esc leaves the tool (the marker stays; Emerge again).

import { pointInGeometry } from '../view/hit.js';
import { placeOutline, outlineBox, turnPlacement, AMBUSH_TURN_STEP_DEG } from '../view/ambush.js';
import { pendingEmergence, lastMarker, scatterPath, markerWords, placingHint } from '../view/entombed.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../view/ambush.js').Placement} Placement */
/** @typedef {{x:number, y:number}} Pt */

/**
 * The tool's state, kept on the table as `table.ambush` (the ambush overlay draws its `zone`
 * (here the scatter path) and `point` (here the marker)).
 * @typedef {Object} EntombedState
 * @property {'entombed'} kind
 * @property {string|null} unit
 * @property {string} name
 * @property {Pt|null} point          the marker (or the spot under the pointer before it)
 * @property {boolean} fixed          the marker is down
 * @property {any} zone               GeoJSON of the scatter path
 * @property {null} requested
 * @property {null} outline           (the overlay's own ghost outline: unused here)
 * @property {number[][]|null} shape  the unit's outline in its own frame
 * @property {Placement|null} placement  where the ghost stands
 * @property {{start:Pt, from:Placement}|null} drag
 * @property {boolean} sending        a marker or an emergence is on its way
 */

/** @param {Table} t */
function stateOf(t) {
  const a = /** @type {any} */ (t.ambush);
  return a && a.kind === 'entombed' ? /** @type {EntombedState} */ (a) : null;
}

/** Pick the tool for a unit that rolled to arrive (the tray's Emerge button).
 * @param {Table} t @param {string} unitId */
export function startEmerge(t, unitId) {
  t.setMode('entombed');
  const a = stateOf(t);
  if (!a) return;
  a.unit = unitId;
  a.name = String(t.store.state?.units?.[unitId]?.name || unitId);
  sync(t);
  t.onChange();
}

/** Follow the state: a pending emergence gives the marker, path and ghost. @param {Table} t */
function sync(t) {
  const a = stateOf(t);
  if (!a || !a.unit) return;
  const pending = pendingEmergence(t.store.state, a.unit);
  if (!pending) return;
  if (!a.fixed) {
    a.fixed = true;
    a.sending = false;
    a.shape = pending.outline;
    a.placement = pending.suggested;
    a.point = pending.marker ? { x: pending.marker[0], y: pending.marker[1] } : null;
    const marker = pending.mode === 'edge' ? null : lastMarker(t.store.history, a.unit);
    a.zone = marker ? scatterPath(marker) : null;
    if (marker) t.toast(`${a.name}: ${markerWords(marker)}`, 'info');
    showGhost(t);
  }
}

/** The table's ghost at `a.placement`, with the `emerge` action for the preview. @param {Table} t */
function showGhost(t) {
  const a = /** @type {EntombedState} */ (stateOf(t));
  if (!a.placement || !a.shape || !a.unit) {
    t.clearGhost();
    return;
  }
  const pl = a.placement;
  const box = outlineBox(a.shape, pl);
  const action = { type: 'emerge', unit: a.unit, x: pl.x, y: pl.y, facing: pl.facing };
  t.setGhost({
    x: box.x, y: box.y, facing: pl.facing, width: box.width, depth: box.depth,
    geometry: placeOutline(a.shape, pl), verdict: 'unknown', label: a.name, text: `${a.name} · checking…`,
    phase: 'placing',
  }, action);
}

/** @param {Table} t @param {Pt} w */
async function placeMarker(t, w) {
  const a = stateOf(t);
  if (!a || !a.unit || a.sending) return;
  a.sending = true;
  a.point = { x: round2(w.x), y: round2(w.y) };
  t.redraw();
  const ack = await t.commit({ type: 'place_entombed_marker', unit: a.unit, x: a.point.x, y: a.point.y }, `Marker for ${a.name}`);
  if (stateOf(t) !== a) return;
  if (!ack) {
    a.sending = false;
    return;
  }
  // The events came with the ack or follow it: `frame` picks up the pending emergence, or
  // sees that there is none (a Mishap) and closes.
}

/** @param {Table} t */
async function confirm(t) {
  const a = stateOf(t);
  if (!a || a.sending || !a.fixed || !t.ghost?.action) return;
  a.sending = true;
  const ack = await t.commit(t.ghost.action, `Emerge ${a.name}`);
  if (stateOf(t) !== a) return;
  if (ack) {
    t.toast(`${a.name} emerge.`, 'ok');
    t.setMode('idle');
  } else {
    a.sending = false;
    showGhost(t);
  }
}

/** @type {import('../tools.js').Tool} */
export const ENTOMBED_TOOL = {
  enterToast: 'Emerge: click the table to place the marker.',
  enter: (t) => {
    t.measure = null;
    t.los = null;
    /** @type {EntombedState} */
    const fresh = {
      kind: 'entombed', unit: null, name: '', point: null, fixed: false, zone: null, requested: null,
      outline: null, shape: null, placement: null, drag: null, sending: false,
    };
    t.ambush = fresh;
  },
  exit: (t) => {
    t.clearGhost();
    t.ambush = null;
  },
  hover: (t, w) => {
    const a = stateOf(t);
    if (!a || a.fixed || a.sending) return;
    a.point = { x: round2(w.x), y: round2(w.y) };
    t.redraw();
  },
  tap: (t, w) => {
    const a = stateOf(t);
    if (!a || a.sending) return;
    if (!a.fixed) return placeMarker(t, w);
    if (t.ghost?.geometry && pointInGeometry(t.ghost.geometry, w.x, w.y)) return confirm(t);
    return undefined;
  },
  dragStart: (t, w) => {
    const a = stateOf(t);
    if (!a || !a.fixed || a.sending || !a.placement || !t.ghost?.geometry) return false;
    if (!pointInGeometry(t.ghost.geometry, w.x, w.y)) return false;
    a.drag = { start: w, from: a.placement };
    return true;
  },
  dragMove: (t, w) => {
    const a = stateOf(t);
    if (!a?.drag) return;
    const { start, from } = a.drag;
    a.placement = { x: round2(from.x + w.x - start.x), y: round2(from.y + w.y - start.y), facing: from.facing };
    showGhost(t);
  },
  dragEnd: (t) => {
    const a = stateOf(t);
    if (a) a.drag = null;
  },
  dragCancel: (t) => {
    const a = stateOf(t);
    if (!a?.drag) return;
    a.placement = a.drag.from;
    a.drag = null;
    showGhost(t);
  },
  command: (t, cmd, e) => {
    const a = stateOf(t);
    if (!a) return false;
    if (cmd === 'confirm') {
      confirm(t);
      return true;
    }
    if (cmd === 'rotate' || cmd === 'rotateBack') {
      if (!a.fixed || !a.placement || !a.shape) {
        t.toast('Emerge: place the marker first, then R turns the unit.', 'info');
        return true;
      }
      const sign = cmd === 'rotateBack' || e?.shiftKey ? -1 : 1;
      a.placement = turnPlacement(a.placement, AMBUSH_TURN_STEP_DEG * sign, a.shape);
      showGhost(t);
      return true;
    }
    return false;
  },
  frame: (t) => {
    const a = stateOf(t);
    if (!a || !a.unit) return;
    const unit = t.store.state?.units?.[a.unit];
    if (!unit || unit.status !== 'ambush') {
      t.setMode('idle');  // it emerged, or a Mishap destroyed it
      return;
    }
    if (!a.fixed && a.sending && !pendingEmergence(t.store.state, a.unit)) {
      const marker = lastMarker(t.store.history, a.unit);
      if (marker && marker.outcome === 'mishap' && !(unit.markers || []).includes('ambush_ready')) {
        t.toast(`${a.name}: ${markerWords(marker)} (see the log)`, 'error');
        t.setMode('idle');
      }
      return;
    }
    sync(t);
  },
  hint: (t) => {
    const a = stateOf(t);
    return placingHint(a?.fixed && a.unit ? pendingEmergence(t.store.state, a.unit) : null, a?.name || '');
  },
};

/** @param {number} v */
function round2(v) {
  return Math.round(v * 100) / 100;
}
