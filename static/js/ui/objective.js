// The Secondary Objective panel (The 9th Age, issue 17 item 6): before the battle either player
// sets the game's Secondary Objective from the server's offer (`choose_secondary_objective`:
// the objectives with their words and the one set now); during the battle everyone, spectators
// included, sees which one is played and, for Hold the Ground, the counters so far. The server
// scores it at the end (server/rules/t9a/results.py); nothing is judged here.

import { h, replace } from './dom.js';
import { errorText } from '../format.js';
import { gameOffer } from './offers.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */

/** @typedef {{id:string, name:string, text:string}} ObjectiveChoice */

/** The objective's name from the offer's list, or a readable form of its id.
 * @param {string|null|undefined} id @param {ObjectiveChoice[]} choices */
export function objectiveName(id, choices) {
  if (!id) return 'not set';
  const found = choices.find((c) => c.id === id);
  if (found) return found.name;
  return id.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/** The line under the title during the battle ("Hold the Ground: counters 2 - 1").
 * @param {import('../types.js').GameState|null|undefined} st @returns {string} */
export function objectiveLine(st) {
  const id = st?.secondary_objective;
  if (!id) return 'No Secondary Objective is played in this game.';
  const name = st.secondary_objective_name || objectiveName(id, []);
  if (id === 'hold_the_ground') {
    const c = st.objective_counters || {};
    return `${name}: counters Player 1 ${Number(c['1'] || 0)} – Player 2 ${Number(c['2'] || 0)}`;
  }
  return `${name}: scored at the end of the game.`;
}

/**
 * Mounts the panel's form once; returns its render function.
 * @param {HTMLElement} el @param {Store} store @param {Connection} conn
 * @param {(msg:string, kind?:'info'|'error'|'ok') => void} toast
 */
export function objectivePanel(el, store, conn, toast) {
  const select = /** @type {HTMLSelectElement} */ (h('select', { name: 'secondary-objective', id: 'secondary-objective', 'aria-label': 'Secondary Objective' }));
  const explain = h('p', { class: 'hint', id: 'secondary-objective-text' });
  const current = h('p', { class: 'objective-current', id: 'secondary-objective-current' });
  let sending = false;
  let choicesKey = '';
  const form = h('form', {
    class: 'row objective-form',
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      if (sending || !select.value) return;
      sending = true;
      try {
        await conn.act({ type: 'choose_secondary_objective', objective: select.value });
      } catch (err) {
        toast(`Secondary Objective: ${errorText(err)}`, 'error');
      } finally {
        sending = false;
      }
    },
  }, select, h('button', { type: 'submit', id: 'secondary-objective-set' }, 'Set'));
  select.addEventListener('change', () => { explain.textContent = textOf(select.value); });
  /** @type {ObjectiveChoice[]} */
  let choices = [];
  /** @param {string} id */
  const textOf = (id) => choices.find((c) => c.id === id)?.text || '';
  replace(el, h('h2', null, 'Secondary Objective'), current, form, explain);

  return function render() {
    const st = store.state || {};
    const choose = gameOffer(st, 'choose_secondary_objective');
    // During the battle only a game that plays one shows it (a panel saying "none" is clutter).
    el.hidden = !choose && !(st.secondary_objective && st.stage === 'battle');
    if (el.hidden) return;
    form.hidden = !choose;
    explain.hidden = !choose;
    if (choose) {
      choices = Array.isArray(choose.objectives) ? choose.objectives : [];
      const key = choices.map((c) => c.id).join('|');
      if (key !== choicesKey) {
        choicesKey = key;
        replace(select, choices.map((c) => h('option', { value: c.id }, c.name)));
      }
      const set = /** @type {string|null} */ (choose.current ?? null);
      if (set && document.activeElement !== select && select.value !== set) select.value = set;
      explain.textContent = textOf(select.value);
      current.textContent = set
        ? `Set for this game: ${objectiveName(set, choices)}. Either player may change it until the battle starts.`
        : 'Not set yet: either player sets it before the battle starts.';
    } else {
      current.textContent = objectiveLine(st);
    }
  };
}
