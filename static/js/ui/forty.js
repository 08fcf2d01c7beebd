// Warhammer 40,000 (wh40k10) on the table page (issue 16): CP and VP in the turn bar, the
// Waaagh! button in your Command phase, the objective markers with their controller, the Shoot
// and Fight orders of 40k units and the attack report of each `attacks_resolved` event, step by
// step with its dice. Everything comes from the server: `state.forty`, its events and the
// orders it offers (`state.orders`: `shoot_weapons`, `fight`, `call_waaagh`, with targets,
// distances, visibility and the reason for each refusal). Nothing here judges a rule. The pure
// parts are tested under node (static/tests/forty.test.js).

import { h } from './dom.js';
import { errorText, inches } from '../format.js';
import { controlAttrs, gameOffer, unitOffer } from './offers.js';

/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../types.js').FortyAttackOffer} FortyAttackOffer */
/** @typedef {import('../types.js').FortyWeapon} FortyWeapon */
/** @typedef {import('../types.js').FortyTarget} FortyTarget */

/** A 40k game: its state carries the `forty` part (CP, VP, objectives) that only that system
 * projects (server/rules/wh40k10). @param {GameState|null|undefined} st
 * @returns {st is GameState & {forty:import('../types.js').FortyView}} */
export function isForty(st) {
  return Boolean(st && st.forty);
}

/**
 * CP and VP of both players, as the turn bar shows them.
 * @param {GameState|null|undefined} st @returns {{seat:number, cp:number, vp:number}[]}
 */
export function scoreItems(st) {
  if (!isForty(st)) return [];
  const f = st.forty;
  return [1, 2].map((seat) => ({ seat, cp: Number(f.cp?.[seat] ?? 0), vp: Number(f.vp?.[seat] ?? 0) }));
}

/**
 * The turn bar's 40k items: each player's CP and VP, "Waaagh!" while one is active, and the
 * Waaagh! button while the server offers it (`call_waaagh`: the active player's Command phase,
 * an army with the ability; shown disabled with the reason once it has been called).
 * @param {GameState|null|undefined} st @param {number|null} seat @param {{act:(a:import('../types.js').Action)=>Promise<unknown>}} conn @param {import('../table.js').Toast} toast
 * @returns {HTMLElement[]}
 */
export function fortyBar(st, seat, conn, toast) {
  if (!isForty(st)) return [];
  const out = scoreItems(st).map((s) => h('span', { class: `score owner-${s.seat}`, dataset: { seat: s.seat } },
    `${s.seat === seat ? 'You' : `Player ${s.seat}`}: ${s.cp} CP · ${s.vp} VP`));
  for (const s of st.forty.waaagh?.active || []) out.push(h('span', { class: `waaagh owner-${s}` }, `Waaagh! (Player ${s})`));
  const next = st.forty.fight_next;
  if (st.phase === 'Fight' && st.stage === 'battle' && next && (next.seat === 1 || next.seat === 2)) {
    out.push(h('span', { class: `fight-next owner-${next.seat}` },
      next.seat === seat ? 'Fight: you choose the next unit to fight' : `Fight: Player ${next.seat} chooses the next unit to fight`));
  }
  const waaagh = seat === null ? null : gameOffer(st, 'call_waaagh');
  if (waaagh && waaagh.available) {
    out.push(h('button', {
      type: 'button', id: 'call-waaagh', class: 'primary',
      ...controlAttrs(waaagh, 'Once per battle: until your next Command phase, charge after Advancing, +1 S and A in melee, 5+ invulnerable save'),
      onclick: async () => {
        try {
          await conn.act({ type: 'call_waaagh' });
        } catch (err) {
          toast(`Waaagh!: ${errorText(err)}`, 'error');
        }
      },
    }, 'Waaagh!'));
  }
  return out;
}

// --- Shoot and Fight, from the server's offers (server/rules/wh40k10/offers.py) ---------------

/** A dice value or number as printed ("D6+4", 2). @param {number|string|null|undefined} v */
const printed = (v) => String(v ?? '');

/**
 * A weapon's profile in words: "24 in · A 2 · BS 3+ · S 4 · AP -1 · D 1 · ASSAULT, HEAVY".
 * @param {FortyWeapon} w an offered weapon (name, range, A, skill, S, AP, D, abilities)
 * @param {'BS'|'WS'} [skill]
 */
