// Issue 24: the pure parts of the accessible table — the announcer's lines, the focus key
// that survives a re-render, the units list's words, the typed deploy spot, labels that fit
// without squeezing, terrain fills against the table, and the units list standing in for a
// click on the canvas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { announcements, MAX_LINES } from '../js/ui/announce.js';
import { focusKey } from '../js/ui/dom.js';
import { engagedNames, unitLine, unitGroups, pick } from '../js/ui/units.js';
import { zoneMiddle, stageStraightMove } from '../js/ui/typed.js';
import { fitLabel, fullLabels } from '../js/view/render.js';
import { TERRAIN_STYLES, TABLE_COLOR, contrast, rgb, shownFill } from '../js/view/terrain-style.js';
import { fakeTable } from './fakes.js';

/** @param {number} seq @param {string} type @param {any} payload @param {any} [actor] */
const ev = (seq, type, payload, actor = 1) => ({ seq, type, actor, payload });

test('each new event is announced once, in the game log words, oldest first', () => {
  const events = [ev(5, 'note_added', { text: 'hello' }), ev(4, 'seat_claimed', { seat: 2 }, 'system'), ev(3, 'note_added', { text: 'old' })];
  const first = announcements(events, 3, null);
  assert.equal(first.lines.length, 2);
  assert.equal(first.lines[0], 'Player 2 took their seat');
  assert.match(first.lines[1], /hello/);
  assert.equal(first.lastSeq, 5);
  // The same events again (a panel re-render, a resync) say nothing.
  assert.deepEqual(announcements(events, first.lastSeq, null), { lines: [], lastSeq: 5 });
});

test('a long batch is announced as its last lines with how many came before', () => {
  const events = Array.from({ length: MAX_LINES + 4 }, (_, i) => ev(10 + i, 'seat_claimed', { seat: 1 }, 'system'));
  const said = announcements(events, 9, null);
  assert.equal(said.lines.length, MAX_LINES + 1);
  assert.equal(said.lines[0], '4 earlier events, then:');
  assert.equal(said.lastSeq, 10 + MAX_LINES + 3);
});

test('a focused control is found again after a re-render by id, data, name or text', () => {
  assert.equal(focusKey({ tag: 'BUTTON', id: 'end-phase', dataset: { x: '1' } }), '#end-phase');
  assert.equal(focusKey({ tag: 'BUTTON', dataset: { reaction: 'hold' } }), 'button[reaction=hold]');
  assert.equal(focusKey({ tag: 'BUTTON', dataset: { pick: 'u1', b: '2' } }), 'button[b=2,pick=u1]');
  assert.equal(focusKey({ tag: 'INPUT', dataset: {}, name: 'typed-distance' }), 'input[name=typed-distance]');
  assert.equal(focusKey({ tag: 'BUTTON', dataset: {}, text: '  Wheel\n left ' }), 'button:Wheel left');
});

const battle = () => ({
  stage: 'battle',
  units: {
    u1: { id: 'u1', owner: 1, name: 'Citizen Spears', status: 'on_table', placement: { x: 20, y: 35, facing: 0 }, models: 20, files: 5, engaged_with: 'u3', markers: [] },
    u2: { id: 'u2', owner: 1, name: 'Archers', status: 'in_ambush', models: 10 },
    u3: { id: 'u3', owner: 2, name: 'Mageblight Gremlin', status: 'on_table', placement: { x: 20, y: 38, facing: 180 }, models: 3, markers: ['fleeing'] },
    u4: { id: 'u4', owner: 2, name: 'Squad', status: 'on_table', positions: [[10, 10], [12, 10]], models: 2 },
    u5: { id: 'u5', owner: 2, name: 'Gone', status: 'destroyed' },
  },
  tokens: { t1: { id: 't1', owner: 1, label: 'Tower', x: 5, y: 6, facing: 45, width: 2, depth: 1 } },
});

test('a unit in words: where it stands, facing, models, status, markers and its combat', () => {
  const st = battle();
  assert.equal(unitLine(st.units.u1, st), 'Citizen Spears: front at 20.0, 35.0 in, facing 0°, 20 models, 5 wide, on the table, engaged with Mageblight Gremlin');
  assert.equal(unitLine(st.units.u3, st), 'Mageblight Gremlin: front at 20.0, 38.0 in, facing 180°, 3 models, on the table, Fleeing');
  assert.equal(unitLine(st.units.u4, st), 'Squad: models around 11.0, 10.0 in, 2 models, on the table');
  assert.equal(unitLine(st.units.u2, st), 'Archers: 10 models, in ambush');
});

test('a charged unit is in combat too: the charger\'s link names it on both sides', () => {
  const st = battle();
  // u4 charged u1 (whfb8: Empire Halberdiers charge a Tomb Swarm): both say so.
  st.units.u4.engaged_with = 'u1';
  assert.deepEqual(engagedNames(st.units.u1, st), ['Mageblight Gremlin', 'Squad']);
  assert.deepEqual(engagedNames(st.units.u4, st), ['Citizen Spears']);
  // A fleeing unit names only the unit it charged; a fleeing charger is not named.
  assert.deepEqual(engagedNames(st.units.u3, st), []);
  st.units.u4.markers = ['fleeing'];
  assert.deepEqual(engagedNames(st.units.u1, st), ['Mageblight Gremlin']);
  assert.match(unitLine(st.units.u1, st), /engaged with Mageblight Gremlin$/);
});

