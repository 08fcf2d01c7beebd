import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Handler, Tool } from '../js/handlers/handler.js';
import { SharedMeasures } from '../js/handlers/measure.js';
import { fakeTable, screenAt } from './fakes.js';

// A token of seat 1 at (10, 10) and one of seat 2 at (40, 20); a 2 x 1 in rectangle each.
const state = () => ({
  battlefield: { width: 72, depth: 48 },
  stage: 'setup',
  units: {},
  tokens: {
    t1: { id: 't1', owner: 1, label: 'Tower', x: 10, y: 10, facing: 0, width: 2, depth: 1 },
    t2: { id: 't2', owner: 2, label: 'Well', x: 40, y: 20, facing: 0, width: 2, depth: 1 },
  },
});

test('a handler adds its hooks once per enable and removes them once per disable', () => {
  const calls = /** @type {string[]} */ ([]);
  class Probe extends Handler {
    addHooks() { calls.push('add'); }
    removeHooks() { calls.push('remove'); }
  }
  const h = new Probe(fakeTable());
  assert.equal(h.enabled, false);
  assert.equal(h.enable(), h);
  h.enable();
  assert.equal(h.enabled, true);
  h.disable();
  h.disable();
  assert.equal(h.enabled, false);
  h.enable();
  assert.deepEqual(calls, ['add', 'remove', 'add']);
});

test('the idle handlers are enabled at first and no tool is', () => {
  const table = fakeTable();
  assert.equal(table.mode, 'idle');
  for (const [name, h] of Object.entries(table.handlers)) assert.equal(h.enabled, true, name);
  for (const [name, tool] of Object.entries(table.tools)) assert.equal(tool.enabled, false, name);
  assert.deepEqual(table.active, Object.values(table.handlers));
});

test('picking a tool enables only that tool and disables the idle handlers; idle enables them again', () => {
  const table = fakeTable();
  table.setMode('measure');
  assert.equal(table.tool, table.tools.measure);
  assert.deepEqual(table.active, [table.tools.measure]);
  for (const [name, tool] of Object.entries(table.tools)) assert.equal(tool.enabled, name === 'measure', name);
  for (const [name, h] of Object.entries(table.handlers)) assert.equal(h.enabled, false, name);
  table.setMode('los');
  assert.equal(table.tools.measure.enabled, false);
  assert.equal(table.tools.los.enabled, true);
  table.setMode('idle');
  assert.equal(table.tool, null);
  for (const [name, tool] of Object.entries(table.tools)) assert.equal(tool.enabled, false, name);
  for (const [name, h] of Object.entries(table.handlers)) assert.equal(h.enabled, true, name);
});

test('a click goes to the enabled handlers only: idle selects, the Measure tool measures from the piece', () => {
  const table = fakeTable({ state: state() });
  table.tap(screenAt(table, 10, 10));
  assert.equal(table.selected, 't1');
  table.tap(screenAt(table, 60, 40));
  assert.equal(table.selected, null);
  table.setMode('measure');
  table.tap(screenAt(table, 40, 20));
  assert.equal(table.selected, null, 'the disabled Select handler did not take the click');
  assert.equal(table.tools.measure.measure?.from, 't2');
  table.tap(screenAt(table, 10, 10));
  assert.equal(table.tools.measure.measure?.to, 't1');
  table.frame(0);
  assert.deepEqual(table.asked.at(-1), { type: 'measure', body: { from: 't2', to: 't1', share: true } });
});

test('a drag goes to the first enabled handler that takes it; picking a tool mid-drag lets go of it', () => {
  const table = fakeTable({ state: state() });
  assert.equal(table.dragStart(screenAt(table, 40, 20)), false, "another seat's token pans");
  assert.equal(table.dragStart(screenAt(table, 10, 10)), true);
  assert.equal(table.dragger, table.handlers.tokens);
  assert.equal(table.ghost?.id, 't1');
  table.setMode('measure');
  assert.equal(table.dragger, null);
  assert.equal(table.handlers.tokens.drag, null, 'the disabled handler dropped its drag');
  assert.equal(table.ghost, null);
});

test('a token dragged and released is sent as move_token; the ghost waits for the event', () => {
  const table = fakeTable({ state: state() });
  table.dragStart(screenAt(table, 10, 10));
  const to = screenAt(table, 12, 15);
  table.dragger?.dragMove(table.world(to));
  table.frame(0);
  assert.equal(table.asked.at(-1)?.type, 'preview');
  table.dragEnd();
  const sent = table.asked.at(-1);
  assert.equal(sent?.type, 'act');
  assert.equal(sent?.body.type, 'move_token');
  assert.equal(sent?.body.id, 't1');
  assert.ok(Math.abs(sent?.body.x - 12) < 0.1 && Math.abs(sent?.body.y - 15) < 0.1);
  assert.equal(table.ghost?.phase, 'committing');
  assert.equal(table.dragger, null);
});

