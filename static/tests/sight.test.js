import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sightOf } from '../js/view/sight.js';

const boundary = { type: 'Feature', properties: { role: 'boundary' }, geometry: { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 2], [0, 2], [0, 0]]] } };
const state = {
  units: { u1: { name: 'Citizen Archers' }, u3: { name: 'Citizen Spears', footprint: { features: [boundary] } }, u4: { name: 'Citizen Spears (2)' } },
  orders: {
    seat: 1, game: {},
    units: {
      u1: {
        shoot: {
          action: 'shoot', available: true, reason: null,
          weapons: [{ name: 'Bow', range: 24, area: { type: 'Polygon', coordinates: [] } }, { name: 'Longbow', range: 30, area: null }],
          targets: [
            { unit: 'u4', available: false, reason: "Citizen Spears (2) is not in Citizen Archers' front arc and line of sight", weapons: [], distance: 12.04, seen: null, cover: null },
            { unit: 'u3', available: true, reason: null, weapons: ['Longbow'], distance: 22, seen: 0.82, cover: 'soft' },
          ],
        },
      },
    },
  },
};

test("a shooter's sight from the server's shoot order: weapons longest first, targets it may shoot first, in words (issue 19 item 7)", () => {
  const s = sightOf(state, 'u1');
  assert.ok(s);
  assert.deepEqual(s.weapons.map((w) => w.name), ['Longbow', 'Bow']);
  assert.deepEqual(s.targets.map((t) => [t.unit, t.ok]), [['u3', true], ['u4', false]]);
  assert.equal(s.targets[0].text, '✓ 22.0 in · partly visible (82 %) · soft cover · with Longbow');
  assert.equal(s.targets[0].rings.length, 1);
  assert.equal(s.targets[1].text, "✗ 12.0 in · Citizen Spears (2) is not in Citizen Archers' front arc and line of sight");
  assert.equal(s.targets[1].rings.length, 0);
});

test('no sight without a shoot order (not the Shooting phase, no shooter selected)', () => {
  assert.equal(sightOf(state, 'u3'), null);
  assert.equal(sightOf(state, null), null);
  assert.equal(sightOf({}, 'u1'), null);
});
