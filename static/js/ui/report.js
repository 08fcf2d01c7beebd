// The combat report: each shooting, melee round and charge as one collapsible group, each
// step a line with its dice (kept and discarded faces, what was needed, the successes) and
// the rules the server applied by their printed names ("Hard Target (1): -1 to hit",
// "Poison Attacks: 2 automatic wounds"). The grouping is pure (tested under node); the words
// are the server's own `text`.

import { h, replace } from './dom.js';
import { ORDER_WORDS } from './order-words.js';
import { unitName, tenths, inches } from '../format.js';
import { attackGroup } from './forty.js';

/** Events that open a group, and the group's kind. */
const STARTERS = /** @type {Record<string, 'shooting'|'melee'|'charge'>} */ ({
  shots_fired: 'shooting',
  combat_round: 'melee',
  charge_declared: 'charge',
});

/** Events that belong to a group of each kind (after its starter). */
const MEMBERS = {
  shooting: new Set(['attack_step', 'hp_lost', 'unit_destroyed', 'heavy_casualties', 'panic_test', 'unit_fled', 'unit_broke']),
  melee: new Set(['fear_test', 'attack_step', 'hp_lost', 'unit_destroyed', 'combat_score', 'break_test', 'unit_broke', 'unit_fled', 'restraint_test', 'unit_pursued', 'panic_test', 'combat_fought']),
  charge: new Set(['charge_reaction', 'unit_fled', 'charge_succeeded', 'charge_failed', 'fleeing_unit_caught']),
};

/** Events that open a group of their own kind when no group of that kind is open. */
const ORPHANS = /** @type {Record<string, 'shooting'|'melee'|'charge'>} */ ({
  attack_step: 'melee',
  combat_score: 'melee',
  break_test: 'melee',
  charge_reaction: 'charge',
  charge_succeeded: 'charge',
  charge_failed: 'charge',
});

/**
 * @typedef {Object} ReportLine
 * @property {number} seq
 * @property {string} type
 * @property {string} text
 * @property {string} [step]          attack_step: attacks | to_hit | to_wound | armour | aegis | ward_save
 * @property {number|null} [needed]
 * @property {number|null} [successes]
 * @property {{face:number, kept:boolean, met:boolean}[]} dice
 * @property {string} [expression]
 * @property {{rule:string, text:string}[]} rules
 * @property {boolean} undone
 */

/**
 * @typedef {Object} ReportGroup
 * @property {string} key        stable across renders: the first event's seq
 * @property {'shooting'|'melee'|'charge'} kind
 * @property {string} title
 * @property {string} outcome    the last word: hp lost, the combat score, the charge result
 * @property {number} first
 * @property {number} last
 * @property {ReportLine[]} lines
 * @property {boolean} undone    every event of the group was taken back by agreement
 */

/** The seqs taken back by accepted undos (`events_undone`). @param {import('../store.js').GameEvent[]} history */
export function undoneSeqs(history) {
  const out = new Set();
  for (const ev of history) {
    if (ev.type === 'events_undone' && Array.isArray(ev.payload?.seqs)) for (const s of ev.payload.seqs) out.add(s);
  }
  return out;
}

/**
 * Group the history into reports, oldest first.
 * @param {import('../store.js').GameEvent[]} history events ascending by seq @param {import('../types.js').GameState|null|undefined} [state] unit names
 * @returns {ReportGroup[]}
 */
export function reportGroups(history, state) {
  const undone = undoneSeqs(history);
  /** @type {ReportGroup[]} */
  const groups = [];
  /** @type {ReportGroup|null} */
  let open = null;
  for (const ev of history) {
    if (ev.type === 'attacks_resolved') { // 40k: one attack sequence, a line per step
      groups.push(attackGroup(ev, undone.has(ev.seq)));
      open = null;
      continue;
    }
    const starter = STARTERS[ev.type];
    if (starter) {
      open = newGroup(starter, ev, state);
      groups.push(open);
    } else if (open && MEMBERS[open.kind].has(ev.type)) {
      // in the open group
    } else if (ORPHANS[ev.type] && !(open && MEMBERS[open.kind].has(ev.type))) {
      open = newGroup(ORPHANS[ev.type], ev, state);
      groups.push(open);
    } else {
      open = null;
      continue;
    }
    const g = /** @type {ReportGroup} */ (open);
    const line = lineOf(ev, state, undone.has(ev.seq));
    // The opening event's words are the title: a line only for its dice or rules.
    if (!(starter && line.text === g.title && !line.dice.length && !line.rules.length)) g.lines.push(line);
    g.last = ev.seq;
    const outcome = outcomeOf(ev, state);
    if (outcome) g.outcome = outcome;
  }
  for (const g of groups) g.undone = g.lines.length > 0 && g.lines.every((l) => l.undone);
  return groups;
}

