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
