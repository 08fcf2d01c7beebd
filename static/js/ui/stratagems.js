// The Stratagems panel of a Warhammer 40,000 game (wh40k10, issue 16): your CP, each core
// Stratagem the server automates with its cost, usable now (with its targets, as the server's
// `stratagems` game offer lists them) or not (the server's reason, visible and on the disabled
// Use button), and the core Stratagems it does not automate, listed to resolve at the table. A
// Use button sends `use_stratagem`; the server checks and pays. The pure part (`stratagemView`)
// is tested under node (static/tests/stratagems.test.js).

import { h, replace } from './dom.js';
import { errorText } from '../format.js';
import { unitName } from './forty-orders.js';
import { gameOffer } from './offers.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */

/** What each roll Command Re-roll re-rolls is called. */
const ROLL_WORDS = /** @type {Record<string, string>} */ ({ advance: 'Advance roll', charge: 'charge roll' });

/**
 * @typedef {Object} StratagemChoice
 * @property {string} label     in words ("the Advance roll of Beast Snagga Boyz")
 * @property {import('../types.js').Action} action  the `use_stratagem` to send
 */

/**
 * @typedef {Object} StratagemRow
 * @property {string} name
 * @property {number} cost
 * @property {string} when
 * @property {string} effect
 * @property {string|null} note
 * @property {boolean} available
 * @property {string|null} reason
 * @property {StratagemChoice[]} choices
 */

/**
 * The panel's content from the server's `stratagems` offer: null when there is none (a
 * spectator, another system).
 * @param {import('../types.js').GameState|null|undefined} st
 * @returns {null|{cp:number, rows:StratagemRow[], manual:{name:string, cost:number, when:string, effect:string, reason:string}[]}}
 */
export function stratagemView(st) {
  const offer = gameOffer(st, 'stratagems');
  if (!offer) return null;
  const list = Array.isArray(offer.stratagems) ? offer.stratagems : [];
  const rows = list.map((s) => {
    const name = String(s.name);
    const targets = Array.isArray(s.targets) ? s.targets : [];
    const choices = targets.map((t) => {
      /** @type {import('../types.js').Action} */
      const action = { type: 'use_stratagem', stratagem: name };
      let label = '';
      if (t.roll) {
        action.roll = t.roll;
        action.unit = t.unit;
        label = `the ${ROLL_WORDS[t.roll] || t.roll} of ${unitName(st, t.unit)}`;
      } else if (t.target) {
        action.unit = t.unit;
        action.target = t.target;
        label = `${unitName(st, t.unit)} ${name === 'Heroic Intervention' ? 'against' : 'at'} ${unitName(st, t.target)}`;
      } else {
        action.unit = t.unit;
        label = unitName(st, t.unit);
      }
      return { label, action };
    });
    return {
      name,
      cost: Number(s.cost ?? 0),
      when: String(s.when || ''),
      effect: String(s.effect || ''),
      note: s.note ? String(s.note) : null,
      available: Boolean(s.available) && choices.length > 0,
      reason: s.available ? null : String(s.reason || 'not now'),
      choices,
    };
  });
  const manual = (Array.isArray(offer.not_automated) ? offer.not_automated : [])
    .map((s) => ({ name: String(s.name), cost: Number(s.cost ?? 0), when: String(s.when || ''), effect: String(s.effect || ''), reason: String(s.reason || 'not automated') }));
  return { cp: Number(offer.cp ?? 0), rows, manual };
}

/**
 * Mount the panel into `el` (a <details> section); returns its render, called on each change.
 * It re-renders only when the offer changes, keeping the choices picked and the focus.
 * @param {HTMLElement} el @param {HTMLElement} body @param {Store} store @param {Connection} conn
 * @param {(msg:string, kind?:'info'|'error'|'ok') => void} toast
 */
export function stratagemsPanel(el, body, store, conn, toast) {
  let key = '';
  let busy = false;
  /** The choice picked per Stratagem (its label). @type {Map<string, string>} */
  const picked = new Map();
  const summary = el.querySelector('summary h2');

  async function use(/** @type {StratagemRow} */ row, /** @type {StratagemChoice} */ choice) {
    if (busy) return;
    busy = true;
    try {
      await conn.act(choice.action);
      toast(`${row.name}: used on ${choice.label}.`, 'ok');
    } catch (err) {
      toast(`${row.name}: ${errorText(err)}`, 'error');
    } finally {
      busy = false;
    }
  }

  function render() {
    const view = stratagemView(store.state);
    el.hidden = !view;
    if (!view) {
      key = '';
      return;
    }
    const next = JSON.stringify(view);
    if (next === key) return;
    key = next;
    if (summary) summary.textContent = `Stratagems · ${view.cp} CP`;
    const items = view.rows.map((row) => {
      const id = `stratagem-${row.name.toLowerCase().replace(/[^a-z]+/g, '-')}`;
      const current = row.choices.find((c) => c.label === picked.get(row.name)) || row.choices[0];
      const select = row.choices.length > 1
        ? /** @type {HTMLSelectElement} */ (h('select', {
          'aria-label': `${row.name}: on what`,
          onchange: (/** @type {Event} */ e) => picked.set(row.name, /** @type {HTMLSelectElement} */ (e.target).value),
        }, row.choices.map((c) => h('option', { value: c.label, selected: c === current }, c.label))))
        : null;
      const button = h('button', {
        type: 'button', class: row.available ? 'primary use' : 'use',
        disabled: !row.available, 'aria-disabled': row.available ? null : 'true',
        title: row.available ? `${row.name}: ${row.effect} (${row.cost} CP)` : String(row.reason),
        'aria-describedby': row.available ? null : `${id}-why`,
        onclick: () => {
          const choice = row.choices.find((c) => c.label === (select ? select.value : current?.label));
          if (choice) void use(row, choice);
        },
      }, `Use (${row.cost} CP)`);
      return h('li', { class: `stratagem${row.available ? ' usable' : ''}`, id, dataset: { name: row.name } },
        h('div', { class: 'stratagem-head' }, h('b', null, row.name), ' ', h('small', null, `${row.cost} CP · ${row.when}`)),
        h('div', { class: 'stratagem-effect' }, row.effect),
        row.note ? h('small', { class: 'hint' }, row.note) : null,
        h('div', { class: 'row' },
          row.available
            ? (select || h('span', { class: 'on' }, `On ${current.label}`))
            : h('span', { class: 'why', id: `${id}-why` }, `Not now: ${row.reason}`),
          button));
    });
    replace(body,
      h('p', { class: 'cp', id: 'stratagem-cp' }, `You have ${view.cp} CP.`),
      h('ul', { class: 'stratagem-list' }, items),
      view.manual.length
        ? h('details', { class: 'not-automated', id: 'stratagems-manual' },
          h('summary', null, `Not automated — resolve at the table (${view.manual.map((m) => m.name).join(', ')})`),
          h('ul', null, view.manual.map((m) => h('li', { dataset: { name: m.name } },
            h('b', null, m.name), ` · ${m.cost} CP · ${m.when}: ${m.effect}. `, h('small', null, 'Not automated — resolve at the table.')))))
        : null);
  }

  return render;
}
