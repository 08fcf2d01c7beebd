// A spectator of a game with a delay is told so in words (not by a colour alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { delayWords } from '../js/format.js';
import { Store } from '../js/store.js';

test('the delay badge says how far behind a spectator watches; nothing live or for a player', () => {
  assert.equal(delayWords(30, null), 'Live, 30 s behind');
  assert.equal(delayWords(120, null), 'Live, 2 min behind');
  assert.equal(delayWords(90, undefined), 'Live, 1 min 30 s behind');
  assert.equal(delayWords(0, null), '');
  assert.equal(delayWords(30, 1), '');
});

test('the welcome carries the game\'s spectator delay into the store', () => {
  const store = new Store();
  store.welcome({ seat: null, seq: 0, state: /** @type {any} */ ({ units: {} }), spectator_delay_s: 30 });
  assert.equal(store.delay, 30);
  assert.equal(delayWords(store.delay, store.seat), 'Live, 30 s behind');
});