export function weaponWords(w, skill = 'BS') {
  const parts = [];
  if (typeof w.range === 'number') parts.push(`${w.range} in`);
  parts.push(`A ${printed(w.A)}`);
  if (w.skill !== null && w.skill !== undefined) parts.push(`${skill} ${w.skill}+`);
  parts.push(`S ${printed(w.S)}`, `AP ${printed(w.AP)}`, `D ${printed(w.D)}`);
  if (Array.isArray(w.abilities) && w.abilities.length) parts.push(w.abilities.join(', '));
  return parts.join(' · ');
}

/**
 * What the player sees of a target before rolling: distance, visibility, cover, engaged and, for
 * a Fight, how many models fight it.
 * @param {FortyTarget} t an offered target
 */
export function targetWords(t) {
  const parts = [];
  if (typeof t.distance === 'number') parts.push(`${inches(t.distance)} away`);
  if (t.visible === false) parts.push('not visible');
  else if (t.visible === true) parts.push(typeof t.seen === 'number' ? `visible (${Math.round(t.seen * 100)}% seen)` : 'visible');
  if (t.cover) parts.push('in cover (+1 to its save)');
  if (t.engaged) parts.push('in Engagement Range with this unit');
  if (typeof t.fighting === 'number') {
    const of = typeof t.models === 'number' ? ` of ${t.models}` : '';
    parts.push(`${t.fighting}${of} model${t.fighting === 1 ? '' : 's'} fight it as they stand (a Pile-in may bring more)`);
  }
  return parts.join(' · ');
}

/**
 * The player's picks for one unit's Shoot and Fight orders (kept while the panel re-renders):
 * the target and, for Shoot, the weapons ticked (null: the server's suggestion for that target).
 * @typedef {{target?:string, weapons?:string[]|null, fightTarget?:string, fightWeapon?:string, roarTarget?:string}} Picks
 */
/** @type {Map<string, Picks>} */
const PICKS = new Map();

/** @param {string} unitId @returns {Picks} */
export function picksFor(unitId) {
  let p = PICKS.get(unitId);
  if (!p) {
    p = {};
    PICKS.set(unitId, p);
  }
  return p;
}

/** Pick the Shoot target of `unitId` (from the list or a click on the table); the weapons go
 * back to the server's suggestion for that target. @param {string} unitId @param {string} targetId */
export function pickShootTarget(unitId, targetId) {
  const p = picksFor(unitId);
  if (p.target !== targetId) p.weapons = null;
  p.target = targetId;
}

/**
 * The Shoot order as the panel shows it: the targets (each with what the player sees of it),
 * the target picked (the player's, else the first that may be shot, else the first), the
 * weapons with whether each may fire at it (and why not) and whether it is ticked, and the
 * action to send (null when nothing may fire).
 * @param {FortyAttackOffer|null} offer @param {string} unitId @param {Picks} picks
 */
export function shootChoice(offer, unitId, picks) {
  const targets = Array.isArray(offer?.targets) ? offer.targets : [];
  const weapons = Array.isArray(offer?.weapons) ? offer.weapons : [];
  const target = targets.find((t) => t.unit === picks.target)
    || targets.find((t) => t.available) || targets[0] || null;
  const checks = new Map((target?.checks || []).map((c) => [c.weapon, c]));
  const ticked = new Set(Array.isArray(picks.weapons) ? picks.weapons : target?.suggested || []);
  const rows = weapons.map((w) => {
    const c = checks.get(w.name);
    const available = Boolean(offer?.available && c?.available);
    const reason = available ? null : String(c?.reason || w.reason || offer?.reason || 'not possible now');
    return {
      name: String(w.name),
      profile: weaponWords(w),
      models: Number(w.models || 0),
      inRange: c ? Number(c.models_in_range || 0) : 0,
      available,
      reason,
      checked: available && ticked.has(w.name),
    };
  });
  const firing = rows.filter((r) => r.checked).map((r) => r.name);
  const action = target && firing.length
    ? { type: 'shoot_weapons', unit: unitId, weapons: firing.map((name) => ({ weapon: name, target: String(target.unit) })) }
    : null;
  return {
    available: Boolean(offer?.available),
    reason: offer?.available ? null : String(offer?.reason || 'not possible now'),
    target: target ? String(target.unit) : null,
    targets: targets.map((t) => ({
      id: String(t.unit), name: String(t.name || t.unit), available: Boolean(t.available),
      words: targetWords(t), reason: t.available ? null : String(t.reason || 'not possible'),
    })),
    weapons: rows,
    action,
  };
}

