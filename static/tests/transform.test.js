import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  makeView, toScreen, toWorld, pan, zoomAt, fit, screenAngle, flipForSeat, visibleWorld,
  MAX_SCALE, MIN_SCALE,
} from '../js/view/transform.js';

const BF = { width: 72, depth: 48 };
const near = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('player 1 edge (y=0) is at the bottom of the screen for seat 1 and spectators', () => {
  const v = makeView(BF, { scale: 10, ox: 0, oy: 0 });
  assert.deepEqual(toScreen(v, 0, 0), { x: 0, y: 480 });
  assert.deepEqual(toScreen(v, 72, 48), { x: 720, y: 0 });
  assert.equal(flipForSeat(null), false);
  assert.equal(flipForSeat(1), false);
});

test('seat 2 sees the table turned 180 degrees: their edge (y=48) at the bottom', () => {
  const v = makeView(BF, { scale: 10, flip: flipForSeat(2) });
  assert.deepEqual(toScreen(v, 0, 48), { x: 720, y: 480 });
  assert.deepEqual(toScreen(v, 72, 0), { x: 0, y: 0 });
});

test('toWorld inverts toScreen, flipped or not', () => {
  for (const flip of [false, true]) {
    const v = makeView(BF, { scale: 7.3, ox: 31, oy: -12, flip });
    for (const [x, y] of [[0, 0], [72, 48], [13.2, 40.1], [-5, 60]]) {
      const s = toScreen(v, x, y);
      const w = toWorld(v, s.x, s.y);
      near(w.x, x);
      near(w.y, y);
    }
  }
});

test('facing 0 points up the screen for seat 1 and down for seat 2; 90 points left for seat 1', () => {
  near(screenAngle(makeView(BF), 0), -Math.PI / 2);
  near(screenAngle(makeView(BF, { flip: true }), 0), Math.PI / 2);
  near(Math.abs(screenAngle(makeView(BF), 90)), Math.PI);
});

test('pan moves the table by the screen delta', () => {
  const v = pan(makeView(BF, { ox: 5, oy: 6 }), 10, -4);
  assert.equal(v.ox, 15);
  assert.equal(v.oy, 2);
});

test('zoomAt keeps the world point under the cursor fixed and clamps the scale', () => {
  const v = makeView(BF, { scale: 10, ox: 20, oy: 30, flip: true });
  const before = toWorld(v, 300, 200);
  const z = zoomAt(v, 1.7, 300, 200);
  const after = toWorld(z, 300, 200);
  near(z.scale, 17);
  near(before.x, after.x);
  near(before.y, after.y);
  assert.equal(zoomAt(v, 1e6, 0, 0).scale, MAX_SCALE);
  assert.equal(zoomAt(v, 1e-6, 0, 0).scale, MIN_SCALE);
});

test('fit centres the whole table inside the viewport', () => {
  const v = fit(makeView(BF), 1000, 600, 20);
  near(v.scale, Math.min(960 / 72, 560 / 48));
  const tl = toScreen(v, 0, 48);
  const br = toScreen(v, 72, 0);
  near(tl.x + br.x, 1000);
  near(tl.y + br.y, 600);
  assert.ok(tl.y >= 20 - 1e-9 && br.y <= 580 + 1e-9);
});

test('visibleWorld is the world rectangle on screen', () => {
  const v = fit(makeView(BF, { flip: true }), 720, 480, 0);
  const r = visibleWorld(v, 720, 480);
  near(r.minX, 0);
  near(r.minY, 0);
  near(r.maxX, 72);
  near(r.maxY, 48);
});
