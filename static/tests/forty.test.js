import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreItems, waaaghOffer, fortyOrders, shootAction, objectiveMarks, attackGroup } from '../js/ui/forty.js';
import { reportGroups } from '../js/ui/report.js';

const weapons = {
  u1: [
    { name: 'Slugga', type: 'ranged', pistol: true },
    { name: 'Eyez of Mork', type: 'ranged', pistol: false },
    { name: 'Choppa', type: 'melee', pistol: false },
  ],
  u2: [
    { name: 'Bolt rifle', type: 'ranged', pistol: false },
    { name: 'Bolt pistol', type: 'ranged', pistol: true },
    { name: 'Plasma pistol - standard', type: 'ranged', pistol: true },
    { name: 'Plasma pistol - supercharge', type: 'ranged', pistol: true },
  ],
};
const units = {
  u1: { id: 'u1', name: 'Beast Snagga Boyz + Wurrboy', owner: 1, status: 'on_table', rules: ['Waaagh!'] },
  u2: { id: 'u2', name: 'Intercessor Squad', owner: 2, status: 'on_table', rules: ['Oath of Moment'] },
};
/** @param {Record<string, any>} over */
function state(over) {
  return {
    system: 'wh40k10', stage: 'battle', phase: 'Command', active_player: 1, units,
    forty: {
      cp: { 1: 2, 2: 2 }, vp: { 1: 5, 2: 0 }, waaagh: { used: [], active: [] }, weapons,
      engaged: { u1: [], u2: [] }, fight_next: { seat: null, units: [] },
      objectives: [{ id: 'obj1', x: 30, y: 22, oc: { 1: 4, 2: 2 }, controller: 1 }],
    },
    ...over,
  };
}

test('40k: CP and VP of both players for the turn bar', () => {
  assert.deepEqual(scoreItems(state({})), [{ seat: 1, cp: 2, vp: 5 }, { seat: 2, cp: 2, vp: 0 }]);
  assert.deepEqual(scoreItems({ system: 't9a' }), []);
});

test('40k: the Waaagh! button only in your Command phase, once, for an army with it', () => {
  assert.equal(waaaghOffer(state({}), 1), true);
  assert.equal(waaaghOffer(state({}), 2), false);
  assert.equal(waaaghOffer(state({ phase: 'Movement' }), 1), false);
  const used = state({});
  used.forty.waaagh = { used: [1], active: [1] };
  assert.equal(waaaghOffer(used, 1), false);
  assert.equal(waaaghOffer(state({ active_player: 2 }), 2), false); // no unit with the Waaagh!
});

test('40k: Shoot offers the ranged weapons; Fight the engaged enemies when you choose next', () => {
  const shooting = fortyOrders(units.u2, state({ phase: 'Shooting', active_player: 2 }), 2);
  assert.equal(shooting.shoot, true);
  assert.deepEqual(shooting.weapons, ['Bolt rifle', 'Bolt pistol', 'Plasma pistol - standard', 'Plasma pistol - supercharge']);
  assert.deepEqual(fortyOrders(units.u2, state({ phase: 'Shooting', active_player: 1 }), 2).shoot, false);
  const fight = state({ phase: 'Fight' });
  fight.forty.fight_next = { seat: 2, units: ['u1', 'u2'] };
  fight.forty.engaged = { u1: ['u2'], u2: ['u1'] };
  assert.deepEqual(fortyOrders(units.u2, fight, 2).fight, [{ target: 'u1', name: 'Beast Snagga Boyz + Wurrboy' }]);
  assert.deepEqual(fortyOrders(units.u1, fight, 1).fight, []); // player 2 chooses
});

test('40k: the Shoot tool fires the picked weapon, or every non-Pistol (Pistols when engaged)', () => {
  const st = state({});
  assert.deepEqual(shootAction(st, 'u2', 'u1', 'Bolt pistol'), { type: 'shoot_weapons', unit: 'u2', weapons: [{ weapon: 'Bolt pistol', target: 'u1' }] });
  assert.deepEqual(shootAction(st, 'u2', 'u1', undefined).weapons.map((w) => w.weapon), ['Bolt rifle']);
  st.forty.engaged = { u2: ['u1'] };
  assert.deepEqual(shootAction(st, 'u2', 'u1', undefined).weapons.map((w) => w.weapon), ['Bolt pistol', 'Plasma pistol - standard']);
});

test('40k: objective markers with their controller', () => {
  assert.deepEqual(objectiveMarks(state({})), [{ id: 'obj1', x: 30, y: 22, controller: 1, label: 'OC 4:2' }]);
});

const resolved = {
  seq: 40, type: 'attacks_resolved', actor: 2,
  payload: {
    kind: 'shooting', text: 'Intercessor Squad shoot Beast Snagga Boyz + Wurrboy', wounds_lost: 1, destroyed: [],
    rolls: [{ expression: '2D6', dice: [{ face: 3, kept: true }, { face: 1, kept: true }], total: 4, start: 0, end: 2 }],
    steps: [
      { step: 'toughness', text: "Beast Snagga Boyz + Wurrboy: Attached unit, wounded on the Bodyguard's T 5" },
      { step: 'hit', text: 'Bolt rifle: 2 attacks hitting on 3+: 1 hit', roll: 0, needed: 3 },
    ],
  },
};

test('40k: an attack sequence is one report group, each step a line with its dice', () => {
  const g = attackGroup(/** @type {any} */ (resolved), false);
  assert.equal(g.title, 'Intercessor Squad shoot Beast Snagga Boyz + Wurrboy');
  assert.equal(g.outcome, '1 wound lost, 0 models destroyed');
  assert.equal(g.lines.length, 2);
  assert.deepEqual(g.lines[1].dice, [{ face: 3, kept: true, met: true }, { face: 1, kept: true, met: false }]);
  assert.equal(g.lines[1].step, 'to_hit');
  const groups = reportGroups(/** @type {any} */ ([resolved]), null);
  assert.equal(groups.length, 1);
  assert.equal(groups[0].kind, 'shooting');
});