/**
 * The Fight order as the panel shows it: the enemy units in Engagement Range, the one picked,
 * the melee weapon (every model its first melee weapon unless one is named) and the action.
 * @param {FortyAttackOffer|null} offer @param {string} unitId @param {Picks} picks
 */
export function fightChoice(offer, unitId, picks) {
  const targets = Array.isArray(offer?.targets) ? offer.targets : [];
  const weapons = Array.isArray(offer?.weapons) ? offer.weapons : [];
  const target = targets.find((t) => t.unit === picks.fightTarget) || targets[0] || null;
  const weapon = weapons.some((w) => w.name === picks.fightWeapon) ? String(picks.fightWeapon) : '';
  /** @type {{type:string, unit:string, target:string, weapon?:string}|null} */
  let action = null;
  if (offer?.available && target) {
    action = { type: 'fight', unit: unitId, target: String(target.unit) };
    if (weapon) action.weapon = weapon;
  }
  return {
    available: Boolean(offer?.available),
    reason: offer?.available ? null : String(offer?.reason || 'not possible now'),
    target: target ? String(target.unit) : null,
    targets: targets.map((t) => ({ id: String(t.unit), name: String(t.name || t.unit), words: targetWords(t) })),
    weapon,
    weapons: weapons.map((w) => ({ name: String(w.name), profile: weaponWords(w, 'WS'), models: Number(w.models || 0) })),
    action,
  };
}

/**
 * The line the table draws from the selected unit to its Shoot target before rolling: the
 * closest points the server measured, labelled with the distance and whether it is visible.
 * Null when the unit has no Shoot order or no target.
 * @param {GameState|null|undefined} st @param {string|null} unitId @returns {{points:number[][], label:string}|null}
 */
export function aimLine(st, unitId) {
  if (!unitId) return null;
  const offer = unitOffer(st, unitId, 'shoot_weapons');
  if (!offer) return null;
  const c = shootChoice(offer, unitId, picksFor(unitId));
  const t = (Array.isArray(offer.targets) ? offer.targets : []).find((x) => x.unit === c.target);
  if (!t || !Array.isArray(t.line) || t.line.length !== 2) return null;
  const seen = t.visible === false ? 'not visible' : t.visible === true ? 'visible' : '';
  return { points: t.line, label: [`${inches(Number(t.distance))}`, seen].filter(Boolean).join(' · ') };
}

/** A unit's models with wounds lost, in words ("Beast Snagga Boy #3: 1 of 2 wounds left").
 * @param {GameState|null|undefined} st @param {string} unitId @returns {string[]} */
export function woundedModels(st, unitId) {
  const models = st?.forty?.models?.[unitId];
  if (!Array.isArray(models)) return [];
  return models.filter((m) => Number(m.lost) > 0)
    .map((m) => `${m.name}: ${Number(m.wounds) - Number(m.lost)} of ${m.wounds} wounds left`);
}

/**
 * Send an order; a refusal is shown with the server's words. @param {import('../table.js').Table} table
 * @param {import('../types.js').Action} action @param {string} what
 */
async function give(table, action, what) {
  try {
    await table.conn.act(action);
  } catch (err) {
    table.toast(`${what}: ${errorText(err)}`, 'error');
  }
}

/**
 * The selected 40k unit's Shoot and Fight panels, built only from the server's offers: a
 * target from a list (or clicked on the table: "Pick on table"), what the player sees of it
 * (distance, visibility, cover), the weapons to fire (ticked: the server's suggestion), each
 * refused one with its reason; then Shoot / Fight. Keyboard usable: selects, checkboxes and
 * buttons. Null when the server offers neither.
 * @param {Unit|null|undefined} unit @param {import('../table.js').Table} table @returns {HTMLElement|null}
 */
