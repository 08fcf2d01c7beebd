// Issue 24, inside the canvas (which axe cannot see): a refused move is marked by more than
// its red fill (a black-and-white dotted outline, a "not allowed" sign, "Not allowed: …" in
// words), and unit labels never cover a unit in contact nor the selected unit and its handles.
// The drawing is recorded by a stand-in 2D context that keeps every call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawFrame, drawGhost } from '../js/view/render.js';
import { makeView, toScreen } from '../js/view/transform.js';
import { rectCorners } from '../js/view/hit.js';

/** A 2D context that records its calls and the style in force at each (6 px a letter). */
function recorder() {
  /** @type {{name:string, args:any[], style:Record<string, any>}[]} */
  const calls = [];
  /** @type {Record<string, any>} */
  const style = { lineDash: [] };
  const ctx = new Proxy({}, {
    get(_t, name) {
      if (name === 'calls') return calls;
      if (name === 'measureText') return (/** @type {string} */ s) => ({ width: s.length * 6 });
      if (name === 'setLineDash') return (/** @type {number[]} */ d) => { style.lineDash = [...d]; };
      if (name === 'createPattern') return () => ({});
      if (typeof name === 'string' && name in style) return style[name];
      return (/** @type {any[]} */ ...args) => { calls.push({ name: String(name), args, style: { ...style } }); };
    },
    set(_t, name, value) { style[String(name)] = value; return true; },
  });
  return /** @type {any} */ (ctx);
}

const ghost = (/** @type {'legal'|'illegal'} */ verdict) => ({
  x: 30, y: 20, facing: 0, width: 5, depth: 2, verdict,
  text: verdict === 'illegal' ? 'Move 14.0 in · Not allowed: Move Distance · 14.0 in' : 'Move 4.0 in',
});

test('a refused move has a dotted black-and-white outline, a not-allowed sign and says "Not allowed"', () => {
  const v = makeView({ width: 72, depth: 48 });
  const bad = recorder();
  drawGhost(bad, v, ghost('illegal'));
  const strokes = bad.calls.filter((c) => c.name === 'stroke');
  // A heavy black line under a white dotted one: reads under any colour vision.
  assert.ok(strokes.some((c) => c.style.strokeStyle === '#000' && c.style.lineWidth >= 4 && c.style.lineDash.length === 0));
  assert.ok(strokes.some((c) => c.style.strokeStyle === '#fff' && c.style.lineDash.length === 2));
  // The sign: a white disc with a black ring, on the ghost's far edge.
  const disc = bad.calls.find((c) => c.name === 'arc');
  assert.ok(disc, 'a not-allowed sign is drawn');
  const centre = toScreen(v, 30, 20);
  assert.equal(disc.args[0], centre.x);
  assert.ok(disc.args[1] < centre.y);
  const words = bad.calls.filter((c) => c.name === 'fillText').map((c) => c.args[0]);
  assert.ok(words.some((t) => t.includes('Not allowed: Move Distance · 14.0 in')), words.join(' | '));

  // An allowed move has neither the sign nor the black-and-white outline.
  const good = recorder();
  drawGhost(good, v, ghost('legal'));
  assert.equal(good.calls.filter((c) => c.name === 'arc').length, 0);
  assert.ok(!good.calls.some((c) => c.name === 'stroke' && (c.style.strokeStyle === '#000' || c.style.strokeStyle === '#fff')));
});

/** A unit drawn as one block (a token-kind piece) with its label on it. */
const block = (/** @type {string} */ id, /** @type {number} */ owner, /** @type {string} */ label, /** @type {number} */ y, /** @type {number} */ facing) => ({
  id, kind: /** @type {const} */ ('token'), owner, label, labelHere: true, facing,
  rect: { x: 36, y, facing, width: 5, depth: 2 },
});

/** @param {any} v @param {{x:number, y:number, facing:number, width:number, depth:number}} r @param {number} grow */
function screenRect(v, r, grow = 0) {
  const pts = rectCorners(r).map(([x, y]) => toScreen(v, x, y));
  return {
    x0: Math.min(...pts.map((p) => p.x)) - grow, x1: Math.max(...pts.map((p) => p.x)) + grow,
    y0: Math.min(...pts.map((p) => p.y)) - grow, y1: Math.max(...pts.map((p) => p.y)) + grow,
  };
}

test('unit labels are never drawn over a unit in contact, nor over the selected unit and its handles', () => {
  const v = makeView({ width: 72, depth: 48 }, { scale: 10 });
  // Two units front to front (in contact at y = 20), a third 1 in behind the second, and a
  // fourth alone: each label that is drawn stays off every other unit.
  const pieces = [
    block('spears', 1, 'Citizen Spears', 18, 0),
    block('gremlins', 2, 'Mageblight Gremlin', 22, 180),
    block('reserve', 2, 'Second Gremlins', 25, 180),
    block('alone', 1, 'Citizen Archers', 40, 0),
  ];
  for (const selected of [null, 'alone', 'gremlins']) {
    const ctx = recorder();
    drawFrame(ctx, {
      view: v, vw: 720, vh: 480, dpr: 1, selected, ghost: null, measure: null, los: null,
      scene: { pieces, tray: [], terrain: [], zones: [] },
    });
    const labels = ctx.calls.filter((c) => c.name === 'fillText' && c.style.font.startsWith('600 11px'));
    // The lone unit not selected is labelled; no label is on anything else.
    if (selected !== 'alone') assert.ok(labels.some((c) => c.args[0].startsWith('Citizen Arc')), String(selected));
    for (const c of labels) {
      const [text, x, y] = c.args;
      const w = text.length * 6;
      const box = { x0: x - w / 2, x1: x + w / 2, y0: y - 6, y1: y + 6 };
      const owner = pieces.find((p) => p.label.startsWith(text.replace('…', '')) || text === p.label);
      for (const p of pieces) {
        if (p === owner) continue;
        const other = screenRect(v, p.rect, p.id === selected ? 22 : 0);
        const over = box.x0 < other.x1 && other.x0 < box.x1 && box.y0 < other.y1 && other.y0 < box.y1;
        assert.ok(!over, `"${text}" is over ${p.id} (selected: ${selected})`);
      }
    }
    // The selected unit's whole name (issue 19 item 9) is drawn only where it covers no other
    // unit: the loop above checked every label drawn, that one included.
  }
});
