// Orders that wait on the other player or act on the enemy: Charge Reactions, proposals by
// agreement (undo, free move), shooting and melee. The pure parts say what to offer from the
// server's state and log (tested under node); the rest turns clicks into intents. The server
// decides every rule: a reaction it refuses comes with the rule's reason, shown as it is.

import { h, replace } from './dom.js';
import { geometryRings } from '../view/hit.js';
import { REACTION_NAMES, proposalWords, rollList } from './order-words.js';
import { errorText, unitName, inches } from '../format.js';
import { reportGroups, renderReport } from './report.js';
import { fortyOrderPanels } from './forty.js';
import { controlAttrs, gameOffer, targetIds, unitOffer } from './offers.js';
import { defaultRelease, releasesFor, whirlsFrom } from '../view/fanatics.js';
import { reactiveStratagems } from './waiting.js';
import { sightOf } from '../view/sight.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */
/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../store.js').GameEvent} GameEvent */

const REACTIONS = ['hold', 'flee', 'stand_and_shoot'];

// --- pure: what to offer ---------------------------------------------------------------------

/**
 * What the other players read while a declared charge waits for the charged player: "Waiting
 * for Player 2's Charge Reaction…" (t9a, whfb8), or, when the charge waits for another answer
 * (wh40k10: Fire Overwatch, before the charge roll), "Waiting for Player 2 to answer the
 * charge (Fire Overwatch)…". Null for the charged player themselves and when nothing waits.
 * @param {GameState|null|undefined} state @param {number|null} seat
 */
export function chargeWaitWords(state, seat) {
  const pc = state?.pending_charge;
  if (!pc || !pc.unit) return null;
  const reacting = Number(pc.reacting_player);
  if (seat === reacting) return null;
  const who = `Player ${reacting}`;
  if (pc.answer) return `Waiting for ${who} to answer the charge (${pc.answer})…`;
  return seat === null || seat === undefined ? `${who} chooses a Charge Reaction…` : `Waiting for ${who}'s Charge Reaction…`;
}

/**
 * The charge waiting for a Charge Reaction, as each viewer sees it: who declared it on whom
 * and how far, and for the charged player the reactions, each allowed or refused with the
 * rule the server named (refusals come from the `charge_declared` event in the log). A
 * wh40k10 charge waits for its Fire Overwatch answer instead (`answer`): the server's
 * `charge_answer` order lists each answer with the action it sends.
 * @param {GameState|null|undefined} state @param {GameEvent[]} history @param {number|null} seat
 * @returns {null|{unit:string, target:string, text:string, distance:number|null, reacting:number, role:'react'|'wait'|'watch', answer:string|null, ask:string, waiting:string, reactions:{id:string, name:string, allowed:boolean, rule:string|null, reason:string|null, action:import('../types.js').Action|null}[]}}
 */
