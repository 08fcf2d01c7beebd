// Issue 19 items 8 and 9: the presence line says who is offline (and that this page is), and
// the dice log sums a roll up ("100D6: 312, 17 sixes").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ownerWords, presenceText, rollSummary } from '../js/format.js';
import { buildScene } from '../js/view/scene.js';

const dice = (faces) => faces.map((face) => ({ face, kept: true }));

test('a big roll is summed up with its total and its sixes', () => {
  const faces = [...Array(100)].map((_, i) => (i < 17 ? 6 : 1 + (i % 5)));
  const total = faces.reduce((a, b) => a + b, 0);
  assert.equal(rollSummary({ expression: '100D6', dice: dice(faces), total }), `100D6: ${total}, 17 sixes`);
  assert.equal(rollSummary({ expression: '2D6', dice: dice([6, 3]), total: 9 }), '2D6: 9, 1 six');
});

test('discarded dice do not count, and a target turns the summary into successes', () => {
  const roll = { expression: '3D6', dice: [{ face: 6, kept: false }, { face: 2, kept: true }, { face: 5, kept: true }], total: 7 };
  assert.equal(rollSummary(roll), '3D6: 7, 0 sixes');
  assert.equal(rollSummary({ expression: '5D6', dice: dice([1, 4, 4, 6, 2]), total: 17, extra: { target: 4 } }), '5D6: 3 successes (total 17)');
  assert.equal(rollSummary({ expression: '1D6 4+', dice: dice([4]), total: 4 }), '1D6 4+: 1 success (total 4)');
  assert.equal(rollSummary({ expression: 'D3', dice: dice([2]), total: 2 }), 'D3: 2');
  assert.equal(rollSummary(null), '');
});

test('the presence line names each seat online or offline, and this page offline while it reconnects', () => {
  assert.equal(presenceText({ players: [1, 2], spectators: 3 }, 'online'), 'Player 1 online, Player 2 online · 3 watching');
  assert.equal(presenceText({ players: [2], spectators: 0 }, 'online'), 'Player 1 offline, Player 2 online · 0 watching');
  assert.equal(presenceText({ players: [1, 2], spectators: 0 }, 'reconnecting'), 'You are offline · reconnecting…');
  assert.equal(presenceText(null, 'connecting'), 'Connecting…');
});

test('the off-table tray says whose units are whose', () => {
  assert.equal(ownerWords(1, 1), 'yours');
  assert.equal(ownerWords(2, 1), "Player 2's");
  assert.equal(ownerWords(1, null), "Player 1's"); // a spectator
  assert.equal(ownerWords(undefined, 1), '');
});

test('a joined character is marked on the table, the first one (index 0) too', () => {
  const square = (x, y) => ({ type: 'Polygon', coordinates: [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]] });
  const unit = {
    id: 'u1', owner: 1, name: 'Spears', status: 'on_table',
    footprint: {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: square(0, 0), properties: { role: 'boundary', front_centre: [1, 1], facing: 0 } },
        { type: 'Feature', geometry: square(0, 0), properties: { role: 'model', index: 0, character: 0 } },
        { type: 'Feature', geometry: square(1, 0), properties: { role: 'model', index: 1, character: null } },
        { type: 'Feature', geometry: square(2, 0), properties: { role: 'model', index: 2, character: 1 } },
      ],
    },
  };
  const sc = buildScene({ units: { u1: unit } });
  assert.deepEqual(sc.pieces.filter((p) => p.kind === 'model').map((p) => p.character), [true, false, true]);
});
