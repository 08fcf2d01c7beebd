import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildScene } from '../js/view/scene.js';
import { topmost } from '../js/view/hit.js';

const square = (x, y, s = 1) => ({ type: 'Polygon', coordinates: [[[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]]] });

test('tokens become rectangles with their facing and label', () => {
  const sc = buildScene({ tokens: { t1: { id: 't1', owner: 2, label: 'Bolt', x: 5, y: 6, facing: 90, width: 2, depth: 1 } } });
  assert.equal(sc.pieces.length, 1);
  assert.deepEqual(sc.pieces[0].rect, { x: 5, y: 6, facing: 90, width: 2, depth: 1 });
  assert.equal(sc.pieces[0].owner, 2);
  assert.equal(sc.pieces[0].label, 'Bolt');
});

test('a unit footprint FeatureCollection gives a boundary and one piece per model', () => {
  const unit = {
    id: 'u3', owner: 1, name: 'Spearmen', status: 'on_table',
    footprint: {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: square(10, 10, 4), properties: { role: 'boundary', front_centre: [12, 14], facing: 0 } },
        { type: 'Feature', geometry: square(10, 10, 1), properties: { role: 'model', index: 0 } },
        { type: 'Feature', geometry: square(13, 13, 1), properties: { role: 'model', index: 1 } },
      ],
    },
  };
  const sc = buildScene({ units: { u3: unit }, tokens: {} });
  assert.deepEqual(sc.pieces.map((p) => p.kind), ['boundary', 'model', 'model']);
  assert.deepEqual(sc.pieces[0].front, { x: 12, y: 14, facing: 0 });
  assert.equal(topmost(sc.pieces, 12, 12), 'u3'); // a gap inside the boundary selects the unit
  assert.equal(topmost(sc.pieces, 13.5, 13.5), 'u3');
});

test('units off the table go to the tray; destroyed units vanish', () => {
  const sc = buildScene({
    units: {
      a: { id: 'a', owner: 1, name: 'Gremlins', status: 'ambush', footprint: null },
      b: { id: 'b', owner: 2, name: 'Wolves', status: 'reserve' },
      c: { id: 'c', owner: 2, name: 'Dead', status: 'destroyed' },
      d: { id: 'd', owner: 1, name: 'Waiting', status: 'undeployed' },
    },
  });
  assert.equal(sc.pieces.length, 0);
  assert.deepEqual(sc.tray.map((t) => [t.id, t.status]), [['a', 'ambush'], ['b', 'reserve'], ['d', 'undeployed']]);
});

test('round and rectangular model bases without a footprint', () => {
  const sc = buildScene({
    units: { u: { id: 'u', owner: 1, name: 'Marines', models: [{ x: 1, y: 1, base: { diameter: 1.26 } }, { x: 3, y: 1, width: 1, depth: 1, facing: 0 }] } },
  });
  assert.equal(sc.pieces.length, 2);
  assert.ok(sc.pieces[0].circle);
  assert.ok(sc.pieces[1].rect);
  assert.equal(topmost(sc.pieces, 1.5, 1.2), 'u');
});

test('terrain from points or GeoJSON; deployment zones only during deployment', () => {
  const st = {
    stage: 'deployment',
    terrain: [{ id: 'x', kind: 'impassable', points: [[0, 0], [2, 0], [2, 2]] }, { id: 'y', kind: 'cover', geometry: square(5, 5) }],
    deployment_zones: { 1: square(0, 0, 12), 2: square(0, 36, 12) },
  };
  const sc = buildScene(st);
  assert.deepEqual(sc.terrain.map((t) => [t.id, t.kind, t.geometry.type]), [['x', 'impassable', 'Polygon'], ['y', 'cover', 'Polygon']]);
  assert.equal(sc.zones.length, 2);
  assert.equal(buildScene({ ...st, stage: 'battle' }).zones.length, 0);
});

test('two units of one name are numbered on the table and in the units list, as in the log', async () => {
  const { unitGroups } = await import('../js/ui/units.js');
  const unit = (/** @type {string} */ id, /** @type {number} */ x) => ({
    id, owner: 2, name: 'Intercessor Squad', status: 'on_table',
    models: [{ x, y: 10, base: { diameter: 1.26 } }],
  });
  const st = /** @type {any} */ ({ units: { u12: unit('u12', 20), u5: unit('u5', 10), u7: { ...unit('u7', 30), name: 'Boyz', owner: 1 } } });
  const labels = Object.fromEntries(buildScene(st).pieces.map((p) => [p.id, p.label]));
  assert.equal(labels.u5, 'Intercessor Squad (1)');
  assert.equal(labels.u12, 'Intercessor Squad (2)');
  const listed = unitGroups(st, 1).flatMap((g) => g.entries.map((e) => e.name));
  assert.deepEqual(listed.sort(), ['Boyz', 'Intercessor Squad (1)', 'Intercessor Squad (2)']);
});
