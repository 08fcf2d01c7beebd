// Emerging from the sands (whfb8 Entombed Beneath the Sands, seed 002): the `entombed` tool of
// the table, picked by the tray's Emerge button (ui/ambush.js).
//
// Step 1, the marker: the pointer's spot is drawn; a click sends `place_entombed_marker` and the
// server rolls the scatter and artillery dice. Step 2, the unit: the marker, the path the dice
// moved it and a ghost at the server's suggested placement are drawn; the ghost can be dragged
// and turned (R), each spot is asked with `preview` (green, or red with the failing rule), and
// a click on it or Enter sends `emerge`. A Misfire or no room is a Mishap: the tool closes and
// the log says what happened. Esc leaves the tool (a placed marker stays: Emerge again).

import { Tool } from './handler.js';
import { pointInGeometry } from '../view/hit.js';
import { round2 } from '../view/transform.js';
import { placeOutline, outlineBox, turnPlacement, AMBUSH_TURN_STEP_DEG } from '../view/ambush.js';
import { pendingEmergence, lastMarker, scatterPath, markerWords, placingHint, edgeWords, draggedPlacement } from '../view/entombed.js';

/** @typedef {import('../view/ambush.js').Placement} Placement */
/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {import('../types.js').Geometry} Geometry */

/**
 * The tool's state (`table.tools.entombed.entombed`).
 * @typedef {Object} EntombedState
 * @property {string|null} unit
 * @property {string} name
 * @property {Pt|null} point          the marker (or the spot under the pointer before it)
 * @property {boolean} fixed          the marker is down (or the unit waits at a table edge)
 * @property {Geometry|null} zone     the scatter path
 * @property {number[][]|null} shape  the unit's outline in its own frame
 * @property {Placement|null} placement  where the ghost stands
 * @property {{start:Pt, from:Placement}|null} drag
 * @property {boolean} sending        a marker or an emergence is on its way
 */

