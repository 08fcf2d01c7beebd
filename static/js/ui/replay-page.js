// The replay page, `/games/{id}/replay#seq=N`: the table as it stood at seq N (the server's
// fold, GET /api/games/{id}/state?at=N, as this viewer was shown it then), drawn read-only by
// the table's own renderer; a scrubber over the timeline of turns and phases; step by event or
// by phase, play at a chosen speed; beside it the event of the step in words, its dice and the
// combat report it belongs to; each player's dice luck with the dice proof; the battle report.

import { getEvents, getLuck, getReport, getStateAt, getTimeline } from '../api.js';
import { loadSeat } from '../session.js';
import { fit, flipForSeat, makeView, pan, zoomAt } from '../view/transform.js';
import { attachGestures } from '../input/gestures.js';
import { buildScene } from '../view/scene.js';
import { drawFrame } from '../view/render.js';
import { reportGroups, renderReport } from './report.js';
import { rollsOf } from './panels.js';
import { describe } from './describe.js';
import { rollWords } from '../format.js';
import { h, replace } from './dom.js';
import { safeStorage } from './lobby.js';
import { hashOf, phaseStarts, seqFromHash, stepEvent, stepLabel, stepPhase, turnSegments } from '../replay.js';

/** Events per second at each speed of play. */
export const SPEEDS = [0.5, 1, 2, 4, 8];
/** States kept in the page (a scrub back and forth asks the server once per seq). */
const KEPT_STATES = 400;

