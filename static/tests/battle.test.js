import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe } from '../js/ui/describe.js';
import { boundaryOf, translateGeometry } from '../js/view/manoeuvre.js';
import { verdictText } from '../js/format.js';

const units = { u1: { name: 'Knights' }, u2: { name: 'Goblins' } };
const roll = { expression: '2D6', dice: [{ face: 2, kept: true }, { face: 2, kept: true }], total: 4 };

test('charges in words, with unit names, the roll and why', () => {
  assert.equal(
    describe({ seq: 1, type: 'charge_failed', actor: 1, payload: { unit: 'u1', target: 'u2', roll, bonus: 5, range: 9, distance: 26, reason: 'rolled 9, needed 26.0' } }, { units }),
    'Player 1: Knights charged Goblins: charge failed (rolled 2D6: 2 2 = 4 +5 = 9, needed 26.0 in)',
  );
  assert.equal(
    describe({ seq: 2, type: 'charge_failed', actor: 1, payload: { unit: 'u1', target: 'u2', roll, distance: 3, reason: 'Impassable Terrain (Farmhouse is in the way)' } }, { units }),
    'Player 1: Knights charged Goblins: charge failed (rolled 2D6: 2 2 = 4, needed 3.0 in) — Impassable Terrain (Farmhouse is in the way)',
  );
  assert.match(describe({ seq: 3, type: 'charge_succeeded', actor: 2, payload: { unit: 'u2', target: 'u1', roll, distance: 3 } }, { units }), /^Player 2: Goblins charged Knights: charge succeeded/);
});

test('a unit outline from its footprint, moved', () => {
  const geometry = { type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 1], [0, 1], [0, 0]]] };
  const unit = { placement: { x: 1, y: 1, facing: 0 }, footprint: { type: 'FeatureCollection', features: [{ geometry, properties: { role: 'boundary', centre: [1, 0.5], facing: 0 } }] } };
  const b = boundaryOf(unit);
  assert.deepEqual(b?.centre, [1, 0.5]);
  assert.deepEqual(translateGeometry(geometry, 1, 2).coordinates[0][0], [1, 2]);
  assert.equal(boundaryOf({ footprint: null }), null);
});

test('used and allowance in the verdict', () => {
  assert.equal(verdictText({ legal: true, distance: 4, used: 4, allowance: 5 }), 'Legal · used 4.0 / 5.0 in');
});

test('joined characters: who may join whom, and the army entry sent', async () => {
  const { joinable, armyEntry } = await import('../js/ui/battle.js');
  const sheets = [
    { id: 'boyz', character: false, can_join: false },
    { id: 'snaggas', character: false, can_join: false },
    { id: 'wurrboy', character: true, can_join: true, leads: ['snaggas'] },
    { id: 'herald', character: true, can_join: true, leads: [] },
  ];
  // The server's army rules (GET /api/systems/{id}/datasheets: `joinable`), read as they are.
  const rules = { snaggas: ['wurrboy'], boyz: [] };
  assert.deepEqual(joinable(rules, sheets, sheets[1]).map((s) => s.id), ['wurrboy']);
  assert.deepEqual(joinable(rules, sheets, sheets[0]), []);
  assert.deepEqual(joinable({ boyz: ['wurrboy', 'herald'] }, sheets, sheets[0]).map((s) => s.id), ['wurrboy', 'herald']);
  assert.deepEqual(joinable(rules, sheets, sheets[3]), []);
  assert.deepEqual(armyEntry({ datasheet: 'snaggas', models: 10, joined: [{ id: 'wurrboy' }] }), { datasheet: 'snaggas', models: 10, joined_characters: ['wurrboy'] });
  assert.deepEqual(armyEntry({ datasheet: 'boyz', models: 10, joined: [] }), { datasheet: 'boyz', models: 10 });
  assert.deepEqual(armyEntry({ datasheet: 'spears', models: 20, joined: [], standard: true }), { datasheet: 'spears', models: 20, standard: true });
});

test('an order refused for the unit as a whole is not a control; one refused in a part is (issue 19 item 5)', async () => {
  const { wholeOrder } = await import('../js/ui/offers.js');
  assert.equal(wholeOrder(null), false);
  assert.equal(wholeOrder({ action: 'move_unit', available: true, reason: null }), true);
  // Engaged: refused with no modes: one line saying why, no Wheel or March buttons.
  assert.equal(wholeOrder({ action: 'move_unit', available: false, reason: 'Spears are engaged in combat and cannot move' }), false);
  // Refused in a part (the modes are listed): the controls stay, disabled with the reason.
  assert.equal(wholeOrder({ action: 'move_unit', available: false, reason: 'x', modes: { advance: { available: false } } }), true);
  // A charger that may not charge at all (already charged, engaged): no targets listed.
  assert.equal(wholeOrder({ action: 'declare_charge', available: false, reason: 'Spears are Engaged', targets: [] }), false);
  // Every target out of reach: the Charge button stays, saying why.
  assert.equal(wholeOrder({ action: 'declare_charge', available: false, reason: 'no enemy unit can be charged from here', targets: [{ unit: 'u3', available: false }] }), true);
});
