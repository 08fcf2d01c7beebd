import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe } from '../js/ui/describe.js';

test('events in words', () => {
  assert.equal(describe({ seq: 3, type: 'seat_claimed', actor: 'system', payload: { seat: 2 } }), 'Player 2 took their seat');
  assert.equal(
    describe({ seq: 4, type: 'dice_rolled', actor: 1, payload: { reason: 'Break test', roll: { expression: '2D6', dice: [{ face: 6, kept: true }, { face: 1, kept: false }], total: 6 } } }),
    'Player 1 rolled 2D6: 6 (1) = 6 for Break test',
  );
  assert.equal(
    describe({ seq: 5, type: 'phase_ended', actor: 2, payload: { ended: 'Magic', turn: 2, active_player: 2, phase: 'Shooting' } }),
    'Player 2 ended the Magic phase; now turn 2, Player 2, Shooting',
  );
});

test('unknown types and odd payloads fall back to the name', () => {
  assert.equal(describe({ seq: 9, type: 'ambush_arrived', actor: 1, payload: { rule: 'Ambush' } }), 'Player 1: Ambush arrived (Ambush)');
  assert.equal(describe({ seq: 9, type: 'dice_rolled', actor: 1, payload: null }), 'Player 1 rolled dice');
});

test('rule events read in their own words with every die', () => {
  const ev = {
    seq: 9, type: 'ambush_rolled', actor: null,
    payload: {
      rule: 'Ambush', text: 'Mageblight Gremlin roll 5 for Ambush: they arrive this turn',
      roll: { expression: 'D6 maximised x1', dice: [{ face: 2, kept: false }, { face: 5, kept: true }], total: 5 },
    },
  };
  assert.equal(describe(ev), 'Ambush: Mageblight Gremlin roll 5 for Ambush: they arrive this turn [D6 maximised x1: (2) 5 = 5]');
  const arrived = { seq: 10, type: 'unit_arrived', actor: 1, payload: { rule: 'Ambush', text: 'Ambush: placed' } };
  assert.equal(describe(arrived), 'Ambush: placed');
});

test('attack steps list the rules they applied', () => {
  const ev = {
    seq: 11, type: 'attack_step', actor: null,
    payload: {
      text: 'Citizen Spears at Mageblight Gremlin: 15 attacks needing 4+ to hit: 7 hits',
      rules: [{ rule: 'Distracting', text: 'Distracting: -1 to hit' }],
    },
  };
  assert.equal(describe(ev), 'Citizen Spears at Mageblight Gremlin: 15 attacks needing 4+ to hit: 7 hits — Distracting: -1 to hit');
});

test('a flee stopped at 8 in for Fanatics, and a random move through Dangerous Terrain, say so', () => {
  const state = /** @type {any} */ ({ units: { u3: { name: 'Empire Halberdiers' } } });
  const fled = { seq: 12, type: 'unit_fled', actor: 2, payload: { unit: 'u3', distance: 10, moved: 10, halted_after: 8 } };
  assert.match(describe(fled, state), /stopped after 8(\.0)? in to release Night Goblin Fanatics, then fled on/);
  const plain = { seq: 13, type: 'unit_fled', actor: 2, payload: { unit: 'u3', distance: 10, moved: 10 } };
  assert.doesNotMatch(describe(plain, state), /Fanatics/);
  const charge = { seq: 14, type: 'charge_succeeded', actor: 1, payload: { unit: 'u1', target: 'u3', distance: 9, roll: { expression: '2D6', dice: [{ face: 6, kept: true }, { face: 6, kept: true }], total: 12 }, not_automated: 'Dangerous Terrain: not automated: the move crossed Marsh' } };
  assert.match(describe(charge, state), /Dangerous Terrain: not automated/);
});
