// Issue 19 item 4: the terrain edit tool's sums agree with the server's (server/rules/setup.py
// moved_outline), a piece is found under the pointer, and a piece's words say its kind,
// height, cover and that Dangerous Terrain tests are not automated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { centroid, movedOutline, terrainAt, terrainWords } from '../js/handlers/terrain-edit.js';

const SQUARE = [[10, 10], [14, 10], [14, 14], [10, 14]];

test('a piece turns and resizes about its centroid, then moves', () => {
  assert.deepEqual(centroid(SQUARE), { x: 12, y: 12 });
  const turned = movedOutline(SQUARE, 5, -2, 90, 1).map(([x, y]) => [Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000]);
  // tests/rules/test_terrain_edit.py: the server puts (10, 10) on (14, 10), then +5, -2
  assert.deepEqual(turned[0], [19, 8]);
  const big = movedOutline(SQUARE, 0, 0, 0, 2);
  assert.deepEqual(big[0], [8, 8]);
});

test('the piece under the pointer is found, the top one first', () => {
  const state = { terrain: [{ id: 'ter1', points: SQUARE }, { id: 'ter2', points: [[12, 12], [20, 12], [20, 20], [12, 20]] }] };
  assert.equal(terrainAt(state, { x: 11, y: 11 })?.id, 'ter1');
  assert.equal(terrainAt(state, { x: 13, y: 13 })?.id, 'ter2');
  assert.equal(terrainAt(state, { x: 30, y: 30 }), null);
});

test("a piece's words: kind, height, cover, dangerous (tests not automated)", () => {
  const marsh = terrainWords({ id: 'ter4', kind: 'dangerous', height: 'flat', cover: 'none', label: 'Marsh', points: SQUARE });
  assert.equal(marsh.name, 'Marsh');
  assert.match(marsh.lines.join('\n'), /Kind: Dangerous terrain/);
  assert.match(marsh.lines.join('\n'), /Dangerous Terrain tests: not automated/);
  const hill = terrainWords({ id: 'ter3', kind: 'blocks_los', height: 'large', cover: 'hard', label: 'Hill', points: SQUARE });
  assert.match(hill.lines[1], /large/);
  assert.doesNotMatch(hill.lines[1], /does not block/);
  assert.equal(hill.lines[3], 'Dangerous: no');
});
