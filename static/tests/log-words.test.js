// Log lines a new player reads (the log, the replay page): no prefix for what the game did by
// itself, no proposal ids that read as a player, a hidden event said for what kind it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describe } from '../js/ui/describe.js';
import { byWho } from '../js/format.js';

/** @param {string} type @param {Record<string, unknown>} payload @param {unknown} actor */
const ev = (type, payload, actor) => /** @type {any} */ ({ seq: 9, type, actor, payload });

test('what the game does by itself has no "The game:" prefix; a player still has theirs', () => {
  assert.equal(byWho('system'), '');
  assert.equal(byWho(2), 'Player 2: ');
  const charged = describe(ev('charge_succeeded', { targets: ['u2'], text: 'Tomb Swarm charged Empire Halberdiers' }, 'system'), null);
  assert.equal(charged, 'Tomb Swarm charged Empire Halberdiers');
  const declared = describe(ev('charge_succeeded', { targets: ['u2'], text: 'Boyz charged Intercessor Squad' }, 1), null);
  assert.equal(declared, 'Player 1: Boyz charged Intercessor Squad');
  assert.equal(describe(ev('something_new', {}, 'system'), null), 'Something new');
});

test('a proposal is "the proposal", never its id that reads as a player', () => {
  assert.equal(describe(ev('proposal_accepted', { by: 2, id: 'p1' }, 2), null), 'Player 2 accepted the proposal');
  assert.equal(describe(ev('proposal_declined', { by: 2, id: 'p1' }, 2), null), 'Player 2 declined the proposal');
  assert.equal(describe(ev('proposal_declined', { by: 1, id: 'p1', withdrawn: true }, 1), null), 'Player 1 withdrew the proposal');
  assert.doesNotMatch(describe(ev('proposal_lapsed', { id: 'p3', reason: 'the phase ended' }, 'system'), null), /p3/);
});

test('a hidden event says what kind of hidden thing it is when the server names it', () => {
  const note = ev('hidden', { kind: 'concealed Fanatics', about: 'a hidden note every army writes, Fanatics or none' }, 1);
  assert.equal(describe(note, null), "Player 1's concealed Fanatics: a hidden note every army writes, Fanatics or none");
  assert.equal(describe(ev('hidden', {}, 2), null), 'Player 2 did something hidden from you');
});

test('the owner reads their own Fanatics note, numbered, or that it holds none', () => {
  const st = /** @type {any} */ ({ units: { u1: { id: 'u1', name: 'Night Goblins' }, u3: { id: 'u3', name: 'Night Goblins' } } });
  assert.equal(describe(ev('fanatics_concealed', { seat: 1, units: { u3: 2 } }, 1), st), "Player 1's concealed Fanatics, written down (only you see this): Night Goblins (2): 2");
  assert.equal(describe(ev('fanatics_concealed', { seat: 1, units: {} }, 1), st), "Player 1's concealed Fanatics, written down (only you see this): none");
});
