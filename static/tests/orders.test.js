import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargePrompt, chargeWaitWords, proposalBanner, undoFromOffer } from '../js/ui/orders.js';
import { controlAttrs, gameOffer, movesModelByModel, ordersOf, targetIds, unitOffer } from '../js/ui/offers.js';
import { chargeAckToast, markerBadges } from '../js/format.js';
import { reportGroups, undoneSeqs } from '../js/ui/report.js';
import { freeMoveAction, turnPoint } from '../js/handlers/free-move.js';
import { describe } from '../js/ui/describe.js';

const units = {
  u1: { id: 'u1', name: 'Citizen Spears', owner: 1, status: 'on_table', engaged_with: null },
  u2: { id: 'u2', name: 'Mageblight Gremlin', owner: 2, status: 'on_table', engaged_with: null },
};
const fearless = {
  rule: 'Fearless',
  message: 'Mageblight Gremlin contains Fearless: it cannot choose Flee! as a Charge Reaction unless it is already Shaken or the entire unit has Feigned Flight',
};
const declared = { seq: 7, type: 'charge_declared', actor: 1, payload: { unit: 'u1', target: 'u2', distance: 8.25, reacting_player: 2, reactions: ['hold'], refused: { flee: fearless, stand_and_shoot: { rule: 'Stand and Shoot', message: 'no shooting weapon' } } } };
const pending = { units, pending_charge: { unit: 'u1', target: 'u2', reacting_player: 2, reactions: ['hold'] } };

test('charge prompt: the charged player gets the reactions, refused ones with the rule', () => {
  const p = chargePrompt(pending, [declared], 2);
  assert.equal(p?.role, 'react');
  assert.equal(p?.text, 'Citizen Spears declare a charge on Mageblight Gremlin (8.3 in)');
  assert.deepEqual(p?.reactions.map((r) => [r.id, r.allowed, r.rule]), [['hold', true, null], ['flee', false, 'Fearless'], ['stand_and_shoot', false, 'Stand and Shoot']]);
  assert.match(String(p?.reactions[1].reason), /cannot choose Flee!/);
  assert.equal(chargePrompt(pending, [declared], 1)?.role, 'wait');
  assert.equal(chargePrompt(pending, [declared], null)?.role, 'watch');
  assert.equal(chargePrompt({ units }, [declared], 2), null);
  // Before the log arrives, the state's allowed reactions are still offered.
  assert.deepEqual(chargePrompt(pending, [], 2)?.reactions.map((r) => r.id), ['hold']);
});

test('proposal banner: the opponent answers, the proposer may withdraw, spectators watch', () => {
  const state = { units, proposal: { id: 'p1', by: 1, kind: 'undo', undo: { from_seq: 12, events: [{ seq: 12, type: 'unit_moved', text: 'Citizen Spears moved 3.0 in' }, { seq: 13, type: 'unit_moved' }] }, open: true } };
  const b = proposalBanner(state, 2);
  assert.equal(b?.role, 'answer');
  assert.equal(b?.text, 'Player 1 proposes to undo 2 events: Citizen Spears moved 3.0 in; unit moved');
  assert.equal(proposalBanner(state, 1)?.role, 'own');
  assert.equal(proposalBanner(state, null)?.role, 'watch');
  const fm = proposalBanner({ units, proposal: { id: 'p2', by: 2, kind: 'free_move', free_move: { unit: 'u2' }, open: false } }, 1);
  assert.match(String(fm?.text), /^Player 2 proposes a free move of Mageblight Gremlin — the game has moved on/);
  assert.equal(proposalBanner({ units, proposal: null }, 1), null);
});

test('undo: what the server offers to take back, in words, or why not (the same after a reload)', () => {
  const offer = { action: 'propose', available: true, undo: { from_seq: 11, events: [{ seq: 11, type: 'charge_reaction', text: 'Citizen Spears (2): Hold' }], rolls: [{ seq: 12, faces: [3, 4], expression: '2D6', total: 7, unit_name: 'Citizen Spears (1)' }] } };
  assert.deepEqual(undoFromOffer(offer), { seq: 11, events: [{ seq: 11, type: 'charge_reaction', text: 'Citizen Spears (2): Hold' }], rolls: offer.undo.rolls, reason: null });
  assert.deepEqual(undoFromOffer({ available: false, reason: 'nothing of yours to undo' }), { seq: null, events: [], rolls: [], reason: 'nothing of yours to undo' });
  assert.equal(undoFromOffer(null), null);
});

