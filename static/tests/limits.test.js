// The server's limits reach the client in `welcome` (issue 23 item 5): a request over the
// frame limit is refused here, before it could cost the socket (too_large and close 1009).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Connection } from '../js/net.js';
import { Store } from '../js/store.js';

class FakeSocket {
  static last = null;
  constructor() { this.readyState = 0; this.sent = []; FakeSocket.last = this; }
  send(data) { this.sent.push(JSON.parse(data)); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.onopen?.(); }
  push(msg) { this.onmessage?.({ data: JSON.stringify(msg) }); }
}

const timers = { setTimeout: () => 0, clearTimeout: () => {} };
const state = { id: 'g', battlefield: { width: 72, depth: 48 }, seq: 3, tokens: {}, seats: {} };

function online(limits) {
  const conn = new Connection({
    url: 'ws://x/ws/games/g', token: 't', store: new Store(), WebSocket: FakeSocket, timers,
    random: () => 0.5, tag: 'T', fetchEvents: async () => [],
  });
  conn.start();
  const sock = FakeSocket.last;
  sock.open();
  sock.push({ type: 'welcome', seat: 1, seq: 3, state, limits });
  return { conn, sock };
}

test('the welcome limits are kept, and a request over the frame limit is never sent', async () => {
  const limits = { max_frame_bytes: 2048, messages_per_s: 7, burst: 9 };
  const { conn, sock } = online(limits);
  assert.deepEqual(conn.limits, limits);
  const before = sock.sent.length;
  await assert.rejects(conn.act({ type: 'note', text: 'x'.repeat(3000) }),
    (err) => err.code === 'too_large' && err.details.limit === 2048);
  assert.equal(sock.sent.length, before);
  conn.act({ type: 'note', text: 'x'.repeat(100) });
  assert.equal(sock.sent.length, before + 1);
  assert.equal(sock.sent.at(-1).type, 'action');
});

test('without limits in the welcome (an older server) requests go out as before', () => {
  const { conn, sock } = online(undefined);
  assert.equal(conn.limits, null);
  conn.act({ type: 'note', text: 'x'.repeat(100_000) });
  assert.equal(sock.sent.at(-1).type, 'action');
});
