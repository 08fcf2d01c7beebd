// Entry point: `/` is the lobby, `/games/{id}` the table. Wires the store, the connection,
// the canvas table and the panels, and exposes `window.warfield` for debugging and tests.

import { routeOf, resolveSeat, gameLinks, forgetSeat } from './session.js';
import { claimSeat, getEvents, getGame, socketUrl } from './api.js';
import { Store } from './store.js';
import { Connection } from './net.js';
import { Table } from './table.js';
import { mountPanels, actorName } from './ui/panels.js';
import { showLobby, safeStorage } from './ui/lobby.js';
import { h, replace } from './ui/dom.js';
import { helpOverlay } from './ui/help.js';
import { mountOrders } from './ui/orders.js';
import { mountAnnouncer } from './ui/announce.js';
import { showReplay } from './ui/replay-page.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
const route = routeOf(location.pathname);

if (route.page === 'lobby') showLobby(root);
else if (route.page === 'table') showTable(route.gameId);
else if (route.page === 'replay') showReplay(root, route.gameId);
else replace(root, h('main', { class: 'lobby' }, h('h1', null, 'Not found'), h('a', { href: '/' }, 'Back to the lobby')));

/** @param {string} gameId */
async function showTable(gameId) {
  const storage = safeStorage();
  const choice = await resolveSeat({ gameId, hash: location.hash, storage, claim: (invite) => claimSeat(gameId, invite) });
  if (choice.fragment !== null) {
    history.replaceState(null, '', `${location.pathname}${location.search}${choice.fragment}`);
  }
  const store = new Store();
  let token = choice.token;
  const conn = new Connection({
    url: socketUrl(gameId),
    token,
    store,
    fetchEvents: (since) => getEvents(gameId, since, token),
    fetchState: () => getGame(gameId, token),
  });

  // The canvas takes the focus (its keys: see Help); the units list is its text view.
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { id: 'table', tabindex: '0', role: 'img',
    'aria-label': 'Battlefield. The Units list beside it describes every unit and selects it.' }));
  const toasts = h('div', { class: 'toasts', role: 'status' });
  const board = h('main', { class: 'board', id: 'main' }, canvas, toasts);
  const badge = h('span', { class: 'badge conn', id: 'conn' }, 'connecting');
  const seatBadge = h('span', { class: 'badge seat', id: 'seat' }, choice.seat ? `Player ${choice.seat}` : 'Spectator');
  const presence = h('span', { class: 'presence', id: 'presence' });
  const title = h('h1', null, 'Warfield');
  const side = h('aside', { class: 'side', 'aria-label': 'Game panels' });
  const help = helpOverlay();
  const replayLink = h('a', { href: `/games/${encodeURIComponent(gameId)}/replay`, class: 'badge replay-link', id: 'replay-link', title: 'Replay this game turn by turn, its battle report and dice luck' }, 'Replay');
  const helpButton = h('button', { type: 'button', class: 'help-button', title: 'Help (?)', 'aria-label': 'Help', onclick: () => toggleHelp() }, '?');
  replace(root, h('div', { class: 'page' },
    h('header', { class: 'top' }, h('a', { href: '/', class: 'home', 'aria-label': 'Lobby' }, '⚔'), title, seatBadge, badge, presence, replayLink, helpButton),
    board,
    side),
  help);

  /** @param {boolean} [show] */
  function toggleHelp(show) {
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  /** @param {string} msg @param {'info'|'error'|'ok'} [kind] */
  function toast(msg, kind = 'info') {
    for (const old of toasts.children) if (old.textContent === msg) old.remove();
    const el = h('div', { class: `toast ${kind}` }, msg);
    toasts.append(el);
    while (toasts.childElementCount > 4) toasts.firstElementChild?.remove();
    setTimeout(() => el.remove(), kind === 'error' ? 6000 : 3500);
  }

  const table = new Table({ canvas, store, conn, toast, onChange: () => updatePanels(), toggleHelp });
  table.mount();
  const links = gameLinks(location.origin, gameId, '', choice.invite ?? null);
  const updatePanels = mountPanels({ root: side, store, conn, table, toast, links });
  mountOrders({ side, board, store, conn, table, toast });
  mountAnnouncer(side, store);

  conn.onStatus((status) => {
    badge.textContent = status === 'online' ? 'online' : status;
    badge.className = `badge conn ${status}`;
  });
  conn.onError((err) => {
    if (err.code === 'unauthorized' && token) {
      // The stored seat no longer opens this game: forget it and watch instead.
      forgetSeat(storage, gameId);
      token = null;
      conn.token = null;
      seatBadge.textContent = 'Spectator';
      toast('Your seat token was refused; watching as a spectator.', 'error');
      conn.start();
      return;
    }
    toast(err.code === 'not_found' ? 'There is no such game.' : `Server: ${err.message}`, 'error');
  });
  let backfilled = false;
  store.subscribe((change) => {
    const st = store.state;
    if (st) {
      title.textContent = `${st.name || 'Game'} · ${st.system || ''}`;
      document.title = `${st.name || 'Game'} — Warfield`;
    }
    seatBadge.textContent = store.seat ? `Player ${store.seat}` : 'Spectator';
    seatBadge.className = `badge seat owner-${store.seat ?? 0}`;
    if (store.presence) {
      const p = store.presence;
      presence.textContent = `${p.players.length ? p.players.map(actorName).join(', ') : 'No players'} online · ${p.spectators} watching`;
    }
    if (change.kind === 'welcome' && !backfilled) {
      // The log before this page arrived: dice and notes panels show the whole game.
      backfilled = true;
      getEvents(gameId, 0, token).then((events) => store.receive(events)).catch(() => {});
    }
  });
  if (choice.notice) toast(choice.notice, 'info');
  conn.start();

  /** Debug and test handle. */
  Object.assign(window, { warfield: { store, conn, table, gameId, seat: () => store.seat } });
}
