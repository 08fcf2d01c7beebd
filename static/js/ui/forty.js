// Warhammer 40,000 (wh40k10) on the table page (issue 16): CP and VP in the turn bar, the
// Waaagh! button in your Command phase, the objective markers with their controller, the Shoot
// and Fight orders of 40k units (`shoot_weapons`, `fight`) and the attack report of each
// `attacks_resolved` event, step by step with its dice. Everything comes from the server's
// `state.forty` and its events; the server decides every rule and says why it refuses. The
// pure parts are tested under node (static/tests/forty.test.js).

import { h } from './dom.js';
import { errorText } from '../format.js';

export const FORTY = 'wh40k10';

/** @param {any} st @returns {boolean} */
export function isForty(st) {
  return Boolean(st && st.system === FORTY && st.forty);
}

/**
 * CP and VP of both players, as the turn bar shows them.
 * @param {any} st @returns {{seat:number, cp:number, vp:number}[]}
 */
export function scoreItems(st) {
  if (!isForty(st)) return [];
  const f = st.forty;
  return [1, 2].map((seat) => ({ seat, cp: Number(f.cp?.[seat] ?? 0), vp: Number(f.vp?.[seat] ?? 0) }));
}

/**
 * Whether `seat` may call the Waaagh! now: in their own Command phase, once per battle, with a
 * unit whose rules include it (seed 004). An offer only: the server checks.
 * @param {any} st @param {number|null} seat @returns {boolean}
 */
export function waaaghOffer(st, seat) {
  if (!isForty(st) || seat === null || st.stage !== 'battle') return false;
  if (st.phase !== 'Command' || st.active_player !== seat) return false;
  if ((st.forty.waaagh?.used || []).includes(seat)) return false;
  return Object.values(st.units || {}).some((/** @type {any} */ u) => u.owner === seat
    && u.status === 'on_table' && Array.isArray(u.rules) && u.rules.includes('Waaagh!'));
}

/**
 * The turn bar's 40k items: each player's CP and VP, "Waaagh!" while one is active, and the
 * Waaagh! button when it may be called.
 * @param {any} st @param {number|null} seat @param {{act:(a:any)=>Promise<any>}} conn @param {Function} toast
 * @returns {HTMLElement[]}
 */
export function fortyBar(st, seat, conn, toast) {
  if (!isForty(st)) return [];
  const out = scoreItems(st).map((s) => h('span', { class: `score owner-${s.seat}`, dataset: { seat: s.seat } },
    `P${s.seat}: ${s.cp} CP · ${s.vp} VP`));
  for (const s of st.forty.waaagh?.active || []) out.push(h('span', { class: `waaagh owner-${s}` }, 'Waaagh!'));
  if (waaaghOffer(st, seat)) {
    out.push(h('button', {
      type: 'button', id: 'call-waaagh', class: 'primary',
      title: 'Once per battle: until your next Command phase, charge after Advancing, +1 S and A in melee, 5+ invulnerable save',
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

/**
 * The 40k orders of a selected unit: Shoot (your Shooting phase, a unit with ranged weapons)
 * with its ranged weapons, and Fight (the Fight phase, when the server says you choose next and
 * the unit is among those that may fight) against each enemy unit it is engaged with.
 * @param {any} unit @param {any} st @param {number|null} seat
 * @returns {{shoot:boolean, weapons:string[], fight:{target:string, name:string}[]}}
 */
export function fortyOrders(unit, st, seat) {
  const out = { shoot: false, weapons: /** @type {string[]} */ ([]), fight: /** @type {{target:string, name:string}[]} */ ([]) };
  if (!isForty(st) || !unit || seat === null || st.stage !== 'battle' || unit.status !== 'on_table' || unit.owner !== seat) return out;
  const weapons = st.forty.weapons?.[unit.id] || [];
  if (st.phase === 'Shooting' && st.active_player === seat) {
    out.weapons = weapons.filter((/** @type {any} */ w) => w.type === 'ranged').map((/** @type {any} */ w) => String(w.name));
    out.shoot = out.weapons.length > 0;
  }
  const next = st.forty.fight_next || {};
  if (st.phase === 'Fight' && next.seat === seat && (next.units || []).includes(unit.id)) {
    out.fight = (st.forty.engaged?.[unit.id] || []).map((/** @type {string} */ id) => ({ target: id, name: st.units?.[id]?.name || id }));
  }
  return out;
}

/**
 * The `shoot_weapons` action of the Shoot tool: the weapon picked in the panel, or else every
 * ranged weapon the unit carries that is not a Pistol (its Pistols while it is in Engagement
 * Range), each at the clicked target; of a weapon with several profiles ("Plasma pistol -
 * standard"/"- supercharge") only the first.
 * @param {any} st @param {string} unitId @param {string} targetId @param {string|undefined} weapon
 */
export function shootAction(st, unitId, targetId, weapon) {
  const ranged = (st?.forty?.weapons?.[unitId] || []).filter((/** @type {any} */ w) => w.type === 'ranged');
  const engaged = (st?.forty?.engaged?.[unitId] || []).length > 0;
  /** @type {string[]} */
  let names = [];
  if (weapon && ranged.some((/** @type {any} */ w) => w.name === weapon)) names = [weapon];
  else {
    const seen = new Set();
    for (const w of ranged) {
      if (Boolean(w.pistol) !== engaged) continue;
      const base = String(w.name).split(' - ')[0];
      if (seen.has(base)) continue;
      seen.add(base);
      names.push(String(w.name));
    }
  }
  return { type: 'shoot_weapons', unit: unitId, weapons: names.map((n) => ({ weapon: n, target: targetId })) };
}

/**
 * The objective markers to draw: where, who controls them, and each side's OC.
 * @param {any} st @returns {{id:string, x:number, y:number, controller:number|null, label:string}[]}
 */
export function objectiveMarks(st) {
  if (!isForty(st) || !Array.isArray(st.forty.objectives)) return [];
  return st.forty.objectives.map((/** @type {any} */ m) => ({
    id: String(m.id),
    x: Number(m.x),
    y: Number(m.y),
    controller: m.controller === 1 || m.controller === 2 ? m.controller : null,
    label: `OC ${m.oc?.[1] ?? 0}:${m.oc?.[2] ?? 0}`,
  }));
}

/** What each step of the attack sequence is called in the report. */
const STEP_KINDS = /** @type {Record<string, string>} */ ({
  attacks: 'attacks', hit: 'to_hit', wound: 'to_wound', save: 'armour', feel_no_pain: 'ward_save',
});

/**
 * One `attacks_resolved` event as a report group (the shape of report.js's groups): the
 * event's words as the title, a line per step of the sequence with the dice it rolled (from
 * the payload's `rolls`, by each step's index), the wounds lost as the outcome.
 * @param {import('../store.js').GameEvent} ev @param {boolean} undone
 * @returns {import('./report.js').ReportGroup}
 */
export function attackGroup(ev, undone) {
  const p = ev.payload || {};
  const rolls = Array.isArray(p.rolls) ? p.rolls : [];
  const steps = Array.isArray(p.steps) ? p.steps : [];
  const lines = steps.map((/** @type {any} */ s) => {
    const roll = typeof s.roll === 'number' ? rolls[s.roll] : null;
    const needed = typeof s.needed === 'number' ? s.needed : null;
    const dice = roll && Array.isArray(roll.dice)
      ? roll.dice.map((/** @type {any} */ d) => ({ face: Number(d.face), kept: Boolean(d.kept), met: Boolean(d.kept) && needed !== null && Number(d.face) >= needed }))
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