export function fortyOrderPanels(unit, table) {
  const st = table.store.state || {};
  if (!isForty(st) || !unit) return null;
  const shootOffer = unitOffer(st, unit.id, 'shoot_weapons');
  const fightOffer = unitOffer(st, unit.id, 'fight');
  const wounded = woundedModels(st, unit.id);
  const parts = [];
  if (wounded.length) parts.push(h('ul', { class: 'wounded', 'aria-label': 'Wounded models' }, wounded.map((w) => h('li', null, w))));
  const picks = picksFor(unit.id);
  if (shootOffer) parts.push(shootPanel(unit, table, shootOffer, picks));
  if (fightOffer) parts.push(fightPanel(unit, table, fightOffer, picks));
  const roar = roarPanel(unit, table);
  if (roar) parts.push(roar);
  return parts.length ? h('div', { class: 'forty-orders' }, parts) : null;
}

/**
 * Roar of Mork as the server offers it (`roar_of_mork`, the opponent's Command phase): the enemy
 * units in words, each allowed or refused with the server's reason, and the one picked (the
 * player's pick while it is allowed, else the first allowed); null when not offered.
 * @param {GameState|null|undefined} st @param {string} unitId @param {string|undefined} [pick]
 * @returns {null|{available:boolean, reason:string|null, target:string|null, targets:{id:string, name:string, available:boolean, reason:string|null}[], action:import('../types.js').Action|null}}
 */
export function roarChoice(st, unitId, pick) {
  const offer = unitOffer(st, unitId, 'roar_of_mork');
  if (!offer) return null;
  const units = st?.units || {};
  const targets = (Array.isArray(offer.targets) ? offer.targets : []).map((t) => ({
    id: String(t.unit), name: String(units[t.unit]?.name || t.unit), available: Boolean(t.available), reason: t.available ? null : String(t.reason || 'not possible'),
  }));
  const allowed = targets.filter((t) => t.available);
  const target = allowed.find((t) => t.id === pick)?.id ?? allowed[0]?.id ?? null;
  return {
    available: Boolean(offer.available) && target !== null,
    reason: offer.available ? null : String(offer.reason || 'not possible now'),
    target,
    targets,
    action: offer.available && target !== null ? { type: 'roar_of_mork', unit: unitId, target } : null,
  };
}

/** @param {Unit} unit @param {import('../table.js').Table} table */
function roarPanel(unit, table) {
  const picks = picksFor(unit.id);
  const c = roarChoice(table.store.state, unit.id, picks.roarTarget);
  if (!c) return null;
  const name = c.targets.find((t) => t.id === c.target)?.name;
  return h('fieldset', { class: 'forty-roar', id: 'forty-roar' },
    h('legend', null, 'Roar of Mork'),
    c.reason ? h('p', { class: 'refused', id: 'roar-refused' }, `Not now: ${c.reason}`) : null,
    c.targets.some((t) => t.available)
      ? h('label', { class: 'typed-field' }, h('span', null, 'Target'),
        h('select', {
          id: 'roar-target', name: 'roar-target',
          onchange: (/** @type {Event} */ e) => { picks.roarTarget = /** @type {HTMLSelectElement} */ (e.target).value; table.onChange(); },
        }, c.targets.filter((t) => t.available).map((t) => h('option', { value: t.id, selected: t.id === c.target }, t.name))))
      : null,
    h('div', { class: 'buttons' },
      h('button', {
        type: 'button', id: 'roar-of-mork', class: 'primary', disabled: !c.action,
        title: c.action ? `Psychic test (D6) at ${name}: on 2+ it subtracts 2 from its Battle-shock and Leadership tests` : String(c.reason || 'not possible now'),
        onclick: () => c.action && give(table, c.action, 'Roar of Mork'),
      }, c.action ? `Roar of Mork at ${name}` : 'Roar of Mork')));
}