/** @param {HTMLElement} root @param {string} gameId */
export async function showReplay(root, gameId) {
  const seat = loadSeat(safeStorage(), gameId);
  const token = seat?.token ?? null;
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { id: 'table', 'aria-label': 'Battlefield at this step' }));
  const board = h('div', { class: 'board' }, canvas);
  const title = h('h1', null, 'Replay');
  const where = h('span', { class: 'badge', id: 'replay-where' }, '');
  const scrubber = /** @type {HTMLInputElement} */ (h('input', { type: 'range', id: 'scrubber', min: '0', max: '0', value: '0', 'aria-label': 'Seq' }));
  const segments = h('div', { class: 'segments', id: 'segments' });
  const seqLabel = h('span', { id: 'replay-seq' }, '');
  const speed = /** @type {HTMLSelectElement} */ (h('select', { id: 'replay-speed', 'aria-label': 'Speed' },
    SPEEDS.map((s) => h('option', { value: String(s), selected: s === 2 }, `${s} events/s`))));
  const play = h('button', { type: 'button', id: 'replay-play', onclick: () => togglePlay() }, '▶ Play');
  const buttons = h('div', { class: 'replay-buttons' },
    h('button', { type: 'button', id: 'phase-back', title: 'Previous phase', onclick: () => go(stepPhase(starts, seq, -1, last)) }, '« Phase'),
    h('button', { type: 'button', id: 'event-back', title: 'Previous event', onclick: () => go(stepEvent(seq, -1, last)) }, '◀ Event'),
    play,
    h('button', { type: 'button', id: 'event-forward', title: 'Next event', onclick: () => go(stepEvent(seq, 1, last)) }, 'Event ▶'),
    h('button', { type: 'button', id: 'phase-forward', title: 'Next phase', onclick: () => go(stepPhase(starts, seq, 1, last)) }, 'Phase »'),
    speed);
  const entry = h('section', { class: 'panel', id: 'replay-entry' });
  const combat = h('section', { class: 'panel report', id: 'replay-combat' });
  const luck = h('section', { class: 'panel', id: 'replay-luck' }, h('h2', null, 'Dice luck'));
  const reportButton = h('button', { type: 'button', id: 'open-report', onclick: () => openReport() }, 'Battle report');
  const side = h('aside', { class: 'side' }, entry, combat, luck, reportButton);
  const controls = h('div', { class: 'replay-controls' }, segments, scrubber, h('div', { class: 'replay-row' }, buttons, seqLabel));
  replace(root, h('div', { class: 'page replay' },
    h('header', { class: 'top' }, h('a', { href: '/', class: 'home' }, '⚔'), title, where,
      h('a', { href: `/games/${encodeURIComponent(gameId)}`, class: 'badge', id: 'back-to-table' }, 'Back to the table')),
    h('div', { class: 'replay-main' }, board, controls),
    side));

  /** @type {import('../replay.js').TimelineStep[]} */
  let steps = [];
  /** @type {number[]} */
  let starts = [0];
  let last = 0;
  let seq = 0;
  /** @type {import('../store.js').GameEvent[]} */
  let events = [];
  /** @type {Map<number, import('../types.js').GameState>} */
  const states = new Map();
  /** @type {import('../types.js').GameState|null} */
  let shown = null;
  let shownSeq = -1;
  let asked = 0;
  /** @type {ReturnType<typeof setInterval>|null} */
  let timer = null;
  /** @type {import('../view/transform.js').View|null} */
  let view = null;
  const opened = new Map();
  const debug = { gameId, seat: seat?.seat ?? null, get seq() { return seq; }, get shown() { return shownSeq; }, get last() { return last; }, get state() { return shown; }, get playing() { return timer !== null; }, starts: () => starts, steps: () => steps };
  Object.assign(window, { warfield: { replay: debug, gameId } });

  try {
    const [tl, evs] = await Promise.all([getTimeline(gameId, token), getEvents(gameId, 0, token)]);
    steps = tl.steps;
    last = tl.last;
    events = evs.filter((e) => e.seq <= last);
    starts = phaseStarts(steps);
  } catch (err) {
    const e = /** @type {{code?:string, message?:string}} */ (err);
    replace(entry, h('p', { class: 'error', id: 'replay-error' }, e.code === 'forbidden'
      ? 'This game is still being played: only its players can replay it until it is over.'
      : `Cannot replay this game: ${e.message || e}`));
    return;
  }
  scrubber.max = String(last);
  scrubber.addEventListener('input', () => go(Number(scrubber.value)));
  drawSegments();
  window.addEventListener('hashchange', () => go(seqFromHash(location.hash, last), false));
  new ResizeObserver(() => resize()).observe(board);
  // Read-only: the table pans and zooms; nothing on it can be picked up or moved.
  const noop = () => {};
  attachGestures(canvas, {
    tap: noop, dragStart: () => false, dragMove: noop, dragEnd: noop, dragCancel: noop, hover: noop,
    pan: (dx, dy) => { if (view) { view = pan(view, dx, dy); redraw(); } },
    zoom: (k, pt) => { if (view) { view = zoomAt(view, k, pt.x, pt.y); redraw(); } },
  });
  loadLuck();
  go(seqFromHash(location.hash, last), false);

  function drawSegments() {
    replace(segments, turnSegments(steps).map((s) => h('button', {
      type: 'button', class: `segment owner-${s.player ?? 0}`, title: s.label, dataset: { from: s.from },
      style: `flex-grow:${Math.max(1, s.to - s.from + 1)}`, onclick: () => go(s.from),
    }, s.label)));
  }

  /** Show seq `n`: the table, the step's words, dice and combat report. @param {number} n */
  function go(n, updateHash = true) {
    seq = Math.min(Math.max(0, Math.round(n)), last);
    scrubber.value = String(seq);
    seqLabel.textContent = `seq ${seq} / ${last}`;
    where.textContent = stepLabel(steps[seq - 1]);
    if (updateHash) history.replaceState(null, '', `${location.pathname}${location.search}${hashOf(seq)}`);
    for (const b of segments.children) {
      const el = /** @type {HTMLElement} */ (b);
      el.classList.toggle('current', Number(el.dataset.from) <= seq && (el.nextElementSibling === null || Number(/** @type {HTMLElement} */ (el.nextElementSibling).dataset.from) > seq));
    }
    describeStep();
    fetchState(seq);
  }

  /** @param {number} n */
  async function fetchState(n) {
    const ticket = ++asked;
    let state = states.get(n);
    if (state === undefined) {
      try {
        state = (await getStateAt(gameId, n, token)).state;
      } catch (err) {
        if (ticket === asked) replace(entry, h('p', { class: 'error' }, String(/** @type {Error} */ (err).message || err)));
        return;
      }
      states.set(n, state);
      if (states.size > KEPT_STATES) states.delete(/** @type {number} */ (states.keys().next().value));
    }
    if (ticket !== asked) return; // a later scrub won
    shown = state;
    shownSeq = n;
    // (a state the server projects always carries its battlefield: server/rules/core.py)
    const bf = /** @type {{width:number, depth:number}} */ (state.battlefield);
    if (!view || view.width !== bf.width || view.depth !== bf.depth) {
      view = makeView(bf, { flip: flipForSeat(seat?.seat) });
      view = fit(view, board.clientWidth || 600, board.clientHeight || 400, 24);
    }
    redraw();
  }

  function describeStep() {
    const ev = events[seq - 1];
    if (!ev) {
      replace(entry, h('h2', null, 'Before the first event'));
      combat.hidden = true;
      return;
    }
    const p = ev.payload || {};
    const rolls = rollsOf(p);
    replace(entry,
      h('h2', null, `Event ${ev.seq}`),
      h('p', { id: 'replay-text', class: `event ${ev.type}` }, describe(ev, shown)),
      rolls.length
        ? h('div', { id: 'replay-dice' }, rolls.map((r) => h('div', { class: 'faces', title: rollWords(r) },
          h('span', { class: 'expr' }, String(r.expression ?? '')),
          (Array.isArray(r.dice) ? r.dice : []).map((d) => h('span', {
            class: `die ${d.kept ? 'kept' : 'discarded'}${d.rerolled ? ' rerolled' : ''}${typeof p.needed === 'number' && d.kept && typeof d.face === 'number' && d.face !== 1 && (d.face === 6 || d.face >= p.needed) ? ' met' : ''}`,
          }, String(d.face))),
          typeof r.total === 'number' ? h('span', { class: 'total' }, `= ${r.total}`) : null,
          typeof p.needed === 'number' ? h('span', { class: 'needed' }, `needed ${p.needed}+`) : null)))
        : null);
    const groups = reportGroups(events.slice(0, seq), shown).filter((g) => g.first <= seq && g.last >= seq);
    renderReport(combat, groups, opened, 1);
  }

  function resize() {
    const w = board.clientWidth;
    const hgt = board.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(hgt * dpr));
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hgt}px`;
    if (view) view = fit(view, w, hgt, 24);
    redraw();
  }

  let frameAsked = false;
  function redraw() {
    if (frameAsked) return;
    frameAsked = true;
    requestAnimationFrame(() => {
      frameAsked = false;
      if (!view || !shown) return;
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d', { alpha: false }));
      drawFrame(ctx, {
        view, vw: board.clientWidth, vh: board.clientHeight, dpr: window.devicePixelRatio || 1,
        scene: buildScene(shown), selected: null, ghost: null, measure: null, los: null,
      });
    });
  }

  function togglePlay() {
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
      play.textContent = '▶ Play';
      return;
    }
    if (seq >= last) go(0);
    play.textContent = '⏸ Pause';
    timer = setInterval(() => {
      if (seq >= last) return togglePlay();
      go(seq + 1);
    }, 1000 / Number(speed.value));
  }
  speed.addEventListener('change', () => {
    if (timer !== null) {
      togglePlay();
      togglePlay();
    }
  });

  async function loadLuck() {
    try {
      const body = await getLuck(gameId, token);
      const proof = body.proof || {};
      const words = !proof.revealed
        ? `Dice commitment ${String(proof.commitment).slice(0, 16)}…: the seed is revealed when the game ends.`
        : proof.verified ? `Every one of ${proof.rolls} rolls verified against the revealed seed.`
          : `The dice proof failed: ${(proof.failures || []).map((f) => f.reason).join('; ')}`;
      replace(luck, h('h2', null, 'Dice luck'),
        Object.entries(body.charts || {}).map(([s, svg]) => h('figure', { class: 'luck-figure', dataset: { seat: s } }, svgNode(String(svg)))),
        h('p', { id: 'dice-proof', class: proof.verified ? 'ok' : '' }, words));
    } catch (err) {
      replace(luck, h('h2', null, 'Dice luck'), h('p', { class: 'error' }, String(/** @type {Error} */ (err).message || err)));
    }
  }

  async function openReport() {
    const html = await getReport(gameId, token);
    const url = URL.createObjectURL(new Blob([html], { type: 'text/html' }));
    window.open(url, '_blank', 'noopener');
  }
}

/** The server's SVG chart as a node (parsed as SVG, never as HTML). @param {string} text */
function svgNode(text) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  return document.importNode(doc.documentElement, true);
}