export function chargePrompt(state, history, seat) {
  const pc = state?.pending_charge;
  if (!pc || !pc.unit || !pc.target) return null;
  let declared = null;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const ev = history[i];
    if (ev.type === 'charge_declared' && ev.payload?.unit === pc.unit && ev.payload?.target === pc.target) {
      declared = /** @type {import('../types.js').ChargeDeclaredPayload} */ (ev.payload);
      break;
    }
  }
  const distance = typeof declared?.distance === 'number' ? declared.distance : null;
  const allowed = new Set(Array.isArray(pc.reactions) ? pc.reactions : declared?.reactions || []);
  const refused = declared?.refused || {};
  const reacting = Number(pc.reacting_player ?? declared?.reacting_player);
  const role = seat === null || seat === undefined ? 'watch' : seat === reacting ? 'react' : 'wait';
  const text = `${unitName(state, pc.unit)} declare a charge on ${unitName(state, pc.target)}${distance !== null ? ` (${inches(distance)})` : ''}`;
  const answer = pc.answer || declared?.answer || null;
  const words = { answer, waiting: chargeWaitWords(state, seat) || '' };
  const answering = gameOffer(state, 'charge_answer');
  if (answer) {
    const cost = typeof answering?.cost === 'number' ? ` (${answering.cost} CP)` : '';
    const list = answering && Array.isArray(answering.reactions) ? answering.reactions : [];
    return {
      unit: pc.unit, target: pc.target, text, distance, reacting, role, ...words,
      ask: `Before the charge roll: use ${answer}${cost}?`,
      reactions: list.map((r) => ({
        id: String(r.reaction),
        name: String(r.name || r.reaction),
        allowed: Boolean(r.available),
        rule: r.available ? null : answer,
        reason: r.available ? null : String(r.reason || 'not allowed'),
        action: r.action && typeof r.action === 'object' ? r.action : null,
      })),
    };
  }
  const ask = 'Your Charge Reaction:';
  const offered = unitOffer(state, pc.target, 'charge_reaction');
  if (offered && Array.isArray(offered.reactions)) {
    return {
      unit: pc.unit, target: pc.target, text, distance, reacting, role, ...words, ask,
      reactions: offered.reactions.map((r) => ({
        id: String(r.reaction),
        name: String(r.name || REACTION_NAMES[r.reaction] || r.reaction),
        allowed: Boolean(r.available),
        rule: r.available ? null : String(r.rule || ''),
        reason: r.available ? null : String(r.reason || 'not allowed'),
        action: null,
      })),
    };
  }
  return {
    unit: pc.unit,
    target: pc.target,
    text,
    distance,
    reacting,
    role,
    ...words,
    ask,
    reactions: REACTIONS.filter((r) => allowed.has(r) || refused[r]).map((r) => ({
      id: r,
      name: REACTION_NAMES[r] || r,
      allowed: allowed.has(r),
      rule: allowed.has(r) ? null : String(refused[r]?.rule || ''),
      reason: allowed.has(r) ? null : String(refused[r]?.message || 'not allowed'),
      action: null,
    })),
  };
}

/**
 * The open proposal as a banner: the words, and whether this viewer answers it (the
 * opponent), may withdraw it (the proposer) or watches.
 * @param {GameState|null|undefined} state @param {number|null} seat
 * @returns {null|{id:string, kind:string, by:number, text:string, role:'answer'|'own'|'watch', open:boolean}}
 */
export function proposalBanner(state, seat) {
  const p = state?.proposal;
  if (!p || !p.id) return null;
  const by = Number(p.by);
  const role = seat === null || seat === undefined ? 'watch' : seat === by ? 'own' : 'answer';
  const open = p.open !== false;
  const text = `Player ${by} proposes ${proposalWords(p, state)}${open ? '' : ' — the game has moved on since: accepting it now only records that it lapsed'}`;
  return { id: String(p.id), kind: String(p.kind), by, text, role, open };
}

/**
 * What "Propose undo" takes back, as the server's order says (issue 19 item 2): this seat's
 * last action since the opponent last acted, its events in words and the dice it would
 * discard. The same after a reload (the server works it out from the log). Null when the
 * server offers none; `reason` when it refuses (nothing of yours to undo…).
 * @param {import('../types.js').GameOffers['undo']|null} offer the `undo` game order
 * @returns {null|{seq:number|null, events:{seq:number, type:string, text:string}[], rolls:import('../types.js').UndoneRoll[], reason:string|null}}
 */
export function undoFromOffer(offer) {
  if (!offer) return null;
  if (!offer.available || !offer.undo) return { seq: null, events: [], rolls: [], reason: String(offer.reason || 'nothing to undo') };
  const events = Array.isArray(offer.undo.events) ? offer.undo.events : [];
  return {
    seq: Number(offer.undo.from_seq),
    events: events.map((e) => ({ seq: Number(e.seq), type: String(e.type), text: String(e.text || e.type) })),
    rolls: Array.isArray(offer.undo.rolls) ? offer.undo.rolls : [],
    reason: null,
  };
}

