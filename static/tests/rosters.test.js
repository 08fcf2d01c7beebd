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

test('a mapped unit lists what its upgrades changed and what was not applied, with why', async () => {
  const { upgradeLines } = await import('../js/ui/rosters.js');
  const lines = upgradeLines({
    changes: [{ what: 'Str (Commander)', was: '4', now: '6', source: 'Great Weapon' },
      { what: 'shooting weapon', was: '', now: 'Bow 24" Str 3 AP 0 Aim 3+', source: 'Bow (3+)' }],
    on_datasheet: ['Heavy Armour'],
    not_applied: [{ name: 'Talisman of the Tides', reason: 'prints no characteristic this table applies' }],
    rules_as_text: ['Bow: Volley Fire'],
  });
  assert.deepEqual(lines, [
    'changed: Str (Commander) 4 → 6 (Great Weapon)',
    'changed: shooting weapon + Bow 24" Str 3 AP 0 Aim 3+ (Bow (3+))',
    'on the datasheet already: Heavy Armour',
    'not applied: Talisman of the Tides: prints no characteristic this table applies',
    'kept as text, not automated: Bow: Volley Fire',
  ]);
  assert.deepEqual(upgradeLines({}), []);
});

test('a card names the changes a roster made to a catalogue unit', async () => {
  const { changeLines } = await import('../js/ui/card.js');
  assert.deepEqual(changeLines({ based_on: 'citizen-archers', changes: [
    { what: 'equipment', was: '', now: 'Shield', source: 'Shield' },
    { what: 'Arm', was: '0', now: '1', source: 'Sea Armour' }] }),
  ['equipment: + Shield (Shield)', 'Arm: 0 → 1 (Sea Armour)']);
  assert.deepEqual(changeLines({ id: 'boyz' }), []);
});
