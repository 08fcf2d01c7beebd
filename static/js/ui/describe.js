// Each event in words, for the game log. Pure: describes what the server recorded and never
// works anything out; unknown event types fall back to their name.

import { ORDER_WORDS } from './order-words.js';
import { who, byWho, unitName, possessive, rollWords, measureLabel as inch, tenths, inches } from '../format.js';

/** @param {string} s */
export function humanize(s) {
  const t = String(s).replace(/_/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A dice roll's extra facts in words: yes / no for a flag, whole degrees for a direction,
 * one decimal for a measure ("Misfire: no", "Direction: 54°"). @param {Record<string, unknown>} extra */
export function extraWords(extra) {
  return Object.entries(extra).map(([k, v]) => {
    if (typeof v === 'boolean') return `${humanize(k)}: ${v ? 'yes' : 'no'}`;
    if (typeof v === 'number' && k.endsWith('_deg')) return `${humanize(k.slice(0, -4))}: ${Math.round(v)}°`;
    if (typeof v === 'number') return `${humanize(k)}: ${Number.isInteger(v) ? v : tenths(v)}`;
    return `${humanize(k)}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
  }).join(' · ');
}

/** @param {Record<string, unknown>} payload @param {import('../types.js').GameState|null|undefined} state @param {boolean} ok */
function chargeWords(payload, state, ok) {
  const p = /** @type {import('../types.js').ChargeOutcomePayload} */ (payload);
  const rolled = p.roll || p.distance_roll; // an interrupted charge's roll: recorded where it stopped
  const roll = rolled ? `rolled ${rollWords(rolled)}${p.bonus ? ` +${p.bonus}${typeof p.range === 'number' ? ` = ${p.range}` : ''}` : ''}` : '';
  const need = typeof p.distance === 'number' ? `needed ${inches(p.distance)}` : '';
  const head = `${unitName(state, p.unit)} charged ${unitName(state, p.target)}`;
  // A failed roll's reason repeats the numbers; any other reason (blocked) is news.
  const why = !ok && p.reason && !/^rolled /.test(String(p.reason)) ? ` — ${p.reason}` : '';
  const wheel = p.wheel ? `, with a ${Math.abs(p.wheel)}° wheel` : '';
  // The Failed Charge move the system makes (issue 19 item 1).
  const fm = !ok && p.failed_move ? `; ${p.failed_move.rule}: moved ${inches(Number(p.failed_move.distance))} towards the target` : '';
  // What the players must still do by hand (a random-move charge through Dangerous Terrain).
  const manual = p.not_automated ? ` — ${p.not_automated}` : '';
  return `${head}: ${ok ? 'charge succeeded' : 'charge failed'} (${[roll, need].filter(Boolean).join(', ')}${wheel})${why}${fm}${manual}`;
}

/** The unit an event carries whole (`Unit.to_json`: deployed, moved). @param {Record<string, unknown>} p */
const unitOf = (p) => /** @type {{id?:string, name?:string}|undefined} */ (p.unit);
/** A unit snapshot in a payload, named as everywhere (numbered among same-named units).
 * @param {Record<string, unknown>} p @param {import('../types.js').GameState|null|undefined} state */
const snapName = (p, state) => {
  const u = unitOf(p);
  return u?.id && state?.units?.[u.id] ? unitName(state, u.id) : String(u?.name || u?.id || 'a unit');
};

/** @type {Object<string, (p:Record<string, unknown>, ev:import('../store.js').GameEvent, state?:import('../types.js').GameState|null|undefined) => string>} */
const WORDS = {
  game_created: (p) => `Game created: ${p.name || p.system || ''}`,
  seat_claimed: (p) => `Player ${p.seat} took their seat`,
  token_placed: (p, ev) => `${who(ev.actor)} placed ${/** @type {{label?:string}|undefined} */ (p.token)?.label || 'a token'}`,
  token_moved: (p, ev) => `${who(ev.actor)} moved ${p.label || p.id}${p.distance !== undefined ? ` ${inch(p.distance)}` : ''}`,
  token_removed: (p, ev) => `${who(ev.actor)} removed ${p.label || p.id}`,
  dice_rolled: (p, ev) => `${who(ev.actor)} rolled ${rollWords(/** @type {import('../types.js').Roll|undefined} */ (p.roll)) || 'dice'}${p.reason ? ` for ${p.reason}` : ''}`,
  note_added: (p, ev) => `${byWho(ev.actor)}${p.text}`,
  battle_started: (p) => `The battle begins: turn ${p.turn}, Player ${p.active_player}, ${p.phase} phase`,
  phase_ended: (p, ev) =>
    p.phase ? `${who(ev.actor)} ended the ${p.ended} phase; now turn ${p.turn}, Player ${p.active_player}, ${p.phase}` : `${who(ev.actor)} ended the ${p.ended} phase`,
  game_ended: (p) => `Game over (${p.reason})${p.winner ? `: Player ${p.winner} wins` : ''}`,
  game_result: (p) => `Result: ${p.text}`,
  secondary_objective_chosen: (p) => /** @type {string} */ (p.text),
  objective_counter: (p) => /** @type {string} */ (p.text),
  dice_revealed: () => 'The dice seed was revealed: every roll can now be verified',
  terrain_placed: (p) => `Terrain placed${p.label ? `: ${p.label}` : ''}`,
  army_submitted: (p) => `Player ${p.seat} submitted an army of ${Array.isArray(p.units) ? p.units.length : '?'} units`,
  deployment_started: (p) => p.deploying ? `Deployment begins; Player ${p.deploying} deploys first` : 'Deployment begins once the roll-off\'s winner has chosen',
  deploying: (p) => p.deploying ? `Player ${p.deploying} deploys` : 'Waiting for a roll-off choice',
  roll_off: (p) => /** @type {string} */ (p.text),
  choice_pending: (p) => /** @type {string} */ (p.text),
  first_chosen: (p) => /** @type {string} */ (p.text),
  deployment_finished: (p) => /** @type {string} */ (p.text),
  unit_deployed: (p, ev, state) => `${who(ev.actor)} deployed ${snapName(p, state)}${p.rule ? ` (${p.rule})` : ''}`,
  unit_moved: (p, ev, state) =>
    `${who(ev.actor)} moved ${snapName(p, state)}: ${p.manoeuvre || 'move'} ${inch(p.distance)}${typeof p.used === 'number' && typeof p.allowance === 'number' ? ` (${tenths(p.used)} of ${p.allowance} in)` : ''}${p.text ? ` — ${p.text}` : ''}`,
  // A 40k charge (several `targets`, a Charge move made model by model) carries its own words.
  charge_succeeded: (p, ev, state) => `${byWho(ev.actor)}${Array.isArray(p.targets) && p.text ? p.text : chargeWords(p, state, true)}`,
  charge_failed: (p, ev, state) => `${byWho(ev.actor)}${Array.isArray(p.targets) && p.text ? p.text : chargeWords(p, state, false)}`,
  // The owner's own Fanatics note (seed 003; every whfb8 army writes one, with or without).
  fanatics_concealed: (p, ev, state) => {
    const units = p.units && typeof p.units === 'object' ? Object.entries(/** @type {Record<string, number>} */ (p.units)) : [];
    const what = units.length ? units.map(([id, n]) => `${unitName(state, id)}: ${n}`).join(', ') : 'none';
    return `${who(ev.actor)}'s concealed Fanatics, written down (only you see this): ${what}`;
  },
  // The server names the kind of a hidden event whose existence is no secret (core.py
  // HIDDEN_KINDS): "Player 1's concealed Fanatics: a hidden note every army writes…".
  hidden: (p, ev) => (typeof p.kind === 'string' && p.kind
    ? `${possessive(who(ev.actor))} ${p.kind}${typeof p.about === 'string' && p.about ? `: ${p.about}` : ''}`
    : `${who(ev.actor)} did something hidden from you`),
};

/** @param {import('../store.js').GameEvent} ev @param {import('../types.js').GameState|null|undefined} [state] unit names @returns {string} */
export function describe(ev, state) {
  const text = describeEvent(ev, state);
  // A roll made again after an accepted undo took the first one back (issue 19 item 2).
  const re = /** @type {{faces?:number[]}|null|undefined} */ (ev.payload?.reroll);
  if (re && !text.includes('re-roll')) return `${text} (a re-roll: the undone roll was ${(re.faces || []).join(', ')})`;
  return text;
}

/** @param {import('../store.js').GameEvent} ev @param {import('../types.js').GameState|null|undefined} [state] @returns {string} */
function describeEvent(ev, state) {
  const words = WORDS[ev.type] || ORDER_WORDS[ev.type];
  try {
    if (words) return words(ev.payload || {}, ev, state);
  } catch {
    /* an unexpected payload: fall through to the plain name */
  }
  const p = ev.payload || {};
  // Rules engine events carry their own words (`text`) and the rule they apply; show both,
  // with every die of the roll when there is one.
  const said = p.text;
  if (typeof said === 'string' && said) {
    const dice = p.roll ? ` [${rollWords(p.roll)}]` : '';
    const rule = p.rule && !said.startsWith(String(p.rule)) ? `${p.rule}: ` : '';
    // The rules applied to this step in their own words ("Distracting: -1 to hit").
    const applied = Array.isArray(p.rules)
      ? p.rules.map((/** @type {unknown} */ r) => (r && typeof r === 'object' ? /** @type {{text?:unknown}} */ (r).text : undefined))
        .filter((s) => typeof s === 'string' && s && !said.includes(s))
      : [];
    return `${rule}${said}${applied.length ? ` — ${applied.join('; ')}` : ''}${dice}`;
  }
  const rule = p.rule ? ` (${p.rule})` : '';
  return `${byWho(ev.actor)}${humanize(ev.type)}${rule}`;
}