test('the client reads the orders the server offers: shown, disabled with its reason, or absent', () => {
  const st = {
    units,
    orders: {
      seat: 1,
      units: {
        u1: {
          shoot: { action: 'shoot', available: true, reason: null, weapons: [{ name: 'Longbow', range: 30 }], targets: [{ unit: 'u2', available: true, reason: null, weapons: ['Longbow'] }, { unit: 'u9', available: false, reason: 'not in sight', weapons: [] }] },
          move_unit: { action: 'move_unit', available: false, reason: 'Spears are engaged in combat and cannot move' },
        },
      },
      game: { end_phase: { action: 'end_phase', available: true, reason: null } },
    },
  };
  assert.equal(unitOffer(st, 'u1', 'shoot')?.action, 'shoot');
  assert.equal(unitOffer(st, 'u1', 'declare_charge'), null, 'not offered: not shown');
  assert.equal(unitOffer(st, 'u2', 'shoot'), null, "the enemy's units have no orders");
  assert.deepEqual(targetIds(unitOffer(st, 'u1', 'shoot')), ['u2']);
  assert.deepEqual(controlAttrs(unitOffer(st, 'u1', 'move_unit'), 'Move'), { disabled: true, title: 'Spears are engaged in combat and cannot move', 'aria-disabled': 'true', 'aria-description': 'Spears are engaged in combat and cannot move' });
  assert.deepEqual(controlAttrs(unitOffer(st, 'u1', 'shoot'), 'Shoot'), { disabled: false, title: 'Shoot' });
  assert.equal(controlAttrs({ action: 'move_unit', available: true, reason: null }, 'Wheel', { available: false, reason: 'a March Move allows no sideways manoeuvre' }).title, 'a March Move allows no sideways manoeuvre');
  assert.equal(gameOffer(st, 'end_phase')?.available, true);
  assert.equal(gameOffer({ units }, 'end_phase'), null, 'a spectator (no orders) gets none');
  assert.deepEqual(ordersOf(null), { seat: null, units: {}, game: {} });
  assert.equal(movesModelByModel({ placement: [1, 2, 0], positions: [] }), false);
  assert.equal(movesModelByModel({ placement: null, positions: [[1, 2]] }), true);
});

test('a Charge Reaction offered by the server is what the banner offers', () => {
  const st = {
    units,
    pending_charge: { unit: 'u2', target: 'u1', reacting_player: 1, reactions: ['hold', 'flee'] },
    orders: { seat: 1, game: {}, units: { u1: { charge_reaction: { action: 'charge_reaction', available: true, reason: null, reactions: [
      { reaction: 'hold', name: 'Hold', available: true, reason: null, rule: null },
      { reaction: 'flee', name: 'Flee!', available: false, reason: 'Fearless', rule: 'Fearless' },
    ] } } } },
  };
  const p = chargePrompt(st, [], 1);
  assert.deepEqual(p?.reactions.map((r) => [r.id, r.allowed, r.reason]), [['hold', true, null], ['flee', false, 'Fearless']]);
});

test('the charge toast waits for a reaction instead of calling the charge failed', () => {
  assert.deepEqual(chargeAckToast([declared], 7, { units }), { text: "Charge declared on Mageblight Gremlin: waiting for Player 2's Charge Reaction.", kind: 'info' });
  const failed = { seq: 9, type: 'charge_failed', actor: 1, payload: { reason: 'rolled 6, needed 8.3' } };
  assert.deepEqual(chargeAckToast([declared, failed], 9, { units }), { text: 'Charge failed: rolled 6, needed 8.3', kind: 'info' });
  assert.equal(chargeAckToast([], 7, { units }), null);
});

