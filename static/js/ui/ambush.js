// Arriving from Ambush (The 9th Age, seed 000), in the side tray: each unit's Ambush line
// (status, roll, the Arrive button that picks the table's `ambush` tool — handlers/ambush.js —
// and for a character the unit it arrives with).

import { h } from './dom.js';
import { ambushEntries } from '../view/ambush.js';
import { controlAttrs, unitOffer } from './offers.js';

/** @typedef {import('../table.js').Table} Table */

// --- the tray -------------------------------------------------------------------------------

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
  // The server's orders: Arrive (in its owner's Movement Phase, once rolled) and, for an
  // ambushing character, the units it may arrive with.
  const arrive = unitOffer(st, unitId, 'arrive_from_ambush');
  const choose = unitOffer(st, unitId, 'choose_ambush_host');
  const emerge = unitOffer(st, unitId, 'emerge');
  let host = null;
  if (choose) {
    const options = (Array.isArray(choose.hosts) ? choose.hosts : []).flatMap((o) => {
      const u = st.units?.[o.unit];
      return u ? [{ ...o, unit: u }] : [];
    });
    host = h('select', {
      class: 'ambush-host', 'aria-label': `${entry.name} arrives with`,
      onchange: async (/** @type {Event} */ e) => {
        const value = /** @type {HTMLSelectElement} */ (e.target).value;
        try {
          await conn.act({ type: 'choose_ambush_host', character: unitId, host: value || null });
        } catch (err) {
          const x = /** @type {Partial<import('../types.js').WireError>|null|undefined} */ (err);
          toast(`Arrive with: ${x?.details?.rule ? `${x.details.rule}: ` : ''}${x?.message || 'refused'}`, 'error');
          o.rerender();
        }
      },
    }, h('option', { value: '', selected: !entry.host }, 'on its own'),
    options.map((u) => h('option', {
      value: u.unit.id, selected: entry.host === u.unit.id, disabled: !u.available, title: u.available ? '' : String(u.reason || ''),
    }, `with ${u.unit.name || u.unit.id}`)));
  }
  return h('span', { class: 'ambush-info' },
    h('small', { class: `ambush-status${entry.ready ? ' ready' : ''}` }, entry.status),
    entry.detail && !host ? h('small', { class: 'ambush-roll' }, ` · ${entry.detail}`) : null,
    entry.riders.length ? h('small', { class: 'ambush-riders' }, ` · with ${entry.riders.join(', ')}`) : null,
    emerge?.entombed
      ? h('button', { type: 'button', class: 'arrive emerge primary', ...controlAttrs(emerge, 'Place the marker, then the unit'), onclick: () => table.tools.entombed.start(unitId) }, 'Emerge')
      : null,
    arrive || (emerge && !emerge.entombed)
      ? h('button', { type: 'button', class: 'arrive primary', ...controlAttrs(arrive || emerge, 'Pick a point on the Battlefield Edge'), onclick: () => table.tools.ambush.start(unitId) }, 'Arrive')
      : null,
    host);
}
