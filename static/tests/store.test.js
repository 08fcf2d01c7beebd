import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../js/store.js';

const base = () => ({
  id: 'g1', system: 't9a', name: 'Test', battlefield: { width: 72, depth: 48 }, seq: 2,
  seats: { 1: true, 2: false }, dice_commitment: 'abc', tokens: {},
});
const ev = (seq, type, payload, actor = 1) => ({ seq, type, actor, payload });
const tok = (id, x, y) => ({ id, owner: 1, label: id, x, y, facing: 0, width: 2, depth: 1 });

test('welcome sets seat, seq and a copy of the state', () => {
  const s = new Store();
  const state = base();
  s.welcome({ seat: 1, seq: 2, state });
  assert.equal(s.seat, 1);
  assert.equal(s.seq, 2);
  state.name = 'mutated';
  assert.equal(s.state.name, 'Test');
});

test('events fold in seq order: place, move, remove, seats', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  const r = s.receive([
    ev(3, 'token_placed', { token: tok('t1', 10, 10) }),
    ev(4, 'token_moved', { id: 't1', x: 12, y: 20, facing: 90 }),
    ev(5, 'seat_claimed', { seat: 2 }, 'system'),
  ]);
  assert.equal(r.applied.length, 3);
  assert.equal(r.gapAfter, null);
  assert.deepEqual(s.state.tokens.t1, { ...tok('t1', 12, 20), facing: 90 });
  assert.equal(s.state.seats['2'], true);
  assert.equal(s.seq, 5);
  assert.equal(s.state.seq, 5);
  s.receive([ev(6, 'token_removed', { id: 't1' })]);
  assert.deepEqual(s.state.tokens, {});
});

test('duplicates and events already covered by the state are not folded twice', () => {
  const s = new Store();
  s.welcome({ seat: null, seq: 2, state: base() });
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) })]);
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) })]);
  s.receive([ev(2, 'token_placed', { token: tok('old', 1, 1) })]);
  assert.deepEqual(Object.keys(s.state.tokens), ['t1']);
  assert.deepEqual(s.history.map((e) => e.seq), [2, 3]); // seq 2 kept for the log only
});

test('a gap holds later events until the missing ones arrive', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  const r = s.receive([ev(5, 'token_moved', { id: 't1', x: 5, y: 5, facing: 0 })]);
  assert.equal(r.gapAfter, 2);
  assert.equal(s.seq, 2);
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) })]);
  assert.equal(s.gapAfter(), 3);
  const r2 = s.receive([ev(4, 'note_added', { text: 'hi' })]);
  assert.equal(r2.gapAfter, null);
  assert.equal(s.seq, 5);
  assert.equal(s.state.tokens.t1.x, 5);
});

test('events before the welcome wait; the welcome state is authoritative', () => {
  const s = new Store();
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) }), ev(4, 'note_added', { text: 'x' })]);
  assert.equal(s.state, null);
  const st = base();
  st.seq = 3;
  st.tokens = { t1: tok('t1', 9, 9) };
  s.welcome({ seat: 2, seq: 3, state: st });
  assert.equal(s.seq, 4);
  assert.equal(s.state.tokens.t1.x, 9); // seq 3 came with the welcome, not folded again
});

test('a reconnect welcome replaces the state and re-folds nothing below its seq', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) })]);
  const st = base();
  st.tokens = { t1: tok('t1', 30, 30) };
  s.welcome({ seat: 1, seq: 7, state: st });
  assert.equal(s.seq, 7);
  assert.equal(s.state.tokens.t1.x, 30);
  s.receive([ev(7, 'token_moved', { id: 't1', x: 0, y: 0 }), ev(8, 'token_moved', { id: 't1', x: 31, y: 30 })]);
  assert.equal(s.state.tokens.t1.x, 31);
  assert.equal(s.state.tokens.t1.facing, 0);
});

