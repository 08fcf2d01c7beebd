// Entry point: `/` is the lobby, `/games/{id}` the table. Wires the store, the connection,
// the canvas table and the panels, and exposes `window.warfield` for debugging and tests.

import { routeOf, resolveSeat, gameLinks, forgetSeat } from './session.js';
import { claimSeat, getDiceProof, getEvents, getExport, getGame, socketUrl } from './api.js';
import { delayWords, errorText, presenceText } from './format.js';
import { Store } from './store.js';
import { Connection } from './net.js';
import { Table } from './table.js';
import { focusEndPhase, mountPanels } from './ui/panels.js';
import { showLobby, safeStorage } from './ui/lobby.js';
import { h, replace } from './ui/dom.js';
import { helpOverlay } from './ui/help.js';
import { mountOrders } from './ui/orders.js';
import { neutralFocusAfterActions } from './ui/focus.js';
import { mountAnnouncer } from './ui/announce.js';
import { showReplay } from './ui/replay-page.js';
import { attachTerrainTip } from './ui/terrain-tip.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
const route = routeOf(location.pathname);

if (route.page === 'lobby') showLobby(root);
else if (route.page === 'table') showTable(route.gameId);
else if (route.page === 'replay') showReplay(root, route.gameId);
else replace(root, h('main', { class: 'lobby' }, h('h1', null, 'Not found'), h('a', { href: '/' }, 'Back to the lobby')));

/** The moment a toast belongs to: the stage, the turn, whose it is and the phase.
 * @param {import('./types.js').GameState|null|undefined} st @returns {string} */