test('disabling a tool drops its state: Deploy forgets its unit, Terrain its draft', () => {
  const table = fakeTable({ state: state() });
  table.tools.deploy.start('u1');
  assert.equal(table.mode, 'deploy');
  assert.equal(table.tools.deploy.unit, 'u1');
  table.setMode('idle');
  assert.equal(table.tools.deploy.unit, null);
  table.setMode('terrain');
  table.tap(screenAt(table, 5, 5));
  assert.equal(table.tools.terrain.draft?.points.length, 1);
  table.command('cancel');
  assert.equal(table.mode, 'idle');
  assert.equal(table.tools.terrain.draft, null);
});

test('a measurement outlives its tool until Esc; entering Line of sight takes it off', () => {
  const table = fakeTable({ state: state() });
  table.setMode('measure');
  table.tap(screenAt(table, 10, 10));
  table.setMode('idle');
  assert.equal(table.measure?.from, 't1', 'still drawn after the tool is left');
  table.setMode('los');
  assert.equal(table.measure, null);
  assert.equal(table.los?.viewer, null);
  table.command('cancel');
  assert.equal(table.los, null);
  assert.equal(table.mode, 'idle');
});

test('shared measures are listened to only while enabled', () => {
  const table = fakeTable();
  const shared = new SharedMeasures(table);
  assert.equal(table.overlayListeners.size, 0);
  shared.enable();
  assert.equal(table.overlayListeners.size, 1);
  for (const fn of table.overlayListeners) fn({ kind: 'measure', points: [[0, 0], [3, 4]], seat: 2, distance: 5 });
  assert.equal(shared.overlays.length, 1);
  assert.equal(shared.overlays[0].label, 'P2: 5.0 in');
  shared.disable();
  assert.equal(table.overlayListeners.size, 0);
  assert.equal(shared.overlays.length, 0);
  shared.add({ kind: 'measure', points: [[0, 0], [1, 1]], seat: 1, distance: 1.4 });
  assert.equal(shared.overlays.length, 0, 'a disabled handler ignores what arrives');
});

test('a tool has a hint and the crosshair; R in a tool without its own turn still turns the selected token', () => {
  const table = fakeTable({ state: state() });
  const tool = table.tools.measure;
  assert.ok(tool instanceof Tool);
  assert.equal(tool.cursor(), 'crosshair');
  table.select('t1');
  table.setMode('measure');
  table.command('rotate', {});
  const sent = table.asked.at(-1);
  assert.equal(sent?.type, 'act');
  assert.deepEqual(sent?.body, { type: 'move_token', id: 't1', x: 10, y: 10, facing: 45 });
});

/** A table whose connection answers each action when the test says: `answers[i](reply)`
 * acknowledges the i-th, `refusals[i](err)` refuses it. */
function turningTable() {
  const table = fakeTable({ state: state() });
  /** @type {((ack:any) => void)[]} */
  const answers = [];
  /** @type {((err:any) => void)[]} */
  const refusals = [];
  const acts = /** @type {any[]} */ ([]);
  table.conn.act = (/** @type {any} */ a) => {
    acts.push(a);
    return new Promise((resolve, reject) => { answers.push(resolve); refusals.push(reject); });
  };
  /** The store takes the batch of a turn to `facing` (what the server's event does). @param {number} seq @param {number} facing */
  const arrive = (seq, facing) => {
    table.store.seq = seq;
    table.store.state.tokens.t1.facing = facing;
    table.store.emit(/** @type {any} */ ({ kind: 'events' }));
  };
  table.select('t1');
  return { table, acts, answers, refusals, arrive };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

test('R pressed again before the last turn is back waits for it, and the turns pressed meanwhile go as one', async () => {
  const { table, acts, answers, arrive } = turningTable();
  table.command('rotate', {});
  table.command('rotate', {});
  table.command('rotate', {});
  assert.deepEqual(acts.map((a) => a.facing), [45], 'one action at a time (each carries the seq it was made from)');
  answers[0]({ type: 'ack', seq: 1 });
  await settle();
  assert.equal(acts.length, 1, 'acknowledged is not enough: the turn waits for its own event');
  arrive(1, 45);
  await settle();
  assert.deepEqual(acts.map((a) => a.facing), [45, 135], 'the two queued turns, from the facing the store now has');
  answers[1]({ type: 'ack', seq: 2 });
  arrive(2, 135);
  await settle();
  table.command('rotateBack', {});
  assert.equal(acts.at(-1).facing, 90, 'nothing in flight: the next R goes at once');
});

test('a refused turn drops the turns queued after it; the next R turns from the token as the store has it', async () => {
  const { table, acts, refusals } = turningTable();
  table.command('rotate', {});
  table.command('rotate', {});
  refusals[0]({ code: 'stale', message: 'The table changed.' });
  await settle();
  assert.deepEqual(acts.map((a) => a.facing), [45]);
  assert.equal(table.toasts.length, 1);
  table.command('rotate', {});
  assert.deepEqual(acts.map((a) => a.facing), [45, 45]);
});

test('turns that add up to a whole circle send nothing', async () => {
  const { table, acts, answers, arrive } = turningTable();
  table.command('rotate', {});
  table.command('rotate', {});
  table.command('rotateBack', {});
  answers[0]({ type: 'ack', seq: 1 });
  arrive(1, 45);
  await settle();
  assert.deepEqual(acts.map((a) => a.facing), [45]);
  table.command('rotate', {});
  assert.equal(acts.at(-1).facing, 90);
});