test('a state older than what was folded gets the newer events folded on top again', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  s.receive([ev(3, 'token_placed', { token: tok('t1', 1, 1) }), ev(4, 'token_moved', { id: 't1', x: 2, y: 2 })]);
  const st = base();
  st.tokens = { t1: tok('t1', 1, 1) };
  s.replaceState(st, 3);
  assert.equal(s.seq, 4);
  assert.equal(s.state.tokens.t1.x, 2);
});

test('unknown event types are kept in the log and ask for a state refresh', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  s.receive([ev(3, 'unit_deployed', { unit: { id: 'u1' } }), ev(4, 'dice_rolled', { roll: {} })]);
  assert.equal(s.seq, 4);
  assert.equal(s.needsRefresh, true);
  assert.deepEqual(s.eventsOfType('unit_deployed', 'dice_rolled').map((e) => e.seq), [3, 4]);
  s.replaceState({ ...base(), units: { u1: {} } }, 4);
  assert.equal(s.needsRefresh, false);
  assert.ok(s.state.units.u1);
});

test('dice, notes and hidden events do not ask for a refresh; malformed payloads do', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: base() });
  s.receive([ev(3, 'note_added', { text: 'x' }), ev(4, 'hidden', {})]);
  assert.equal(s.needsRefresh, false);
  s.receive([ev(5, 'token_placed', {})]);
  assert.equal(s.needsRefresh, true);
  assert.equal(s.seq, 5);
});

test('subscribers hear welcome, events, history-only catch-up and presence', () => {
  const s = new Store();
  const kinds = [];
  s.subscribe((c) => kinds.push(c.kind));
  s.welcome({ seat: 1, seq: 2, state: base() });
  s.receive([ev(3, 'note_added', { text: 'a' })]);
  s.receive([ev(1, 'game_created', {})]);
  s.receive([ev(1, 'game_created', {})]);
  s.setPresence({ players: [1], spectators: 3 });
  assert.deepEqual(kinds, ['welcome', 'events', 'history', 'presence']);
  assert.deepEqual(s.presence, { players: [1], spectators: 3 });
  assert.deepEqual(s.history.map((e) => e.seq), [1, 3]);
});

test('a live frame patch brings the state in step without a refetch', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: { ...base(), phase: 'Charge', units: { u1: { id: 'u1', status: 'on_table' }, u2: { id: 'u2' } } } });
  const moved = { id: 'u1', status: 'on_table', placement: { x: 1, y: 4, facing: 0 }, footprint: { type: 'FeatureCollection', features: [] } };
  s.receive([ev(3, 'unit_moved', { unit: { id: 'u1' } })], {
    frame: true,
    patch: { base: 2, seq: 3, state: { phase: 'Movement' }, items: { units: { u1: moved }, tokens: {} }, removed: { units: ['u2'], tokens: [] } },
  });
  assert.equal(s.needsRefresh, false);
  assert.equal(s.seq, 3);
  assert.equal(s.state.phase, 'Movement');
  assert.deepEqual(s.state.units.u1, moved);
  assert.equal('u2' in s.state.units, false);
});

test('a patch for another base is ignored: the store asks for the state', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: { ...base(), units: {} } });
  s.receive([ev(3, 'unit_moved', { unit: { id: 'u1' } })], { frame: true, patch: { base: 1, seq: 3, state: {}, items: { units: { u1: {} } }, removed: { units: [] } } });
  assert.equal(s.needsRefresh, true);
  assert.equal('u1' in s.state.units, false);
});

test('a sliding list in a patch moves by its ends', () => {
  const s = new Store();
  s.welcome({ seat: 1, seq: 2, state: { ...base(), undoable: [{ seq: 1 }, { seq: 2 }] } });
  s.receive([ev(3, 'unit_moved', {})], { frame: true, patch: { base: 2, seq: 3, state: {}, tails: { undoable: { drop: 1, push: [{ seq: 3 }] } }, items: {}, removed: {} } });
  assert.deepEqual(s.state.undoable, [{ seq: 2 }, { seq: 3 }]);
  assert.equal(s.needsRefresh, false);
});
