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
  assert.deepEqual(parseFragment('#seat=1&token=abc'), { join: false, seat: 1, token: 'abc' });
  assert.deepEqual(parseFragment('#join'), { join: true, seat: null, token: null });
  assert.deepEqual(parseFragment(''), { join: false, seat: null, token: null });
  assert.deepEqual(parseFragment('#seat=7'), { join: false, seat: null, token: null });
  assert.equal(formatFragment({ seat: 2, token: 'a b' }), '#seat=2&token=a+b');
  assert.equal(parseFragment(formatFragment({ seat: 2, token: 'a b+/=' })).token, 'a b+/=');
});

test('links: invite joins, spectator link has no token, player 1 link keeps the token in the fragment', () => {
  const l = gameLinks('http://h:1', 'g1', 'sekret');
  assert.equal(l.invite, 'http://h:1/games/g1#join');
  assert.equal(l.spectate, 'http://h:1/games/g1');
  assert.equal(l.player1, 'http://h:1/games/g1#seat=1&token=sekret');
  assert.ok(!l.player1.includes('?'));
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
  const claim = async () => { claims += 1; return { seat: 2, token: 'T2' }; };
  const r = await resolveSeat({ gameId: 'g', hash: '#join', storage: st, claim });
  assert.deepEqual(r, { seat: 2, token: 'T2', fragment: '#seat=2' });
  const again = await resolveSeat({ gameId: 'g', hash: '#join', storage: st, claim });
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
