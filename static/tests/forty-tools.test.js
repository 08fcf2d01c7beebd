// The 40k tools on a real Table (fakes.js): Charge… targets, the Charge move's "Move all
// towards the target", the arrival from Reserves (issue 16 item 6). The server's orders are
// given as it words them; what is sent is checked, not judged (the server judges).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fakeTable } from './fakes.js';

const R = 16 / 25.4;
/** A 40k unit with round bases at `positions` (its footprint as the server projects it). */
function unit(id, owner, name, positions) {
  const ring = (/** @type {number[]} */ [x, y]) => Array.from({ length: 9 }, (_, k) => [x + R * Math.cos(k * Math.PI / 4), y + R * Math.sin(k * Math.PI / 4)]);
  return {
    id, owner, name, status: 'on_table', placement: null, models: positions.length, characters: [], positions,
    footprint: { type: 'FeatureCollection', features: positions.map((p, index) => ({ type: 'Feature', properties: { role: 'model', index }, geometry: { type: 'Polygon', coordinates: [ring(p)] } })) },
  };
}

function chargeState(orders) {
  return {
    battlefield: { width: 60, depth: 44 }, stage: 'battle', phase: 'Charge', active_player: 1, tokens: {},
    units: {
      u1: unit('u1', 1, 'Boyz', [[10, 10], [12, 10]]),
      u2: unit('u2', 2, 'Intercessor Squad', [[10, 14], [12, 14]]),
      u3: unit('u3', 2, 'Intercessor Squad (2)', [[40, 14]]),
    },
    orders: { seat: 1, game: {}, units: { u1: orders } },
  };
}

test('Charge…: targets picked from the offer (a refused one says why), then `charge` with all of them', () => {
  const table = fakeTable({ state: chargeState({ charge: { action: 'charge', available: true, reason: null, targets: [
    { unit: 'u2', available: true, reason: null, distance: 2.7 },
    { unit: 'u3', available: false, reason: 'Intercessor Squad (2) is 28 in away; charges are declared within 12 in', distance: 28 },
  ] } }) });
  table.select('u1');
  table.setMode('forty_charge');
  const tool = table.tools.forty_charge;
  assert.equal(tool.unit, 'u1');
  tool.pickPiece('u3');
  assert.deepEqual(tool.picked, []);
  assert.match(table.toasts.at(-1) || '', /charges are declared within 12 in/);
  tool.pickPiece('u2');
  assert.deepEqual(tool.picked, ['u2']);
  assert.ok(table.tool?.hint().includes('Intercessor Squad'));
  table.command('confirm');
  assert.deepEqual(table.asked.at(-1), { type: 'act', body: { type: 'charge', unit: 'u1', targets: ['u2'] } });
  tool.toggle('u2');
  assert.deepEqual(tool.picked, [], 'a second click drops the target');
});

test('the Charge move: "Move all towards the target" stages a charge_move the server previews', () => {
  const table = fakeTable({ state: chargeState({ charge_move: { action: 'charge_move', available: true, reason: null, targets: ['u2'], range: 7 } }) });
  table.tools.charge_move.towards('u1');
  assert.equal(table.mode, 'charge_move');
  const g = table.moves.ghost;
  assert.equal(g?.phase, 'staged');
  assert.equal(g?.action?.type, 'charge_move');
  // 4 in between centres, two bases: a gap of 2.74 in; the unit moves 2.738 in towards u2,
  // each model then in base contact with the one in front of it (core rules)
  assert.deepEqual(g?.action?.positions, [[10, 12.738], [12, 12.738]]);
  table.moves.flush();
  assert.deepEqual(table.asked.at(-1)?.type, 'preview');
  table.command('confirm');
  assert.deepEqual(table.asked.at(-1), { type: 'act', body: { type: 'charge_move', unit: 'u1', positions: [[10, 12.738], [12, 12.738]] } });
});

test('Arrive: the models set down around the point, sent as positions (the ghost is what is judged)', async () => {
  const st = chargeState({});
  st.phase = 'Movement';
  st.units.u4 = { id: 'u4', owner: 1, name: 'Wurrboy', datasheet: 'wurrboy', status: 'reserve', models: 1, characters: [], positions: [], footprint: null };
  st.orders.units = { u4: { arrive_from_reserves: { action: 'arrive_from_reserves', available: true, reason: null, rule: 'Strategic Reserves', where: 'near an edge' } } };
  const table = fakeTable({ state: st });
  const tool = table.tools.arrive;
  table.setMode('arrive');
  tool.unit = 'u4';
  tool.base = { round: true, width: 32 / 25.4, depth: 32 / 25.4 };
  const p = tool.place({ x: 3, y: 20 }, 'placing');
  assert.deepEqual(p?.action, { type: 'arrive_from_reserves', unit: 'u4', positions: [[3, 20]] });
  assert.equal(table.moves.ghost?.action?.type, 'arrive_from_reserves');
  void tool.arriveAt({ x: 3, y: 20 });
  assert.deepEqual(table.asked.at(-1), { type: 'act', body: { type: 'arrive_from_reserves', unit: 'u4', positions: [[3, 20]] } });
});

test('a typed move from the keyboard: every model the same distance the way chosen, staged, then Confirm sends move_models', async () => {
  const { stageModelMove, modelMoveVector } = await import('../js/ui/typed.js');
  assert.deepEqual(modelMoveVector('away', 3, 1), [0, 3]);
  assert.deepEqual(modelMoveVector('away', 3, 2), [0, -3]);  // seat 2 sees the table turned
  assert.deepEqual(modelMoveVector('left', 2, 1), [-2, 0]);
  assert.deepEqual(modelMoveVector('away-right', Math.SQRT2, 1), [1, 1]);
  const state = chargeState({ move_models: { action: 'move_models', available: true, reason: null, allowance: 6 } });
  state.phase = 'Movement';
  const table = fakeTable({ state });
  table.select('u1');
  const u1 = table.store.state.units.u1;
  stageModelMove(table, u1, 'right', 2.5);
  stageModelMove(table, u1, 'away', 1);  // adds to what is staged
  const g = table.moves.ghost;
  assert.equal(g?.phase, 'staged');
  assert.deepEqual(g?.positions, [[12.5, 11], [14.5, 11]]);
  table.moves.confirmStaged();
  assert.deepEqual(table.asked.at(-1), { type: 'act', body: { type: 'move_models', unit: 'u1', positions: [[12.5, 11], [14.5, 11]] } });
});