/** @param {'shooting'|'melee'|'charge'} kind @param {import('../store.js').GameEvent} ev @param {import('../types.js').GameState|null|undefined} state @returns {ReportGroup} */
function newGroup(kind, ev, state) {
  const p = ev.payload || {};
  let title = typeof p.text === 'string' && p.text ? p.text : '';
  if (kind === 'charge') title = `${unitName(state, p.unit)} charge ${unitName(state, p.target ?? p.charger)}`;
  if (kind === 'charge' && ev.type === 'charge_reaction') title = `${unitName(state, p.charger)} charge ${unitName(state, p.unit)}`;
  if (!title) title = kind === 'melee' ? 'Combat' : kind === 'shooting' ? 'Shooting' : 'Charge';
  return { key: String(ev.seq), kind, title, outcome: '', first: ev.seq, last: ev.seq, lines: [], undone: false };
}

/** @param {import('../store.js').GameEvent} ev @param {import('../types.js').GameState|null|undefined} state @param {boolean} undone @returns {ReportLine} */
function lineOf(ev, state, undone) {
  const p = ev.payload || {};
  const words = ORDER_WORDS[ev.type];
  let text = typeof p.text === 'string' && p.text ? p.text : '';
  if (!text && words) {
    try {
      text = words(p, ev, state);
    } catch {
      text = '';
    }
  }
  if (!text && (ev.type === 'charge_succeeded' || ev.type === 'charge_failed')) text = chargeLine(/** @type {import('../types.js').ChargeOutcomePayload} */ (p), ev.type === 'charge_succeeded');
  if (!text) text = String(ev.type).replace(/_/g, ' ');
  const roll = p.roll && typeof p.roll === 'object' ? /** @type {import('../types.js').Roll} */ (p.roll) : null;
  const needed = typeof p.needed === 'number' ? p.needed : null;
  const dice = roll && Array.isArray(roll.dice)
    ? roll.dice.map((d) => ({ face: Number(d.face), kept: Boolean(d.kept), met: Boolean(d.kept) && needed !== null && Number(d.face) >= needed }))
    : [];
  // `rules`: the rules applied, each {rule, text} (a list of bare names carries no words)
  const rules = Array.isArray(p.rules) ? p.rules.flatMap((/** @type {unknown} */ r) => {
    const x = r && typeof r === 'object' ? /** @type {{rule?:unknown, text?:unknown}} */ (r) : null;
    return x && x.rule ? [{ rule: String(x.rule), text: String(x.text || x.rule) }] : [];
  }) : [];
  if (!rules.length && p.rule && typeof p.rule === 'string' && ev.type !== 'unit_fled') rules.push({ rule: p.rule, text: p.rule });
  return {
    seq: ev.seq,
    type: ev.type,
    text,
    step: typeof p.step === 'string' ? p.step : undefined,
    needed,
    successes: typeof p.successes === 'number' ? p.successes : null,
    dice,
    expression: roll ? String(roll.expression ?? '') : undefined,
    rules,
    undone,
  };
}

/** @param {import('../types.js').ChargeOutcomePayload} p @param {boolean} ok */
function chargeLine(p, ok) {
  const rolled = p.roll || p.distance_roll; // an interrupted charge's roll: recorded where it stopped
  const roll = rolled ? `rolled ${rolled.total ?? '?'}${p.bonus ? ` + ${p.bonus} = ${p.range}` : ''}` : '';
  const need = typeof p.distance === 'number' ? `needed ${inches(p.distance)}` : '';
  const why = !ok && p.reason && !/^rolled /.test(String(p.reason)) ? ` — ${p.reason}` : '';
  return `${ok ? (p.caught ? 'Charge succeeded: the fleeing unit is caught' : 'Charge succeeded') : 'Charge failed'} (${[roll, need].filter(Boolean).join(', ')})${why}`;
}

