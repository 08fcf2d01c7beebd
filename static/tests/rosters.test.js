import { test } from 'node:test';
import assert from 'node:assert/strict';
import { armyFile, ARMY_FORMAT, ARMY_VERSION } from '../js/ui/rosters.js';
import { armyEntry, builderEntry } from '../js/ui/battle.js';

test('an imported entry goes through the builder and back to the same submit_army entry', () => {
  const sheets = [{ id: 'night-goblins', name: 'Night Goblins' }, { id: 'tomb-king', name: 'Tomb King' }];
  const imported = [
    { datasheet: 'night-goblins', models: 30, concealed: { 'night-goblin-fanatic': 2 }, standard: true },
    { datasheet: 'skeleton-warriors', models: 20, files: 5, joined_characters: ['tomb-king'], battle_standard: true },
  ];
  const builder = imported.map((e) => builderEntry(e, sheets));
  assert.equal(builder[0].name, 'Night Goblins');
  assert.deepEqual(builder[1].joined, [{ id: 'tomb-king', name: 'Tomb King' }]);
  assert.deepEqual(builder.map(armyEntry), imported);
});

test('the army file is the units list with format, version and system (as the server writes it)', () => {
  const units = [{ datasheet: 'boyz', models: 10 }];
  assert.deepEqual(JSON.parse(armyFile('wh40k10', units)), { format: ARMY_FORMAT, version: ARMY_VERSION, system: 'wh40k10', units });
  assert.equal(ARMY_FORMAT, 'warfield-army');
});
