import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  snapToEdge, toTable, placeOutline, outlineBox, turnPlacement, ambushVerdict, ambushEntries,
  spellTally, ambushOverlay, ambushRollWords,
} from '../js/view/ambush.js';
import { centreHandle, lightReform } from '../js/view/light.js';
import { AmbushTool } from '../js/handlers/ambush.js';
import { verdictText } from '../js/format.js';

const bf = { width: 72, depth: 48 };
const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('the pointer snaps to the nearest Battlefield Edge point, exactly on the edge', () => {
  assert.deepEqual(snapToEdge({ x: 20.04, y: 2 }, bf), { x: 20, y: 0, edge: 'near' });
  assert.deepEqual(snapToEdge({ x: 30.26, y: 45.5 }, bf), { x: 30.3, y: 48, edge: 'far' });
  assert.deepEqual(snapToEdge({ x: 1, y: 20 }, bf), { x: 0, y: 20, edge: 'left' });
  assert.deepEqual(snapToEdge({ x: 70.5, y: 20 }, bf), { x: 72, y: 20, edge: 'right' });
  // Off the table: clamped first, then onto the nearest edge.
  assert.deepEqual(snapToEdge({ x: -5, y: -3 }, bf), { x: 0, y: 0, edge: 'near' });
  assert.deepEqual(snapToEdge({ x: 80, y: 24 }, bf), { x: 72, y: 24, edge: 'right' });
  assert.deepEqual(snapToEdge({ x: 36, y: 60 }, bf), { x: 36, y: 48, edge: 'far' });
});

// Three 40 mm Gremlins with skirmish gaps: ~5.71 in wide, ~1.57 in deep; front edge at y = 0.
const W = (3 * 40 + 2 * 12.5) / 25.4;
const D = 40 / 25.4;
const outline = [[-W / 2, 0], [W / 2, 0], [W / 2, -D], [-W / 2, -D]];

test('the outline is placed by its front-edge centre and facing (counter-clockwise)', () => {
  const at = { x: 20, y: D, facing: 0 };
  const g = placeOutline(outline, at);
  assert.equal(g.type, 'Polygon');
  assert.equal(g.coordinates[0].length, 5); // closed
  const ys = g.coordinates[0].map((p) => p[1]);
  close(Math.min(...ys), 0);
  close(Math.max(...ys), D);
  // Facing 90 looks to -x: the unit's right (+x in its frame) points to +y.
  const [x, y] = toTable([1, 0], { x: 0, y: 0, facing: 90 });
  close(x, 0);
  close(y, 1);
  const box = outlineBox(outline, at);
  close(box.x, 20);
  close(box.y, D / 2);
  close(box.width, W);
  close(box.depth, D);
});

test('R turns the placement about the unit centre', () => {
  const at = { x: 20, y: D, facing: 0 };
  const turned = turnPlacement(at, 90, outline);
  assert.equal(turned.facing, 90);
  const before = outlineBox(outline, at);
  const after = outlineBox(outline, turned);
  close(after.x, before.x, 1e-3);
  close(after.y, before.y, 1e-3);
  assert.equal(turnPlacement({ x: 0, y: 0, facing: 350 }, 15, outline).facing, 5);
  assert.equal(turnPlacement({ x: 0, y: 0, facing: 5 }, -15, outline).facing, 350);
});

test('the server verdict in words: legal, snapped to the nearest, or no placement at all', () => {
  const legal = ambushVerdict({ requested: { legal: true, rule: null, corners_within: 4, placement: { x: 20, y: 2, facing: 0 }, region: { type: 'Polygon', coordinates: [] } }, nearest: { x: 20, y: 2, facing: 0 } });
  assert.equal(legal.verdict, 'legal');
  assert.equal(legal.snapped, false);
  assert.deepEqual(legal.placement, { x: 20, y: 2, facing: 0 });
  assert.match(legal.text, /4 of 4 corners within 6 in/);

  const snapped = ambushVerdict({ requested: { legal: false, rule: 'Ambush: 3 of 4 corners within 6 in', obstacle: null, placement: { x: 20, y: 9, facing: 0 } }, nearest: { x: 20, y: 5.5, facing: 0 } });
  assert.equal(snapped.verdict, 'legal');
  assert.equal(snapped.snapped, true);
  assert.deepEqual(snapped.placement, { x: 20, y: 5.5, facing: 0 });
  assert.deepEqual(snapped.requested, { x: 20, y: 9, facing: 0 });
  assert.match(snapped.text, /nearest valid placement \(Ambush: 3 of 4 corners within 6 in\)/);

  const none = ambushVerdict({ requested: { legal: false, rule: 'Ambush: nothing between the Unit Boundary and the chosen point', obstacle: 'u7', obstacle_name: 'Citizen Spears (2)', placement: { x: 40, y: 2, facing: 0 } }, nearest: null });
  assert.equal(none.verdict, 'illegal');
  assert.equal(none.placement, null);
  assert.deepEqual(none.shown, { x: 40, y: 2, facing: 0 });
  assert.equal(none.text, 'Ambush: nothing between the Unit Boundary and the chosen point (Citizen Spears (2) is in the way): no valid placement from this point');
});

