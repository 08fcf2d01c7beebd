// The 40k Stratagems panel and unit orders: their pure parts (issue 16 item 6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stratagemView } from '../js/ui/stratagems.js';
import { unitName, towardsTargets, gridPositions, baseInches, allocationShown, moveEarlier, modelCount, discsOf, casualtyOrder } from '../js/ui/forty-orders.js';

const units = {
  u1: { id: 'u1', name: 'Beast Snagga Boyz + Wurrboy', owner: 1 },
  u2: { id: 'u2', name: 'Intercessor Squad', owner: 2 },
};

/** The `stratagems` game offer as server/rules/wh40k10/stratagems.py words it. */
function offerState(stratagems) {
  return {
    units,
    orders: { seat: 1, units: {}, game: { stratagems: {
      action: 'use_stratagem', available: true, reason: null, cp: 2, stratagems,
      not_automated: [{ name: 'Tank Shock', cost: 1, when: 'your Charge phase', effect: 'mortal wounds', reason: 'not automated: play it by agreement with your opponent' }],
    } } },
  };
}

test('each automated Stratagem: usable with its targets in words, or the server\'s reason', () => {
  const view = stratagemView(offerState([
    { name: 'Command Re-roll', cost: 1, when: 'any phase', effect: 're-roll that roll', available: true, reason: null, targets: [{ roll: 'advance', unit: 'u1' }] },
    { name: 'Fire Overwatch', cost: 1, when: 'opponent', effect: 'shoot', available: true, reason: null, targets: [{ unit: 'u1', target: 'u2', weapons: ['Slugga'] }] },
    { name: 'Counter-offensive', cost: 2, when: 'Fight phase', effect: 'fights next', available: false, reason: 'Counter-offensive is used in the Fight phase', targets: [] },
  ]));
  assert.ok(view);
  assert.equal(view.cp, 2);
  const [reroll, overwatch, counter] = view.rows;
  assert.deepEqual(reroll.choices, [{ label: 'the Advance roll of Beast Snagga Boyz + Wurrboy', action: { type: 'use_stratagem', stratagem: 'Command Re-roll', roll: 'advance', unit: 'u1' } }]);
  assert.equal(reroll.available, true);
  assert.deepEqual(overwatch.choices[0].action, { type: 'use_stratagem', stratagem: 'Fire Overwatch', unit: 'u1', target: 'u2' });
  assert.equal(overwatch.choices[0].label, 'Beast Snagga Boyz + Wurrboy at Intercessor Squad');
  assert.equal(counter.available, false);
  assert.equal(counter.reason, 'Counter-offensive is used in the Fight phase');
  assert.deepEqual(view.manual.map((m) => m.name), ['Tank Shock']);
});

test('no offer (a spectator, another system): no panel', () => {
  assert.equal(stratagemView({ units, orders: { seat: null, units: {}, game: {} } }), null);
  assert.equal(stratagemView(null), null);
});

test('Move all towards the target: straight in to base contact, never past the roll', () => {
  const r = 0.63;
  const own = [{ x: 10, y: 10, r }, { x: 12, y: 10, r }];
  const target = [{ x: 10, y: 14, r }];
  const moved = towardsTargets(own, target, 2);
  // gap 4 - 1.26 = 2.74: on a roll of 2 the unit moves 1.995 straight in, keeping its shape,
  // and no model can reach base contact
  assert.deepEqual(moved, [[10, 11.995], [12, 11.995]]);
  assert.equal(towardsTargets([{ x: 10, y: 12.738, r }], target, 6), null, 'already in base contact');
});

test('Move all towards the target: each model that can ends in base contact (core rules), coherent, overlapping nothing', () => {
  const r = 0.63;
  const own = [{ x: 10, y: 10, r }, { x: 12, y: 10, r }];
  const target = [{ x: 10, y: 14, r }];
  const moved = towardsTargets(own, target, 6);
  assert.ok(moved);
  // the first model straight in (2.738 in), touching; the second beside the target model
  assert.deepEqual(moved[0], [10, 12.738]);
  const gap = (/** @type {number[]} */ p, /** @type {{x:number,y:number}} */ q) => Math.hypot(p[0] - q.x, p[1] - q.y) - 2 * r;
  for (const p of moved) {
    assert.ok(gap(p, target[0]) >= 0 && gap(p, target[0]) <= 0.005, `${p} touches the target`);
  }
  const apart = Math.hypot(moved[0][0] - moved[1][0], moved[0][1] - moved[1][1]) - 2 * r;
  assert.ok(apart >= 0 && apart <= 2, 'no overlap, in coherency');
  assert.ok(Math.hypot(moved[1][0] - 12, moved[1][1] - 10) <= 6, 'within the roll');
  // a second rank: its straight way to a place in contact never passes through the target model
  const ranks = [{ x: 10, y: 10, r }, { x: 10, y: 8, r }];
  const both = towardsTargets(ranks, target, 8);
  assert.ok(both);
  const [sx, sy] = [10, 8];
  const [ex, ey] = both[1];
  const len2 = (ex - sx) ** 2 + (ey - sy) ** 2;
  const t = Math.max(0, Math.min(1, ((10 - sx) * (ex - sx) + (14 - sy) * (ey - sy)) / len2));
  const pass = Math.hypot(sx + t * (ex - sx) - 10, sy + t * (ey - sy) - 14);
  assert.ok(pass >= 2 * r - 0.001, `the second rank passes ${pass} from the target's centre`);
  // a model of another enemy unit beside the target: the second model keeps out of its
  // Engagement Range, or stays where the straight move put it
  const other = [{ x: 11.3, y: 15.3, r, enemy: true }, { x: 8.7, y: 15.3, r, enemy: true }];
  const kept = towardsTargets(own, target, 6, other);
  assert.ok(kept);
  for (const p of kept) {
    assert.ok(other.every((o) => Math.hypot(p[0] - o.x, p[1] - o.y) - 2 * r > 1));
  }
});

