// Arriving from Ambush (The 9th Age, seed 000), in the browser: the `ambush` tool of the table
// (tools.js) and the Ambush lines of the side tray (status, roll, Arrive, a character's host).
//
// The tool: the pointer snaps to the nearest Battlefield Edge point; the server's
// `ambush_options` (asked at most once a frame, the newest position winning) answers the 6 in
// zone, its verdict on the placement and the valid placement nearest to it. The ghost shows
// that nearest placement in green, or the requested one in red with the failing rule when none
// exists. A click fixes the point; the ghost can then be dragged and turned (R), and a click on
// it or Enter sends `arrive_from_ambush` with the snapped placement. Esc cancels.

import { h } from './dom.js';
import { startEmerge } from './entombed.js';
import { LatestOnly } from '../net.js';
import { pointInGeometry } from '../view/hit.js';
import {
  snapToEdge, placeOutline, outlineBox, turnPlacement, ambushVerdict, ambushEntries, READY,
  AMBUSH_TURN_STEP_DEG,
} from '../view/ambush.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../view/ambush.js').Placement} Placement */
/** @typedef {{x:number, y:number}} Pt */

/** Spacing of the questions, as the table's previews (the server allows 20 a second). */
const ASK_INTERVAL_MS = 80;

/**
 * The tool's state, kept on the table as `table.ambush`.
 * @typedef {Object} AmbushState
 * @property {string|null} unit
 * @property {string} name
 * @property {{x:number, y:number, edge:string}|null} point   the chosen (or hovered) edge point
 * @property {boolean} fixed         the point is chosen; the ghost can be adjusted
 * @property {any} zone              GeoJSON of the 6 in zone
 * @property {number[][]|null} outline  the unit's outline in its own frame
 * @property {Placement|null} requested  what the player asks for (null: the server's default)
 * @property {Placement|null} placement  the valid placement to send, from the last answer
 * @property {Placement|null} shown      where the ghost is drawn
 * @property {{start:Pt, from:Placement}|null} drag
 * @property {boolean} wanted        a question waits for the next frame
 * @property {boolean} committing
 * @property {boolean} confirmSoon   Enter came while a question was out: confirm on its answer
 * @property {LatestOnly} asker
 */

/** @param {Table} t @returns {AmbushState} */
function fresh(t) {
  return {
    unit: null, name: '', point: null, fixed: false, zone: null, outline: null, requested: null,
    placement: null, shown: null, drag: null, wanted: false, committing: false, confirmSoon: false,
    asker: new LatestOnly(
      (q) => t.conn.ambushOptions(q.unit, q.point, q.placement),
      (res, q) => onAnswer(t, res, q),
      (err) => onRefusal(t, err),
      { minIntervalMs: ASK_INTERVAL_MS },
    ),
  };
}

/** @param {Table} t */
function stateOf(t) {
  return /** @type {AmbushState|null} */ (t.ambush);
}

/** Pick the tool for a unit that rolled to arrive (the tray's Arrive button).
 * @param {Table} t @param {string} unitId */
export function startArrive(t, unitId) {
  t.setMode('ambush');
  const a = stateOf(t);
  if (!a) return;
  a.unit = unitId;
  a.name = String(t.store.state?.units?.[unitId]?.name || unitId);
  t.onChange();
}

/** Ask the server about the current point and placement with the next frame. @param {Table} t */
function ask(t) {
  const a = stateOf(t);
  if (!a) return;
  a.wanted = true;
  t.redraw();
}

/** Nothing is waiting for an answer. @param {AmbushState} a */
function settled(a) {
  const q = /** @type {any} */ (a.asker);
  return !a.wanted && !q.busy && q.waiting === undefined && !q.timer;
}

/** @param {Table} t @param {any} res @param {any} q */
function onAnswer(t, res, q) {
  const a = stateOf(t);
  if (!a || a.committing || q.unit !== a.unit) return;
  a.zone = res.zone || null;
  if (Array.isArray(res.outline) && res.outline.length >= 3) a.outline = res.outline;
  const v = ambushVerdict(res);
  a.placement = v.placement;
  a.shown = v.shown;
  // Once the player lets go, what they ask for becomes the snapped placement.
  if (a.fixed && !a.drag && v.placement) a.requested = v.placement;
  showGhost(t, v.verdict, v.text, v.swept);
  if (a.confirmSoon && settled(a)) {
    a.confirmSoon = false;
    confirm(t);
  }
  t.onChange();
}

/** @param {Table} t @param {any} err */
function onRefusal(t, err) {
  const a = stateOf(t);
  if (!a) return;
  a.placement = null;
  showGhost(t, 'illegal', `${err?.details?.rule ? `${err.details.rule}: ` : ''}${err?.message || err?.code || 'refused'}`, null);
  t.onChange();
}

