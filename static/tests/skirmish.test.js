// whfb8 Skirmishers moving model by model (seed 002): the action the Skirmish move tool sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skirmishAction } from '../js/handlers/skirmish.js';

const UNIT = /** @type {any} */ ({ id: 'u1', placement: { x: 36, y: 6, facing: 0 } });
const BOUNDARY = { centre: [36, 5.21] };

test('in the Movement phase: a skirmish move, the outline centre put at the pointer', () => {
  const a = skirmishAction(UNIT, BOUNDARY, { x: 36, y: 10.21 }, 0, { turn: 2, phase: 'Movement' }, 'march');
  assert.deepEqual(a, { type: 'skirmish_move', unit: 'u1', x: 36, y: 11, facing: 0, mode: 'march' });
});

test('before the first turn: a Vanguard move; turning is about the pointer', () => {
  const a = skirmishAction(UNIT, BOUNDARY, { x: 36, y: 5.21 }, 90, { turn: 1, phase: 'Start' }, 'advance');
  assert.equal(a.type, 'vanguard_move');
  assert.equal(a.facing, 90);
  // The front centre 0.79 in ahead of the centre, turned 90° counter-clockwise: 0.79 in to -x.
  assert.deepEqual([a.x, a.y], [35.21, 5.21]);
});
