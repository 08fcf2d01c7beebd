// The Magic Phase panel (The 9th Age): the active player logs each casting attempt — spell,
// caster (optional), cast or failed — as `cast_spell`; everyone sees this phase's tally.
// Spells themselves are not automated: the players resolve their effects. The record is what
// the Mageblight Gremlins' Ambush rolls read (seed 000: one Maximised per spell the opponent
// cast in their previous Magic Phase).

import { h, replace } from './dom.js';
import { spellTally } from '../view/ambush.js';
import { gameOffer } from './offers.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */

/**
 * Mounts the panel's form once (so typing survives re-renders); returns its render function.
 * @param {HTMLElement} el @param {Store} store @param {Connection} conn
 * @param {(msg:string, kind?:'info'|'error'|'ok') => void} toast
 */
export function magicPanel(el, store, conn, toast) {
  const spell = /** @type {HTMLInputElement} */ (h('input', { name: 'spell', placeholder: 'Log a spell: its name', maxlength: 80, size: 12, required: true, 'aria-label': 'Spell' }));
  const caster = /** @type {HTMLSelectElement} */ (h('select', { name: 'caster', 'aria-label': 'Caster (optional)' }));
  let casterKey = '';
  let sending = false;
  const form = h('form', {
    class: 'spell-form',
    onsubmit: async (/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      const name = spell.value.trim();
      if (!name || sending) return;
      const submitter = /** @type {HTMLButtonElement|null} */ (e.submitter);
      const outcome = submitter?.value === 'failure' ? 'failure' : 'success';
      /** @type {import('../types.js').Action} */
      const action = { type: 'cast_spell', spell: name, outcome };
      if (caster.value) action.caster = caster.value;
      sending = true;
      try {
        await conn.act(action);
        spell.value = '';
      } catch (err) {
        const x = /** @type {Partial<import('../types.js').WireError>|null|undefined} */ (err);
        toast(`Log a spell: ${x?.message || x?.code || 'refused'}`, 'error');
      } finally {
        sending = false;
      }
    },
  }, h('div', { class: 'row' }, spell),
  h('div', { class: 'row' }, caster,
    h('button', { type: 'submit', name: 'outcome', value: 'success', class: 'primary', id: 'spell-cast' }, 'Cast'),
    h('button', { type: 'submit', name: 'outcome', value: 'failure', id: 'spell-failed' }, 'Failed')));
  const tally = h('p', { class: 'spell-tally', id: 'spell-tally' });
  const list = h('ul', { class: 'spell-list' });
  replace(el, h('h2', null, 'Magic'),
    h('p', { class: 'hint not-automated', title: 'Successful casts are recorded: the Mageblight Gremlins’ Ambush rolls gain Maximised for each.' },
      'Spell effects are resolved by the players (not automated).'),
    form, tally, list);

  return function render() {
    const st = store.state || {};
    // The server offers `cast_spell` to the active player in the Magic Phase of a system with
    // one; everyone else sees the tally of that phase.
    const cast = gameOffer(st, 'cast_spell');
    el.hidden = !cast && !(st.stage === 'battle' && st.phase === 'Magic' && Array.isArray(st.phases) && st.phases.includes('Magic'));
    if (el.hidden) return;
    const active = Number(st.active_player);
    form.hidden = !cast;
    const casters = new Set(Array.isArray(cast?.casters) ? cast.casters : []);
    const own = Object.values(st.units || {}).filter((u) => casters.has(u.id));
    const key = own.map((u) => `${u.id}:${u.name}`).join('|');
    if (key !== casterKey) {
      casterKey = key;
      const keep = caster.value;
      replace(caster, h('option', { value: '' }, 'Caster (optional)'),
        own.map((u) => h('option', { value: u.id }, u.name || u.id)));
      caster.value = own.some((u) => u.id === keep) ? keep : '';
    }
    const t = spellTally(st, store.history, active);
    const who = store.seat === active ? 'You' : `Player ${active}`;
    tally.textContent = `This Magic Phase: ${who} cast ${t.cast} spell${t.cast === 1 ? '' : 's'}${t.failed ? `, ${t.failed} failed` : ''}.`;
    replace(list, t.spells.map((s) => h('li', { class: s.outcome === 'success' ? 'cast' : 'failed' },
      `${s.spell}${s.caster ? ` (${st.units?.[s.caster]?.name || s.caster})` : ''}: ${s.outcome === 'success' ? 'cast' : 'failed'}`)));
  };
}