/** The table's ghost at `a.shown`. @param {Table} t @param {'legal'|'illegal'|'unknown'} verdict @param {string} text @param {any} swept */
function showGhost(t, verdict, text, swept) {
  const a = /** @type {AmbushState} */ (stateOf(t));
  if (!a.shown || !a.outline) {
    t.ghost = null;
    return t.redraw();
  }
  const box = outlineBox(a.outline, a.shown);
  t.ghost = {
    x: box.x, y: box.y, facing: a.shown.facing, width: box.width, depth: box.depth,
    geometry: placeOutline(a.outline, a.shown), verdict, text: `${a.name} · ${text}`, swept,
    phase: 'placing',
  };
  t.redraw();
}

/** The point under the pointer, snapped to the edge. @param {Table} t @param {Pt} w */
function pointAt(t, w) {
  return snapToEdge(w, t.store.state?.battlefield || { width: 72, depth: 48 });
}

/** @param {Table} t */
export async function confirm(t) {
  const a = stateOf(t);
  if (!a || a.committing || !a.unit) return;
  if (!a.fixed || !a.point) return t.toast('Arrive: click a point on a table edge first.', 'info');
  if (!settled(a)) {
    a.confirmSoon = true;
    return;
  }
  if (!a.placement || !a.outline) return t.toast('Arrive: no valid placement from this point; pick another.', 'error');
  const pl = a.placement;
  a.shown = pl;
  showGhost(t, 'legal', 'arriving…', null);
  a.committing = true;
  const action = { type: 'arrive_from_ambush', unit: a.unit, point: [a.point.x, a.point.y], x: pl.x, y: pl.y, facing: pl.facing };
  const ack = await t.commit(action, `Arrive ${a.name}`);
  if (stateOf(t) !== a) return;
  if (ack) {
    t.toast(`${a.name} arrive from Ambush.`, 'ok');
    t.setMode('idle');
  } else {
    a.committing = false;
  }
}

/** @type {import('../tools.js').Tool} */
export const AMBUSH_TOOL = {
  enterToast: 'Arrive from Ambush: move along a table edge, click to choose the point.',
  enter: (t) => {
    t.measure = null;
    t.los = null;
    t.ambush = fresh(t);
  },
  exit: (t) => {
    stateOf(t)?.asker.cancel();
    t.ambush = null;
  },
  hover: (t, w) => {
    const a = stateOf(t);
    if (!a || a.fixed || a.committing) return;
    const p = pointAt(t, w);
    if (a.point && a.point.x === p.x && a.point.y === p.y) return;
    a.point = p;
    ask(t);
  },
  tap: (t, w) => {
    const a = stateOf(t);
    if (!a || a.committing) return;
    const onGhost = a.fixed && t.ghost?.geometry && pointInGeometry(t.ghost.geometry, w.x, w.y);
    if (onGhost) return confirm(t);
    // A click away from the ghost chooses (again) the point on the edge.
    a.point = pointAt(t, w);
    a.fixed = true;
    a.requested = null;
    a.placement = null;
    ask(t);
    t.onChange();
  },
  dragStart: (t, w) => {
    const a = stateOf(t);
    const from = a?.requested || a?.placement;
    if (!a || !a.fixed || a.committing || !from || !t.ghost?.geometry) return false;
    if (!pointInGeometry(t.ghost.geometry, w.x, w.y)) return false;
    a.drag = { start: w, from };
    return true;
  },
  dragMove: (t, w) => {
    const a = stateOf(t);
    if (!a?.drag) return;
    const { start, from } = a.drag;
    a.requested = { x: round2(from.x + w.x - start.x), y: round2(from.y + w.y - start.y), facing: from.facing };
    ask(t);
  },
  dragEnd: (t) => {
    const a = stateOf(t);
    if (!a) return;
    a.drag = null;
    if (a.placement && settled(a)) a.requested = a.placement;
    t.redraw();
  },
  dragCancel: (t) => {
    const a = stateOf(t);
    if (!a?.drag) return;
    a.requested = a.drag.from;
    a.drag = null;
    ask(t);
  },
  command: (t, cmd, e) => {
    const a = stateOf(t);
    if (!a) return false;
    if (cmd === 'confirm') {
      confirm(t);
      return true;
    }
    if (cmd === 'rotate' || cmd === 'rotateBack') {
      const base = a.requested || a.placement;
      if (!a.fixed || !base || !a.outline) {
        t.toast('Arrive: click a point on a table edge first, then R turns the unit.', 'info');
        return true;
      }
      const sign = cmd === 'rotateBack' || e?.shiftKey ? -1 : 1;
      a.requested = turnPlacement(base, AMBUSH_TURN_STEP_DEG * sign, a.outline);
      ask(t);
      return true;
    }
    return false;
  },
  frame: (t) => {
    const a = stateOf(t);
    if (!a || a.committing) return;
    const unit = a.unit ? t.store.state?.units?.[a.unit] : null;
    if (a.unit && (!unit || unit.status !== 'ambush')) {
      // It arrived (or left) meanwhile: nothing to place any more.
      t.setMode('idle');
      return;
    }
    if (!a.wanted || !a.point || !a.unit) return;
    a.wanted = false;
    /** @type {any} */
    const q = { unit: a.unit, point: { x: a.point.x, y: a.point.y } };
    if (a.fixed && a.requested) q.placement = a.requested;
    a.asker.offer(q);
  },
  hint: (t) => {
    const a = stateOf(t);
    const who = a?.name ? `${a.name}: ` : '';
    return a?.fixed
      ? `${who}drag the ghost to adjust it, R turns it ${AMBUSH_TURN_STEP_DEG}°; click it or press Enter to arrive. A click elsewhere picks another edge point (Esc cancels).`
      : `${who}move along a table edge; the ghost shows where the unit would arrive. Click to choose the point (Esc cancels).`;
  },
};

