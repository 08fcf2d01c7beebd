import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargePreviewLines } from '../js/ui/charge-preview.js';
import { ORDER_WORDS, rollList } from '../js/ui/order-words.js';
import { describe } from '../js/ui/describe.js';

const state = { units: { u1: { id: 'u1', name: 'Knights of Ryma', owner: 1 }, u4: { id: 'u4', name: 'Citizen Spears', owner: 2 } } };

test('a blocked charge path is a warning before anything is declared (issue 19 item 1)', () => {
  const verdict = {
    legal: true,
    explain: { unit: 'u1', target: 'u4', distance: 3, needed: 3, in_arc: true, in_sight: true, roll: '2D6 maximised x1 + 9', max_range: 21, wheel: 0, blocked: true, rule: 'Impassable Terrain', obstacle: 'ter1', obstacle_name: 'Farmhouse', reachable: false, failed_move: 'the Charge Range rolled' },
  };
  const w = chargePreviewLines(verdict, state);
  assert.equal(w.declarable, true);
  assert.equal(w.warning, 'Warning: the path is blocked by Farmhouse');
  const path = w.lines.find((l) => l.key === 'path');
  assert.equal(path?.ok, false);
  assert.match(String(path?.text), /^Path blocked: Impassable Terrain \(Farmhouse is in the way\)/);
  assert.equal(w.lines.find((l) => l.key === 'needed'), undefined);
  assert.ok(w.lines.every((l) => !/\bter1\b|\bu4\b/.test(l.text)));
});

test('a Fanatic in the path is a warning before declaring: the path is open but dangerous (seed 003)', () => {
  const said = 'Night Goblin Fanatic (1) is in the path: Empire Halberdiers would take 2D6 Strength 5 Armour Piercing (1) hits moving into it';
  const w = chargePreviewLines({ legal: true, explain: { target: 'u4', distance: 8, needed: 8, in_arc: true, in_sight: true, roll: '2D6 + 4', max_range: 16, wheel: 0, blocked: false, rule: null, hazards: [said], reachable: true } }, state);
  assert.equal(w.declarable, true);
  assert.equal(w.warning, `Warning: ${said}`);
  const path = w.lines.find((l) => l.key === 'path');
  assert.deepEqual([path?.ok, path?.text], [false, 'Path open but dangerous']);
  assert.deepEqual(w.lines.filter((l) => l.key === 'hazard').map((l) => [l.ok, l.text]), [[false, said]]);
});

test('a clear charge shows the distance needed, the wheel, and a refused one says why', () => {
  const clear = chargePreviewLines({ legal: true, explain: { target: 'u4', distance: 12, needed: 13.01, in_arc: true, in_sight: true, roll: '2D6 + 5', max_range: 17, wheel: -10, blocked: false, rule: null, reachable: true } }, state);
  assert.equal(clear.warning, null);
  assert.equal(clear.lines.find((l) => l.key === 'needed')?.text, 'Needs 13.0 in on 2D6 + 5 (at most 17 in)');
  assert.match(String(clear.lines.find((l) => l.key === 'path')?.text), /one 10° wheel to the right/);
  const far = chargePreviewLines({ legal: true, explain: { target: 'u4', distance: 20, needed: 20, roll: '2D6 + 5', max_range: 17, blocked: false, rule: null, reachable: false } }, state);
  assert.equal(far.warning, 'Warning: out of reach even on the highest roll');
  const refused = chargePreviewLines({ legal: false, message: 'Citizen Spears is not in the front arc', explain: { target: 'u4', in_arc: false, in_sight: false } }, state);
  assert.equal(refused.declarable, false);
  assert.equal(refused.warning, 'Cannot charge: Citizen Spears is not in the front arc');
});

test('the dice an undo discards and a re-roll are in the log (issue 19 item 2)', () => {
  const rolls = [{ unit_name: 'Knights of Ryma', expression: '2D6', faces: [3, 4], total: 7 }];
  assert.equal(rollList(rolls), 'Knights of Ryma: 2D6 [3, 4] = 7');
  assert.equal(ORDER_WORDS.events_undone({ proposal: 'p2', seqs: [10, 11], discarded: rolls }, /** @type {any} */ ({ actor: 1 })),
    'Undone by agreement: #10–#11, 2 events taken back; dice discarded: Knights of Ryma: 2D6 [3, 4] = 7');
  const ev = { seq: 14, type: 'charge_failed', actor: 1, payload: { unit: 'u1', target: 'u4', roll: { expression: '2D6', dice: [{ face: 2, kept: true }, { face: 1, kept: true }], total: 3 }, bonus: 9, range: 12, distance: 16.8, reason: 'rolled 12, needed 16.8', reroll: { of: 11, faces: [3, 4] }, failed_move: { distance: 12, rule: 'Failed Charge move: the Charge Range rolled (12 in)' } } };
  const line = describe(/** @type {any} */ (ev), /** @type {any} */ (state));
  assert.match(line, /moved 12\.0 in towards the target/);
  assert.match(line, /\(a re-roll: the undone roll was 3, 4\)$/);
});

test('a legal move into a Fanatic says the danger on the ghost before it is confirmed (seed 003)', async () => {
  const { verdictText } = await import('../js/format.js');
  const said = 'Night Goblin Fanatic (1) is in the path: Tomb Swarm would take 2D6 Strength 5 Armour Piercing (1) hits moving into it';
  assert.equal(verdictText({ legal: true, used: 3.7, allowance: 4, hazards: [said] }), `Legal · used 3.7 / 4.0 in · Danger: ${said}`);
  assert.equal(verdictText({ legal: true, used: 3.7, allowance: 4, hazards: [] }), 'Legal · used 3.7 / 4.0 in');
});
