import test from 'node:test';
import assert from 'node:assert/strict';
import { seqFromHash, hashOf, stepLabel, phaseStarts, stepEvent, stepPhase, turnSegments } from '../js/replay.js';

/** @param {number} seq @param {string} stage @param {number|null} turn @param {number|null} player @param {string|null} phase */
const step = (seq, stage, turn, player, phase) => ({ seq, stage, turn, player, phase, type: 'x', actor: 'system' });

const STEPS = [
  step(1, 'setup', null, null, null),
  step(2, 'setup', null, null, null),
  step(3, 'battle', 1, 1, 'Charge'),
  step(4, 'battle', 1, 1, 'Charge'),
  step(5, 'battle', 1, 1, 'Movement'),
  step(6, 'battle', 1, 2, 'Charge'),
  step(7, 'battle', 2, 1, 'Charge'),
  step(8, 'over', 2, null, null),
];

test('a shareable #seq=N names a seq within the log', () => {
  assert.equal(seqFromHash('#seq=5', 8), 5);
  assert.equal(seqFromHash('seq=0', 8), 0);
  assert.equal(seqFromHash('#seq=99', 8), 8);
  assert.equal(seqFromHash('#seq=-3', 8), 0);
  assert.equal(seqFromHash('#seq=abc', 8), 8);
  assert.equal(seqFromHash('', 8), 8);
  assert.equal(hashOf(12), '#seq=12');
});

test('stepping by phase goes to the first event of the next or this phase', () => {
  const starts = phaseStarts(STEPS);
  assert.deepEqual(starts, [0, 1, 3, 5, 6, 7, 8]);
  assert.equal(stepPhase(starts, 3, 1, 8), 5);
  assert.equal(stepPhase(starts, 4, 1, 8), 5);
  assert.equal(stepPhase(starts, 4, -1, 8), 3);
  assert.equal(stepPhase(starts, 3, -1, 8), 1);
  assert.equal(stepPhase(starts, 8, 1, 8), 8);
  assert.equal(stepPhase(starts, 0, -1, 8), 0);
});

test('stepping by event stays within the log', () => {
  assert.equal(stepEvent(0, -1, 8), 0);
  assert.equal(stepEvent(8, 1, 8), 8);
  assert.equal(stepEvent(4, 1, 8), 5);
});

test('the scrubber shows turns and players as segments, words for a step', () => {
  assert.deepEqual(turnSegments(STEPS).map((s) => [s.label, s.from, s.to]), [
    ['Setup', 1, 2], ['T1 P1', 3, 5], ['T1 P2', 6, 6], ['T2 P1', 7, 7], ['End', 8, 8],
  ]);
  assert.equal(stepLabel(STEPS[4]), 'Turn 1 · Player 1 · Movement');
  assert.equal(stepLabel(STEPS[0]), 'Setting up');
  assert.equal(stepLabel(STEPS[7]), 'The game is over');
  assert.equal(stepLabel(null), 'Before the game');
});
