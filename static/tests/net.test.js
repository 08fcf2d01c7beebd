import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection, LatestOnly, MAX_RESENDS, backoffDelay, sessionTag } from '../js/net.js';
import { Store } from '../js/store.js';

/** A WebSocket stand-in: records what the client sends and lets the test play the server. */
class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.all.push(this);
  }
  send(data) { this.sent.push(JSON.parse(data)); }
  close() { this.readyState = 3; }
  // server side
  open() { this.readyState = 1; this.onopen?.(); }
  push(msg) { this.onmessage?.({ data: JSON.stringify(msg) }); }
  drop() { this.readyState = 3; this.onclose?.(); }
  last() { return this.sent[this.sent.length - 1]; }
}

/** Timers the test advances by hand. */
class FakeTimers {
  constructor() { this.now = 0; this.queue = []; this.id = 0; }
  setTimeout(fn, ms) { const id = ++this.id; this.queue.push({ id, at: this.now + ms, fn }); return id; }
  clearTimeout(id) { this.queue = this.queue.filter((t) => t.id !== id); }
  advance(ms) {
    this.now += ms;
    for (;;) {
      const due = this.queue.filter((t) => t.at <= this.now).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.clearTimeout(due.id);
      due.fn();
    }
  }
}

const state = (seq, tokens = {}) => ({ id: 'g', battlefield: { width: 72, depth: 48 }, seq, tokens, seats: {} });
const ev = (seq, type = 'note_added', payload = { text: String(seq) }) => ({ seq, type, actor: 1, payload });
const tick = () => new Promise((r) => setImmediate(r));

function setup(extra = {}) {
  FakeSocket.all = [];
  const store = new Store();
  const timers = new FakeTimers();
  const fetched = [];
  const conn = new Connection({
    url: 'ws://x/ws/games/g', token: 'tok', store, WebSocket: FakeSocket, timers,
    random: () => 0.5, tag: 'T',
    fetchEvents: async (since) => { fetched.push(since); return extra.events?.(since) ?? []; },
    fetchState: extra.fetchState,
  });
  const statuses = [];
  conn.onStatus((s) => statuses.push(s));
  conn.start();
  return { conn, store, timers, fetched, statuses, sock: () => FakeSocket.all[FakeSocket.all.length - 1] };
}

test('hello carries the token and the last seq seen; welcome puts the state in the store', () => {
  const { store, sock, statuses } = setup();
  sock().open();
  assert.deepEqual(sock().sent[0], { type: 'hello', token: 'tok', since: null });
  sock().push({ type: 'welcome', seat: 1, seq: 4, state: state(4) });
  assert.equal(store.seq, 4);
  assert.equal(store.seat, 1);
  assert.deepEqual(statuses, ['connecting', 'online']);
});

test('reconnects with backoff and resumes from the last seq without losing events', async () => {
  const { store, sock, timers, statuses } = setup();
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 4, state: state(4) });
  sock().push({ type: 'events', events: [ev(5)] });
  sock().drop();
  assert.equal(statuses.at(-1), 'reconnecting');
  assert.equal(FakeSocket.all.length, 1);
  timers.advance(374);
  assert.equal(FakeSocket.all.length, 1);
  timers.advance(1); // backoffDelay(0, 0.5) = 375
  assert.equal(FakeSocket.all.length, 2);
  sock().open();
  assert.deepEqual(sock().sent[0], { type: 'hello', token: 'tok', since: 5 });
  sock().push({ type: 'welcome', seat: 1, seq: 6, state: state(6) });
  sock().push({ type: 'events', events: [ev(6), ev(7)] });
  assert.equal(store.seq, 7);
  assert.deepEqual(store.history.map((e) => e.seq), [5, 6, 7]);
  assert.equal(statuses.at(-1), 'online');
});

test('backoff grows, is capped and resets after a welcome', () => {
  assert.equal(backoffDelay(0, () => 1), 500);
  assert.equal(backoffDelay(3, () => 1), 4000);
  assert.equal(backoffDelay(30, () => 1), 10000);
  assert.equal(backoffDelay(2, () => 0), 1000);
  const { conn, sock, timers } = setup();
  sock().drop();
  timers.advance(10_000);
  sock().drop();
  assert.equal(conn.attempt, 2);
  timers.advance(10_000);
  sock().open();
  sock().push({ type: 'welcome', seat: null, seq: 1, state: state(1) });
  assert.equal(conn.attempt, 0);
});

