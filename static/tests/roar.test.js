// Roar of Mork in the client (ui/forty.js `roarChoice`): shown only as the server offers it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roarChoice } from '../js/ui/forty.js';

const units = { u1: { id: 'u1', name: 'Beast Snagga Boyz', owner: 1 }, u2: { id: 'u2', name: 'Intercessor Squad', owner: 2 }, u3: { id: 'u3', name: 'Hellblasters', owner: 2 } };
/** @param {object|undefined} roar */
const state = (roar) => ({ units, forty: {}, orders: { seat: 1, game: {}, units: roar ? { u1: { roar_of_mork: roar } } : {} } });

test('not offered: no Roar of Mork control', () => {
  assert.equal(roarChoice(state(undefined), 'u1'), null);
});

test('offered: the allowed target picked (the player\'s pick first) and the action to send', () => {
  const st = state({ action: 'roar_of_mork', available: true, reason: null, targets: [
    { unit: 'u2', available: false, reason: 'Intercessor Squad is not within 18 in of the Wurrboy' },
    { unit: 'u3', available: true, reason: null },
  ] });
  const c = roarChoice(st, 'u1');
  assert.equal(c?.target, 'u3');
  assert.deepEqual(c?.action, { type: 'roar_of_mork', unit: 'u1', target: 'u3' });
  assert.equal(c?.targets[0].reason, 'Intercessor Squad is not within 18 in of the Wurrboy');
  // a pick the server refuses is not sent
  assert.equal(roarChoice(st, 'u1', 'u2')?.target, 'u3');
});

test('refused: shown with the server\'s reason, nothing to send', () => {
  const c = roarChoice(state({ action: 'roar_of_mork', available: false, reason: 'Roar of Mork is used once per phase', targets: [{ unit: 'u2', available: false, reason: 'Roar of Mork is used once per phase' }] }), 'u1');
  assert.equal(c?.available, false);
  assert.equal(c?.action, null);
  assert.equal(c?.reason, 'Roar of Mork is used once per phase');
});
