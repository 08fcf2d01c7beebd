import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  measureLabel, inches, tenths, verdictText, losText, losWords, errorText, unitName, who, rollWords, markerBadges, chargeAckToast,
} from '../js/format.js';

test('a distance is shown to 0.1 in, and nothing for what is not a number', () => {
  assert.equal(measureLabel(0), '0.0 in');
  assert.equal(measureLabel(7.96), '8.0 in');
  assert.equal(measureLabel(null), '');
  assert.equal(measureLabel('6'), '');
});

test('a distance rounds to 0.1 half away from zero on the decimal read, as the server does', () => {
  // The same cases as tests/rules/test_inches_words.py: one rounding on both sides.
  const cases = [[8.25, '8.3'], [8.35, '8.4'], [8.02, '8.0'], [7.96, '8.0'], [0.05, '0.1'], [0.04, '0.0'],
    [-0.04, '0.0'], [-2.25, '-2.3'], [12, '12.0'], [2.449999, '2.4']];
  for (const [value, said] of cases) assert.equal(tenths(Number(value)), said, `${value}`);
  assert.equal(inches(8.25), '8.3 in');
  assert.equal(measureLabel(8.25), '8.3 in');
});

test('a distance just over its allowance says so, not "8.0 in (8.0 allowed)"', () => {
  assert.equal(inches(8.02, 8), 'just over 8.0 in');
  assert.equal(inches(11.98, 12), 'just under 12.0 in');
  assert.equal(inches(8, 8), '8.0 in');
  assert.equal(verdictText({ legal: false, rule: 'Move Distance', used: 8.02, allowance: 8 }), 'Not allowed: Move Distance · just over 8.0 in (8.0 allowed)');
  assert.equal(verdictText({ legal: true, used: 8.25, allowance: 10 }), 'Legal · used 8.3 / 10.0 in');
});

test('a verdict names the rule and obstacle when illegal and the distance against the allowance', () => {
  assert.equal(verdictText({ legal: true }), 'Legal');
  assert.equal(verdictText({ legal: true, counts_as_march: true, used: 6, allowance: 10 }), 'Legal, counts as a March · used 6.0 / 10.0 in');
  assert.equal(verdictText({ legal: true, distance: 3.25 }), 'Legal · 3.3 in');
  assert.equal(verdictText({ legal: false, rule: 'Unit Spacing', obstacle: 'u5', obstacle_name: 'Spearmen (2)', distance: 4, allowance: 5 }), 'Not allowed: Unit Spacing (Spearmen (2) is in the way) · 4.0 in (5.0 allowed)');
  // Issue 19 item 3: words, not ids — the obstacle's id alone is never shown.
  assert.equal(verdictText({ legal: false, rule: 'Unit Spacing', obstacle: 'ter1' }), 'Not allowed: Unit Spacing');
  assert.equal(verdictText({ legal: false, message: 'off the table' }), 'Not allowed: off the table');
  assert.equal(verdictText({ legal: false }), 'Not allowed: illegal');
  // Issue 24 item 3: the refusal is said in words, not only by the red ghost.
  assert.equal(verdictText({ legal: false, rule: 'Move Distance', used: 14 }), 'Not allowed: Move Distance · 14.0 in');
  // An obstacle is only named for an illegal move.
  assert.equal(verdictText({ legal: true, obstacle: 'ter2', obstacle_name: 'Wood' }), 'Legal');
});

test('line of sight in words: visibility, the fraction seen and cover other than none', () => {
  assert.equal(losText({ visible: true, fraction: 0.5, cover: 'soft' }), 'Partly visible: 50 % · soft cover');
  assert.equal(losText({ visible: false, fraction: 0, cover: 'none' }), 'Not visible');
  assert.equal(losText({ visible: true, fraction: 0, cover: 'none' }), 'Not visible');
  assert.equal(losText({ visible: true }), 'Fully visible · no cover');
});

test('a refusal in words puts its rule first; anything else still says something', () => {
  assert.equal(errorText({ code: 'illegal_move', message: 'too far', details: { rule: 'Movement' } }), 'Movement: too far');
  assert.equal(errorText({ code: 'rate_limited', message: '' }), 'rate_limited');
  assert.equal(errorText(null), 'failed');
  assert.equal(errorText({}), 'failed');
});

test('names: a unit by its name or id, an actor by seat, a roll with its dropped dice in brackets', () => {
  const state = { units: { u1: { id: 'u1', owner: 1, name: 'Spearmen' } } };
  assert.equal(unitName(state, 'u1'), 'Spearmen');
  assert.equal(unitName(state, 'u9'), 'u9');
  assert.equal(unitName(null, undefined), 'a unit');
  assert.equal(who(2), 'Player 2');
  assert.equal(who('system'), 'The game');
  assert.equal(rollWords({ expression: '2D6', dice: [{ face: 6, kept: true }, { face: 1, kept: false }], total: 6 }), '2D6: 6 (1) = 6');
  assert.equal(rollWords({ expression: 'D6', dice: [{ face: 3, kept: true }], total: null }), 'D6: 3');
  assert.equal(rollWords(null), '');
});