test('the overlay shows the asked-for outline only when the ghost snapped away from it', () => {
  const base = { zone: { type: 'Polygon', coordinates: [] }, point: { x: 20, y: 0 }, fixed: true, outline };
  assert.equal(ambushOverlay(null), null);
  assert.equal(ambushOverlay({ ...base, point: null, requested: null, shown: null }), null);
  const same = ambushOverlay({ ...base, requested: { x: 20, y: 2, facing: 0 }, shown: { x: 20, y: 2, facing: 0 } });
  assert.equal(same?.requested, null);
  const apart = ambushOverlay({ ...base, requested: { x: 20, y: 9, facing: 0 }, shown: { x: 20, y: 5, facing: 0 } });
  assert.equal(apart?.requested.type, 'Polygon');
});

const roll = (faces, keep) => ({ expression: `D6 maximised x${faces.length - 1}`, dice: faces.map((f, i) => ({ face: f, kept: i === keep })), total: faces[keep] });

test('each unit in Ambush with its status and this turn\'s roll, from the state and the log', () => {
  const state = {
    turn: 2,
    ambush_hosts: { u6: 'u5' },
    units: {
      u5: { id: 'u5', owner: 1, name: 'Mageblight Gremlin', status: 'ambush', markers: ['ambush_ready'] },
      u6: { id: 'u6', owner: 1, name: 'Daemon Stalker', status: 'ambush', markers: [] },
      u7: { id: 'u7', owner: 1, name: 'Other Gremlins', status: 'ambush', markers: [] },
      u8: { id: 'u8', owner: 1, name: 'Waiting', status: 'ambush', markers: [] },
      u1: { id: 'u1', owner: 2, name: 'Spears', status: 'on_table', markers: [] },
    },
  };
  const history = [
    { seq: 40, type: 'ambush_rolled', payload: { unit: 'u5', player_turn: 2, arrives: true, automatic: false, maximised: 2, needed: 3, roll: roll([2, 5, 1], 1) } },
    { seq: 41, type: 'ambush_rolled', payload: { unit: 'u7', player_turn: 2, arrives: false, automatic: false, maximised: 0, needed: 3, roll: { expression: 'D6', dice: [{ face: 2, kept: true }], total: 2 } } },
    { seq: 12, type: 'ambush_rolled', payload: { unit: 'u8', player_turn: 1, arrives: false, automatic: false, roll: null } },
  ];
  const byId = Object.fromEntries(ambushEntries(state, history).map((e) => [e.id, e]));
  assert.deepEqual(Object.keys(byId).sort(), ['u5', 'u6', 'u7', 'u8']);
  assert.equal(byId.u5.status, 'rolled to arrive');
  assert.equal(byId.u5.ready, true);
  assert.equal(byId.u5.detail, 'rolled 5 (Maximised x2: kept 5, discarded 2, 1), needs 3+');
  assert.deepEqual(byId.u5.riders, ['Daemon Stalker']);
  assert.equal(byId.u6.host, 'u5');
  assert.equal(byId.u6.detail, 'with Mageblight Gremlin');
  assert.equal(byId.u7.status, 'stays in Ambush');
  assert.equal(byId.u7.detail, 'rolled 2, needs 3+');
  assert.equal(byId.u8.status, 'in Ambush'); // last turn's roll is not this turn's
  assert.equal(byId.u8.detail, '');

  const automatic = ambushEntries({ ...state, turn: 5 }, [{ seq: 90, type: 'ambush_rolled', payload: { unit: 'u8', player_turn: 5, arrives: true, automatic: true } }]);
  assert.equal(automatic.find((e) => e.id === 'u8')?.detail, 'Player Turn 5: counts as a 3+');
  // Rolled to arrive, but no suitable point on the edge: it stays this turn.
  const stuck = ambushEntries({ ...state, units: { ...state.units, u5: { ...state.units.u5, markers: [] } } },
    [...history, { seq: 50, type: 'ambush_delayed', payload: { unit: 'u5' } }]).find((e) => e.id === 'u5');
  assert.equal(stuck?.status, 'stays in Ambush');
  assert.equal(stuck?.detail, 'no suitable point on the Battlefield Edge this turn');
  assert.equal(ambushRollWords({ roll: null }), '?');
});