/** @param {Unit} unit @param {import('../table.js').Table} table @param {FortyAttackOffer} offer @param {Picks} picks */
function shootPanel(unit, table, offer, picks) {
  const c = shootChoice(offer, unit.id, picks);
  const picked = c.targets.find((t) => t.id === c.target);
  const rerender = () => table.onChange();
  return h('fieldset', { class: 'forty-shoot', id: 'forty-shoot' },
    h('legend', null, 'Shoot'),
    c.reason ? h('p', { class: 'refused', id: 'shoot-refused' }, `Not now: ${c.reason}`) : null,
    c.targets.length
      ? h('label', { class: 'typed-field' }, h('span', null, 'Target'),
        h('select', {
          id: 'shoot-target', name: 'shoot-target',
          onchange: (/** @type {Event} */ e) => { pickShootTarget(unit.id, /** @type {HTMLSelectElement} */ (e.target).value); rerender(); },
        }, c.targets.map((t) => h('option', { value: t.id, selected: t.id === c.target }, `${t.name}${t.available ? '' : ' (cannot be shot)'}`))))
      : null,
    picked ? h('p', { class: 'target-seen', id: 'shoot-target-seen' }, picked.words, picked.reason ? h('span', { class: 'reason' }, ` — ${picked.reason}`) : null) : null,
    h('div', { class: 'buttons' },
      h('button', {
        type: 'button', id: 'forty-fire', class: 'primary', disabled: !c.action,
        title: c.action ? `Roll the attacks at ${picked?.name}` : String(c.reason || 'tick a weapon that may fire'),
        onclick: () => c.action && give(table, c.action, `Shoot ${unit.name || unit.id}`),
      }, c.action ? `Shoot ${picked?.name}` : 'Shoot'),
      h('button', {
        type: 'button', id: 'shoot-pick', class: table.mode === 'shoot' ? 'active' : '', disabled: !c.targets.length,
        'aria-pressed': String(table.mode === 'shoot'),
        title: 'Click an enemy unit on the table to make it the target',
        onclick: () => table.setMode(table.mode === 'shoot' ? 'idle' : 'shoot'),
      }, 'Pick on table')),
    h('ul', { class: 'weapons', 'aria-label': 'Weapons to fire' }, c.weapons.map((w) => h('li', { class: w.available ? '' : 'refused' },
      h('label', null,
        h('input', {
          type: 'checkbox', name: 'forty-weapon', value: w.name, checked: w.checked, disabled: !w.available,
          onchange: (/** @type {Event} */ e) => {
            const on = /** @type {HTMLInputElement} */ (e.target).checked;
            const now = new Set(c.weapons.filter((x) => x.checked).map((x) => x.name));
            if (on) now.add(w.name); else now.delete(w.name);
            picks.target = c.target || undefined;
            picks.weapons = [...now];
            rerender();
          },
        }),
        ` ${w.name}`, h('small', null, ` ×${w.models} · ${w.profile}`)),
      w.available
        ? h('div', { class: 'note' }, `${w.inRange} of ${w.models} model${w.models === 1 ? '' : 's'} in range`)
        : h('div', { class: 'note reason' }, `Cannot fire: ${w.reason}`)))));
}

/** @param {Unit} unit @param {import('../table.js').Table} table @param {FortyAttackOffer} offer @param {Picks} picks */
function fightPanel(unit, table, offer, picks) {
  const c = fightChoice(offer, unit.id, picks);
  const picked = c.targets.find((t) => t.id === c.target);
  const rerender = () => table.onChange();
  return h('fieldset', { class: 'forty-fight', id: 'forty-fight' },
    h('legend', null, 'Fight'),
    c.reason ? h('p', { class: 'refused', id: 'fight-refused' }, `Not now: ${c.reason}`) : null,
    c.targets.length
      ? h('label', { class: 'typed-field' }, h('span', null, 'Target'),
        h('select', {
          id: 'fight-target', name: 'fight-target',
          onchange: (/** @type {Event} */ e) => { picks.fightTarget = /** @type {HTMLSelectElement} */ (e.target).value; rerender(); },
        }, c.targets.map((t) => h('option', { value: t.id, selected: t.id === c.target }, t.name))))
      : null,
    picked ? h('p', { class: 'target-seen' }, picked.words) : null,
    h('div', { class: 'buttons' },
      h('button', {
        type: 'button', id: 'forty-fight-go', class: 'primary', disabled: !c.action,
        title: c.action ? `Roll the attacks against ${picked?.name}` : String(c.reason || 'not possible now'),
        onclick: () => c.action && give(table, c.action, `Fight ${unit.name || unit.id}`),
      }, c.action && picked ? `Fight ${picked.name}${c.weapon ? ` with ${c.weapon}` : ''}` : 'Fight')),
    c.weapons.length
      ? h('label', { class: 'typed-field' }, h('span', null, 'Weapon'),
        h('select', {
          id: 'fight-weapon', name: 'fight-weapon',
          onchange: (/** @type {Event} */ e) => { picks.fightWeapon = /** @type {HTMLSelectElement} */ (e.target).value || undefined; rerender(); },
        }, h('option', { value: '', selected: !c.weapon }, 'Each model its first melee weapon'),
        c.weapons.map((w) => h('option', { value: w.name, selected: w.name === c.weapon }, `${w.name} (${w.profile})`))))
      : null,
    h('ul', { class: 'weapons', 'aria-label': 'Melee weapons' }, c.weapons.map((w) => h('li', null, `${w.name} ×${w.models}`, h('small', null, ` · ${w.profile}`)))));
}

