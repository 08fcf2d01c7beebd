import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultSummary } from '../js/ui/result.js';
import { describe } from '../js/ui/describe.js';

const result = {
  reason: 'last turn played', winner: 1, margin: 'Win', conceded_by: null, battle_points: null,
  scores: { 1: 68, 2: 0 }, results: { 1: 'win', 2: 'loss' },
  objectives: [{ name: 'Breakthrough', winner: 1, counts: { 1: 1, 2: 0 }, text: "Breakthrough: Scoring Units in the opponent's Deployment Zone 1 - 0: Player 1 wins it" }],
  lines: [{ seat: 1, points: 68, text: 'Breakthrough won: 20% of 340 Army Points' }],
  text: 'Player 1 wins (Win): 68 - 0 Victory Points',
};

test('the end-of-game panel shows both scores and the result to each player and to spectators', () => {
  const mine = resultSummary(result, 1);
  assert.equal(mine.heading, 'You win (Win)');
  assert.deepEqual(mine.rows.map((r) => [r.label, r.points, r.result]), [['Player 1 (you)', 68, 'Win'], ['Player 2', 0, 'Loss']]);
  assert.equal(resultSummary(result, 2).heading, 'You lose: Player 1 wins (Win)');
  assert.equal(resultSummary(result, null).heading, 'Player 1 wins (Win)');
  assert.deepEqual(mine.objectives, [result.objectives[0].text]);
  assert.deepEqual(mine.lines, ['Player 1 +68: Breakthrough won: 20% of 340 Army Points']);
  const draw = resultSummary({ ...result, winner: null, results: { 1: 'draw', 2: 'draw' } }, null);
  assert.equal(draw.heading, 'A draw');
  assert.deepEqual(draw.rows.map((r) => r.result), ['Draw', 'Draw']);
  assert.equal(draw.rule, '', 'a system without a rule line says nothing more');
  const rule = 'A player wins with at least 100 Victory Points more than the opponent (a Crushing Victory with at least twice as many); anything closer is a draw.';
  assert.equal(resultSummary({ ...result, winner: null, rule }, 1).rule, rule, 'a whfb8 draw says why');
});

test('the log reads the result in its own words', () => {
  assert.equal(describe({ seq: 80, type: 'game_result', actor: 'system', payload: result }), 'Result: Player 1 wins (Win): 68 - 0 Victory Points');
});

test('a 40k result shows in the same panel: Victory Points from the objectives, the margin and why', () => {
  // The payload a wh40k10 game ends with (server/rules/wh40k10/results.py, the shared shape).
  const forty = {
    reason: 'last turn played', winner: 1, margin: 'by 20 VP', conceded_by: null, battle_points: null,
    scores: { 1: 20, 2: 0 }, results: { 1: 'win', 2: 'loss' }, objectives: [],
    lines: [{ seat: 1, points: 5, text: '1 objective marker controlled (battle round 2, end of the Command phase)' }],
    rule: 'At the end of the battle the player with more Victory Points wins; equal Victory Points is a draw. A player who concedes loses.',
    text: 'Player 1 wins (by 20 VP): 20 - 0 Victory Points',
  };
  const seen = resultSummary(forty, 2);
  assert.equal(seen.heading, 'You lose: Player 1 wins (by 20 VP)');
  assert.deepEqual(seen.rows.map((r) => [r.points, r.result]), [[20, 'Win'], [0, 'Loss']]);
  assert.deepEqual(seen.lines, ['Player 1 +5: 1 objective marker controlled (battle round 2, end of the Command phase)']);
  assert.equal(seen.rule, forty.rule);
});
