import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  routeOf, parseFragment, formatFragment, gameLinks, resolveSeat, loadSeat, saveSeat, storageKey,
} from '../js/session.js';

class MemoryStorage {
  constructor() { this.m = new Map(); }
  getItem(k) { return this.m.has(k) ? this.m.get(k) : null; }
  setItem(k, v) { this.m.set(k, String(v)); }
  removeItem(k) { this.m.delete(k); }
}
const noClaim = async () => { throw new Error('should not claim'); };

test('routes: lobby at /, table at /games/{id}', () => {
  assert.deepEqual(routeOf('/'), { page: 'lobby' });
  assert.deepEqual(routeOf('/games/abc_D-1'), { page: 'table', gameId: 'abc_D-1' });
  assert.deepEqual(routeOf('/games/abc/'), { page: 'table', gameId: 'abc' });
  assert.deepEqual(routeOf('/games/a/b'), { page: 'missing' });
  assert.deepEqual(routeOf('/games/abc/replay'), { page: 'replay', gameId: 'abc' });
  assert.deepEqual(routeOf('/games/abc/replay/x'), { page: 'missing' });
});

test('fragments parse and format', () => {
  assert.deepEqual(parseFragment('#seat=1&token=abc'), { join: false, invite: null, seat: 1, token: 'abc' });
  assert.deepEqual(parseFragment('#join'), { join: true, invite: null, seat: null, token: null });
  assert.deepEqual(parseFragment('#join=S3cr_t-'), { join: true, invite: 'S3cr_t-', seat: null, token: null });
  assert.deepEqual(parseFragment(''), { join: false, invite: null, seat: null, token: null });
  assert.deepEqual(parseFragment('#seat=7'), { join: false, invite: null, seat: null, token: null });
  assert.equal(formatFragment({ seat: 2, token: 'a b' }), '#seat=2&token=a+b');
  assert.equal(parseFragment(formatFragment({ seat: 2, token: 'a b+/=' })).token, 'a b+/=');
});

test('links: invite joins, spectator link has no token, player 1 link keeps the token in the fragment', () => {
  const l = gameLinks('http://h:1', 'g1', 'sekret');
  assert.equal(l.invite, null); // no invite secret known: no invite link at all
  assert.equal(l.spectate, 'http://h:1/games/g1');
  assert.equal(l.player1, 'http://h:1/games/g1#seat=1&token=sekret');
  assert.ok(!l.player1.includes('?'));
});

test('links: the invite secret is in the invite link only, never in the spectator link', () => {
  const l = gameLinks('http://h:1', 'g1', 'sekret', 'INV-1');
  assert.equal(l.invite, 'http://h:1/games/g1#join=INV-1');
  assert.equal(parseFragment(new URL(l.invite).hash).invite, 'INV-1');
  assert.equal(l.spectate, 'http://h:1/games/g1');
  assert.ok(!l.spectate.includes('INV-1') && !l.spectate.includes('#'));
  assert.equal(parseFragment(new URL(l.player1).hash).invite, 'INV-1');
});

test('a token in the fragment is stored and then removed from the fragment', async () => {
  const st = new MemoryStorage();
  const r = await resolveSeat({ gameId: 'g', hash: '#seat=1&token=T1', storage: st, claim: noClaim });
  assert.deepEqual(r, { seat: 1, token: 'T1', fragment: '#seat=1' });
  assert.deepEqual(loadSeat(st, 'g'), { seat: 1, token: 'T1' });
  const again = await resolveSeat({ gameId: 'g', hash: '#seat=1', storage: st, claim: noClaim });
  assert.equal(again.token, 'T1'); // a reload keeps the seat
});

test('#join claims seat 2 once and remembers it', async () => {
  const st = new MemoryStorage();
  let claims = 0;
  const invites = [];
  const claim = async (invite) => { claims += 1; invites.push(invite); return { seat: 2, token: 'T2' }; };
  const r = await resolveSeat({ gameId: 'g', hash: '#join=INV', storage: st, claim });
  assert.deepEqual(invites, ['INV']); // the invite secret goes with the claim
  assert.deepEqual(r, { seat: 2, token: 'T2', fragment: '#seat=2' });
  const again = await resolveSeat({ gameId: 'g', hash: '#join=INV', storage: st, claim });
  assert.equal(claims, 1);
  assert.equal(again.seat, 2);
  assert.match(again.notice, /already holds seat 2/);
});

test('#join on a full game watches as a spectator', async () => {
  const claim = async () => { const e = new Error('taken'); e.status = 409; throw e; };
  const r = await resolveSeat({ gameId: 'g', hash: '#join', storage: new MemoryStorage(), claim });
  assert.equal(r.seat, null);
  assert.equal(r.token, null);
  assert.match(r.notice, /spectator/);
});

test('a refused invite watches as a spectator and says why', async () => {
  const claim = async () => { const e = new Error('forbidden'); e.status = 403; throw e; };
  const r = await resolveSeat({ gameId: 'g', hash: '#join=wrong', storage: new MemoryStorage(), claim });
  assert.equal(r.seat, null);
  assert.match(r.notice, /invite link/);
});

test('player 1 keeps the invite: from the lobby\'s storage or player 1\'s own link', async () => {
  const st = new MemoryStorage();
  saveSeat(st, 'g', { seat: 1, token: 'T1', invite: 'INV' });
  const reload = await resolveSeat({ gameId: 'g', hash: '#seat=1', storage: st, claim: noClaim });
  assert.equal(reload.invite, 'INV');
  const opened = await resolveSeat({ gameId: 'g', hash: '#seat=1&token=T1', storage: st, claim: noClaim });
  assert.equal(opened.invite, 'INV');
  assert.equal(opened.fragment, '#seat=1'); // neither the token nor the invite stays in the URL
  const other = new MemoryStorage();
  const elsewhere = await resolveSeat({ gameId: 'g', hash: '#seat=1&token=T1&invite=INV', storage: other, claim: noClaim });
  assert.equal(elsewhere.invite, 'INV');
  assert.deepEqual(loadSeat(other, 'g'), { seat: 1, token: 'T1', invite: 'INV' });
});

test('no fragment and nothing stored: spectator; storage keyed by game', async () => {
  const st = new MemoryStorage();
  saveSeat(st, 'other', { seat: 1, token: 'x' });
  const r = await resolveSeat({ gameId: 'g', hash: '', storage: st, claim: noClaim });
  assert.deepEqual(r, { seat: null, token: null, fragment: null });
  assert.ok(st.getItem(storageKey('other')));
  st.setItem(storageKey('g'), '{not json');
  assert.equal(loadSeat(st, 'g'), null);
  assert.equal(loadSeat(null, 'g'), null);
});