test('fleeing and shaken units get badges', () => {
  assert.deepEqual(markerBadges({ markers: ['fleeing', 'arrived'] }), ['Fleeing']);
  assert.deepEqual(markerBadges({ markers: ['shaken'] }), ['Shaken']);
  assert.deepEqual(markerBadges({}), []);
});

const roll = (faces) => ({ expression: `${faces.length}D6`, dice: faces.map((face) => ({ face, kept: true })), total: faces.reduce((a, b) => a + b, 0) });

test('combat report: one group per shooting, melee round and charge, dice and rules per step', () => {
  const history = [
    { seq: 1, type: 'shots_fired', actor: 1, payload: { unit: 'a', target: 'u2', text: 'Citizen Archers shoot Longbow at Mageblight Gremlin (20.0 in): 10 shots', rules: [] } },
    { seq: 2, type: 'attack_step', actor: 'system', payload: { step: 'to_hit', needed: 6, successes: 1, roll: roll([6, 4, 5]), text: '10 attacks needing 6+ to hit: 1 hit', rules: [{ rule: 'Long Range', text: 'Long Range: -1 to hit' }, { rule: 'Hard Target', text: 'Hard Target (1): -1 to hit' }] } },
    { seq: 3, type: 'hp_lost', actor: 'system', payload: { text: 'Mageblight Gremlin lose 1 Health Point', rules: [] } },
    { seq: 4, type: 'phase_ended', actor: 1, payload: { ended: 'Shooting' } },
    { seq: 5, type: 'combat_round', actor: 1, payload: { text: 'Combat: Mageblight Gremlin, Citizen Spears' } },
    { seq: 6, type: 'attack_step', actor: 'system', payload: { step: 'to_hit', needed: 4, successes: 2, roll: roll([6, 6, 1]), text: '3 attacks needing 4+ to hit: 2 hits', rules: [{ rule: 'Poison Attacks', text: 'Poison Attacks: 2 hits rolled 6 and wound automatically' }] } },
    { seq: 7, type: 'combat_score', actor: 'system', payload: { text: 'Combat score: player 1: 4; player 2: 2. Player 1 wins by 2', rules: [] } },
    { seq: 8, type: 'break_test', actor: 'system', payload: { passed: false, roll: roll([5, 4]), text: 'Break Test failed', rules: [{ rule: 'Supernal', text: 'Supernal: 2 Health Point losses instead' }] } },
    { seq: 9, type: 'combat_fought', actor: 'system', payload: { text: 'Round of combat fought' } },
    declared,
  ];
  declared.seq = 10;
  history.push({ seq: 11, type: 'charge_reaction', actor: 2, payload: { unit: 'u2', charger: 'u1', reaction: 'hold', name: 'Hold', forced: false } });
  history.push({ seq: 12, type: 'charge_failed', actor: 1, payload: { unit: 'u1', target: 'u2', roll: roll([1, 2]), bonus: 5, range: 8, distance: 8.25, reason: 'rolled 8, needed 8.3' } });
  const groups = reportGroups(history, { units });
  assert.deepEqual(groups.map((g) => [g.kind, g.first, g.last]), [['shooting', 1, 3], ['melee', 5, 9], ['charge', 10, 12]]);
  const hit = groups[0].lines[0];
  assert.equal(groups[0].title, 'Citizen Archers shoot Longbow at Mageblight Gremlin (20.0 in): 10 shots');
  assert.deepEqual(hit.rules.map((r) => r.text), ['Long Range: -1 to hit', 'Hard Target (1): -1 to hit']);
  assert.deepEqual(hit.dice.map((d) => d.met), [true, false, false]);
  assert.equal(hit.needed, 6);
  assert.equal(groups[0].outcome, 'Mageblight Gremlin lose 1 Health Point');
  assert.equal(groups[1].outcome, 'Break Test failed');
  assert.equal(groups[1].lines[2].rules[0].rule, 'Supernal');
  assert.equal(groups[2].title, 'Citizen Spears charge Mageblight Gremlin');
  assert.equal(groups[2].outcome, 'Charge failed: rolled 8, needed 8.3');
  assert.match(groups[2].lines[1].text, /react to Citizen Spears' charge: Hold/);
  // An accepted undo strikes the group out.
  history.push({ seq: 13, type: 'events_undone', actor: 2, payload: { proposal: 'p1', seqs: [10, 11, 12] } });
  assert.deepEqual([...undoneSeqs(history)], [10, 11, 12]);
  assert.equal(reportGroups(history, { units })[2].undone, true);
  declared.seq = 7;
});

test('free move: the outline centre goes to the point, the placement follows, turns add to the facing', () => {
  const unit = { id: 'u1', placement: { x: 10, y: 5, facing: 0 }, positions: [] };
  const b = { centre: [10, 3] };
  assert.deepEqual(freeMoveAction(unit, b, { x: 20, y: 30 }, 0), { type: 'propose', kind: 'free_move', unit: 'u1', x: 20, y: 32, facing: 0 });
  const turned = freeMoveAction(unit, b, { x: 20, y: 30 }, 90);
  assert.equal(turned.facing, 90);
  const [x, y] = turnPoint(20, 32, 20, 30, 90);
  assert.deepEqual([turned.x, turned.y], [Math.round(x * 100) / 100, Math.round(y * 100) / 100]);
  const models = { id: 'm', positions: [[1, 1], [3, 1]] };
  assert.deepEqual(freeMoveAction(models, { centre: [2, 1] }, { x: 12, y: 11 }, 0).positions, [[11, 11], [13, 11]]);
});

test('charge reactions, flight, rallies and proposals in words', () => {
  const st = { units };
  assert.equal(describe(declared, st), 'Player 1: Citizen Spears declare a charge on Mageblight Gremlin (8.3 in); Player 2 chooses a Charge Reaction');
  assert.equal(describe({ seq: 8, type: 'charge_reaction', actor: 2, payload: { unit: 'u2', charger: 'u1', reaction: 'flee', name: 'Flee!', forced: false } }, st), "Player 2: Mageblight Gremlin react to Citizen Spears' charge: Flee!");
  assert.equal(
    describe({ seq: 9, type: 'unit_fled', actor: 2, payload: { unit: 'u2', away_from: 'u1', reason: 'charge reaction', roll: { expression: '2D6 maximised x1', dice: [{ face: 6, kept: true }, { face: 1, kept: false }, { face: 4, kept: true }], total: 10 }, rule: 'Swiftstride', distance: 10, moved: 10, passed_through: [], destroyed: false } }, st),
    'Mageblight Gremlin flee 10.0 in [2D6 maximised x1: 6 (1) 4 = 10, Swiftstride] away from Citizen Spears (charge reaction)',
  );
  assert.equal(describe({ seq: 10, type: 'proposal_declined', actor: 1, payload: { id: 'p1', by: 1, withdrawn: true } }, st), 'Player 1 withdrew the proposal');
  assert.equal(describe({ seq: 11, type: 'events_undone', actor: 2, payload: { proposal: 'p1', seqs: [4, 5, 6] } }, st), 'Undone by agreement: #4–#6, 3 events taken back');
});

test('combat report: a whfb8 round keeps its Fear test, 7+ second roll and ward save in the melee group', () => {
  const roll = (/** @type {number[]} */ faces) => ({ expression: `${faces.length}D6`, dice: faces.map((face) => ({ face, kept: true })), total: faces.reduce((a, b) => a + b, 0) });
  const history = [
    { seq: 1, type: 'combat_round', actor: 1, payload: { units: ['u1', 'u2'], text: 'Combat: Tomb Swarm, Empire Halberdiers' } },
    { seq: 2, type: 'fear_test', actor: 'system', payload: { unit: 'u2', cause: 'u1', leadership: 7, passed: false, roll: roll([4, 4]), rule: 'Fear', rules: [{ rule: 'Fear', text: 'Fear: Empire Halberdiers in base contact with Tomb Swarm: WS 1 this round' }], text: 'Empire Halberdiers take a Fear test (Tomb Swarm cause Fear): rolled 8 against Leadership 7: failed: WS 1 this round' } },
    { seq: 3, type: 'attack_step', actor: 'system', payload: { step: 'to_hit', needed: 6, successes: 1, roll: roll([6, 2]), rules: [{ rule: 'To Hit 7+', text: 'To Hit 7+: 7+ is a 6, then 4+' }], text: 'a' } },
    { seq: 4, type: 'attack_step', actor: 'system', payload: { step: 'to_hit', needed: 4, successes: 1, roll: roll([5]), rules: [], text: 'b' } },
    { seq: 5, type: 'attack_step', actor: 'system', payload: { step: 'ward_save', needed: 6, successes: 0, roll: roll([3]), rules: [{ rule: 'Parry', text: 'Parry (6+): 0 saved' }], text: 'c' } },
    { seq: 6, type: 'combat_score', actor: 'system', payload: { text: 'Combat result: player 1: 4 (3 Wounds, +1 charge); player 2: 3 (1 Wound, +2 ranks). Player 1 wins by 1' } },
  ];
  const groups = reportGroups(history, { units: {} });
  assert.deepEqual(groups.map((g) => [g.kind, g.first, g.last]), [['melee', 1, 6]]);
  assert.equal(groups[0].lines[0].type, 'fear_test');
  assert.equal(groups[0].lines[0].rules[0].rule, 'Fear');
  assert.deepEqual(groups[0].lines.slice(1, 4).map((l) => [l.step, l.needed]), [['to_hit', 6], ['to_hit', 4], ['ward_save', 6]]);
  assert.match(groups[0].outcome, /^Combat result/);
});

test('a wh40k10 charge waiting for Fire Overwatch: the charged player is asked, the others wait', () => {
  const fire = { type: 'use_stratagem', stratagem: 'Fire Overwatch', unit: 'u2', target: 'u1', weapons: ['Eyez of Mork'] };
  const pc = { unit: 'u1', target: 'u2', reacting_player: 2, reactions: ['fire_overwatch', 'decline'], answer: 'Fire Overwatch' };
  const asked = {
    units,
    pending_charge: pc,
    orders: { seat: 2, units: {}, game: { charge_answer: { action: 'decline_overwatch', available: true, reason: null, answer: 'Fire Overwatch', cost: 1, reactions: [
      { reaction: 'fire_overwatch', name: 'Fire Overwatch with Mageblight Gremlin', available: true, action: fire },
      { reaction: 'decline', name: 'Decline', available: true, action: { type: 'decline_overwatch' } },
    ] } } },
  };
  const ev = { seq: 9, type: 'charge_declared', actor: 1, payload: { ...pc, distance: 7.2, refused: {} } };
  const p = chargePrompt(asked, [ev], 2);
  assert.equal(p?.role, 'react');
  assert.equal(p?.ask, 'Before the charge roll: use Fire Overwatch (1 CP)?');
  assert.deepEqual(p?.reactions.map((r) => [r.id, r.allowed, r.action]), [['fire_overwatch', true, fire], ['decline', true, { type: 'decline_overwatch' }]]);
  const waiting = { units, pending_charge: pc };
  assert.equal(chargePrompt(waiting, [ev], 1)?.waiting, 'Waiting for Player 2 to answer the charge (Fire Overwatch)…');
  assert.equal(chargeWaitWords(waiting, 1), 'Waiting for Player 2 to answer the charge (Fire Overwatch)…');
  assert.equal(chargeWaitWords(waiting, null), 'Waiting for Player 2 to answer the charge (Fire Overwatch)…');
  assert.equal(chargeWaitWords(waiting, 2), null);
  assert.equal(chargeWaitWords({ units }, 1), null);
  // A Charge Reaction (t9a, whfb8) keeps its words.
  assert.equal(chargeWaitWords(pending, 1), "Waiting for Player 2's Charge Reaction…");
  assert.equal(chargePrompt(pending, [declared], 2)?.ask, 'Your Charge Reaction:');
  assert.deepEqual(chargeAckToast([ev], 9, { units }), { text: 'Charge declared on Mageblight Gremlin: waiting for Player 2 to answer the charge (Fire Overwatch).', kind: 'info' });
});