test('badges only for fleeing and shaken; a charge ack is read back from the events up to it', () => {
  assert.deepEqual(markerBadges({ markers: ['shaken', 'fleeing', 'ambush_ready'] }), ['Shaken', 'Fleeing']);
  assert.deepEqual(markerBadges(null), []);
  const units = { u1: { id: 'u1', owner: 1, name: 'Knights' }, u2: { id: 'u2', owner: 2, name: 'Goblins' } };
  const caught = { seq: 5, type: 'fleeing_unit_caught', payload: { unit: 'u2' } };
  assert.deepEqual(chargeAckToast([caught], 5, { units }), { text: 'Charge succeeded: Goblins are caught and destroyed!', kind: 'ok' });
  // Events after the ack are not this charge's.
  assert.equal(chargeAckToast([caught], 4, { units }), null);
  assert.deepEqual(chargeAckToast([{ seq: 3, type: 'charge_succeeded', payload: {} }], 3, { units }), { text: 'Charge succeeded!', kind: 'ok' });
});

test('line of sight in plain words: how much of the target, behind what, the cover; 0 % is not visible (issue 19 item 7)', () => {
  const names = /** @type {Record<string, string>} */ ({ ter1: 'the Farmhouse', ter2: 'the Wood', u3: 'Citizen Archers' });
  const nameOf = (/** @type {string} */ id) => names[id] || id;
  assert.equal(losWords({ visible: true, fraction: 0.82, cover: 'soft', blockers: [], cover_from: ['ter1'] }, 'Citizen Spears', nameOf),
    'Partly visible: 82 % of the Citizen Spears, behind the Farmhouse; soft cover');
  assert.equal(losWords({ visible: true, fraction: 1, cover: 'none', blockers: [], cover_from: [] }, 'Citizen Spears', nameOf),
    'Fully visible: all of the Citizen Spears; no cover');
  assert.equal(losWords({ visible: false, fraction: 0, cover: 'none', blockers: ['ter1', 'ter2'] }, 'Citizen Spears', nameOf),
    'Not visible: the Farmhouse and the Wood are in the way');
  assert.equal(losWords({ visible: true, fraction: 0, cover: 'none' }, 'Citizen Spears', nameOf), 'Not visible: none of the Citizen Spears can be seen');
  assert.equal(losWords({ visible: true, fraction: 0.4, cover: 'hard', blockers: ['u3'], cover_from: ['ter1'] }, 'Gremlins', nameOf),
    'Partly visible: 40 % of the Gremlins, behind the Farmhouse and Citizen Archers; hard cover');
});

test('two units of one name are numbered as the server numbers them', async () => {
  const { unitName } = await import('../js/format.js');
  const state = { units: {
    u12: { id: 'u12', name: 'Mageblight Gremlin' }, u5: { id: 'u5', name: 'Mageblight Gremlin' },
    u1: { id: 'u1', name: 'Citizen Spears' } } };
  assert.equal(unitName(state, 'u5'), 'Mageblight Gremlin (1)');
  assert.equal(unitName(state, 'u12'), 'Mageblight Gremlin (2)');
  assert.equal(unitName(state, 'u1'), 'Citizen Spears');
  assert.equal(unitName(state, 'u9'), 'u9');
});

test('a unit card counts models with plural rules and says wounds in the system word', async () => {
  const { unitStateWords, plural } = await import('../js/format.js');
  assert.equal(plural(1, 'model'), '1 model');
  assert.equal(unitStateWords({ models: 1, damage: 1 }).models, '1 model remaining');
  assert.equal(unitStateWords({ models: 5 }).models, '5 models remaining');
  // 40k and whfb8 say Wounds; only t9a's catalogue says Health Points.
  assert.equal(unitStateWords({ models: 1, damage: 1 }).damage, 'One model has lost 1 Wound');
  assert.equal(unitStateWords({ models: 1, damage: 2 }, 'Health Point').damage, 'One model has lost 2 Health Points');
  assert.equal(unitStateWords({ models: 3, damage: 0 }).damage, '');
});

test('40k Battle-shocked is a badge in words and on the table label, beside the number', async () => {
  const { markerBadges: badges, tableLabel } = await import('../js/format.js');
  const st = /** @type {any} */ ({
    units: { u1: { id: 'u1', name: 'Boyz', markers: [] }, u2: { id: 'u2', name: 'Boyz', markers: [] } },
    forty: { battle_shocked: ['u2'] },
  });
  assert.deepEqual(badges(st.units.u2, st), ['Battle-shocked']);
  assert.deepEqual(badges(st.units.u1, st), []);
  assert.equal(tableLabel(st, 'u2'), 'Boyz (2) · Battle-shocked');
  assert.equal(tableLabel(st, 'u1'), 'Boyz (1)');
});

test('the Units list says Battle-shocked too', async () => {
  const { unitLine } = await import('../js/ui/units.js');
  const st = /** @type {any} */ ({ units: { u2: { id: 'u2', name: 'Boyz', status: 'reserve', markers: [] } }, forty: { battle_shocked: ['u2'] } });
  assert.match(unitLine(st.units.u2, st), /Boyz: .*Battle-shocked/);
});