test('a 40k unit is engaged with the units the server measured within Engagement Range, not its charge link', () => {
  const st = { ...battle(), forty: { cp: {}, vp: {}, engaged: { u1: [], u4: ['u3'] } } };
  // u1 still carries the link of its charge, but no model of it is within 1 in any more.
  assert.deepEqual(engagedNames(st.units.u1, st), []);
  assert.deepEqual(engagedNames(st.units.u4, st), ['Mageblight Gremlin']);
  assert.deepEqual(engagedNames(st.units.u2, st), []);
});

test('the units list groups yours, the opponent\'s and off the table (by player for a spectator)', () => {
  const st = battle();
  const mine = unitGroups(st, 1);
  assert.deepEqual(mine.map((g) => [g.title, g.entries.map((e) => e.id)]), [
    ['Your units', ['u1', 't1']], ["Opponent's units", ['u3', 'u4']], ['Off the table', ['u2']],
  ]);
  assert.match(mine[0].entries[1].line, /^Tower: token at 5\.0, 6\.0 in, facing 45°/);
  assert.deepEqual(unitGroups(st, 2).map((g) => g.title), ['Your units', "Opponent's units", 'Off the table']);
  assert.deepEqual(unitGroups(st, 2)[0].entries.map((e) => e.id), ['u3', 'u4']);
  assert.deepEqual(unitGroups(st, null).map((g) => g.title), ["Player 1's units", "Player 2's units", 'Off the table']);
});

test('a unit picked in the list is selected, or given to the tool that wants a unit', () => {
  const table = fakeTable({ state: { battlefield: { width: 72, depth: 48 }, ...battle() }, seat: 1 });
  pick(table, 'u1');
  assert.equal(table.selected, 'u1');
  table.setMode('charge');
  pick(table, 'u3');
  const asked = /** @type {any} */ (table.conn).asked;
  // The Charge tool first asks the server's preview of the charge (issue 19 item 1).
  assert.deepEqual(asked.at(-1), { type: 'preview', body: { type: 'declare_charge', unit: 'u1', target: 'u3' } });
  // The preview waits for Declare; Esc leaves the tool. Picked again outside a tool: the
  // selection toggles off.
  table.setMode('idle');
  pick(table, 'u1');
  assert.equal(table.selected, null);
});

test('the typed deploy spot starts in the middle of the seat\'s own zone', () => {
  const zone = (y0, y1) => ({ type: 'Polygon', coordinates: [[[0, y0], [72, y0], [72, y1], [0, y1], [0, y0]]] });
  const zones = [{ owner: 1, geometry: zone(0, 12) }, { owner: 2, geometry: zone(36, 48) }];
  assert.deepEqual(zoneMiddle(zones, 1), { x: 36, y: 6 });
  assert.deepEqual(zoneMiddle(zones, 2), { x: 36, y: 42 });
  assert.equal(zoneMiddle(zones, null), null);
});

test('a unit label is cut or abbreviated to fit, never squeezed', () => {
  const measure = (/** @type {string} */ s) => s.length * 7;
  assert.equal(fitLabel('Spears', 100, measure), 'Spears');
  assert.equal(fitLabel('Mageblight Gremlin', 70, measure), 'Magebligh…');
  assert.equal(fitLabel('Citizen Spears 2', 28, measure), 'CS2');
  assert.equal(fitLabel('Citizen Spears', 10, measure), '');
});

test('a cut label keeps the number that tells same-named units apart, and a marker when it can', () => {
  const measure = (/** @type {string} */ s) => s.length * 7;
  assert.equal(fitLabel('Night Goblins (2)', 100, measure), 'Night Gob… (2)');
  assert.equal(fitLabel('Night Goblins (12)', 50, measure), 'NG (12)');
  assert.equal(fitLabel('Beast Snagga Boyz · Battle-shocked', 200, measure), 'Beast Snag… · Battle-shocked');
  assert.equal(fitLabel('Boyz (2) · Battle-shocked', 100, measure), 'Boyz (2)');
});

test('the hovered and the selected unit show their whole name, each once (issue 19 item 9)', () => {
  const pieces = /** @type {any[]} */ ([
    { id: 'u1', label: 'Mageblight Gremlin', labelHere: true },
    { id: 'u1', label: 'Mageblight Gremlin', labelHere: false, kind: 'model' },
    { id: 'u2', label: 'Citizen Spears', labelHere: true },
    { id: 't1', label: '', labelHere: true },
  ]);
  assert.deepEqual(fullLabels(pieces, 'u1', 'u2').map((l) => [l.piece.id, l.piece.label, l.grow]), [['u2', 'Citizen Spears', 22], ['u1', 'Mageblight Gremlin', 0]]);
  assert.deepEqual(fullLabels(pieces, 'u1', 'u1').map((l) => l.piece.id), ['u1']);
  assert.deepEqual(fullLabels(pieces, 't1', null), []);
  assert.deepEqual(fullLabels(pieces, null, null), []);
});

