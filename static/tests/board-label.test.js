// Labels drawn on the table stay inside the board (an objective near the edge on a phone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boardLabel } from '../js/view/render.js';

const measure = (/** @type {string} */ s) => s.length * 6; // 6 px a letter
const PHONE = { x0: 10, y0: 0, x1: 380, y1: 270 };

test('a label that fits is one line, centred on its marker', () => {
  const out = boardLabel(['Objective 1 · no one holds', 'Objective 1', 'no one holds'], 195, PHONE, measure);
  assert.deepEqual(out.lines, ['Objective 1 · no one holds']);
  assert.equal(out.x, 195);
});

test('a label near the edge moves in so no letter is off the board', () => {
  const text = 'Objective 3 · no one holds · OC 0:0';
  const out = boardLabel([text, 'Objective 3', 'no one holds · OC 0:0'], 47, PHONE, measure);
  assert.equal(out.lines.length, 1);
  assert.ok(out.x - out.width / 2 >= PHONE.x0 && out.x + out.width / 2 <= PHONE.x1, JSON.stringify(out));
  const right = boardLabel([text], 370, PHONE, measure);
  assert.ok(right.x + right.width / 2 <= PHONE.x1);
});

test('a label wider than the board goes on two lines, each cut to fit', () => {
  const narrow = { x0: 0, y0: 0, x1: 150, y1: 100 };
  const out = boardLabel(['Objective 3 · no one holds · OC 0:0', 'Objective 3', 'no one holds · OC 0:0'], 20, narrow, measure);
  assert.equal(out.lines.length, 2);
  assert.equal(out.lines[0], 'Objective 3');
  for (const line of out.lines) assert.ok(measure(line) <= 142, line);
  assert.ok(out.x - out.width / 2 >= 0 && out.x + out.width / 2 <= 150);
});

test('with a widest line given, a label splits sooner (two markers share a row)', () => {
  const out = boardLabel(['Objective 3 · no one holds · OC 0:0', 'Objective 3', 'no one holds · OC 0:0'], 195, PHONE, measure, 150);
  assert.deepEqual(out.lines, ['Objective 3', 'no one holds · OC 0:0']);
});
