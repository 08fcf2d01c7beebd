import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closesOutline, terrainAction, terrainOverlay } from '../js/handlers/terrain.js';

const tri = [{ x: 10, y: 10 }, { x: 16, y: 10 }, { x: 13, y: 15 }];

test('a click on the first corner closes an outline of three corners or more', () => {
  assert.equal(closesOutline(tri, { x: 10.3, y: 10.2 }), true);
  assert.equal(closesOutline(tri.slice(0, 2), { x: 10, y: 10 }), false);
  assert.equal(closesOutline(tri, { x: 12, y: 12 }), false);
});

test('the place_terrain action carries kind, height, name and rounded corners', () => {
  const a = terrainAction({ kind: 'cover', height: 'standard', label: 'Wood', points: [...tri, { x: 10.123, y: 14.987 }], hover: null });
  assert.deepEqual(a, { type: 'place_terrain', kind: 'cover', height: 'standard', label: 'Wood', points: [[10, 10], [16, 10], [13, 15], [10.12, 14.99]] });
  assert.equal(terrainAction({ kind: 'cover', height: 'flat', label: '', points: tri.slice(0, 2), hover: null }), null);
  assert.equal('label' in terrainAction({ kind: 'open', height: 'flat', label: '', points: tri, hover: null }), false);
});

test('the overlay follows the pointer and shows when it would close', () => {
  const o = terrainOverlay({ kind: 'cover', height: 'flat', label: '', points: tri, hover: { x: 10.1, y: 10 } });
  assert.equal(o.points.length, 4);
  assert.equal(o.closing, true);
  assert.equal(terrainOverlay(null), null);
});