// --- intents ---------------------------------------------------------------------------------

/**
 * Send an action with a toast on refusal. @param {Table} table @param {import('../types.js').Action} action @param {string} what
 * @returns {Promise<import('../types.js').Ack|null>} the ack, or null
 */
export async function send(table, action, what) {
  try {
    return await table.conn.act(action);
  } catch (err) {
    table.toast(`${what}: ${errorText(err)}`, 'error');
    return null;
  }
}

/** @param {Table} table @param {string} unitId */
export function fight(table, unitId) {
  const name = unitName(table.store.state, unitId);
  return send(table, { type: 'fight_combat', unit: unitId }, `Fight ${name}`);
}

// --- the selected unit's combat and agreement orders (rendered in the info panel) -----------

/**
 * Buttons for the selected unit: Shoot…, Fight, Free move… (and, while a free move is
 * staged, Propose free move / Reset).
 * @param {import('../types.js').Unit|null|undefined} unit @param {Table} table
 */
export function unitActions(unit, table) {
  const store = table.store;
  const st = store.state || {};
  if (!unit || store.seat === null) return null;
  const shootOrder = unitOffer(st, unit.id, 'shoot');
  const fightOrder = unitOffer(st, unit.id, 'fight_combat');
  const freeMove = gameOffer(st, 'free_move');
  const weapons = Array.isArray(shootOrder?.weapons) ? shootOrder.weapons.map((w) => String(w.name)) : [];
  const g = table.moves.ghost;
  const staged = g?.proposal && g.id === unit.id && g.phase === 'staged';
  const shoot = table.tools.shoot;
  const buttons = [];
  if (shootOrder) {
    if (weapons.length > 1) {
      buttons.push(h('select', {
        class: 'weapon', 'aria-label': 'Weapon', disabled: !shootOrder.available,
        onchange: (/** @type {Event} */ e) => { shoot.weapon = /** @type {HTMLSelectElement} */ (e.target).value; },
      }, weapons.map((w) => h('option', { value: w, selected: w === shoot.weapon }, w))));
    }
    buttons.push(h('button', {
      type: 'button', id: 'shoot', class: table.mode === 'shoot' ? 'active' : '',
      ...controlAttrs(shootOrder, `Shoot at: ${targetIds(shootOrder).map((id) => unitName(st, id)).join(', ')}`),
      onclick: () => {
        if (weapons.length && !weapons.includes(shoot.weapon || '')) shoot.weapon = weapons[0];
        table.setMode(table.mode === 'shoot' ? 'idle' : 'shoot');
      },
    }, 'Shoot…'));
  }
  // What the shooter sees and reaches, in words beside the marks on the table (issue 19 item 7).
  const sight = shootOrder ? sightOf(st, unit.id) : null;
  const seen = sight && sight.targets.length
    ? h('ul', { class: 'shoot-targets', id: 'shoot-targets', 'aria-label': `Targets of ${unitName(st, unit.id)}` },
      sight.targets.map((t) => h('li', { class: t.ok ? 'ok' : 'bad', dataset: { unit: t.unit } }, h('b', null, t.name), ` ${t.text}`)))
    : null;
  if (fightOrder) {
    buttons.push(h('button', { type: 'button', id: 'fight', class: 'primary', ...controlAttrs(fightOrder, 'Fight this combat'), onclick: () => fight(table, unit.id) }, 'Fight'));
  }
  const restrain = unitOffer(st, unit.id, 'restrain_pursuit');
  if (restrain) {
    const held = Boolean(restrain.restrained);
    buttons.push(h('button', {
      type: 'button', id: 'restrain', 'aria-pressed': held ? 'true' : 'false', class: held ? 'active' : '',
      ...controlAttrs(restrain, held ? 'This unit will test to hold back from pursuits; click to pursue' : `Hold back from pursuits (${restrain.rule || 'a Leadership test'})`),
      onclick: () => send(table, { type: 'restrain_pursuit', unit: unit.id, restrain: !held }, held ? 'Pursue' : 'Hold back'),
    }, held ? 'Holding back' : 'Hold back'));
  }
  // whfb8 Skirmishers move model by model; Vanguard before the first turn (the server's orders).
  const skirmish = unitOffer(st, unit.id, 'skirmish_move') || unitOffer(st, unit.id, 'vanguard_move');
  if (skirmish) {
    const vanguard = skirmish.action === 'vanguard_move';
    buttons.push(h('button', {
      type: 'button', id: 'skirmish-move', class: table.mode === 'skirmish' ? 'active' : '',
      ...controlAttrs(skirmish, vanguard ? 'Vanguard: up to 12 in per model, not within 12 in of an enemy' : 'Move model by model: each within its allowance around what is in the way'),
      onclick: () => table.setMode(table.mode === 'skirmish' ? 'idle' : 'skirmish'),
    }, vanguard ? 'Vanguard…' : 'Skirmish move…'));
  }
  if (unit.status === 'on_table' && freeMove) {
    if (staged) {
      buttons.push(h('button', { type: 'button', id: 'propose-free-move', class: 'primary', ...controlAttrs(freeMove, 'Propose free move'), onclick: () => table.tools.free_move.propose() }, 'Propose free move', h('kbd', null, 'Enter')));
      buttons.push(h('button', { type: 'button', id: 'reset-free-move', onclick: () => table.cancel() }, 'Reset', h('kbd', null, 'Esc')));
    } else {
      buttons.push(h('button', {
        type: 'button', id: 'free-move', class: table.mode === 'free_move' ? 'active' : '',
        ...controlAttrs(freeMove, 'Put the unit anywhere if your opponent agrees (no movement rules)'),
        onclick: () => table.setMode(table.mode === 'free_move' ? 'idle' : 'free_move'),
      }, 'Free move…'));
    }
  }
  const forty = fortyOrderPanels(unit, table);
  if (!buttons.length && !forty) return null;
  return h('div', { class: 'combat-orders' }, buttons.length ? h('div', { class: 'buttons orders' }, buttons) : null, seen, forty);
}

