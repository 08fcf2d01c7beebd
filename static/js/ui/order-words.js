// Words for the events of charge reactions, flight and rallies, and proposals (undo, free
// move), for the game log. Pure: says what the server recorded, never works anything out.
// describe.js falls back to these; combat events carry their own `text`.

import { who, byWho, unitName, possessive, rollWords, measureLabel as inch } from '../format.js';

/** @typedef {import('../types.js').Roll} Roll */

/** Human names of the Charge Reactions. */
export const REACTION_NAMES = /** @type {Record<string, string>} */ ({ hold: 'Hold', flee: 'Flee!', stand_and_shoot: 'Stand and Shoot' });

/** @param {Partial<import('../types.js').Proposal>|null|undefined} p the proposal (proposal_made payload or state.proposal) @param {import('../types.js').GameState|null|undefined} state */
export function proposalWords(p, state) {
  if (p?.kind === 'undo' && p.undo) {
    const evs = Array.isArray(p.undo.events) ? p.undo.events : [];
    const n = evs.length;
    const words = evs.map((e) => String(e.text || String(e.type).replace(/_/g, ' ')));
    return `to undo ${n} event${n === 1 ? '' : 's'}${words.length ? `: ${words.slice(0, 3).join('; ')}${words.length > 3 ? '; …' : ''}` : ''}`;
  }
  if (p?.kind === 'free_move' && p.free_move) return `a free move of ${unitName(state, p.free_move.unit)}`;
  return String(p?.description || p?.kind || 'something');
}

/**
 * Rolls in words: "Citizen Spears (1): 2D6 [3, 4] = 7; …" (the dice an undo discards).
 * @param {import('../types.js').UndoneRoll[]} rolls
 */
export function rollList(rolls) {
  return (rolls || []).map((r) => {
    const faces = Array.isArray(r.faces) ? r.faces.join(', ') : '';
    return `${r.unit_name ? `${r.unit_name}: ` : ''}${r.expression || 'roll'} [${faces}]${r.total !== null && r.total !== undefined ? ` = ${r.total}` : ''}`;
  }).join('; ');
}

/** @type {Object<string, (p:Record<string, unknown>, ev:import('../store.js').GameEvent, state?:import('../types.js').GameState|null|undefined) => string>} */
export const ORDER_WORDS = {
  charge_declared: (payload, ev, state) => {
    const p = /** @type {import('../types.js').ChargeDeclaredPayload} */ (payload);
    const tail = p.answer ? `; Player ${p.reacting_player} may use ${p.answer} before the charge roll`
      : p.reactions?.length === 1 && p.reactions[0] === 'flee' ? '' : `; Player ${p.reacting_player} chooses a Charge Reaction`;
    return `${byWho(ev.actor)}${unitName(state, p.unit)} declare a charge on ${unitName(state, p.target)} (${inch(p.distance)})${tail}`;
  },
  charge_reaction: (p, ev, state) => {
    const name = p.name || REACTION_NAMES[String(p.reaction)] || p.reaction;
    const forced = p.forced ? ' (already fleeing: no choice)' : '';
    const manual = p.not_automated ? ` — ${p.not_automated}` : '';
    return `${byWho(ev.actor)}${unitName(state, p.unit)} react to ${possessive(unitName(state, p.charger))} charge: ${name}${forced}${manual}`;
  },
  unit_fled: (p, _ev, state) => {
    const bits = [`${unitName(state, p.unit)} flee ${inch(p.distance)}`];
    // A flee stopped on its way to release Fanatics had its roll recorded where it stopped.
    const roll = /** @type {Roll|undefined} */ (p.roll || p.distance_roll);
    if (roll) bits.push(`[${rollWords(roll)}${p.rule ? `, ${p.rule}` : ''}]`);
    if (p.away_from && p.away_from !== p.unit) bits.push(`away from ${unitName(state, p.away_from)}`);
    if (p.reason) bits.push(`(${p.reason})`);
    let text = bits.join(' ');
    if (typeof p.moved === 'number' && typeof p.distance === 'number' && Math.abs(p.moved - p.distance) > 0.05) text += `; moved ${inch(p.moved)} to get clear`;
    if (Array.isArray(p.passed_through) && p.passed_through.length) text += `; passed through ${p.passed_through.map((/** @type {unknown} */ id) => unitName(state, id)).join(', ')}`;
    if (typeof p.halted_after === 'number') text += ` (stopped after ${inch(p.halted_after)} to release Night Goblin Fanatics, then fled on)`;
    if (p.destroyed) text += '; fled off the table and is destroyed';
    return text;
  },
  fleeing_unit_caught: (p, _ev, state) => `${unitName(state, p.by)} caught the fleeing ${unitName(state, p.unit)}: destroyed`,
  unit_rallied: (p, _ev, state) => (p.roll
    ? `${unitName(state, p.unit)} rallied: ${p.rule || 'Rally Test'} [${rollWords(/** @type {Roll} */ (p.roll))}] against Discipline ${p.discipline}`
    : `${unitName(state, p.unit)} rallied (${p.rule || 'automatically'})`),
  rally_failed: (p, _ev, state) => `${unitName(state, p.unit)} failed to rally [${rollWords(/** @type {Roll} */ (p.roll))}] against Discipline ${p.discipline}`,
  unit_steadied: (p, _ev, state) => `${unitName(state, p.unit)} are no longer ${(/** @type {string[]|undefined} */ (p.removed) || ['shaken']).join(', ')}${p.reason ? ` (${p.reason})` : ''}`,
  proposal_made: (payload, ev, state) => {
    const p = /** @type {Partial<import('../types.js').Proposal>} */ (payload);
    return `${who(ev.actor ?? p.by)} proposes ${proposalWords(p, state)}`;
  },
  // One proposal is open at a time: "the proposal" (its id "p1" would read as player 1).
  proposal_accepted: (p) => `Player ${p.by} accepted the proposal`,
  proposal_declined: (p) => (p.withdrawn ? `Player ${p.by} withdrew the proposal` : `Player ${p.by} declined the proposal`),
  proposal_lapsed: (p) => `The proposal lapsed: ${p.reason || 'the game moved on'}`,
  events_undone: (p, ev) => {
    const seqs = /** @type {number[]} */ (Array.isArray(p.seqs) ? p.seqs : []);
    const span = seqs.length ? ` #${Math.min(...seqs)}${seqs.length > 1 ? `–#${Math.max(...seqs)}` : ''}` : '';
    const dice = Array.isArray(p.discarded) && p.discarded.length ? `; dice discarded: ${rollList(p.discarded)}` : '';
    if (p.army) return `${who(ev.actor)} took back their army (the opponent had not submitted theirs)`;
    if (p.alone) return `${who(ev.actor)} took back${span} before player 2 joined, ${seqs.length} event${seqs.length === 1 ? '' : 's'}`;
    return `Undone by agreement:${span}, ${seqs.length} event${seqs.length === 1 ? '' : 's'} taken back${dice}`;
  },
  free_move: (payload, ev, state) => {
    const p = /** @type {{unit?:{id?:string, name?:string}, proposal?:string}} */ (payload);
    return `${byWho(ev.actor)}${p.unit?.id && state?.units?.[p.unit.id] ? unitName(state, p.unit.id) : p.unit?.name || unitName(state, p.unit?.id)} moved by agreement (free move)`;
  },
};