test('a unit kept off the table by Entombed Beneath the Sands (whfb8, seed 002) says so, not Ambush', () => {
  const state = { turn: 2, units: { u1: { id: 'u1', owner: 1, name: 'Tomb Swarm', status: 'ambush', markers: [] } } };
  const kept = { seq: 7, type: 'unit_deployed', payload: { unit: { id: 'u1', status: 'ambush' }, rule: 'Entombed Beneath the Sands' } };
  assert.equal(ambushEntries(state, [kept])[0].status, 'Entombed Beneath the Sands');
  const stays = { seq: 30, type: 'ambush_rolled', payload: { unit: 'u1', player_turn: 2, arrives: false, automatic: false, needed: 3, roll: { expression: 'D6', dice: [{ face: 1, kept: true }], total: 1 } } };
  assert.equal(ambushEntries(state, [kept, stays])[0].status, 'stays off the table (Entombed Beneath the Sands)');
  // t9a's Ambush keeps its words.
  const ambush = { ...kept, payload: { ...kept.payload, rule: 'Ambush' } };
  assert.equal(ambushEntries(state, [ambush])[0].status, 'in Ambush');
});

test('this Magic Phase\'s tally: successes from the state record, attempts from the log', () => {
  const state = { player_turn: 2, magic: { 2: { 2: 2 } } };
  const history = [
    { seq: 30, type: 'spell_cast', payload: { seat: 2, player_turn: 2, spell: 'Fireball', outcome: 'success', caster: null } },
    { seq: 31, type: 'spell_cast', payload: { seat: 2, player_turn: 2, spell: 'Hex', outcome: 'failure', caster: 'u2' } },
    { seq: 32, type: 'spell_cast', payload: { seat: 2, player_turn: 2, spell: 'Bolt', outcome: 'success', caster: null } },
    { seq: 9, type: 'spell_cast', payload: { seat: 1, player_turn: 1, spell: 'Old', outcome: 'success' } },
  ];
  const t = spellTally(state, history, 2);
  assert.equal(t.cast, 2);
  assert.equal(t.failed, 1);
  assert.deepEqual(t.spells.map((s) => s.spell), ['Fireball', 'Hex', 'Bolt']);
  assert.deepEqual(spellTally(state, history, 1), { cast: 0, failed: 0, spells: [] });
});

test('Light Troops: the centre handle, and a reform with a moved centre', () => {
  const ring = [[0, 0], [6, 0], [6, 2], [0, 2], [0, 0]];
  const frame = { fl: [0, 2], fr: [6, 2], rl: [0, 0], rr: [6, 0], centre: [3, 1], facing: 0, width: 6, depth: 2, geometry: { type: 'Polygon', coordinates: [ring] } };
  const h = centreHandle(/** @type {any} */ (frame));
  assert.deepEqual([h.kind, h.x, h.y], ['move', 3, 1]);
  const unit = { id: 'u5', files: 3 };
  const r = lightReform(/** @type {any} */ (frame), [3, 1], [9, 1], unit, 0, 'advance');
  assert.deepEqual(r.action, { type: 'move_unit', unit: 'u5', manoeuvre: 'reform', mode: 'advance', files: 3, facing: 0, centre: [9, 1] });
  assert.deepEqual(r.geometry.coordinates[0][0], [6, 0]);
  assert.equal(r.label, 'Reform, centre moved 6.0 in');
  const turned = lightReform(/** @type {any} */ (frame), [3, 1], [3, 1], unit, 90, 'advance');
  assert.equal(turned.action?.facing, 90);
  assert.equal(lightReform(/** @type {any} */ (frame), [3, 1], [3.01, 1], unit, 0, 'advance').action, null);
});

test('the ambush tool is one handler with its hooks; a March is named', () => {
  const own = Object.getOwnPropertyNames(AmbushTool.prototype);
  for (const hook of ['addHooks', 'removeHooks', 'tap', 'hover', 'dragStart', 'dragMove', 'dragEnd', 'dragCancel', 'command', 'frame', 'hint', 'layers']) {
    assert.ok(own.includes(hook), hook);
  }
  assert.match(verdictText({ legal: true, counts_as_march: true, used: 6, allowance: 10 }), /^Legal, counts as a March · used 6.0 \/ 10.0 in$/);
  assert.match(verdictText({ legal: true, counts_as_march: false, used: 3, allowance: 10 }), /^Legal · used/);
});
