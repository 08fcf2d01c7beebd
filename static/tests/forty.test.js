import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scoreItems, aimLine, shootChoice, fightChoice, weaponWords, targetWords, woundedModels, objectiveMarks, attackGroup } from '../js/ui/forty.js';
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

// The Shoot order as the server offers it (server/rules/wh40k10/offers.py): the Boyz about
// 13 in away, visible; the Bolt rifle may fire, the pistols are out of range.
const rifle = { name: 'Bolt rifle', models: 5, pistol: false, range: 24, A: 2, skill: 3, S: 4, AP: -1, D: 1, abilities: ['ASSAULT', 'HEAVY'], available: true, reason: null };
const pistol = { name: 'Bolt pistol', models: 5, pistol: true, range: 12, A: 1, skill: 3, S: 4, AP: 0, D: 1, abilities: ['PISTOL'], available: true, reason: null };
const shootOffer = {
  action: 'shoot_weapons', available: true, reason: null, weapons: [rifle, pistol],
  targets: [
    { unit: 'u9', name: 'Wurrboy', distance: 30.2, visible: false, seen: 0, cover: false, engaged: false, available: false, reason: 'Wurrboy is not visible to Intercessor Squad', weapons: [], suggested: [],
      checks: [{ weapon: 'Bolt rifle', available: false, reason: 'Wurrboy is not visible to Intercessor Squad', models_in_range: 0 }, { weapon: 'Bolt pistol', available: false, reason: 'Wurrboy is not visible to Intercessor Squad', models_in_range: 0 }] },
    { unit: 'u1', name: 'Beast Snagga Boyz + Wurrboy', distance: 13.04, visible: true, seen: 0.82, cover: true, engaged: false, available: true, reason: null, weapons: ['Bolt rifle'], suggested: ['Bolt rifle'],
      checks: [{ weapon: 'Bolt rifle', available: true, reason: null, models_in_range: 4 }, { weapon: 'Bolt pistol', available: false, reason: "Beast Snagga Boyz + Wurrboy is out of Bolt pistol's range (12 in)", models_in_range: 0 }] },
  ],
};

test('40k Shoot: the first target that may be shot, its distance and visibility, the suggested weapons', () => {
  const c = shootChoice(/** @type {any} */ (shootOffer), 'u2', {});
  assert.equal(c.target, 'u1');
  assert.deepEqual(c.targets.map((t) => [t.id, t.available]), [['u9', false], ['u1', true]]);
  assert.equal(c.targets[1].words, '13.0 in away · visible (82% seen) · in cover (+1 to its save)');
  assert.equal(c.targets[0].words, '30.2 in away · not visible');
  assert.deepEqual(c.weapons.map((w) => [w.name, w.available, w.checked, w.inRange]), [['Bolt rifle', true, true, 4], ['Bolt pistol', false, false, 0]]);
  assert.equal(c.weapons[1].reason, "Beast Snagga Boyz + Wurrboy is out of Bolt pistol's range (12 in)");
  assert.deepEqual(c.action, { type: 'shoot_weapons', unit: 'u2', weapons: [{ weapon: 'Bolt rifle', target: 'u1' }] });
});

test('40k Shoot: a target the player picks that cannot be shot sends nothing; unticking leaves no action', () => {
  const hidden = shootChoice(/** @type {any} */ (shootOffer), 'u2', { target: 'u9' });
  assert.equal(hidden.target, 'u9');
  assert.equal(hidden.action, null);
  assert.equal(hidden.weapons[0].reason, 'Wurrboy is not visible to Intercessor Squad');
  assert.equal(shootChoice(/** @type {any} */ (shootOffer), 'u2', { target: 'u1', weapons: [] }).action, null);
});

test('40k Shoot: an order refused as a whole shows the server reason and sends nothing', () => {
  const refused = { ...shootOffer, available: false, reason: 'a unit that Fell Back cannot shoot this turn', targets: [] };
  const c = shootChoice(/** @type {any} */ (refused), 'u2', {});
  assert.equal(c.reason, 'a unit that Fell Back cannot shoot this turn');
  assert.equal(c.action, null);
  assert.deepEqual(c.weapons.map((w) => w.available), [false, false]);
});