// --- the banner, the agreement panel and the report ------------------------------------------

/**
 * Mount the charge/proposal banner over the table, the "By agreement" panel and the combat
 * report in the side panel; flash swept areas of charges and flights as they come in.
 * @param {{side:HTMLElement, board:HTMLElement, store:Store, conn:Connection, table:Table, toast:(msg:string, kind?:'info'|'error'|'ok') => void}} o
 */
export function mountOrders(o) {
  const { side, board, store, table } = o;
  const banner = h('div', { class: 'order-banner', id: 'order-banner', role: 'region', 'aria-label': 'Waiting for an answer', 'aria-live': 'polite', hidden: true });
  // Over the table; where the panels are a sheet under the table (tablets in portrait and
  // phones: the same media query as the stacked layout in app.css), at the top of that sheet,
  // so it covers none of the table (issue 24 item 5).
  const phone = typeof window.matchMedia === 'function' ? window.matchMedia('(max-width: 900px), (orientation: portrait) and (max-width: 1100px)') : null;
  const placeBanner = () => {
    const parent = phone?.matches ? side : board;
    if (banner.parentElement !== parent) {
      if (parent === side) side.prepend(banner);
      else board.append(banner);
    }
  };
  placeBanner();
  phone?.addEventListener('change', placeBanner);
  const agreement = h('section', { class: 'panel agreement', id: 'agreement', hidden: true });
  const report = h('section', { class: 'panel report', id: 'combat-report', hidden: true });
  const phase = side.querySelector('.panel.phase');
  if (phase?.nextSibling) side.insertBefore(agreement, phase.nextSibling);
  else side.prepend(agreement);
  // Right under the selected unit's card (and its Shoot / Fight buttons): the latest report
  // stays in view above the folded lists.
  const info = side.querySelector('.panel.info');
  if (info?.nextSibling) side.insertBefore(report, info.nextSibling);
  else side.append(report);
  /** @type {Map<string, boolean>} */
  const opened = new Map();
  let busy = false;
  let reportKey = '';
  /** The newest report group's key, and whether the events now shown arrived live (not the
   * history on load or a resync). */
  let newestReport = '';
  let liveEvents = false;
  /** The charge or proposal whose banner last took the focus. */
  let focusedFor = '';
  /** Where the focus was before the banner took it. @type {HTMLElement|null} */
  let focusBefore = null;
  /** The reactive Stratagems answered "Not now", each for its moment (momentKey). @type {Set<string>} */
  const dismissed = new Set();
  /** @param {import('./stratagems.js').StratagemRow[]} rows @param {GameState} st */
  const dismissedOut = (rows, st) => rows.filter((r) => !dismissed.has(momentKey(st, r)));

  /** @param {() => Promise<unknown>} fn */
  const once = async (fn) => {
    if (busy) return;
    busy = true;
    update();
    try {
      await fn();
    } finally {
      busy = false;
      update();
    }
  };

  function renderBanner() {
    const st = store.state || {};
    const charge = chargePrompt(st, store.history, store.seat);
    const prop = proposalBanner(st, store.seat);
    const rows = [];
    if (charge) {
      // One prompt for every answer to a declared charge: a Charge Reaction (t9a, whfb8) or
      // Fire Overwatch before the roll (wh40k10), each button sending what the server named.
      rows.push(h('div', { class: 'banner-row charge', id: 'charge-prompt', role: charge.role === 'react' ? 'alertdialog' : null, 'aria-label': charge.role === 'react' ? charge.text : null },
        h('b', null, charge.text),
        charge.role === 'react'
          ? h('div', { class: 'reactions' },
            h('span', null, charge.ask),
            charge.reactions.map((r) => h('button', {
              type: 'button', class: r.allowed && r.id !== 'decline' ? 'primary' : '', disabled: !r.allowed || busy,
              dataset: { reaction: r.id }, title: r.allowed ? r.name : `${r.rule}: ${r.reason}`,
              onclick: () => once(() => send(table, r.action || { type: 'charge_reaction', reaction: r.id }, r.name)),
            }, r.name)),
            refusedWhy(charge.reactions.filter((r) => !r.allowed)))
          : h('div', { class: 'waiting' }, charge.waiting)));
    }
    const releases = releasesFor(st, store.seat);
    for (const r of releases) rows.push(releaseRow(st, r));
    const reactive = dismissedOut(reactiveStratagems(st, store.seat), st);
    for (const row of reactive) rows.push(stratagemRow(st, row));
    if (prop) {
      const undoing = st.proposal?.kind === 'undo' && st.proposal.undo ? st.proposal.undo : null;
      rows.push(h('div', { class: `banner-row proposal${prop.open ? '' : ' lapsing'}`, id: 'proposal-banner', dataset: { proposal: prop.id } },
        h('b', null, prop.text),
        undoing && Array.isArray(undoing.events)
          ? h('ul', { class: 'proposal-list', id: 'proposal-events' }, undoing.events.map((e) => h('li', { dataset: { seq: e.seq } }, String(e.text || e.type))))
          : null,
        undoing && Array.isArray(undoing.rolls) && undoing.rolls.length
          ? h('div', { class: 'undo-dice', id: 'proposal-dice' }, `Dice it discards: ${rollList(undoing.rolls)}`)
          : null,
        prop.role === 'answer'
          ? h('div', { class: 'buttons' },
            h('button', { type: 'button', class: 'primary', id: 'accept-proposal', disabled: busy, onclick: () => once(() => send(table, { type: 'accept_proposal', id: prop.id }, 'Accept')) }, 'Accept'),
            h('button', { type: 'button', id: 'decline-proposal', disabled: busy, onclick: () => once(() => send(table, { type: 'decline_proposal', id: prop.id }, 'Decline')) }, 'Decline'))
          : prop.role === 'own'
            ? h('div', { class: 'buttons' }, h('span', { class: 'waiting' }, `Waiting for Player ${prop.by === 1 ? 2 : 1}…`),
              h('button', { type: 'button', id: 'withdraw-proposal', disabled: busy, onclick: () => once(() => send(table, { type: 'decline_proposal', id: prop.id }, 'Withdraw')) }, 'Withdraw'))
            : null));
    }
    banner.hidden = rows.length === 0;
    replace(banner, rows);
    dockBanner(charge ? [charge.unit, charge.target] : []);
    takeFocus(charge?.role === 'react' ? `charge:${charge.unit}:${charge.target}`
      : releases.length ? `fanatics:${releases.map((r) => `${r.unit}:${r.left}`).join(',')}`
        : reactive.length ? `stratagem:${reactive.map((r) => momentKey(st, r)).join(',')}`
          : prop?.role === 'answer' ? `proposal:${prop.id}` : '');
  }

  /** The owner's Fanatics to release now (whfb8, seed 003), asked in the banner: the focus goes
   * to "Choose point…" (it only moves to the release form of the Fanatics panel), never to the
   * button that rolls, so a stray Enter throws no dice.
   * @param {GameState} st @param {{unit:string, left:number, interrupted:string}} r */
  function releaseRow(st, r) {
    const n = `${r.left} Fanatic${r.left === 1 ? '' : 's'}`;
    const start = defaultRelease(st.units?.[r.unit]);
    return h('div', { class: 'banner-row fanatics', id: `release-prompt-${r.unit}`, dataset: { unit: r.unit } },
      h('b', null, `${unitName(st, r.unit)} must release ${n}: ${r.interrupted === r.unit ? 'they came within 8 in of the enemy' : `${unitName(st, r.interrupted)} came within 8 in`}`),
      h('div', { class: 'buttons' },
        h('button', {
          type: 'button', class: 'primary', dataset: { autofocus: '1' }, disabled: busy,
          onclick: () => {
            const field = /** @type {HTMLInputElement|null} */ (document.querySelector(`#fanatics form.release-fanatic[data-unit="${CSS.escape(r.unit)}"] input`));
            field?.scrollIntoView?.({ block: 'nearest' });
            field?.focus();
          },
        }, 'Choose point and direction…'),
        start ? h('button', {
          type: 'button', class: 'release-front', disabled: busy,
          title: 'Release from the middle of the unit\'s front, the way it faces (the scatter and the whirl are rolled)',
          onclick: () => once(() => send(table, { type: 'release_fanatic', unit: r.unit, point: [start.x, start.y], facing: start.facing }, 'Release')),
        }, 'Release from the front') : null));
  }

  /** A reactive Stratagem (Counter-offensive, Heroic Intervention) the server offers this seat
   * in the opponent's turn, asked in the banner. The focus goes to "Not now" (Use spends CP and
   * may roll). @param {GameState} st @param {import('./stratagems.js').StratagemRow} row */
  function stratagemRow(st, row) {
    const pick = /** @type {HTMLSelectElement} */ (h('select', { 'aria-label': `${row.name}: on what` },
      row.choices.map((c, i) => h('option', { value: String(i) }, c.label))));
    return h('div', { class: 'banner-row stratagem-prompt', dataset: { stratagem: row.name } },
      h('b', null, `You may use ${row.name} (${row.cost} CP): ${row.effect}`),
      h('div', { class: 'buttons' },
        row.choices.length > 1 ? pick : h('span', null, `On ${row.choices[0]?.label || ''}`),
        h('button', {
          type: 'button', class: 'primary use', disabled: busy,
          onclick: () => {
            const choice = row.choices[Number(pick.value) || 0];
            if (choice) void once(() => send(table, choice.action, row.name));
          },
        }, `Use (${row.cost} CP)`),
        h('button', {
          type: 'button', class: 'not-now', dataset: { autofocus: '1' },
          onclick: () => { dismissed.add(momentKey(st, row)); update(); },
        }, 'Not now')));
  }

  /** The reactions refused, each with its rule's reason, folded under one line so the banner
   * stays short over the table (the disabled buttons carry the same words as their title).
   * @param {{id:string, name:string, rule:string|null, reason:string|null}[]} refused */
  function refusedWhy(refused) {
    if (!refused.length) return null;
    return h('details', { class: 'refused-why' },
      h('summary', null, `Not allowed: ${refused.map((r) => r.name).join(', ')} — why`),
      refused.map((r) => h('div', { class: 'refused', dataset: { reaction: r.id } }, `${r.name} not allowed — ${r.rule}: ${r.reason}`)));
  }

  /** Over the table, the banner docks at the top or the bottom edge, whichever leaves the units
   * it is about (the charger and its target) in view: the edge with more room between it and
   * them (issue 24 item 5: the desktop banner covered the top strip). @param {string[]} ids */
  function dockBanner(ids) {
    if (banner.parentElement !== board || banner.hidden) return banner.classList.remove('dock-bottom');
    const st = store.state || {};
    const rect = board.getBoundingClientRect();
    const ys = ids.flatMap((id) => {
      const u = st.units?.[id];
      const rings = (u?.footprint?.features || []).flatMap((f) => geometryRings(f.geometry));
      const pts = rings.length ? rings.flat() : u?.placement ? [[u.placement.x, u.placement.y]] : [];
      return pts.map((/** @type {number[]} */ p) => table.clientPoint(p[0], p[1]).y - rect.top);
    });
    if (!ys.length) return banner.classList.remove('dock-bottom');
    // The units' labels are drawn under them (28 px kept below, 8 above). The edge whose banner
    // would cover less of them wins; on a tie, the top.
    const need = banner.getBoundingClientRect().height + 8;
    const coverTop = Math.max(0, need - (Math.min(...ys) - 8));
    const coverBottom = Math.max(0, need - (rect.height - Math.max(...ys) - 28));
    banner.classList.toggle('dock-bottom', coverBottom < coverTop);
  }

  /** A banner that asks this player for an answer takes the focus (its first enabled button)
   * once; when it goes, the focus goes back where it was (issue 24 item 1). @param {string} key */
  function takeFocus(key) {
    if (key && key !== focusedFor) {
      const first = /** @type {HTMLElement|null} */ (banner.querySelector('button[data-autofocus]:not([disabled])') || banner.querySelector('button:not([disabled])'));
      if (first) {
        focusedFor = key;
        const active = /** @type {HTMLElement|null} */ (document.activeElement);
        if (!banner.contains(active)) focusBefore = active;
        first.focus();
      }
    } else if (!key && focusedFor) {
      focusedFor = '';
      const back = focusBefore;
      focusBefore = null;
      if (document.activeElement === document.body || !document.activeElement) {
        (back && back !== document.body && back.isConnected ? back : table.canvas).focus({ preventScroll: true });
      }
    }
  }

  function renderAgreement() {
    const st = store.state || {};
    const seated = store.seat !== null;
    agreement.hidden = !seated || !st.stage || st.stage === 'setup' || !Array.isArray(st.undoable);
    if (agreement.hidden) return;
    const undoOffer = gameOffer(st, 'undo');
    const plan = undoFromOffer(undoOffer);
    const blocked = Boolean(st.proposal && st.proposal.open !== false);
    const can = Boolean(plan && plan.seq !== null);
    const undo = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', id: 'propose-undo',
      title: can && plan ? `Undo: ${plan.events.map((e) => e.text).join('; ')}` : String(plan?.reason || 'Nothing to undo'),
      onclick: () => can && plan && once(() => send(table, { type: 'propose', kind: 'undo', seq: plan.seq }, 'Propose undo')),
    }, 'Propose undo'));
    undo.disabled = !can || blocked || busy;
    if (!can) undo.setAttribute('aria-disabled', 'true');
    replace(agreement, h('h2', null, 'By agreement'),
      h('div', { class: 'buttons' }, undo),
      can && plan
        ? h('div', { class: 'hint undo-what' },
          `Takes back your last action (${plan.events.length === 1 ? '1 event' : `${plan.events.length} events`}):`,
          h('ul', { class: 'proposal-list' }, plan.events.map((e) => h('li', { dataset: { seq: e.seq } }, e.text))),
          plan.rolls.length ? h('div', { class: 'undo-dice' }, `Dice it discards: ${rollList(plan.rolls)}`) : null)
        : h('small', { class: 'hint undo-what' }, plan?.reason ? `${plan.reason.charAt(0).toUpperCase()}${plan.reason.slice(1)}.` : 'Nothing to undo.'),
      h('small', { class: 'hint' }, 'Free move: select a unit, then Free move…'));
  }

  function renderReportPanel() {
    const last = store.history[store.history.length - 1];
    const key = `${store.history.length}:${last?.seq ?? 0}:${store.state?.units ? Object.keys(store.state.units).length : 0}`;
    if (key === reportKey) return;
    reportKey = key;
    const groups = reportGroups(store.history, store.state);
    renderReport(report, groups, opened);
    const newest = groups[groups.length - 1];
    const was = newestReport;
    newestReport = newest ? newest.key : '';
    const live = liveEvents;
    liveEvents = false;
    // The report of the player's own Shoot or Fight lands under the unit card, often below the
    // fold: bring it into view and give it the focus, so a screen reader reads it out. Only a
    // report that arrives now (not the history on load) and only for the viewer's own
    // attacks: the opponent's do not take the focus from what the player is doing.
    if (!live || !newest || newest.key === was) return;
    const ev = store.history.find((e) => e.seq === newest.last);
    if (store.seat === null || ev?.actor !== store.seat) return;
    const group = report.querySelector('.report-group');
    const summary = /** @type {HTMLElement|null} */ (group?.querySelector('summary') || null);
    if (!group || !summary) return;
    group.scrollIntoView({ block: 'nearest' });
    summary.scrollIntoView({ block: 'nearest' });
    summary.focus({ preventScroll: true });
  }

  function update() {
    renderBanner();
    renderAgreement();
    renderReportPanel();
  }

  store.subscribe((change) => {
    if (change.kind === 'events') flashEvents(table, change.events || []);
    liveEvents = change.kind === 'events';
    update();
  });
  update();
  return update;
}

