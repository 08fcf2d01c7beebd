// The lobby at `/`: create a game, then share the invite and spectator links or sit down as
// player 1. The seat-1 token only appears inside URL fragments and in localStorage.

import { h, replace } from './dom.js';
import { createGame, getSystems } from '../api.js';
import { gameLinks, saveSeat } from '../session.js';
import { copyRow } from './panels.js';

/** The systems of `GET /api/systems` (or a bare list of ids).
 * @param {{systems?:(string|{id?:unknown, name?:unknown})[]}|(string|{id?:unknown, name?:unknown})[]|null|undefined} body @returns {{id:string, name:string}[]} */
export function systemsFrom(body) {
  /** @type {(string|{id?:unknown, name?:unknown})[]} */
  const list = Array.isArray(body) ? body : Array.isArray(body?.systems) ? body.systems : [];
  const out = list
    .map((s) => (typeof s === 'string' ? { id: s, name: s } : { id: String(s?.id ?? ''), name: String(s?.name ?? s?.id ?? '') }))
    .filter((s) => s.id);
  return out;
}

/** @param {HTMLElement} root */
export async function showLobby(root) {
  document.title = 'Warfield';
  // The systems come from the server (`GET /api/systems`); until they do, nothing to pick.
  const system = /** @type {HTMLSelectElement} */ (h('select', { name: 'system', required: true },
    h('option', { value: '', disabled: true, selected: true }, 'Loading game systems…')));
  const name = /** @type {HTMLInputElement} */ (h('input', { name: 'name', placeholder: 'Friday night battle', maxlength: 200 }));
  // Spectators watch this far behind the players (the server holds their events back).
  const delay = /** @type {HTMLSelectElement} */ (h('select', { name: 'spectator_delay_s' },
    [['0', 'None (live)'], ['30', '30 seconds'], ['120', '2 minutes'], ['300', '5 minutes'],
      ['900', '15 minutes']].map(([value, label]) => h('option', { value }, label))));
  // Who deploys first and takes the first turn: the roll-offs the system's rules give, or
  // player 1 in both (a quick game, or a rematch agreed otherwise).
  const pregame = /** @type {HTMLSelectElement} */ (h('select', { name: 'pregame' },
    h('option', { value: 'roll_offs' }, 'Roll-offs, as the rules say'),
    h('option', { value: 'fixed' }, 'Player 1 deploys and plays first')));
  const result = h('div', { class: 'created', 'aria-live': 'polite' });
  const submit = /** @type {HTMLButtonElement} */ (h('button', { type: 'submit', class: 'primary' }, 'Create game'));
  const form = h('form', { class: 'create', onsubmit: (/** @type {Event} */ e) => create(e) },
    h('label', null, h('span', null, 'Game system'), system),
    h('label', null, h('span', null, 'Name'), name),
    h('label', null, h('span', null, 'Spectator delay'), delay),
    h('label', null, h('span', null, 'Deployment and first turn'), pregame),
    submit);

  replace(root, h('main', { class: 'lobby' },
    h('header', null, h('h1', null, 'Warfield'), h('p', null, 'A tabletop for miniature wargames that knows the rules.')),
    form, result));

  getSystems().then((body) => {
    const current = system.value;
    replace(system, systemsFrom(body).map((s) => h('option', { value: s.id }, s.name)));
    if ([...system.options].some((o) => o.value === current)) system.value = current;
  }).catch(() => {});

  /** @param {Event} e */
  async function create(e) {
    e.preventDefault();
    submit.disabled = true;
    try {
      const game = await createGame(system.value, name.value.trim() || undefined, Number(delay.value),
        pregame.value === 'fixed' ? 'fixed' : 'roll_offs');
      saveSeat(safeStorage(), game.id, { seat: 1, token: game.token, invite: game.invite });
      const links = gameLinks(location.origin, game.id, game.token, game.invite);
      replace(result,
        h('h2', null, `Game ${name.value.trim() || game.id} created`),
        copyRow('Invite link for your opponent (it takes seat 2: send it to them only)', links.invite || '', 'invite'),
        copyRow('Spectator link', links.spectate, 'spectate'),
        copyRow('Your seat (player 1) — keep it private', links.player1, 'player1'),
        h('p', null, h('a', { class: 'button primary', href: links.player1, id: 'open-player1' }, 'Open as player 1')));
    } catch (err) {
      replace(result, h('p', { class: 'error' }, `Could not create the game: ${/** @type {Error} */ (err).message}`));
    } finally {
      submit.disabled = false;
    }
  }
}

/** localStorage, or null where the browser refuses it. */
export function safeStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