test('a gap is filled from REST events?since= and the held events then apply', async () => {
  const { store, sock, fetched } = setup({ events: (since) => [ev(since + 1), ev(since + 2)] });
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 2, state: state(2) });
  sock().push({ type: 'events', events: [ev(5), ev(6)] });
  assert.equal(store.seq, 2);
  assert.deepEqual(fetched, [2]);
  await tick();
  assert.equal(store.seq, 6);
  assert.deepEqual(store.history.map((e) => e.seq), [3, 4, 5, 6]);
});

test('an event the client cannot fold triggers a REST state refresh', async () => {
  let asked = 0;
  const { store, sock } = setup({
    fetchState: async () => { asked += 1; return { seq: 3, state: { ...state(3), units: { u1: { id: 'u1' } } } }; },
  });
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 2, state: state(2) });
  sock().push({ type: 'events', events: [ev(3, 'unit_deployed', { id: 'u1' })] });
  await tick();
  assert.equal(asked, 1);
  assert.ok(store.state.units.u1);
  assert.equal(store.needsRefresh, false);
});

test('an unfoldable event during a state refresh asks for the state again when it lands', async () => {
  const answers = [];
  let asked = 0;
  const { store, sock } = setup({
    fetchState: () => { asked += 1; return new Promise((resolve) => answers.push(resolve)); },
  });
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 2, state: state(2) });
  sock().push({ type: 'events', events: [ev(3, 'ambush_rolled', { unit: 'u1' })] });
  // While the first fetch is out (it will answer the state at seq 3), seq 4 arrives.
  sock().push({ type: 'events', events: [ev(4, 'ambush_rolled', { unit: 'u2' })] });
  assert.equal(asked, 1);
  answers[0]({ seq: 3, state: { ...state(3), units: { u1: { id: 'u1', markers: ['ambush_ready'] } } } });
  await tick();
  assert.equal(store.needsRefresh, true);
  assert.equal(asked, 2);
  answers[1]({ seq: 4, state: { ...state(4), units: { u1: { id: 'u1' }, u2: { id: 'u2', markers: ['ambush_ready'] } } } });
  await tick();
  assert.equal(store.needsRefresh, false);
  assert.deepEqual(store.state.units.u2.markers, ['ambush_ready']);
  assert.equal(asked, 2);
});

test('actions carry a ref and expected_seq; ack and error settle them by ref', async () => {
  const { conn, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 9, state: state(9) });
  const p1 = conn.act({ type: 'move_token', id: 't1', x: 1, y: 2, facing: 0 });
  const m1 = sock().last();
  assert.equal(m1.type, 'action');
  assert.equal(m1.expected_seq, 9);
  assert.equal(m1.ref, 'c-T-1');
  const p2 = conn.act({ type: 'move_token', id: 't1', x: 100, y: 2 });
  const m2 = sock().last();
  sock().push({ type: 'error', ref: m2.ref, code: 'illegal_move', message: 'off', details: { rule: 'Battlefield Edge' } });
  sock().push({ type: 'ack', ref: m1.ref, seq: 10 });
  assert.deepEqual(await p1, { type: 'ack', ref: 'c-T-1', seq: 10 });
  await assert.rejects(p2, (e) => e.code === 'illegal_move' && e.details.rule === 'Battlefield Edge');
});

test('preview, measure and line of sight resolve with their results by ref', async () => {
  const { conn, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seat: null, seq: 1, state: state(1) });
  const pv = conn.preview({ type: 'move_token', id: 't1', x: 3, y: 3 });
  const ms = conn.measure('t1', { x: 30, y: 20 });
  const ls = conn.lineOfSight('u3', 'u9');
  const [a, b, c] = sock().sent.slice(1);
  assert.deepEqual([a.type, b.type, c.type], ['preview', 'measure', 'line_of_sight']);
  assert.deepEqual(b.from, 't1');
  assert.deepEqual(c, { type: 'line_of_sight', ref: c.ref, viewer: 'u3', target: 'u9' });
  sock().push({ type: 'line_of_sight_result', ref: c.ref, visible: true });
  sock().push({ type: 'measure_result', ref: b.ref, distance: 11.4, points: [] });
  sock().push({ type: 'preview_result', ref: a.ref, legal: false, rule: 'Battlefield Edge' });
  assert.equal((await pv).rule, 'Battlefield Edge');
  assert.equal((await ms).distance, 11.4);
  assert.equal((await ls).visible, true);
});