/** A reactive Stratagem's moment: the Stratagem, the turn and phase, and what it may be used
 * on (a new enemy charge is a new question). @param {GameState} st @param {import('./stratagems.js').StratagemRow} row */
function momentKey(st, row) {
  return `${row.name}@${st.turn}:${st.player_turn}:${st.phase}:${row.choices.map((c) => c.label).join('|')}`;
}

/** Swept areas of charges and flights, flashed on the table for a moment. @param {Table} table @param {GameEvent[]} events */
export function flashEvents(table, events) {
  for (const ev of events) {
    const swept = /** @type {import('../types.js').Geometry|null|undefined} */ (ev.payload?.swept);
    if ((ev.type === 'unit_fled' || ev.type === 'charge_succeeded' || ev.type === 'charge_failed') && swept?.type) {
      table.flashes = [...table.flashes, { geometry: swept, born: performance.now(), kind: ev.type === 'unit_fled' ? 'flee' : 'charge' }];
    }
  }
  // whfb8 Fanatics (seed 003): each whirl animated along its path, with its hits and removal.
  const whirls = whirlsFrom(events, performance.now(), table.whirls || []);
  table.whirls = [...(table.whirls || []), ...whirls];
  table.whirlsShown = [...(table.whirlsShown || []), ...whirls].slice(-20);
  table.redraw();
}
