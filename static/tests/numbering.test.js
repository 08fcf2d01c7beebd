// Two units of one name are numbered the same way wherever a player reads them (server/rules/
// naming.py numbers by id, numerically): the log, the Fanatics panel, the lists of who is
// engaged or in Ambush, not only the table labels and the Units list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe } from '../js/ui/describe.js';
import { fanaticMarks } from '../js/ui/fanatics.js';
import { engagedNames } from '../js/ui/units.js';
import { ambushEntries } from '../js/view/ambush.js';

const state = /** @type {any} */ ({
  units: {
    u12: { id: 'u12', name: 'Night Goblins', owner: 1, status: 'on_table' },
    u5: { id: 'u5', name: 'Night Goblins', owner: 1, status: 'on_table', engaged_with: 'u7' },
    u7: { id: 'u7', name: 'Empire Halberdiers', owner: 2, status: 'on_table', engaged_with: 'u12' },
  },
  concealed: { u12: 1 },
});

test('the log numbers a moved or deployed unit among same-named ones', () => {
  const moved = describe(/** @type {any} */ ({ seq: 4, type: 'unit_moved', actor: 1, payload: { unit: { id: 'u12', name: 'Night Goblins' }, distance: 4 } }), state);
  assert.match(moved, /moved Night Goblins \(2\): /);
  const deployed = describe(/** @type {any} */ ({ seq: 3, type: 'unit_deployed', actor: 1, payload: { unit: { id: 'u5', name: 'Night Goblins' } } }), state);
  assert.match(deployed, /deployed Night Goblins \(1\)/);
});

test('the Fanatics panel says which Night Goblins hide them', () => {
  assert.deepEqual(fanaticMarks(state), [{ unit: 'u12', text: 'Night Goblins (2): 1 hidden Fanatic (only you see this)' }]);
});

test('who a unit is engaged with and who rides in Ambush are numbered', () => {
  assert.deepEqual(engagedNames(state.units.u7, state), ['Night Goblins (2)', 'Night Goblins (1)']);
  const off = { ...state, units: { ...state.units, u12: { ...state.units.u12, status: 'ambush' } } };
  const names = ambushEntries(off, []).map((e) => e.name);
  assert.ok(names.includes('Night Goblins (2)'), names.join(', '));
});
