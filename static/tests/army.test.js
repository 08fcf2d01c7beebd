// Issue 18: the army builder's points and joins, and the unit card's words (pure functions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cost, pointsWords, baseWords, profileBlocks, ruleLines } from '../js/ui/card.js';
import { refFor, parseValue, otherRules, savedOwnUnits, saveOwnUnit, forgetOwnUnit, pointsTiers, tiersText } from '../js/ui/own.js';

test('points as the server counts them: fixed + per model, or a 40k tier', () => {
  assert.equal(cost({ unit: 25, per_model: 11 }, 20), 245);
  assert.equal(cost({ tiers: { 10: 80, 11: 170 } }, 10), 80);
  assert.equal(cost({ tiers: { 10: 80, 11: 170 } }, 20), 170);
  assert.equal(cost(null, 20), 0);
  assert.equal(pointsWords({ unit: 25, per_model: 14 }), '25 pts + 14 pts per model');
  assert.equal(pointsWords({ tiers: { 5: 80, 6: 160 } }), '5+ models: 80 pts, 6+ models: 160 pts');
  assert.equal(baseWords({ shape: 'round', diameter_mm: 32 }), '32 mm round');
});

const archers = {
  id: 'citizen-archers', name: 'Citizen Archers', faction: 'Highborn Elves',
  base: { shape: 'rectangular', width_mm: 20, depth_mm: 20 },
  profile: {
    system: 't9a', height: 'Standard',
    defensive: { health_points: 1, armour: 0, aegis: null },
    offensive: [{ name: 'Citizen Archer', attacks: 1, special_rules: [] }],
    shooting: [{ name: 'Longbow', range_in: 30, aim: 4, special_rules: [{ name: 'Volley', printed: 'Volley' }] }],
  },
  equipment: [{ name: 'Hand Weapon', printed: 'Hand Weapon' }, { name: 'Light Armour', printed: 'Light Armour' }],
  special_rules: [],
  other_rules: [{ name: 'Sea Drill', text: 'may re-form' }],
};

test('a profile as tables: characteristics, weapons with ranges and abilities', () => {
  const blocks = profileBlocks(archers.profile);
  assert.deepEqual(blocks[0], { title: 'Height', text: 'Standard' });
  assert.deepEqual(blocks[1], { title: 'Defensive', columns: ['HP', 'Arm', 'Aegis'], rows: [['1', '0', '-']] });
  assert.deepEqual(blocks[3], { title: 'Shooting', columns: ['Name', 'Range', 'Aim', 'Rules'], rows: [['Longbow', '30″', '4+', 'Volley']] });
});

test('every rule of the card with its mark: equipment and weapon rules too, rules of your own not automated', () => {
  const lines = ruleLines(archers, { notAutomated: ['Volley'], partly: { 'Light Armour': 'Automated: the save.' },
    registry: [{ name: 'Hand Weapon', summary: 'a plain weapon' }] });
  assert.deepEqual(lines.map((r) => [r.printed, r.mark]), [
    ['Hand Weapon', 'automated'], ['Light Armour', 'partly'], ['Volley', 'not'], ['Sea Drill', 'not']]);
  assert.equal(lines[0].text, 'a plain weapon');
  assert.equal(lines[3].text, 'may re-form');
});

test('units of your own: refs, typed values, other rules, saved in the browser', () => {
  assert.equal(refFor('Sea Guard!', []), 'my-sea-guard');
  assert.equal(refFor('Sea Guard', ['my-sea-guard']), 'my-sea-guard-2');
  assert.equal(parseValue('4'), 4);
  assert.equal(parseValue('D6'), 'D6');
  assert.equal(parseValue('-'), null);
  assert.deepEqual(otherRules('Sea Drill: may re-form\nStubborn'), [{ name: 'Sea Drill', text: 'may re-form' }, { name: 'Stubborn', text: '' }]);
  /** @type {Map<string, string>} */
  const m = new Map();
  const storage = /** @type {Storage} */ (/** @type {unknown} */ ({ getItem: (/** @type {string} */ k) => m.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => { m.set(k, v); } }));
  saveOwnUnit(storage, 't9a', { ref: 'my-a', name: 'A' });
  saveOwnUnit(storage, 't9a', { ref: 'my-a', name: 'A2' });
  assert.deepEqual(savedOwnUnits(storage, 't9a').map((u) => u.name), ['A2']);
  forgetOwnUnit(storage, 't9a', 'my-a');
  assert.deepEqual(savedOwnUnits(storage, 't9a'), []);
  assert.deepEqual(savedOwnUnits(storage, 'whfb8'), []);
});

test('attaching offers the characters already in the army, never a copy', async () => {
  const { attachable } = await import('../js/ui/battle.js');
  const sheets = {
    spears: { id: 'spears', can_join: false, character: false },
    commander: { id: 'commander', can_join: true, character: true },
    herald: { id: 'herald', can_join: true, character: true },
  };
  const sheetFor = (/** @type {string} */ id) => /** @type {any} */ (sheets)[id] || null;
  const army = [{ datasheet: 'spears', joined: [] }, { datasheet: 'commander', joined: [] }, { datasheet: 'herald', joined: [] }];
  assert.deepEqual(attachable(army, 0, { spears: ['commander'] }, sheetFor), [1]);
  assert.deepEqual(attachable(army, 1, { spears: ['commander'] }, sheetFor), []); // a character hosts none
  assert.deepEqual(attachable(army.slice(0, 1), 0, { spears: ['commander'] }, sheetFor), []); // none in the army yet
});

test('units of your own: points by unit size as 40k datasheets print them', () => {
  assert.deepEqual(pointsTiers('5: 80, 10: 160'), { 5: 80, 10: 160 });
  assert.equal(tiersText({ 5: 80, 10: 160 }), '5: 80, 10: 160');
  assert.deepEqual(pointsTiers(tiersText({ 3: 65 })), { 3: 65 });
  const bad = pointsTiers('5: eighty, 10');
  assert.ok(Number.isNaN(bad['5']) && Number.isNaN(bad['10']));
  assert.equal(JSON.stringify(bad), '{"5":null,"10":null}');
});

test("a model's WS and BS are characteristics (whfb8), a weapon's its roll to hit (40k)", () => {
  const whfb8 = profileBlocks({ models: [{ name: 'Skeleton', M: 4, WS: 2, BS: 2, S: 3, save: 5 }] });
  assert.deepEqual(whfb8[0].rows, [['Skeleton', '4', '2', '2', '3', '5+']]);
  const forty = profileBlocks({
    models: [{ name: 'Boy', M: 6, T: 5, Sv: 5 }],
    weapons: [{ name: 'Slugga', BS: 5 }, { name: 'Choppa', WS: 3 }],
  });
  assert.deepEqual(forty[0].rows, [['Boy', '6', '5', '5+']]);
  assert.deepEqual(forty[1].rows, [['Slugga', '5+', '-'], ['Choppa', '-', '3+']]);
});
