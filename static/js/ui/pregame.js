// Roll-offs before the battle (issue 19 item 6; server/rules/pregame.py): the roll-offs' dice
// and outcome in words, and the choice the rules give the winner (who deploys first, who takes
// the first turn) as two buttons from the server's `choose_first` offer. Everyone else sees
// whom the game waits for. The server rolls and judges; nothing is decided here.

import { h, replace } from './dom.js';
import { errorText } from '../format.js';
import { gameOffer } from './offers.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */

/** The roll-offs of this game so far, in words, newest last.
 * @param {{type:string, payload?:Record<string, unknown>}[]} history @returns {string[]} */
export function rollOffLines(history) {
  return history.filter((e) => e.type === 'roll_off' || e.type === 'first_chosen' || e.type === 'deployment_finished')
    .map((e) => String(e.payload?.text || ''))
    .filter(Boolean);
}

/** Whom the game waits for, for a player who does not make the choice.
 * @param {import('../types.js').PregameView['pending']} pending @param {number|null} seat @returns {string} */
export function waitingLine(pending, seat) {
  if (!pending) return '';
  const what = pending.about === 'deploy_first' ? 'who deploys first' : 'who takes the first turn';
  return pending.seat === seat ? `You choose ${what}.` : `Waiting for Player ${pending.seat} to choose ${what}…`;
}

/**
 * @param {HTMLElement} el @param {Store} store @param {Connection} conn
 * @param {(msg:string, kind?:'info'|'error'|'ok') => void} toast
 */
export function pregamePanel(el, store, conn, toast) {
  let busy = false;
  let key = '';
  return function render() {
    const st = store.state || {};
    const pre = st.pregame;
    const lines = rollOffLines(store.history);
    const choose = gameOffer(st, 'choose_first');
    el.hidden = !pre || pre.mode !== 'roll_offs' || st.stage !== 'deployment' && !choose;
    if (el.hidden || !pre) return;
    const next = JSON.stringify([lines, pre.pending, choose, busy, store.seat]);
    if (next === key) return;
    key = next;
    const buttons = choose && Array.isArray(choose.options)
      ? h('div', { class: 'buttons', role: 'group', 'aria-label': String(choose.question || 'Choose') },
        choose.options.map((o, i) => h('button', {
          type: 'button', class: i === 0 ? 'primary' : '', disabled: busy, dataset: { first: String(o.first) },
          onclick: async () => {
            if (busy) return;
            busy = true;
            render();
            try {
              await conn.act({ type: 'choose_first', first: o.first });
            } catch (err) {
              toast(`Roll-off: ${errorText(err)}`, 'error');
            } finally {
              busy = false;
              render();
            }
          },
        }, o.label)))
      : null;
    replace(el, h('h2', null, 'Roll-offs'),
      h('ul', { class: 'roll-offs' }, lines.map((t) => h('li', null, t))),
      choose ? h('p', { class: 'question', id: 'pregame-question' }, String(choose.question || '')) : null,
      buttons,
      !choose && pre.pending ? h('p', { class: 'waiting', id: 'pregame-waiting' }, waitingLine(pre.pending, store.seat)) : null,
      pre.first_turn_words ? h('p', { class: 'hint' }, `${pre.first_turn_words}.`) : null);
  };
}