test('40k Shoot: the line to the target drawn on the table, with the distance and whether it is visible', () => {
  const offer = { ...shootOffer, targets: shootOffer.targets.map((t) => ({ ...t, line: [[25, 16.4], [25, 29.4]] })) };
  const st = { orders: { seat: 2, units: { u2: { shoot_weapons: offer } }, game: {} } };
  assert.deepEqual(aimLine(st, 'u2'), { points: [[25, 16.4], [25, 29.4]], label: '13.0 in · visible' });
  assert.equal(aimLine(st, 'u1'), null);
  assert.equal(aimLine(st, null), null);
});

test('40k weapons in words', () => {
  assert.equal(weaponWords(rifle), '24 in · A 2 · BS 3+ · S 4 · AP -1 · D 1 · ASSAULT, HEAVY');
  assert.equal(weaponWords({ name: 'Choppa', A: 4, skill: 3, S: 5, AP: -1, D: 1, abilities: [] }, 'WS'), 'A 4 · WS 3+ · S 5 · AP -1 · D 1');
  assert.equal(targetWords({ distance: 0.5, visible: true, engaged: true }), '0.5 in away · visible · in Engagement Range with this unit');
});

test('40k Fight: the engaged enemy, each model its first melee weapon unless one is picked', () => {
  const offer = { action: 'fight', available: true, reason: null,
    weapons: [{ name: 'Choppa', models: 10, A: 4, skill: 3, S: 5, AP: -1, D: 1, abilities: [] }, { name: 'Close combat weapon', models: 1, A: 3, skill: 3, S: 5, AP: 0, D: 1, abilities: [] }],
    targets: [{ unit: 'u2', name: 'Intercessor Squad', distance: 0.4, available: true, reason: null }] };
  const c = fightChoice(/** @type {any} */ (offer), 'u1', {});
  assert.deepEqual(c.action, { type: 'fight', unit: 'u1', target: 'u2' });
  assert.deepEqual(fightChoice(/** @type {any} */ (offer), 'u1', { fightWeapon: 'Choppa' }).action, { type: 'fight', unit: 'u1', target: 'u2', weapon: 'Choppa' });
  const waiting = fightChoice(/** @type {any} */ ({ ...offer, available: false, reason: 'player 2 chooses the next unit to fight' }), 'u1', {});
  assert.equal(waiting.action, null);
  assert.equal(waiting.reason, 'player 2 chooses the next unit to fight');
});

test('40k: wounded models in words', () => {
  const st = state({});
  st.forty.models = { u1: [{ id: 'u1.0', name: 'Beast Snagga Boy', wounds: 2, lost: 0 }, { id: 'u1.10', name: 'Wurrboy', wounds: 4, lost: 3 }] };
  assert.deepEqual(woundedModels(st, 'u1'), ['Wurrboy: 1 of 4 wounds left']);
});

test('40k: objective markers with their controller', () => {
  assert.deepEqual(objectiveMarks(state({})), [{ id: 'obj1', name: 'Objective 1', x: 30, y: 22, controller: 1, label: 'P1 holds · OC 4:2' }]);
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

test('a Fight target says how many of the unit’s models fight it as they stand', () => {
  const words = targetWords({ unit: 'u2', name: 'Intercessor Squad', distance: 0.2, available: true, reason: null, fighting: 8, models: 11 });
  assert.equal(words, '0.2 in away · 8 of 11 models fight it as they stand (a Pile-in may bring more)');
});

test('40k: the Feel No Pain step is labelled Feel No Pain, not Ward save', async () => {
  const { STEP_NAMES } = await import('../js/ui/report.js');
  const fnp = { ...resolved, payload: { ...resolved.payload, steps: [{ step: 'feel_no_pain', text: 'Boy: Feel No Pain 6+ against 1 wound: 0 ignored', roll: 0, needed: 6 }] } };
  const g = attackGroup(/** @type {any} */ (fnp), false);
  assert.equal(STEP_NAMES[String(g.lines[0].step)], 'Feel No Pain');
});