export class EntombedTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** @type {EntombedState|null} */
    this.entombed = null;
  }

  get enterToast() {
    return 'Emerge: click the table to place the marker.';
  }

  hint() {
    const a = this.entombed;
    const pending = a?.fixed && a.unit ? pendingEmergence(this.table.store.state, a.unit) : null;
    return placingHint(pending, a?.name || '');
  }

  addHooks() {
    const t = this.table;
    t.tools.measure.clear();
    t.tools.los.clear();
    this.entombed = {
      unit: null, name: '', point: null, fixed: false, zone: null, shape: null, placement: null,
      drag: null, sending: false,
    };
  }

  removeHooks() {
    this.table.moves.clearGhost();
    this.entombed = null;
  }

  /** Pick the tool for a unit that rolled to arrive (the tray's Emerge button). @param {string} unitId */
  start(unitId) {
    const t = this.table;
    t.setMode('entombed');
    const a = this.entombed;
    if (!a) return;
    a.unit = unitId;
    a.name = String(t.store.state?.units?.[unitId]?.name || unitId);
    this.sync();
    t.onChange();
  }

  /** Follow the state: a pending emergence brings the marker, the path and the ghost. */
  sync() {
    const t = this.table;
    const a = this.entombed;
    if (!a || !a.unit || a.fixed) return;
    const pending = pendingEmergence(t.store.state, a.unit);
    if (!pending) return;
    a.fixed = true;
    a.sending = false;
    a.shape = pending.outline;
    a.placement = pending.suggested;
    a.point = pending.marker ? { x: pending.marker[0], y: pending.marker[1] } : null;
    const marker = pending.mode === 'edge' ? null : lastMarker(t.store.history, a.unit);
    a.zone = marker ? scatterPath(marker) : null;
    if (marker) t.toast(`${a.name}: ${markerWords(marker, t.store.state)}`, 'info');
    // A Mishap of 5-6: no marker any more; the unit walks on from a random table edge.
    else if (pending.mode === 'edge') t.toast(`${a.name}: Mishap, it enters from the ${edgeWords(pending.edge)} (see the log)`, 'info');
    this.showGhost();
  }

  /** The table's ghost at `placement`, with the `emerge` action for the preview. */
  showGhost() {
    const t = this.table;
    const a = this.entombed;
    if (!a?.placement || !a.shape || !a.unit) {
      t.moves.clearGhost();
      return;
    }
    const pl = a.placement;
    const box = outlineBox(a.shape, pl);
    t.moves.setGhost({
      x: box.x, y: box.y, facing: pl.facing, width: box.width, depth: box.depth,
      geometry: placeOutline(a.shape, pl), verdict: 'unknown', label: a.name, text: `${a.name} · checking…`,
      phase: 'placing',
    }, { type: 'emerge', unit: a.unit, x: pl.x, y: pl.y, facing: pl.facing });
  }

  /** @param {Pt} w */
  async placeMarker(w) {
    const t = this.table;
    const a = this.entombed;
    if (!a || !a.unit || a.sending) return;
    a.sending = true;
    a.point = { x: round2(w.x), y: round2(w.y) };
    t.redraw();
    const ack = await t.moves.commit({ type: 'place_entombed_marker', unit: a.unit, x: a.point.x, y: a.point.y }, `Marker for ${a.name}`);
    // On success `frame` picks up the pending emergence, or a Mishap, from the state.
    if (this.entombed === a && !ack) a.sending = false;
  }

  /** Send `emerge` at the ghost. */
  async emerge() {
    const t = this.table;
    const a = this.entombed;
    const action = t.moves.ghost?.action;
    if (!a || a.sending || !a.fixed || !action) return;
    a.sending = true;
    const ack = await t.moves.commit(action, `Emerge ${a.name}`);
    if (this.entombed !== a) return;
    if (ack) {
      t.toast(`${a.name} emerge.`, 'ok');
      t.setMode('idle');
    } else {
      a.sending = false;
      this.showGhost();
    }
  }

  /** @param {Pt} w */
  hover(w) {
    const a = this.entombed;
    if (!a || a.fixed || a.sending) return;
    a.point = { x: round2(w.x), y: round2(w.y) };
    this.table.redraw();
  }

  /** @param {Pt} w */
  tap(w) {
    const a = this.entombed;
    if (!a || a.sending) return true;
    if (!a.fixed) {
      void this.placeMarker(w);
      return true;
    }
    const g = this.table.moves.ghost;
    if (g?.geometry && pointInGeometry(g.geometry, w.x, w.y)) void this.emerge();
    return true;
  }

  /** @param {Pt} w */
  dragStart(w) {
    const a = this.entombed;
    const g = this.table.moves.ghost;
    if (!a || !a.fixed || a.sending || !a.placement || !g?.geometry) return false;
    if (!pointInGeometry(g.geometry, w.x, w.y)) return false;
    a.drag = { start: w, from: a.placement };
    return true;
  }

  /** @param {Pt} w */
  dragMove(w) {
    const a = this.entombed;
    if (!a?.drag) return;
    const { start, from } = a.drag;
    a.placement = draggedPlacement(from, start, w);
    this.showGhost();
  }

  dragEnd() {
    if (this.entombed) this.entombed.drag = null;
  }

  dragCancel() {
    const a = this.entombed;
    if (!a?.drag) return;
    a.placement = a.drag.from;
    a.drag = null;
    this.showGhost();
  }

  /** @param {string} cmd @param {{shiftKey?:boolean}} [e] */
  command(cmd, e) {
    const a = this.entombed;
    if (!a) return false;
    if (cmd === 'confirm') {
      void this.emerge();
      return true;
    }
    if (cmd === 'rotate' || cmd === 'rotateBack') {
      if (!a.fixed || !a.placement || !a.shape) {
        this.table.toast('Emerge: place the marker first, then R turns the unit.', 'info');
        return true;
      }
      const sign = cmd === 'rotateBack' || e?.shiftKey ? -1 : 1;
      a.placement = turnPlacement(a.placement, AMBUSH_TURN_STEP_DEG * sign, a.shape);
      this.showGhost();
      return true;
    }
    return false;
  }

  frame() {
    const t = this.table;
    const a = this.entombed;
    if (!this.enabled || !a || !a.unit) return;
    const unit = t.store.state?.units?.[a.unit];
    if (!unit || unit.status !== 'ambush') {
      t.setMode('idle'); // it emerged, or a Mishap destroyed it
      return;
    }
    if (!a.fixed && a.sending && !pendingEmergence(t.store.state, a.unit)) {
      const marker = lastMarker(t.store.history, a.unit);
      if (marker?.outcome === 'mishap' && !(unit.markers || []).includes('ambush_ready')) {
        t.toast(`${a.name}: ${markerWords(marker, t.store.state)} (see the log)`, 'error');
        t.setMode('idle');
      }
      return;
    }
    this.sync();
  }

  layers() {
    const a = this.entombed;
    if (!a || !a.point) return {};
    return { ambush: { zone: a.zone, point: a.point, fixed: a.fixed, requested: null } };
  }
}