test('the arrival grid is the server\'s deployment grid (rows of five, 0.5 in apart)', () => {
  const base = baseInches({ shape: 'round', diameter_mm: 32 });
  assert.ok(Math.abs(base.width - 32 / 25.4) < 1e-9);
  // server/rules/units.py grid_positions for 5 models at (25, 35), facing 180: the row runs
  // right to left (28.5197 … 21.4803 as the server set the Intercessor Squad down)
  const row = gridPositions(5, 25, 35, 180, base);
  assert.deepEqual(row.map((p) => p[0]), [28.52, 26.76, 25, 23.24, 21.48]);
  assert.ok(row.every((p) => p[1] === 35));
  const two = gridPositions(11, 0, 0, 0, base);
  assert.equal(two.length, 11);
  assert.ok(two[0][1] > two[5][1] && two[5][1] > two[10][1], 'three rows, the first in front');
  assert.equal(modelCount({ models: 10, characters: [{ name: 'Wurrboy' }] }), 11);
});

test('the allocation order: the one set, else the offer\'s kinds; moving a kind earlier', () => {
  // the Intercessor Squad: the Sergeant is the first model; by default the last model goes first
  const offer = { models: ['Intercessor', 'Intercessor Sergeant'], order: [] };
  const models = [{ name: 'Intercessor Sergeant', character: false }, ...Array.from({ length: 4 }, () => ({ name: 'Intercessor', character: false })), { name: 'Captain', character: true }];
  assert.deepEqual(allocationShown(offer, models), ['Intercessor', 'Intercessor Sergeant']);
  assert.deepEqual(allocationShown({ ...offer, models: ['Intercessor Sergeant', 'Intercessor'] }, models), ['Intercessor', 'Intercessor Sergeant']);
  assert.deepEqual(allocationShown({ ...offer, order: ['Intercessor Sergeant'] }, models), ['Intercessor Sergeant', 'Intercessor']);
  assert.deepEqual(allocationShown(offer), ['Intercessor', 'Intercessor Sergeant']);
  assert.deepEqual(moveEarlier(['a', 'b', 'c'], 2), ['a', 'c', 'b']);
  assert.deepEqual(moveEarlier(['a', 'b'], 0), ['a', 'b']);
});

test('a unit\'s models as discs from its footprint', () => {
  const ring = [[9, 9], [11, 9], [11, 11], [9, 11], [9, 9]];
  const unit = { positions: [[10, 10]], footprint: { features: [{ properties: { role: 'model', index: 0 }, geometry: { type: 'Polygon', coordinates: [ring] } }] } };
  assert.deepEqual(discsOf(unit), [{ x: 10, y: 10, r: 1 }]);
});

test('a 40k charge in the log: its own words (several targets, the Charge move)', async () => {
  const { describe } = await import('../js/ui/describe.js');
  const ev = { seq: 9, type: 'charge_succeeded', actor: 1, payload: { unit: 'u1', target: 'u2', targets: ['u2'], distance: 2.5, range: 6, text: 'Boyz make the Charge move (2.5 of 6 in) into Intercessor Squad' } };
  assert.equal(describe(ev, { units }), 'Player 1: Boyz make the Charge move (2.5 of 6 in) into Intercessor Squad');
});

test('units are named as the server names them: numbered among those of the same name', () => {
  const st = { units: { u12: { name: 'Intercessor Squad' }, u5: { name: 'Intercessor Squad' }, u1: { name: 'Boyz' } } };
  assert.equal(unitName(st, 'u5'), 'Intercessor Squad (1)');
  assert.equal(unitName(st, 'u12'), 'Intercessor Squad (2)');
  assert.equal(unitName(st, 'u1'), 'Boyz');
  assert.equal(unitName(st, 'u9'), 'u9');
});

test('the casualty order: the models as offered, wounded ones marked, and the suggested order to take as it is', () => {
  const offer = { action: 'set_allocation_order', available: true, reason: null, models: ['Beast Snagga Boy'],
    casualties: [{ id: 'u1.3', name: 'Beast Snagga Boy #4', wounded: true }, { id: 'u1.0', name: 'Beast Snagga Boy #1', wounded: false }],
    suggested: { type: 'set_allocation_order', unit: 'u1', order: ['u1.3', 'u1.0'] } };
  const got = casualtyOrder(offer);
  assert.deepEqual(got.ids, ['u1.3', 'u1.0']);
  assert.deepEqual(got.names, ['Beast Snagga Boy #4 (wounded)', 'Beast Snagga Boy #1']);
  assert.deepEqual(got.suggested, ['u1.3', 'u1.0']);
  assert.deepEqual(moveEarlier(got.ids, 1), ['u1.0', 'u1.3']);
  assert.deepEqual(casualtyOrder(null), { ids: [], names: [], suggested: [] });
});
