import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  axes, rectCorners, pointInRect, pointInRing, pointInGeometry, geometryRings, topmost, bbox,
} from '../js/view/hit.js';

const near = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('facing 0 is +y and facing 90 is -x (counter-clockwise)', () => {
  const a = axes(0);
  near(a.fx, 0); near(a.fy, 1); near(a.rx, 1); near(a.ry, 0);
  const b = axes(90);
  near(b.fx, -1); near(b.fy, 0); near(b.rx, 0); near(b.ry, 1);
});

test('rectCorners: front edge on the facing side', () => {
  const [fl, fr, br, bl] = rectCorners({ x: 10, y: 10, facing: 0, width: 4, depth: 2 });
  assert.deepEqual([fl, fr, br, bl].map((p) => p.map((c) => Math.round(c * 1e9) / 1e9)), [
    [8, 11], [12, 11], [12, 9], [8, 9],
  ]);
  const turned = rectCorners({ x: 0, y: 0, facing: 90, width: 4, depth: 2 });
  // Facing -x: the front edge is at x = -1 and spans y from -2 to 2.
  near(turned[0][0], -1); near(turned[1][0], -1);
  near(Math.min(turned[0][1], turned[1][1]), -2);
});

test('pointInRect honours rotation', () => {
  const r = { x: 0, y: 0, facing: 45, width: 10, depth: 1 };
  assert.ok(pointInRect(r, 0, 0));
  assert.ok(pointInRect(r, 3, 3)); // along the 45-degree "across" axis
  assert.ok(!pointInRect(r, 3, -3));
  assert.ok(!pointInRect(r, 4.9, 0));
  const square = { x: 5, y: 5, facing: 0, width: 2, depth: 2 };
  assert.ok(pointInRect(square, 6, 6)); // corner counts
  assert.ok(!pointInRect(square, 6.01, 5));
});

test('pointInRing and GeoJSON polygons with holes and multipolygons', () => {
  const outer = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]];
  const hole = [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]];
  assert.ok(pointInRing(outer, 5, 5));
  assert.ok(!pointInRing(outer, 11, 5));
  const poly = { type: 'Polygon', coordinates: [outer, hole] };
  assert.ok(pointInGeometry(poly, 2, 2));
  assert.ok(!pointInGeometry(poly, 5, 5));
  const multi = { type: 'MultiPolygon', coordinates: [[outer], [[[20, 20], [22, 20], [22, 22], [20, 20]]]] };
  assert.ok(pointInGeometry(multi, 21.5, 20.5));
  assert.ok(!pointInGeometry(multi, 15, 15));
  assert.ok(!pointInGeometry(null, 1, 1));
  assert.equal(geometryRings(poly).length, 2);
  assert.equal(geometryRings(multi).length, 2);
});

test('topmost returns the last drawn piece under the point, with slop for tiny pieces', () => {
  const pieces = [
    { id: 'a', rect: { x: 5, y: 5, facing: 0, width: 4, depth: 4 } },
    { id: 'b', rect: { x: 6, y: 6, facing: 30, width: 2, depth: 2 } },
    { id: 'c', geometry: { type: 'Polygon', coordinates: [[[20, 20], [30, 20], [25, 30], [20, 20]]] } },
  ];
  assert.equal(topmost(pieces, 6, 6), 'b');
  assert.equal(topmost(pieces, 3.5, 3.5), 'a');
  assert.equal(topmost(pieces, 25, 22), 'c');
  assert.equal(topmost(pieces, 50, 50), null);
  assert.equal(topmost(pieces, 7.4, 3), null);
  assert.equal(topmost(pieces, 7.4, 3, 0.5), 'a');
});

test('bbox', () => {
  assert.deepEqual(bbox([[1, 5], [-2, 3], [4, -1]]), { minX: -2, minY: -1, maxX: 4, maxY: 5 });
});