/**
 * The objective markers to draw: where, who controls them (in words on the table, never by
 * colour alone), and each side's OC.
 * @param {GameState|null|undefined} st @returns {{id:string, name:string, x:number, y:number, controller:number|null, label:string}[]}
 */
export function objectiveMarks(st) {
  if (!isForty(st) || !Array.isArray(st.forty.objectives)) return [];
  return st.forty.objectives.map((m, i) => ({
    id: String(m.id),
    name: `Objective ${i + 1}`,
    x: Number(m.x),
    y: Number(m.y),
    controller: m.controller === 1 || m.controller === 2 ? m.controller : null,
    label: `${m.controller === 1 || m.controller === 2 ? `P${m.controller} holds` : 'no one holds'} · OC ${m.oc?.[1] ?? 0}:${m.oc?.[2] ?? 0}`,
  }));
}

/** What each step of the attack sequence is called in the report. */
const STEP_KINDS = /** @type {Record<string, string>} */ ({
  attacks: 'attacks', hit: 'to_hit', wound: 'to_wound', save: 'armour', feel_no_pain: 'feel_no_pain',
});

/**
 * One `attacks_resolved` event as a report group (the shape of report.js's groups): the
 * event's words as the title, a line per step of the sequence with the dice it rolled (from
 * the payload's `rolls`, by each step's index), the wounds lost as the outcome.
 * @param {import('../store.js').GameEvent} ev @param {boolean} undone
 * @returns {import('./report.js').ReportGroup}
 */
export function attackGroup(ev, undone) {
  const p = /** @type {import('../types.js').AttacksResolvedPayload} */ (ev.payload || {});
  const rolls = Array.isArray(p.rolls) ? p.rolls : [];
  const steps = Array.isArray(p.steps) ? p.steps : [];
  const lines = steps.map((s) => {
    const roll = typeof s.roll === 'number' ? rolls[s.roll] : null;
    const needed = typeof s.needed === 'number' ? s.needed : null;
    const dice = roll && Array.isArray(roll.dice)
      ? roll.dice.map((d) => ({ face: Number(d.face), kept: Boolean(d.kept), met: Boolean(d.kept) && needed !== null && Number(d.face) >= needed }))
      : [];
    return {
      seq: ev.seq,
      type: `forty_${String(s.step)}`,
      text: String(s.text || s.step),
      step: STEP_KINDS[String(s.step)],
      needed,
      successes: null,
      dice,
      expression: roll ? String(roll.expression ?? '') : undefined,
      rules: [],
      undone,
    };
  });
  const lost = Number(p.wounds_lost ?? 0);
  const dead = Array.isArray(p.destroyed) ? p.destroyed.length : 0;
  const kind = p.kind === 'fight' ? 'melee' : 'shooting';
  return {
    key: String(ev.seq),
    kind,
    title: String(p.text || 'Attacks'),
    outcome: `${lost} wound${lost === 1 ? '' : 's'} lost, ${dead} model${dead === 1 ? '' : 's'} destroyed`,
    first: ev.seq,
    last: ev.seq,
    lines,
    undone,
  };
}
