import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetLabel } from '../js/ui/typed.js';
import { objectiveLine, objectiveName } from '../js/ui/objective.js';

test('a target picked from the list says what the server allows against it, and why not', () => {
  assert.equal(
    targetLabel('Mageblight Gremlin', { unit: 'u2', available: true, distance: 7.25 }, { unit: 'u2', available: false, reason: 'Mageblight Gremlin is out of range' }),
    'Mageblight Gremlin — charge (7.3 in); no shooting: Mageblight Gremlin is out of range');
  assert.equal(
    targetLabel('Citizen Spears', { unit: 'u1', available: false, reason: 'not in the front arc' }, null),
    'Citizen Spears — no charge: not in the front arc');
  assert.equal(targetLabel('Spears', null, { unit: 'u1', available: true, weapons: ['Longbow'] }), 'Spears — shoot (Longbow)');
});

test('the Secondary Objective line names the objective and its counters', () => {
  assert.equal(objectiveLine({ secondary_objective: 'hold_the_ground', secondary_objective_name: 'Hold the Ground', objective_counters: { 1: 2, 2: 1 } }),
    'Hold the Ground: counters Player 1 2 – Player 2 1');
  assert.equal(objectiveLine({ secondary_objective: 'breakthrough', secondary_objective_name: 'Breakthrough' }), 'Breakthrough: scored at the end of the game.');
  assert.equal(objectiveLine({ secondary_objective: null }), 'No Secondary Objective is played in this game.');
  assert.equal(objectiveName('breakthrough', [{ id: 'breakthrough', name: 'Breakthrough', text: '' }]), 'Breakthrough');
});

test('roll-offs read in words; the waiting line names who chooses what', async () => {
  const { rollOffLines, waitingLine } = await import('../js/ui/pregame.js');
  const { describe } = await import('../js/ui/describe.js');
  const history = [
    { type: 'army_submitted', payload: {} },
    { type: 'roll_off', payload: { text: 'Roll-off for deployment: Player 1 5, Player 2 3: Player 1 wins' } },
    { type: 'first_chosen', payload: { text: 'Player 1 chooses Player 2 to deploy first' } },
  ];
  assert.deepEqual(rollOffLines(history), ['Roll-off for deployment: Player 1 5, Player 2 3: Player 1 wins', 'Player 1 chooses Player 2 to deploy first']);
  assert.equal(waitingLine({ seat: 2, about: 'first_turn' }, 1), 'Waiting for Player 2 to choose who takes the first turn…');
  assert.equal(waitingLine({ seat: 1, about: 'deploy_first' }, 1), 'You choose who deploys first.');
  assert.equal(describe({ type: 'deployment_started', seq: 9, actor: 'system', payload: { deploying: null } }), 'Deployment begins once the roll-off\'s winner has chosen');
});
