// Who the game waits for, and for what (ui/waiting.js), from projected states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitingFor, waitsOf, reactiveStratagems } from '../js/ui/waiting.js';

const battle = { stage: 'battle', phase: 'Movement', active_player: 1 };

test('a release of Fanatics waits for their owner: asked, and named to the others', () => {
  const st = { ...battle, fanatic_releases: [{ unit: 'g1', left: 2, owner: 2, interrupted: 'e1' }] };
  assert.deepEqual(waitingFor(st, 1), { kind: 'fanatic_release', seat: 2, what: 'release Fanatics', role: 'other', text: 'Waiting for Player 2 to release Fanatics' });
  assert.equal(waitingFor(st, null)?.text, 'Waiting for Player 2 to release Fanatics');
  assert.equal(waitingFor(st, null)?.role, 'watch');
  assert.equal(waitingFor(st, 2)?.role, 'you');
  assert.equal(waitingFor(st, 2)?.text, 'Your move: release Fanatics');
});

test('a release already made waits for nobody; two units of one owner are one wait', () => {
  assert.equal(waitingFor({ ...battle, fanatic_releases: [{ unit: 'g1', left: 0, owner: 2, interrupted: 'e1' }] }, 1), null);
  const two = { ...battle, fanatic_releases: [{ unit: 'g1', left: 1, owner: 2, interrupted: 'e1' }, { unit: 'g2', left: 1, owner: 2, interrupted: 'e1' }] };
  assert.equal(waitsOf(two, 1).length, 1);
});

test('a declared charge waits for the charged player\'s reaction, before anything else', () => {
  const st = { ...battle, pending_charge: { unit: 'a', target: 'b', reacting_player: 2 }, proposal: { id: 'p1', kind: 'undo', by: 1 } };
  assert.equal(waitingFor(st, 1)?.text, 'Waiting for Player 2 to choose a Charge Reaction');
  assert.equal(waitingFor(st, 1)?.kind, 'charge_reaction');
  assert.deepEqual(waitsOf(st, 1).map((w) => w.kind), ['charge_reaction', 'proposal']);
});

test('an open proposal waits for the other player; a lapsed one for nobody', () => {
  assert.equal(waitingFor({ ...battle, proposal: { id: 'p1', kind: 'undo', by: 1 } }, null)?.text, 'Waiting for Player 2 to answer the proposal to undo');
  assert.equal(waitingFor({ ...battle, proposal: { id: 'p1', kind: 'free_move', by: 2 } }, 2)?.text, 'Waiting for Player 1 to answer the proposal to make a free move');
  assert.equal(waitingFor({ ...battle, proposal: { id: 'p1', kind: 'undo', by: 1, open: false } }, 2), null);
});

test('nothing pending, or the game over: the game waits for nobody out of turn', () => {
  assert.equal(waitingFor(battle, 1), null);
  assert.equal(waitingFor(null, 1), null);
  assert.equal(waitingFor({ ...battle, over: true, pending_charge: { unit: 'a', target: 'b', reacting_player: 2 } }, 1), null);
});

/** A 40k state with the `stratagems` game offer as the server words it. @param {number} active @param {object[]} stratagems */
function fortyState(active, stratagems) {
  return {
    stage: 'battle', phase: 'Charge', active_player: active,
    units: { u1: { id: 'u1', name: 'Warboss', owner: 2 }, u2: { id: 'u2', name: 'Intercessors', owner: 1 } },
    orders: { seat: 2, units: {}, game: { stratagems: { action: 'use_stratagem', available: true, reason: null, cp: 3, stratagems, not_automated: [] } } },
  };
}

test('a reactive Stratagem the server offers out of turn is asked; others and refused ones are not', () => {
  const list = [
    { name: 'Heroic Intervention', cost: 2, when: 'opponent', effect: 'charge', available: true, reason: null, targets: [{ unit: 'u1', target: 'u2' }] },
    { name: 'Counter-offensive', cost: 2, when: 'Fight', effect: 'fights next', available: false, reason: 'not now', targets: [] },
    { name: 'Go to Ground', cost: 1, when: 'opponent', effect: 'cover', available: true, reason: null, targets: [{ unit: 'u1' }] },
  ];
  const asked = reactiveStratagems(fortyState(1, list), 2);
  assert.deepEqual(asked.map((r) => r.name), ['Heroic Intervention']);
  assert.equal(asked[0].choices[0].label, 'Warboss against Intercessors');
  assert.deepEqual(asked[0].choices[0].action, { type: 'use_stratagem', stratagem: 'Heroic Intervention', unit: 'u1', target: 'u2' });
  // In one's own turn, or for a spectator, no banner asks.
  assert.deepEqual(reactiveStratagems(fortyState(2, list), 2), []);
  assert.deepEqual(reactiveStratagems(fortyState(1, list), null), []);
});
