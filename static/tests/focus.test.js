// Keys and focus after an action (ui/focus.js, input/gestures.js): a stray Enter sends nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaveFocus } from '../js/ui/focus.js';
import { KEYS } from '../js/input/gestures.js';

/** A focused element as leaveFocus reads it. @param {string} tagName @param {string[]} [inside] the selectors it is inside */
const el = (tagName, inside = []) => ({ tagName, isConnected: true, closest: (/** @type {string} */ sel) => (sel.split(',').some((s) => inside.includes(s.trim())) ? {} : null) });

test('after an action a button gives up the focus: Enter would press it again (roll again)', () => {
  assert.equal(leaveFocus(el('BUTTON')), true);
  assert.equal(leaveFocus(el('SUMMARY')), true);
  assert.equal(leaveFocus(el('BODY')), true);
  assert.equal(leaveFocus(null), true);
  assert.equal(leaveFocus({ tagName: 'BUTTON', isConnected: false }), true);
});

test('the Dice panel\'s fields give it up too: Enter there rolls in front of everyone', () => {
  assert.equal(leaveFocus(el('INPUT', ['form.roll'])), true);
});

test('a control the player moved to meanwhile keeps it', () => {
  assert.equal(leaveFocus(el('BUTTON'), false), false);
  assert.equal(leaveFocus(el('INPUT', ['form.roll']), false), false);
  assert.equal(leaveFocus(el('BODY'), false), true);
});

test('a field being typed in, the table, and a question asked since keep it', () => {
  assert.equal(leaveFocus(el('INPUT')), false);
  assert.equal(leaveFocus(el('TEXTAREA')), false);
  assert.equal(leaveFocus(el('SELECT')), false);
  assert.equal(leaveFocus(el('CANVAS')), false);
  assert.equal(leaveFocus(el('BUTTON', ['#order-banner'])), false);
  assert.equal(leaveFocus(el('BUTTON', ['[role=dialog]'])), false);
});

test('E is the End phase shortcut, Enter confirms', () => {
  assert.equal(KEYS.e, 'endPhase');
  assert.equal(KEYS.Enter, 'confirm');
});