test('every terrain fill stands out from the table at 3:1 or more, and each kind has its own marks', () => {
  for (const [kind, style] of Object.entries(TERRAIN_STYLES)) {
    const ratio = contrast(shownFill(style), rgb(TABLE_COLOR));
    assert.ok(ratio >= 3, `${kind}: ${ratio.toFixed(2)}:1`);
  }
  const marks = ['impassable', 'blocks_los', 'cover', 'dangerous'].map((k) => TERRAIN_STYLES[k].mark);
  assert.equal(new Set(marks).size, 4);
  assert.ok(!marks.includes('none'));
});

test('line of sight and measure take their units from the list as from a click', () => {
  const table = fakeTable({ state: { battlefield: { width: 72, depth: 48 }, ...battle() }, seat: 1 });
  const asked = /** @type {any} */ (table.conn).asked;
  table.setMode('los');
  pick(table, 'u1');
  pick(table, 'u3');
  assert.equal(table.tools.los.los?.viewer, 'u1');
  assert.equal(table.tools.los.los?.target, 'u3');
  assert.equal(asked.at(-1).type, 'line_of_sight');
  table.setMode('measure');
  pick(table, 'u1');
  pick(table, 't1');
  assert.deepEqual([table.tools.measure.measure?.from, table.tools.measure.measure?.to], ['u1', 't1']);
});

/** A ranked unit of 20 models, 5 wide, front centre at (20, 10) facing 0; player 1's turn. */
const ranked = () => {
  const corners = [[17.5, 10], [22.5, 10], [17.5, 6], [22.5, 6]];
  return {
    battlefield: { width: 72, depth: 48 }, stage: 'battle', active_player: 1, tokens: {},
    // The server's orders for player 1 in their Movement Phase (server/rules/orders.py).
    orders: { seat: 1, game: {}, units: { u1: { move_unit: { action: 'move_unit', available: true, reason: null, mode: null, reform_centre: false } } } },
    units: {
      u1: {
        id: 'u1', owner: 1, name: 'Spears', status: 'on_table', models: 20, files: 5, placement: { x: 20, y: 10, facing: 0 },
        footprint: { type: 'FeatureCollection', features: [{ type: 'Feature',
          properties: { role: 'boundary', corners, centre: [20, 8], facing: 0 },
          geometry: { type: 'Polygon', coordinates: [[[17.5, 10], [22.5, 10], [22.5, 6], [17.5, 6], [17.5, 10]]] } }] },
      },
    },
  };
};

test('typed orders stage the same actions a drag would, and Confirm sends them', () => {
  const table = fakeTable({ state: ranked(), seat: 1 });
  const asked = /** @type {any} */ (table.conn).asked;
  table.select('u1');
  assert.ok(stageStraightMove(table, /** @type {any} */ (table.store.state).units.u1, 'forward', 4));
  assert.equal(table.moves.ghost?.phase, 'staged');
  assert.deepEqual(table.moves.ghost?.action, { type: 'move_unit', unit: 'u1', manoeuvre: 'forward', mode: 'advance', distance: 4 });
  assert.deepEqual([table.moves.ghost?.x, table.moves.ghost?.y], [20, 12]);
  table.moves.confirmStaged();
  assert.deepEqual(asked.at(-1), { type: 'act', body: { type: 'move_unit', unit: 'u1', manoeuvre: 'forward', mode: 'advance', distance: 4 } });

  const other = fakeTable({ state: ranked(), seat: 1 });
  other.select('u1');
  assert.ok(other.handlers.handles.stageReform(4));
  assert.deepEqual(other.moves.ghost?.action, { type: 'move_unit', unit: 'u1', manoeuvre: 'reform', mode: 'advance', files: 4, facing: 0 });
  assert.equal(other.moves.ghost?.label, 'Reform: 4 wide');
  // Not this player's turn: nothing to stage (the card offers no typed orders then).
  const waiting = fakeTable({ state: { ...ranked(), active_player: 2 }, seat: 1 });
  waiting.select('u1');
  assert.equal(waiting.handlers.handles.stageReform(4), false);
});

test("a unit down to fewer models than its files is as wide as its models; a roll's extra facts in words", async () => {
  const { extraWords } = await import('../js/ui/describe.js');
  const swarm = { id: 'u5', owner: 1, name: 'Tomb Swarm', status: 'on_table', models: 2, files: 3 };
  assert.match(unitLine(/** @type {any} */ (swarm), null), /2 models, 2 wide/);
  assert.equal(extraWords({ misfire: false, hit: true, direction_deg: 54.098, inches: 6 }),
    'Misfire: no · Hit: yes · Direction: 54° · Inches: 6');
});
