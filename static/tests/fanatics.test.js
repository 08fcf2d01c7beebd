// Night Goblin Fanatics in the client (whfb8, seed 003): the pure helpers of view/fanatics.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concealedCount, releasesFor, defaultRelease, whirlPath, whirlWords, hitWords, whirlOverlays } from '../js/view/fanatics.js';

test('the mark comes from the owner-only `concealed` state, nothing otherwise', () => {
  assert.equal(concealedCount({ concealed: { u1: 2 } }, 'u1'), 2);
  assert.equal(concealedCount({ concealed: {} }, 'u1'), 0);
  assert.equal(concealedCount({}, 'u1'), 0);
});

test('only the owner is asked to release', () => {
  const state = { fanatic_releases: [{ unit: 'u1', left: 2, owner: 1, interrupted: 'u2' }] };
  assert.deepEqual(releasesFor(state, 1), [{ unit: 'u1', left: 2, interrupted: 'u2' }]);
  assert.deepEqual(releasesFor(state, 2), []);
  assert.deepEqual(releasesFor(state, null), []);
  assert.deepEqual(defaultRelease({ placement: { x: 36, y: 16, facing: 0 } }), { x: 36, y: 16, facing: 0 });
});

test('the whirl is a band from start to end, in words with its hits', () => {
  const p = { start: [36, 16], end: [36, 29], distance: 13, through: ['u2'], removed: null, roll: { dice: [{ face: 5 }, { face: 4 }] } };
  const band = whirlPath(p);
  assert.equal(band?.type, 'Polygon');
  assert.equal(band.coordinates[0].length, 5);
  assert.equal(whirlPath({ ...p, end: [36, 16] }), null);
  assert.equal(whirlWords(p, (id) => (id === 'u2' ? 'Halberdiers' : id)), 'Fanatic 5 + 4: 13 in through Halberdiers');
  assert.match(whirlWords({ ...p, removed: 'double', through: [] }), /double/);
  assert.equal(hitWords({ hits: 4, target: 'u2' }), '4 S5 Armour Piercing (1) hits on u2');
});

test('every viewer gets the newest whirls as table overlays', () => {
  const history = [
    { type: 'unit_moved', payload: {} },
    { type: 'fanatic_released', payload: { start: [36, 16], end: [36, 29], distance: 13, removed: null, unit: { owner: 1 } } },
    { type: 'fanatic_moved', payload: { start: [30, 16], end: [30, 16], distance: 0, removed: 'double', unit: { owner: 1 } } },
  ];
  const out = whirlOverlays(history);
  assert.equal(out.length, 2);
  assert.deepEqual(out[0].points, [[36, 16], [36, 29]]);
  assert.equal(out[0].seat, 1);
  assert.match(out[1].label, /removed/);
});