function momentOf(st) {
  return st ? [st.stage, st.turn, st.active_player, st.phase, st.over].map((x) => String(x ?? '')).join('|') : '';
}

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
  const delayBadge = h('span', { class: 'badge delay', id: 'spectator-delay', hidden: true });
  const title = h('h1', null, 'Warfield');
  const side = h('aside', { class: 'side', 'aria-label': 'Game panels' });
  const help = helpOverlay();
  const replayLink = h('a', { href: `/games/${encodeURIComponent(gameId)}/replay`, class: 'badge replay-link', id: 'replay-link', title: 'Replay this game turn by turn, its battle report and dice luck' }, 'Replay');
  // Issue 19 item 9: the game's own buttons — concede (players), export (once over), dice proof.
  const concedeButton = h('button', { type: 'button', class: 'game-button', id: 'concede', hidden: true, title: 'Concede the game: it ends with the result the rules give a concession',
    onclick: () => concede() }, 'Concede');
  const exportButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'game-button', id: 'export', title: 'Download the finished game as a file (available once the game is over)',
    onclick: () => exportGame() }, 'Export'));
  const proofButton = h('button', { type: 'button', class: 'game-button', id: 'dice-proof-button', title: 'Check the dice: the commitment now, every roll verified against the seed after the end',
    onclick: () => diceProof() }, 'Dice proof');
  // Issue 19 item 8: while the socket is down, a banner says so and the controls are disabled.
  const offlineBanner = h('div', { class: 'offline-banner', id: 'offline-banner', role: 'alert', hidden: true },
    'Connection lost — reconnecting… Actions are disabled until the table is back.');
  board.append(offlineBanner);
  const helpButton = h('button', { type: 'button', class: 'help-button', title: 'Help (?)', 'aria-label': 'Help', onclick: () => toggleHelp() }, '?');
  replace(root, h('div', { class: 'page' },
    h('header', { class: 'top' }, h('a', { href: '/', class: 'home', 'aria-label': 'Lobby' }, '⚔'), title, seatBadge, badge, delayBadge, presence, concedeButton, exportButton, proofButton, replayLink, helpButton),
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
    const el = h('div', { class: `toast ${kind}`, dataset: { moment: momentOf(store.state) } }, msg);
    toasts.append(el);
    while (toasts.childElementCount > 4) toasts.firstElementChild?.remove();
    setTimeout(() => el.remove(), kind === 'error' ? 6000 : 3500);
  }

  const table = new Table({ canvas, store, conn, toast, onChange: () => updatePanels(), toggleHelp, endPhase: () => focusEndPhase(side, toast) });
  table.mount();
  attachTerrainTip(table);
  const links = gameLinks(location.origin, gameId, '', choice.invite ?? null);
  const updatePanels = mountPanels({ root: side, store, conn, table, toast, links });
  mountOrders({ side, board, store, conn, table, toast });
  neutralFocusAfterActions(conn, canvas);
  mountAnnouncer(side, store);

  /** Disable (or give back) every control of the table while the socket is down; only the
   * controls this disabled come back, so a control disabled for a rule stays disabled. */
  function setOffline(/** @type {boolean} */ offline) {
    offlineBanner.hidden = !offline;
    document.body.classList.toggle('offline', offline);
    canvas.toggleAttribute('inert', offline);
    const controls = [...side.querySelectorAll('button, input, select, textarea'), ...board.querySelectorAll('button, input, select, textarea'), concedeButton];
    for (const el of /** @type {(HTMLButtonElement|HTMLInputElement)[]} */ (controls)) {
      if (offline && !el.disabled) {
        el.disabled = true;
        el.dataset.offline = '1';
      } else if (!offline && el.dataset.offline) {
        el.disabled = false;
        delete el.dataset.offline;
      }
    }
  }
  function showPresence() {
    presence.textContent = presenceText(store.presence, conn.status);
    presence.classList.toggle('offline', conn.status !== 'online');
  }

  conn.onStatus((status) => {
    badge.textContent = status === 'online' ? 'online' : status;
    badge.className = `badge conn ${status}`;
    setOffline(status !== 'online' && status !== 'connecting');
    showPresence();
  });

  async function concede() {
    if (!confirm('Concede the game? It ends now with the result the rules give a concession.')) return;
    try {
      await conn.act({ type: 'concede' });
      toast('You conceded the game.', 'info');
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }
  async function exportGame() {
    try {
      const doc = await getExport(gameId, token);
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
      const a = h('a', { href: url, download: `warfield-${gameId}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 0);
      toast('Game exported.', 'ok');
    } catch (err) {
      toast(`Export: ${errorText(err)}`, 'error');
    }
  }
  async function diceProof() {
    try {
      const proof = await getDiceProof(gameId, token);
      const words = !proof.revealed
        ? `Dice commitment ${String(proof.commitment).slice(0, 16)}… (${proof.rolls} rolls so far): the seed is revealed when the game ends.`
        : proof.verified ? `Dice proof: every one of ${proof.rolls} rolls verified against the revealed seed.`
          : `The dice proof failed: ${(proof.failures || []).map((f) => f.reason).join('; ')}`;
      toast(words, proof.revealed && !proof.verified ? 'error' : 'ok');
    } catch (err) {
      toast(`Dice proof: ${errorText(err)}`, 'error');
    }
  }
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
  let moment = '';
  store.subscribe((change) => {
    const st = store.state;
    // A toast belongs to its moment (stage, turn, player, phase): when that passes, the
    // toasts said in it go (issue 19 item 9), errors included — they were about that moment.
    const now = momentOf(st);
    if (now !== moment) {
      if (moment) for (const old of [...toasts.children]) if (/** @type {HTMLElement} */ (old).dataset.moment !== now) old.remove();
      moment = now;
    }
    if (st) {
      title.textContent = `${st.name || 'Game'} · ${st.system || ''}`;
      document.title = `${st.name || 'Game'} — Warfield`;
    }
    seatBadge.textContent = store.seat ? `Player ${store.seat}` : 'Spectator';
    seatBadge.className = `badge seat owner-${store.seat ?? 0}`;
    delayBadge.textContent = delayWords(store.delay, store.seat);
    delayBadge.hidden = !delayBadge.textContent;
    if (store.presence) showPresence();
    concedeButton.hidden = !store.seat || Boolean(st?.over);
    exportButton.disabled = !st?.over;
    if (conn.status !== 'online' && conn.status !== 'connecting') setOffline(true);
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
