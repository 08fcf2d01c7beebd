// Who the game waits for, and for what: the decisions that belong to a player out of turn (a
// Charge Reaction, releasing Fanatics, an answer to a proposal) and the reactive Stratagems the
// server offers a player in the opponent's turn. One pure function reads the projected state;
// the turn bar says its words to everyone else ("Waiting for Player 2 to release Fanatics") and
// the banner asks the player it names (ui/orders.js). Nothing here judges a rule: every fact
// comes from the server's projection and orders. Tested under node (static/tests/waiting.test.js).

import { stratagemView } from './stratagems.js';

/** @typedef {import('../types.js').GameState} GameState */

/**
 * What one wait is about, in the words the turn bar puts after "Waiting for Player N to".
 * @typedef {Object} Wait
 * @property {'charge_reaction'|'fanatic_release'|'proposal'} kind
 * @property {number} seat      the player the game waits for
 * @property {string} what      "choose a Charge Reaction", "release Fanatics", "answer the proposal to undo"
 * @property {'you'|'other'|'watch'} role  the viewer is asked / a player waiting / a spectator
 * @property {string} text      the sentence for this viewer
 */

/** The words of a proposal's kind in "answer the proposal to …". */
const PROPOSAL_WORDS = /** @type {Record<string, string>} */ ({ undo: 'undo', free_move: 'make a free move' });

/**
 * The Stratagems a player uses in the opponent's turn as an answer to what the opponent just did
 * (40k core: after an enemy unit fought, after an enemy charge move). When the server offers one
 * of them as usable to a player who is not active, the banner asks that player at once.
 */
export const REACTIVE_STRATAGEMS = Object.freeze(['Counter-offensive', 'Heroic Intervention']);

/**
 * The waits of the moment, the first the one the game is held on: a declared charge waits for
 * its reaction, a move stopped at 8 in waits for Fanatics, an open proposal for its answer.
 * Each is worded for `seat` (null: a spectator).
 * @param {GameState|null|undefined} state @param {number|null} seat
 * @returns {Wait[]}
 */
export function waitsOf(state, seat) {
  if (!state || state.over || state.stage === 'over') return [];
  /** @type {{kind:Wait['kind'], seat:number, what:string}[]} */
  const found = [];
  const pc = state.pending_charge;
  const reacting = Number(pc?.reacting_player);
  // A 40k charge waits for its Fire Overwatch answer (`answer`), the others for a Charge Reaction.
  if (pc && pc.unit && (reacting === 1 || reacting === 2)) found.push({ kind: 'charge_reaction', seat: reacting, what: pc.answer ? `answer the charge (${pc.answer})` : 'choose a Charge Reaction' });
  const owners = new Set();
  for (const r of Array.isArray(state.fanatic_releases) ? state.fanatic_releases : []) {
    if (r && Number(r.left) > 0 && (r.owner === 1 || r.owner === 2) && !owners.has(r.owner)) {
      owners.add(r.owner);
      found.push({ kind: 'fanatic_release', seat: r.owner, what: 'release Fanatics' });
    }
  }
  const p = state.proposal;
  const by = Number(p?.by);
  if (p && p.id && p.open !== false && (by === 1 || by === 2)) {
    const words = PROPOSAL_WORDS[String(p.kind)];
    found.push({ kind: 'proposal', seat: by === 1 ? 2 : 1, what: words ? `answer the proposal to ${words}` : 'answer the proposal' });
  }
  return found.map((w) => {
    const role = seat === null || seat === undefined ? 'watch' : seat === w.seat ? 'you' : 'other';
    const text = role === 'you' ? `Your move: ${w.what}` : `Waiting for Player ${w.seat} to ${w.what}`;
    return { ...w, role, text };
  });
}

/**
 * The one wait the turn bar names (the first), or null when the game waits only for the player
 * whose turn it is.
 * @param {GameState|null|undefined} state @param {number|null} seat @returns {Wait|null}
 */
export function waitingFor(state, seat) {
  return waitsOf(state, seat)[0] || null;
}

/**
 * The reactive Stratagems (REACTIVE_STRATAGEMS) the server offers this seat as usable now while
 * it is not this seat's turn: the banner's question, each with its choices as the Stratagems
 * panel builds them.
 * @param {GameState|null|undefined} state @param {number|null} seat
 * @returns {import('./stratagems.js').StratagemRow[]}
 */
export function reactiveStratagems(state, seat) {
  if (seat === null || seat === undefined || !state || state.active_player === seat) return [];
  const view = stratagemView(state);
  if (!view) return [];
  return view.rows.filter((r) => r.available && REACTIVE_STRATAGEMS.includes(r.name));
}
