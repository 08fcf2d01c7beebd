// Entombed Beneath the Sands in the client (whfb8, seed 002): the pure helpers of view/entombed.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingEmergence, lastMarker, scatterPath, markerWords, placingHint, draggedPlacement } from '../js/view/entombed.js';

const MARKER = {
  unit: 'u1', chosen: [36, 24], landed: [30, 24], marker: [30, 24], hit: false, misfire: false,
  direction: 90, scattered: 6, moved_off: [], outcome: 'marker',
};

test('the pending emergence is read from the state, null without one', () => {
  const state = { entombed: { u1: { mode: 'marker', marker: [30, 24], enemy: null, edge: null, suggested: { x: 30, y: 24.4, facing: 0 }, outline: [[0, 0], [1, 0], [1, -1]] } } };
  assert.deepEqual(pendingEmergence(state, 'u1')?.marker, [30, 24]);
  assert.equal(pendingEmergence(state, 'u2'), null);
  assert.equal(pendingEmergence({}, 'u1'), null);
});

test('the newest marker of the unit wins', () => {
  const history = [
    { type: 'entombed_marker', payload: { ...MARKER, scattered: 2 } },
    { type: 'entombed_marker', payload: { ...MARKER, unit: 'u2' } },
    { type: 'entombed_marker', payload: MARKER },
  ];
  assert.equal(lastMarker(history, 'u1')?.scattered, 6);
  assert.equal(lastMarker(history, 'u3'), null);
});

test('the scatter path is a thin band from the chosen point to the marker', () => {
  const path = scatterPath(MARKER);
  assert.equal(path?.type, 'MultiPolygon');
  const ring = path.coordinates[0][0];
  assert.deepEqual(ring[0].map((v) => Math.round(v * 100) / 100), [36, 23.88]);
  assert.deepEqual(ring[1].map((v) => Math.round(v * 100) / 100), [30, 23.88]);
  assert.equal(scatterPath({ ...MARKER, landed: [36, 24], marker: [36, 24], hit: true }), null);
});

test('the dice and the task in words', () => {
  assert.equal(markerWords(MARKER), 'arrow 90°, 6 in');
  assert.equal(markerWords({ ...MARKER, hit: true }), 'Hit: the marker stays');
  assert.match(markerWords({ ...MARKER, misfire: true }), /Misfire/);
  assert.match(markerWords({ ...MARKER, moved_off: ['ter1'] }), /1 in clear of ter1/);
  // With the state, by name: a terrain piece's label or kind, a unit's name.
  const named = { units: { u2: { name: 'Skeleton Warriors' } }, terrain: [{ id: 'ter1', kind: 'impassable' }, { id: 'ter2', kind: 'building', label: 'Tomb' }] };
  assert.match(markerWords({ ...MARKER, moved_off: ['ter1', 'u2', 'ter2'] }, named), /1 in clear of Impassable terrain, Skeleton Warriors, Tomb/);
  assert.match(placingHint(null, 'Swarm'), /place the marker/);
  assert.match(placingHint({ mode: 'enemy', edge: null }, ''), /charging/);
  assert.match(placingHint({ mode: 'edge', edge: 'east' }, ''), /east \(short\) table edge/);
  assert.match(placingHint({ mode: 'edge', edge: 'north' }, ''), /north table edge \(Player 2's\)/);
});

test('a drag moves the placement by its rounded delta; back at its start it is the suggestion to the last digit', () => {
  // The server's suggestion in base contact: any rounding of the placement itself could move
  // it off the legal spot (a zero-length drag used to turn the ghost red).
  const from = { x: 20.718281828, y: 31.0000049, facing: 90 };
  assert.deepEqual(draggedPlacement(from, { x: 12.3456, y: 7.891 }, { x: 12.3456, y: 7.891 }), from);
  const moved = draggedPlacement(from, { x: 10, y: 10 }, { x: 18.004, y: 17.996 });
  assert.equal(moved.x, from.x + 8);
  assert.equal(moved.y, from.y + 8);
  assert.equal(moved.facing, 90);
});

test('every viewer sees a waiting Entombed marker and its scatter on the table, named', async () => {
  const { entombedOverlays } = await import('../js/view/entombed.js');
  const state = /** @type {any} */ ({
    units: { u5: { id: 'u5', owner: 1, name: 'Tomb Swarm', status: 'ambush' } },
    entombed: { u5: { mode: 'marker', marker: [26, 20], enemy: null, edge: null, suggested: null, outline: null } },
  });
  const history = [{ type: 'entombed_marker', payload: { unit: 'u5', chosen: [20, 20], landed: [26, 20], marker: [26, 20] } }];
  assert.deepEqual(entombedOverlays(state, history), [
    { points: [[20, 20], [26, 20]], label: 'Tomb Swarm: Entombed marker', seat: 1, alpha: 0.9 }]);
  // A hit (no scatter): the marker alone; a unit waiting at a table edge has no marker.
  const hit = [{ type: 'entombed_marker', payload: { unit: 'u5', chosen: [26, 20], landed: [26, 20], marker: [26, 20] } }];
  assert.deepEqual(entombedOverlays(state, hit)[0].points, [[26, 20], [26, 20]]);
  const edge = { ...state, entombed: { u5: { mode: 'edge', marker: null, edge: 'north' } } };
  assert.deepEqual(entombedOverlays(edge, history), []);
});
