// The typed deploy spot is as the player sees the table: player 2's view is turned 180°.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asSeatSees } from '../js/ui/typed.js';

const TABLE = { width: 60, depth: 44 };

test('player 1 types the table coordinates as they are', () => {
  assert.deepEqual(asSeatSees({ x: 20, y: 6, facing: 0 }, 1, TABLE), { x: 20, y: 6, facing: 0 });
});

test("player 2's typed spot and facing are turned 180° to the table's own", () => {
  // 10 in from the left corner of their own edge, 6 in in, facing away from them (towards
  // player 1): the table's (50, 38), facing 180°.
  assert.deepEqual(asSeatSees({ x: 10, y: 6, facing: 0 }, 2, TABLE), { x: 50, y: 38, facing: 180 });
  assert.deepEqual(asSeatSees({ x: 50, y: 38, facing: 180 }, 2, TABLE), { x: 10, y: 6, facing: 0 });
  assert.equal(asSeatSees({ x: 0, y: 0, facing: 270 }, 2, TABLE).facing, 90);
});