test('requests fail fast when offline, on disconnect and on timeout', async () => {
  const { conn, sock, timers } = setup();
  await assert.rejects(conn.preview({}), (e) => e.code === 'offline');
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 1, state: state(1) });
  const lost = conn.act({ type: 'note', text: 'x' });
  sock().drop();
  await assert.rejects(lost, (e) => e.code === 'offline');
  timers.advance(1000);
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 1, state: state(1) });
  const slow = conn.measure({ x: 0, y: 0 }, { x: 1, y: 1 });
  timers.advance(10_000);
  await assert.rejects(slow, (e) => e.code === 'timeout');
});

test('errors without a ref and presence frames reach their listeners', () => {
  const { conn, store, sock } = setup();
  const errors = [];
  conn.onError((e) => errors.push(e.code));
  sock().open();
  sock().push({ type: 'error', code: 'unauthorized', message: 'bad token' });
  sock().push({ type: 'presence', players: [1, 2], spectators: 4 });
  assert.deepEqual(errors, ['unauthorized']);
  assert.deepEqual(store.presence, { players: [1, 2], spectators: 4 });
});

test('stop closes for good: no reconnect', () => {
  const { conn, sock, timers } = setup();
  sock().open();
  conn.stop();
  timers.advance(60_000);
  assert.equal(FakeSocket.all.length, 1);
  assert.equal(conn.status, 'closed');
});

test('refs differ between page loads', () => {
  assert.notEqual(sessionTag(() => 0.1), sessionTag(() => 0.2));
});

test('LatestOnly keeps one request in flight and skips superseded inputs', async () => {
  const sent = [];
  const results = [];
  let release;
  const lo = new LatestOnly(
    (input) => { sent.push(input); return new Promise((r) => { release = () => r(`ok ${input}`); }); },
    (res, input) => results.push([res, input]),
  );
  lo.offer(1);
  lo.offer(2);
  lo.offer(3);
  assert.deepEqual(sent, [1]);
  release();
  await tick();
  assert.deepEqual(sent, [1, 3]);
  assert.deepEqual(results, [['ok 1', 1]]);
  lo.cancel();
  release();
  await tick();
  assert.deepEqual(results, [['ok 1', 1]]);
});

test('a hello refused with unauthorized stops reconnecting', () => {
  const { conn, sock, timers, statuses } = setup();
  const errors = [];
  conn.onError((e) => errors.push(e.code));
  sock().open();
  sock().push({ type: 'error', ref: null, code: 'unauthorized', message: 'unknown token' });
  sock().drop();
  timers.advance(60_000);
  assert.equal(FakeSocket.all.length, 1);
  assert.deepEqual(errors, ['unauthorized']);
  assert.equal(statuses.at(-1), 'closed');
});

test('LatestOnly spaces requests by minIntervalMs', async () => {
  const timers = new FakeTimers();
  const sent = [];
  const lo = new LatestOnly(
    async (input) => { sent.push([input, timers.now]); return input; },
    () => {},
    undefined,
    { minIntervalMs: 80, now: () => timers.now, timers },
  );
  lo.offer('a');
  await tick();
  lo.offer('b');
  lo.offer('c');
  await tick();
  assert.deepEqual(sent, [['a', 0]]);
  timers.advance(79);
  await tick();
  assert.equal(sent.length, 1);
  timers.advance(1);
  await tick();
  assert.deepEqual(sent, [['a', 0], ['c', 80]]);
});

test('a shared measure asks to share; overlays others share reach the listeners, not the store', async () => {
  const { conn, store, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 1, state: state(1) });
  const seen = [];
  conn.onOverlay((m) => seen.push(m));
  const ms = conn.measure('u1', 'u2', true);
  const sent = sock().last();
  assert.equal(sent.share, true);
  assert.equal('share' in (conn.measure('u1', 'u2'), sock().last()), false);
  sock().push({ type: 'measure_result', ref: sent.ref, distance: 3, points: [[0, 0], [0, 3]], shared: true });
  assert.equal((await ms).shared, true);
  sock().push({ type: 'overlay', kind: 'measure', seat: 2, points: [[1, 1], [4, 5]], distance: 5 });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].distance, 5);
  assert.equal(store.seq, 1);
});

