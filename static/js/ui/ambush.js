// Arriving from Ambush (The 9th Age, seed 000), in the side tray: each unit's Ambush line
// (status, roll, the Arrive button that picks the table's `ambush` tool — handlers/ambush.js —
// and for a character the unit it arrives with).

import { h } from './dom.js';
import { ambushEntries, READY } from '../view/ambush.js';

/** @typedef {import('../table.js').Table} Table */

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
  const isCharacter = Boolean(sheets.byId?.get(String(unit.datasheet))?.can_join);
  // whfb8 Entombed units emerge on their own (characters are deployed inside them with the army).
  const entombed = (unit.rules || []).some((/** @type {unknown} */ r) => /Entombed Beneath the Sands/.test(String(r)));
  const chooseNow = mine && isCharacter && !entombed && (st.stage === 'deployment' || (myTurn && st.phase === 'Charge'));
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
      ? entombed
        ? h('button', { type: 'button', class: 'arrive emerge primary', onclick: () => table.tools.entombed.start(unitId) }, 'Emerge')
        : h('button', { type: 'button', class: 'arrive primary', onclick: () => table.tools.ambush.start(unitId) }, 'Arrive')
      : null,
    host);
}