/** @param {number} v */
function round2(v) {
  return Math.round(v * 100) / 100;
}

// --- the tray -------------------------------------------------------------------------------

/** Datasheets by id, per system, for "is this an attachable character?" @type {{system:string, byId:Map<string, any>|null, loading:boolean}} */
const sheets = { system: '', byId: null, loading: false };

/** @param {string} system @param {() => void} done */
function loadSheets(system, done) {
  if (sheets.system === system && (sheets.byId || sheets.loading)) return;
  Object.assign(sheets, { system, byId: null, loading: true });
  fetch(`/api/systems/${encodeURIComponent(system)}/datasheets`, { headers: { Accept: 'application/json' } })
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((body) => {
      if (sheets.system !== system) return;
      sheets.byId = new Map((Array.isArray(body?.datasheets) ? body.datasheets : []).map((/** @type {any} */ d) => [d.id, d]));
      sheets.loading = false;
      done();
    })
    .catch(() => {
      sheets.loading = false;
    });
}

/**
 * The Ambush part of a tray line: status ("in Ambush", "rolled to arrive" with the roll),
 * the Arrive button in the owner's Movement Phase, and for a character the unit it arrives
 * with (in deployment and in its owner's Charge Phase, before the rolls).
 * @param {string} unitId
 * @param {{table:Table, store:import('../store.js').Store, conn:import('../net.js').Connection, toast:Function, rerender:() => void}} o
 */
export function ambushTrayItem(unitId, o) {
  const { table, store, conn, toast } = o;
  const st = store.state || {};
  const unit = st.units?.[unitId];
  const entry = ambushEntries(st, store.history).find((e) => e.id === unitId);
  if (!unit || !entry) return null;
  const mine = store.seat !== null && unit.owner === store.seat;
  const myTurn = st.stage === 'battle' && st.active_player === store.seat;
  const canArrive = mine && myTurn && st.phase === 'Movement' && Array.isArray(unit.markers) && unit.markers.includes(READY);
  if (st.system) loadSheets(String(st.system), o.rerender);
  const isCharacter = Boolean(sheets.byId?.get(unit.datasheet)?.can_join);
  const chooseNow = mine && isCharacter && (st.stage === 'deployment' || (myTurn && st.phase === 'Charge'));
  let host = null;
  if (chooseNow) {
    const options = Object.values(st.units || {}).filter((/** @type {any} */ u) => u.owner === unit.owner && u.status === 'ambush'
      && u.id !== unit.id && !sheets.byId?.get(u.datasheet)?.can_join && !(st.ambush_hosts || {})[u.id]);
    host = h('select', {
      class: 'ambush-host', 'aria-label': `${entry.name} arrives with`,
      onchange: async (/** @type {Event} */ e) => {
        const value = /** @type {HTMLSelectElement} */ (e.target).value;
        try {
          await conn.act({ type: 'choose_ambush_host', character: unitId, host: value || null });
        } catch (err) {
          const x = /** @type {any} */ (err);
          toast(`Arrive with: ${x?.details?.rule ? `${x.details.rule}: ` : ''}${x?.message || 'refused'}`, 'error');
          o.rerender();
        }
      },
    }, h('option', { value: '', selected: !entry.host }, 'on its own'),
    options.map((/** @type {any} */ u) => h('option', { value: u.id, selected: entry.host === u.id }, `with ${u.name || u.id}`)));
  }
  return h('span', { class: 'ambush-info' },
    h('small', { class: `ambush-status${entry.ready ? ' ready' : ''}` }, entry.status),
    entry.detail && !host ? h('small', { class: 'ambush-roll' }, ` · ${entry.detail}`) : null,
    entry.riders.length ? h('small', { class: 'ambush-riders' }, ` · with ${entry.riders.join(', ')}`) : null,
    canArrive
      ? st.system === 'whfb8'
        ? h('button', { type: 'button', class: 'arrive emerge primary', onclick: () => startEmerge(table, unitId) }, 'Emerge')
        : h('button', { type: 'button', class: 'arrive primary', onclick: () => startArrive(table, unitId) }, 'Arrive')
      : null,
    host);
}