test('events_undone: the state is fetched again, and once more when an unfoldable event came in during the fetch', async () => {
  const answers = [
    { seq: 4, state: { ...state(4), units: { u1: { id: 'u1', placement: { x: 1, y: 1, facing: 0 } } } } },
    { seq: 5, state: { ...state(5), units: { u1: { id: 'u1', placement: { x: 2, y: 2, facing: 0 } } } } },
  ];
  let asked = 0;
  /** @type {Function|null} */
  let release = null;
  const { store, sock } = setup({
    fetchState: () => new Promise((resolve) => {
      const answer = answers[asked];
      asked += 1;
      release = () => resolve(answer);
    }),
  });
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 2, state: state(2) });
  sock().push({ type: 'events', events: [ev(3, 'proposal_accepted', { id: 'p1', by: 2 }), ev(4, 'events_undone', { proposal: 'p1', seqs: [2] })] });
  assert.equal(store.needsRefresh, true);
  assert.deepEqual(store.frames, [[3, 4]]);
  // A unit moves while the state is on its way: the answer (seq 4) is already behind.
  sock().push({ type: 'events', events: [ev(5, 'unit_moved', { unit: { id: 'u1' } })] });
  release?.();
  await tick();
  assert.equal(asked, 2);
  release?.();
  await tick();
  assert.equal(store.seq, 5);
  assert.equal(store.needsRefresh, false);
  assert.equal(store.state.units.u1.placement.x, 2);
  // The undone events stay in the history (the log shows them struck through).
  assert.deepEqual(store.history.map((e) => e.seq), [3, 4, 5]);
});

test('acks of this page are remembered for "undo my last action"', async () => {
  const { conn, store, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seat: 1, seq: 9, state: state(9) });
  const p = conn.act({ type: 'note', text: 'x' });
  sock().push({ type: 'ack', ref: sock().last().ref, seq: 11 });
  await p;
  assert.deepEqual(store.ownAcks, [11]);
});

test('an action the server could not take for now is sent again, same frame and ref, and counts once', async () => {
  const { conn, timers, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seq: 5, seat: 1, state: state(5) });
  const acted = conn.act({ type: 'note', text: 'hi' });
  const first = sock().last();
  const unavailable = (after) => ({ type: 'error', ref: first.ref, code: 'unavailable', message: 'database restarting', details: { retry: true, retry_after: after } });
  sock().push(unavailable(1));
  assert.equal(sock().sent.length, 2); // (hello and the action: nothing sent yet)
  timers.advance(999);
  assert.equal(sock().sent.length, 2);
  timers.advance(1);
  assert.deepEqual(sock().last(), first);
  sock().push(unavailable(1)); // the second time it waits twice as long
  timers.advance(1999);
  assert.equal(sock().sent.length, 3);
  timers.advance(1);
  assert.deepEqual(sock().last(), first);
  sock().push({ type: 'ack', ref: first.ref, seq: 6 });
  assert.deepEqual(await acted, { type: 'ack', ref: first.ref, seq: 6 });
});

test('after MAX_RESENDS unavailable answers, or an error that says no retry, the action fails', async () => {
  const { conn, timers, sock } = setup();
  sock().open();
  sock().push({ type: 'welcome', seq: 5, seat: 1, state: state(5) });
  const acted = conn.act({ type: 'note', text: 'hi' });
  const ref = sock().last().ref;
  for (let i = 0; i < MAX_RESENDS; i++) {
    sock().push({ type: 'error', ref, code: 'unavailable', message: 'down', details: { retry: true, retry_after: 1 } });
    timers.advance(1000 * (i + 1));
  }
  assert.equal(sock().sent.filter((m) => m.ref === ref).length, 1 + MAX_RESENDS);
  sock().push({ type: 'error', ref, code: 'unavailable', message: 'down', details: { retry: true, retry_after: 1 } });
  await assert.rejects(acted, (err) => err.code === 'unavailable');
  const other = conn.act({ type: 'note', text: 'again' });
  sock().push({ type: 'error', ref: sock().last().ref, code: 'unavailable', message: 'no', details: {} });
  await assert.rejects(other, (err) => err.code === 'unavailable');
});