/** @param {import('../store.js').GameEvent} ev @param {import('../types.js').GameState|null|undefined} state */
function outcomeOf(ev, state) {
  const p = ev.payload || {};
  switch (ev.type) {
    case 'hp_lost':
    case 'combat_score':
    case 'unit_broke':
    case 'unit_destroyed':
      return typeof p.text === 'string' ? p.text : '';
    case 'break_test':
      return typeof p.text === 'string' ? p.text : p.passed ? 'Break Test passed' : 'Break Test failed';
    case 'charge_reaction':
      return `${unitName(state, p.unit)}: ${p.name || p.reaction}`;
    case 'charge_succeeded':
      return p.caught ? 'Charge succeeded' : `Charge succeeded (${p.range ?? '?'} vs ${typeof p.distance === 'number' ? tenths(p.distance) : '?'} in)`;
    case 'charge_failed':
      return `Charge failed${p.reason ? `: ${p.reason}` : ''}`;
    case 'fleeing_unit_caught':
      return `${unitName(state, p.unit)} caught and destroyed`;
    default:
      return '';
  }
}

/** What a step is called in the report (40k's Feel No Pain is its own step, not a ward save). */
export const STEP_NAMES = /** @type {Record<string, string>} */ ({ attacks: 'Attacks', to_hit: 'To hit', to_wound: 'To wound', armour: 'Armour', aegis: 'Aegis', ward_save: 'Ward save', feel_no_pain: 'Feel No Pain' });

/**
 * The report panel: the last `limit` groups, newest first; the newest is open unless the
 * reader closed it, older ones stay as the reader left them.
 * @param {HTMLElement} el @param {ReportGroup[]} groups @param {Map<string, boolean>} opened reader's choices
 * @param {number} [limit]
 */
export function renderReport(el, groups, opened, limit = 8) {
  el.hidden = groups.length === 0;
  if (el.hidden) return;
  const shown = groups.slice(-limit).reverse();
  const newest = shown[0]?.key;
  replace(el, h('h2', null, 'Combat report'), shown.map((g) => {
    const isOpen = opened.has(g.key) ? opened.get(g.key) : g.key === newest;
    const details = h('details', {
      class: `report-group ${g.kind}${g.undone ? ' undone' : ''}`, dataset: { seq: g.first, kind: g.kind }, open: Boolean(isOpen),
      ontoggle: (/** @type {Event} */ e) => opened.set(g.key, /** @type {HTMLDetailsElement} */ (e.target).open),
    },
    h('summary', null, h('b', null, g.title), g.outcome ? h('div', { class: 'outcome' }, g.outcome) : null, g.undone ? h('small', { class: 'undone-note' }, ' (undone by agreement)') : null),
    h('ol', { class: 'report-lines' }, g.lines.map(lineItem)));
    return details;
  }));
}

/** @param {ReportLine} l */
function lineItem(l) {
  return h('li', { class: `report-line ${l.type}${l.step ? ` step-${l.step}` : ''}${l.undone ? ' undone' : ''}`, dataset: { seq: l.seq } },
    l.step && STEP_NAMES[l.step] ? h('span', { class: 'step' }, STEP_NAMES[l.step]) : null,
    h('span', { class: 'text' }, l.text),
    l.dice.length
      ? h('div', { class: 'faces' },
        l.expression ? h('span', { class: 'expr' }, l.expression) : null,
        // A success is marked by a tick and a heavy outline as well as the green (issue 24
        // item 3: nothing said by colour alone), and in words for screen readers.
        l.dice.map((d) => h('span', {
          class: `die ${d.kept ? 'kept' : 'discarded'}${d.met ? ' met' : ''}`,
          title: `${d.met ? 'success, ' : ''}${d.kept ? 'kept' : 'discarded'}${l.needed !== null ? `, needed ${l.needed}+` : ''}`,
        }, String(d.face), d.met ? h('span', { class: 'tick', 'aria-hidden': 'true' }, '✓') : null,
        h('span', { class: 'sr-only' }, d.met ? ' (success)' : d.kept ? '' : ' (discarded)'))),
        l.needed !== null ? h('span', { class: 'needed' }, `needed ${l.needed}+`) : null,
        l.successes !== null ? h('span', { class: 'total' }, `→ ${l.successes}`) : null)
      : null,
    l.rules.length
      ? h('ul', { class: 'rule-lines' }, l.rules.map((r) => h('li', { class: 'rule-line', dataset: { rule: r.rule } }, h('b', null, r.rule), r.text !== r.rule ? (r.text.startsWith(r.rule) ? r.text.slice(r.rule.length) : `: ${r.text}`) : '')))
      : null);
}
