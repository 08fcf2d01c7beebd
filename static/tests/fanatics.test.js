// Night Goblin Fanatics in the client (whfb8, seed 003): the pure helpers of view/fanatics.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concealedCount, releasesFor, othersReleasing, waitingWords, defaultRelease, whirlPath, whirlWords, hitWords, whirlOverlays, directionHint } from '../js/view/fanatics.js';

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

test('everyone else reads whose release it is and what waits after it (seed 003)', () => {
  const st = {
    fanatic_releases: [{ unit: 'u1', left: 2, owner: 1, interrupted: 'u3' }],
    resolution_waiting: ['Empire Halberdiers flee on to the end of their 10 in', 'Night Goblins (2) roll their charge against Empire Halberdiers'],
  };
  const name = (/** @type {string} */ id) => (id === 'u1' ? 'Night Goblins (1)' : id);
  assert.deepEqual(othersReleasing(st, 2, name), ['Waiting for player 1 to release 2 Fanatics from Night Goblins (1)']);
  assert.deepEqual(othersReleasing(st, 1, name), []);
  assert.equal(waitingWords(st), 'Then: Empire Halberdiers flee on to the end of their 10 in; then Night Goblins (2) roll their charge against Empire Halberdiers.');
  assert.equal(waitingWords({}), '');
});

test('a whirl in words: its dice and distance', () => {
  const words = whirlWords({ distance: 6, roll: { dice: [{ face: 3 }, { face: 3 }] }, through: [], removed: null });
  assert.equal(words, 'Fanatic 3 + 3: 6 in');
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

test('live whirls are animated one after another, each with its hits and removal', async () => {
  const { whirlsFrom, whirlAt, whirlEndWords, animatedFanatics, WHIRL_MS } = await import('../js/view/fanatics.js');
  const events = [
    { type: 'fanatics_revealed', payload: { unit: 'u1' } },
    { type: 'fanatic_released', payload: { unit: { id: 'u5' }, start: [36, 16], end: [36, 30], through: ['u2'], removed: null } },
    { type: 'fanatic_hits', payload: { unit: 'u5', target: 'u2', hits: 4 } },
    { type: 'fanatic_released', payload: { unit: { id: 'u6' }, start: [34, 16], end: [30, 16], through: [], removed: 'table_edge' } },
    { type: 'fanatic_hits', payload: { unit: 'u5', target: 'u3', hits: 2 } },
  ];
  const ws = whirlsFrom(events, 1000);
  assert.equal(ws.length, 2);
  assert.deepEqual(ws.map((w) => w.born), [1000, 1000 + WHIRL_MS]);
  assert.deepEqual(ws[0].hits, { u2: 4 });
  assert.equal(whirlAt(ws[0], 999), null);
  assert.deepEqual(whirlAt(ws[0], 1000)?.at, [36, 16]);
  const mid = whirlAt(ws[0], 1000 + WHIRL_MS / 2);
  assert.ok(mid && mid.at[0] === 36 && mid.at[1] > 16 && mid.at[1] < 30);
  assert.deepEqual(whirlAt(ws[0], 1000 + WHIRL_MS)?.at, [36, 30]);
  const names = (/** @type {string} */ id) => (id === 'u2' ? 'Halberdiers' : id);
  assert.deepEqual(whirlEndWords(ws[0], names), ['4 hits on Halberdiers']);
  assert.deepEqual(whirlEndWords(ws[1], names), ['removed: off the table']);
  // A later batch waits for the running ones; a unit moving into a Fanatic removes it.
  const later = whirlsFrom([{ type: 'fanatic_moved', payload: { unit: { id: 'u5' }, start: [36, 30], end: [36, 33], through: [] } },
    { type: 'fanatic_removed', payload: { unit: 'u5', reason: 'contacted' } }], 1500, ws);
  assert.equal(later[0].born, 1000 + 2 * WHIRL_MS);
  assert.equal(later[0].removed, 'contacted');
  assert.deepEqual(animatedFanatics({ whirls: ws }), ['u5', 'u6']);
});

test("a release's direction in words as the releasing player sees the table (0 deg: up the table, counter-clockwise)", () => {
  assert.match(directionHint(1), /0° away from you, 90° to your left/);
  assert.match(directionHint(2), /0° towards you, 90° to your right/);
});

test('a whirl whose Fanatic was removed later (moved into) leaves the table overlays', () => {
  const history = [
    { type: 'fanatic_released', payload: { start: [36, 16], end: [36, 19], distance: 3, removed: null, unit: { id: 'u9', owner: 2 } } },
    { type: 'fanatic_released', payload: { start: [34, 16], end: [30, 16], distance: 4, removed: null, unit: { id: 'u10', owner: 2 } } },
    { type: 'fanatic_hits', payload: { unit: 'u9', target: 'u3', hits: 5 } },
    { type: 'fanatic_removed', payload: { unit: 'u9', reason: 'contacted' } },
  ];
  assert.deepEqual(whirlOverlays(history).map((o) => o.label), ['Fanatic 4 in']);
});
