import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  unitFrame, handlesOf, handleAt, wheelDegrees, pivotDegrees, reformFiles, rotateGeometry,
  reformOutline, modelIndexAt, stagedModels, turnAngle,
} from '../js/view/manoeuvre.js';
import { toolHandlers } from '../js/handlers/index.js';
import { Tool } from '../js/handlers/handler.js';
import { emptyLos } from '../js/handlers/los.js';
import { overlayAlpha, OVERLAY_MS } from '../js/handlers/measure.js';
import { measureLabel } from '../js/format.js';
import { fakeTable } from './fakes.js';

// A unit 10 in wide, 2 in deep, facing +y, its front edge from (0, 2) to (10, 2).
const ring = [[0, 0], [10, 0], [10, 2], [0, 2], [0, 0]];
const unit = {
  files: 5,
  models: 10,
  footprint: {
    type: 'FeatureCollection',
    features: [{
      geometry: { type: 'Polygon', coordinates: [ring] },
      properties: { role: 'boundary', centre: [5, 1], facing: 0, corners: [[0, 2], [10, 2], [0, 0], [10, 0]] },
    }],
  },
};
const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('a unit frame from the boundary corners', () => {
  const f = unitFrame(unit);
  assert.ok(f);
  assert.deepEqual([f.width, f.depth, f.facing], [10, 2, 0]);
  assert.deepEqual(f.centre, [5, 1]);
  assert.equal(unitFrame({ footprint: { features: [{ properties: { role: 'boundary' } }] } }), null);
});

test('handles sit on the corners and a knob in front; picking one by pixels', () => {
  const f = /** @type {any} */ (unitFrame(unit));
  const hs = handlesOf(f, 10);
  const byKind = Object.fromEntries(hs.map((h) => [h.kind, h]));
  assert.deepEqual([byKind['wheel-left'].x, byKind['wheel-left'].y], [10, 2]);
  assert.deepEqual(byKind['wheel-left'].about, [0, 2]);
  assert.deepEqual([byKind['wheel-right'].x, byKind['wheel-right'].y], [0, 2]);
  assert.deepEqual([byKind.reform.x, byKind.reform.y], [10, 0]);
  close(byKind.pivot.x, 5);
  close(byKind.pivot.y, 2 + 2.6); // 26 px at 10 px/in in front of the front centre
  assert.equal(handleAt(hs, 10.5, 2.3, 10)?.kind, 'wheel-left');
  assert.equal(handleAt(hs, 5, 1, 10), null);
});

test('wheel degrees: forward only, left from the right corner, right from the left', () => {
  const f = /** @type {any} */ (unitFrame(unit));
  const [left, right] = handlesOf(f, 10);
  // The right corner swung 90 degrees about the left corner: straight ahead of it.
  assert.equal(wheelDegrees(left, [0, 12]), 90);
  assert.equal(wheelDegrees(left, [10, -3]), 0); // backward is no wheel
  assert.equal(wheelDegrees(right, [10, 12]), -90);
  close(turnAngle([0, 0], [1, 0], [0, 1]), 90);
});

test('pivot degrees about the centre, and the outline turned', () => {
  const f = /** @type {any} */ (unitFrame(unit));
  const knob = handlesOf(f, 10)[2];
  assert.equal(pivotDegrees(f, knob, [5 - 3.6, 1]), 90);
  const g = rotateGeometry(f.geometry, 5, 1, 90);
  const [x, y] = g.coordinates[0][0];
  close(x, 6);
  close(y, -4);
});

test('reform: files from the rear-right corner dragged across, and a rough outline', () => {
  const f = /** @type {any} */ (unitFrame(unit));
  assert.equal(reformFiles(f, [6, 0], 5, 10), 3);
  assert.equal(reformFiles(f, [-5, 0], 5, 10), 1);
  assert.equal(reformFiles(f, [40, 0], 5, 10), 10);
  const out = reformOutline(f, 5, 10, 10, 0); // 10 wide, 1 rank: 20 in by 1 in about (5, 1)
  assert.deepEqual(out.coordinates[0][0], [-5, 1.5]);
  assert.deepEqual(out.coordinates[0][2], [15, 0.5]);
});

test('40k: which model is under a point, and the staged ghost moves only it', () => {
  const sq = (cx, cy) => [[[cx - 0.5, cy - 0.5], [cx + 0.5, cy - 0.5], [cx + 0.5, cy + 0.5], [cx - 0.5, cy + 0.5], [cx - 0.5, cy - 0.5]]];
  const u = {
    positions: [[1, 1], [3, 1]],
    footprint: {
      type: 'FeatureCollection',
      features: [
        { geometry: { type: 'MultiPolygon', coordinates: [sq(1, 1), sq(3, 1)] }, properties: { role: 'boundary' } },
        { geometry: { type: 'Polygon', coordinates: sq(1, 1) }, properties: { role: 'model', index: 0 } },
        { geometry: { type: 'Polygon', coordinates: sq(3, 1) }, properties: { role: 'model', index: 1 } },
      ],
    },
  };
  assert.equal(modelIndexAt(u, 3.2, 1.1), 1);
  assert.equal(modelIndexAt(u, 2, 1), -1);
  const g = stagedModels(u, [[1, 1], [3, 4]]);
  assert.equal(g.type, 'MultiPolygon');
  assert.deepEqual(g.coordinates[0][0][0], [0.5, 0.5]);
  assert.deepEqual(g.coordinates[1][0][0], [2.5, 3.5]);
});

test('tools are one handler each; overlays fade out; distances to 0.1 in', () => {
  const table = fakeTable();
  for (const [name, tool] of Object.entries(toolHandlers(table))) {
    assert.ok(tool instanceof Tool, name);
    assert.ok(Object.getOwnPropertyNames(Object.getPrototypeOf(tool)).includes('tap'), `${name} has its own tap`);
    assert.ok(tool.hint().length > 0, name);
  }
  const los = table.tools.los;
  los.enable();
  assert.deepEqual(los.los, emptyLos());
  assert.equal(overlayAlpha(0), 1);
  assert.equal(overlayAlpha(OVERLAY_MS), 0);
  assert.ok(overlayAlpha(OVERLAY_MS - 500) > 0 && overlayAlpha(OVERLAY_MS - 500) < 1);
  assert.equal(measureLabel(11.44), '11.4 in');
  assert.equal(measureLabel(undefined), '');
});
