// Warhammer 40,000 (wh40k10) orders of one unit, as the server offers them (issue 16 item 6):
// Charge… against one or more targets (`charge`, 2D6), then the Charge move model by model
// (`charge_move`, or given up without positions), Strategic Reserves / Deep Strike at
// deployment and Arrive… from Reserves (`declare_strategic_reserves`, `declare_reserve`,
// `arrive_from_reserves`), and the allocation order of a unit with two kinds of Bodyguard model
// (`set_allocation_order`). The pure parts (the "towards the target" proposal, the arrival
// grid, the allocation order) are tested under node (static/tests/forty-orders.test.js); the
// server judges every move and says why it refuses.

import { h } from './dom.js';
import { errorText, inches } from '../format.js';
import { controlAttrs, unitOffer } from './offers.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {{x:number, y:number, r:number}} Disc */

/** Inches left between bases placed in base contact by "Move all towards" (the server counts
 * bases within 0.01 in as touching; its round bases are drawn a little inside the circle). */
export const CONTACT_GAP_IN = 0.002;
/** Inches kept under the roll. */
const ROLL_MARGIN_IN = 0.005;
/** Positions are proposed rounded to 0.001 in (the server keeps 0.0001). */
const ROUND_TO = 1000;
/** Places tried around each target model for a model still short of base contact. */
const CONTACT_ANGLES = 72;
/** 40k Unit Coherency: within 2 in of one other model, of two for units of 7 or more. */
const COHERENCY_IN = 2;
const COHERENCY_LARGE_UNIT = 7;
/** Engagement Range: a Charge move keeps this far from enemy units that are not targets. */
const ENGAGEMENT_RANGE_IN = 1;
/** Inches between bases in the arrival grid (as the server sets a unit down around a point). */
const GRID_GAP_IN = 0.5;
const MM = 25.4;

// --- pure ------------------------------------------------------------------------------------

/** Numeric order of ids (`u5` before `u12`). @param {string} id @returns {[string, number, string]} */
function idKey(id) {
  const m = /^([^\d]*)(\d+)(.*)$/.exec(id);
  return m ? [m[1], Number(m[2]), m[3]] : [id, -1, ''];
}

/**
 * A unit's name as the server words it (server/rules/naming.py display_name): numbered among
 * the units that share it ("Intercessor Squad (2)"), so that the list, the log and the refusals
 * name the same unit the same way.
 * @param {import('../types.js').GameState|null|undefined} st @param {unknown} id @returns {string}
 */
export function unitName(st, id) {
  const units = st?.units || {};
  const key = String(id);
  const name = units[key]?.name;
  if (!name) return String(id || 'a unit');
  const same = Object.keys(units).filter((k) => units[k]?.name === name).sort((a, b) => {
    const x = idKey(a);
    const y = idKey(b);
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
  });
  return same.length > 1 ? `${name} (${same.indexOf(key) + 1})` : String(name);
}

/**
 * A unit's models as discs: centres from `positions`, radii from the footprint's model features
 * (half the larger side of each base's bounding box). @param {import('../types.js').Unit|null|undefined} unit @returns {Disc[]}
 */
export function discsOf(unit) {
  const pos = Array.isArray(unit?.positions) ? unit.positions : [];
  /** @type {Record<number, number>} */
  const radius = {};
  for (const f of unit?.footprint?.features || []) {
    if (f?.properties?.role !== 'model') continue;
    const ring = f.geometry?.type === 'Polygon' ? f.geometry.coordinates[0] : null;
    if (!Array.isArray(ring) || !ring.length) continue;
    const xs = ring.map((/** @type {number[]} */ p) => p[0]);
    const ys = ring.map((/** @type {number[]} */ p) => p[1]);
    radius[Number(f.properties.index)] = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)) / 2;
  }
  return pos.map((/** @type {number[]} */ p, /** @type {number} */ i) => ({ x: Number(p[0]), y: Number(p[1]), r: radius[i] ?? 0.63 }));
}

/** @param {Disc} a @param {Disc} b @returns {number} the gap between two round bases */
function gapOf(a, b) {
  return Math.hypot(b.x - a.x, b.y - a.y) - a.r - b.r;
}

/** The least distance from the centre of `o` to the segment a-b. @param {Disc} a @param {Disc} b @param {Disc} o */
function segmentDistance(a, b, o) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((o.x - a.x) * dx + (o.y - a.y) * dy) / len2)) : 0;
  return Math.hypot(a.x + t * dx - o.x, a.y + t * dy - o.y);
}

/** Every model within 2 in of one other (two others from 7 models). @param {Disc[]} discs */
function coherent(discs) {
  if (discs.length <= 1) return true;
  const need = discs.length >= COHERENCY_LARGE_UNIT ? 2 : 1;
  return discs.every((a, i) => discs.filter((b, j) => j !== i && gapOf(a, b) <= COHERENCY_IN + 1e-6).length >= need);
}

/**
 * "Move all towards the target", as the core rules want the Charge move: first the whole unit
 * in a straight line towards the closest target model, until the model nearest to it touches
 * it (never further than the roll); then each model still short of base contact that can reach
 * a target model within the roll (from where it started) is put in base contact with one, at the
 * nearest free place that keeps the unit coherent, overlaps no base, is reached in a straight
 * line through no enemy model and keeps out of Engagement Range of the other enemy units
 * (`others` with `enemy`) on the way. A proposal only: the server judges
 * it like any Charge move (straight lines, terrain) and names the model it would still want in
 * base contact. Null when no model can get closer.
 * @param {Disc[]} own @param {Disc[]} targets every model of every target
 * @param {number} range the charge roll, inches
 * @param {Array<Disc & {enemy?: boolean}>} [others] the other units' models (`enemy`: of a unit not charged)
 * @returns {number[][]|null}
 */
export function towardsTargets(own, targets, range, others = []) {
  let best = null;
  for (const a of own) {
    for (const b of targets) {
      const d = Math.hypot(b.x - a.x, b.y - a.y);
      const gap = d - a.r - b.r;
      if (d > 0 && (!best || gap < best.gap)) best = { gap, ux: (b.x - a.x) / d, uy: (b.y - a.y) / d };
    }
  }
  if (!best) return null;
  const round = (/** @type {number} */ v) => Math.round(v * ROUND_TO) / ROUND_TO;
  const step = Math.min(range - ROLL_MARGIN_IN, best.gap - CONTACT_GAP_IN);
  const shift = step > 0.01 ? step : 0;
  /** @type {Disc[]} */
  const pos = own.map((m) => ({ x: round(m.x + best.ux * shift), y: round(m.y + best.uy * shift), r: m.r }));
  let moved = shift > 0;
  const touching = (/** @type {Disc} */ m) => targets.some((b) => gapOf(m, b) <= 0.005);
  const nearest = (/** @type {Disc} */ m) => Math.min(...targets.map((b) => gapOf(m, b)));
  const order = own.map((_, i) => i).sort((i, j) => nearest(own[i]) - nearest(own[j]));
  for (const i of order) {
    if (touching(pos[i])) continue;
    const start = own[i];
    let place = null;
    for (const b of targets) {
      const reach = start.r + b.r + CONTACT_GAP_IN;
      const direct = Math.atan2(start.y - b.y, start.x - b.x);
      for (let k = 0; k <= CONTACT_ANGLES; k++) {
        const angle = k === CONTACT_ANGLES ? direct : direct + (2 * Math.PI * k) / CONTACT_ANGLES;
        /** @type {Disc} */
        const c = { x: round(b.x + reach * Math.cos(angle)), y: round(b.y + reach * Math.sin(angle)), r: start.r };
        const d = Math.hypot(c.x - start.x, c.y - start.y);
        if (d > range - ROLL_MARGIN_IN || (place && d >= place.d)) continue;
        if (pos.some((m, j) => j !== i && gapOf(c, m) < -1e-6)) continue;
        if (targets.some((t) => t !== b && gapOf(c, t) < 0)) continue;
        // the straight way there passes through no enemy model (friends may be passed)
        if (targets.some((t) => segmentDistance(start, c, t) < start.r + t.r - 0.001)) continue;
        if (others.some((o) => o.enemy && segmentDistance(start, c, o) < start.r + o.r + ENGAGEMENT_RANGE_IN + 0.01)) continue;
        if (others.some((o) => gapOf(c, o) < (o.enemy ? ENGAGEMENT_RANGE_IN + 0.01 : -1e-6))) continue;
        if (!coherent(pos.map((m, j) => (j === i ? c : m)))) continue;
        place = { c, d };
      }
    }
    if (place) {
      pos[i] = place.c;
      moved = true;
    }
  }
  return moved ? pos.map((m) => [m.x, m.y]) : null;
}

/**
 * A base's size in inches from a datasheet's `base` ({shape, diameter_mm | width_mm, depth_mm}).
 * @param {import('../types.js').Base|null|undefined} base @returns {{round:boolean, width:number, depth:number}}
 */
export function baseInches(base) {
  if (base?.shape === 'round' && Number(base.diameter_mm) > 0) {
    const d = Number(base.diameter_mm) / MM;
    return { round: true, width: d, depth: d };
  }
  const w = Number(base?.width_mm) > 0 ? Number(base?.width_mm) / MM : 32 / MM;
  const dp = Number(base?.depth_mm) > 0 ? Number(base?.depth_mm) / MM : w;
  return { round: base?.shape === 'oval', width: w, depth: dp };
}

/**
 * A unit set down around (x, y) as the server deploys one (server/rules/units.py
 * grid_positions): rows of five, bases 0.5 in apart, facing `facing` (0: towards +y).
 * @param {number} models @param {number} x @param {number} y @param {number} facing
 * @param {{width:number, depth:number}} base inches
 * @returns {number[][]}
 */
export function gridPositions(models, x, y, facing, base) {
  const stepU = base.width + GRID_GAP_IN;
  const stepV = base.depth + GRID_GAP_IN;
  const perRow = Math.min(5, models);
  const rows = Math.ceil(models / perRow);
  const t = (facing * Math.PI) / 180;
  const fx = -Math.sin(t);
  const fy = Math.cos(t);
  const rx = fy;
  const ry = -fx;
  const out = [];
  for (let i = 0; i < models; i += 1) {
    const row = Math.floor(i / perRow);
    const col = i % perRow;
    const inRow = Math.min(perRow, models - row * perRow);
    const u = (col - (inRow - 1) / 2) * stepU;
    const v = ((rows - 1) / 2 - row) * stepV;
    out.push([Math.round((x + u * rx + v * fx) * 100) / 100, Math.round((y + u * ry + v * fy) * 100) / 100]);
  }
  return out;
}

/**
 * The bases at `positions` as one MultiPolygon (round bases as 24-gons), for the ghost.
 * @param {number[][]} positions @param {{round:boolean, width:number, depth:number}} base
 * @returns {import('../types.js').Geometry}
 */
export function basesGeometry(positions, base) {
  const polys = positions.map(([x, y]) => {
    const ring = [];
    if (base.round) {
      for (let k = 0; k <= 24; k += 1) {
        const a = (k / 24) * 2 * Math.PI;
        ring.push([x + (base.width / 2) * Math.cos(a), y + (base.depth / 2) * Math.sin(a)]);
      }
    } else {
      const w = base.width / 2;
      const d = base.depth / 2;
      ring.push([x - w, y - d], [x + w, y - d], [x + w, y + d], [x - w, y + d], [x - w, y - d]);
    }
    return [ring];
  });
  return { type: 'MultiPolygon', coordinates: polys };
}

/**
 * The allocation order in force: the order set, else the server's default (the last
 * Bodyguard model first: the kinds by their last model in the unit, `forty.models`), else the
 * kinds as the offer lists them.
 * @param {import('../types.js').AllocationOffer|null} offer @param {{name:string, character?:boolean}[]} [models] the unit's models ({name, character}), in order
 * @returns {string[]}
 */
export function allocationShown(offer, models = []) {
  const kinds = Array.isArray(offer?.models) ? offer.models.map(String) : [];
  const set = Array.isArray(offer?.order) ? offer.order.map(String).filter((k) => kinds.includes(k)) : [];
  if (set.length) return [...set, ...kinds.filter((k) => !set.includes(k))];
  /** @type {string[]} */
  const byLast = [];
  for (const m of [...models].reverse()) {
    const name = String(m?.name);
    if (!m?.character && kinds.includes(name) && !byLast.includes(name)) byLast.push(name);
  }
  return [...byLast, ...kinds.filter((k) => !byLast.includes(k))];
}

/** `order` with the kind at `index` moved one place earlier. @param {string[]} order @param {number} index */
export function moveEarlier(order, index) {
  if (index <= 0 || index >= order.length) return [...order];
  const out = [...order];
  [out[index - 1], out[index]] = [out[index], out[index - 1]];
  return out;
}

/**
 * The owner's casualty order as the offer shows it: the models' ids, first to go first (the
 * order set, else the server's sensible default), and the action that takes the suggested
 * order as it is. Pure.
 * @param {import('../types.js').AllocationOffer|null|undefined} offer
 * @returns {{ids:string[], names:string[], suggested:string[]}}
 */
export function casualtyOrder(offer) {
  const models = Array.isArray(offer?.casualties) ? offer.casualties : [];
  const suggested = Array.isArray(offer?.suggested?.order) ? offer.suggested.order.map(String) : [];
  return { ids: models.map((m) => String(m.id)), names: models.map((m) => String(m.name) + (m.wounded ? ' (wounded)' : '')), suggested };
}

/** The models a unit in Reserves sets down (its Bodyguard and Leaders). @param {import('../types.js').Unit|null|undefined} unit */
export function modelCount(unit) {
  return Number(unit?.models || 0) + (Array.isArray(unit?.characters) ? unit.characters.length : 0);
}

// --- the datasheets' bases (for the arrival ghost) --------------------------------------------

/** @type {Map<string, Promise<Record<string, import('../types.js').Base>>>} */
const basesBySystem = new Map();

/** The bases of a system's datasheets, fetched once. @param {string} system @returns {Promise<Record<string, import('../types.js').Base>>} */
export function datasheetBases(system) {
  let p = basesBySystem.get(system);
  if (!p) {
    p = fetch(`/api/systems/${encodeURIComponent(system)}/datasheets`, { headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((/** @type {{datasheets?:import('../types.js').Datasheet[]}|null} */ body) => Object.fromEntries((body?.datasheets || []).map((d) => [String(d.id), d.base])));
    p.catch(() => basesBySystem.delete(system));
    basesBySystem.set(system, p);
  }
  return p;
}

// --- DOM --------------------------------------------------------------------------------------

/** Send an action; a refusal is said with the server's reason. @param {Table} table @param {import('../types.js').Action} action @param {string} what */
async function send(table, action, what) {
  try {
    return await table.conn.act(action);
  } catch (err) {
    table.toast(`${what}: ${errorText(err)}`, 'error');
    return null;
  }
}

/** The disabled control's reason, visible too (not only on hover). @param {import('../types.js').Offer|null} offer */
function why(offer) {
  return offer && !offer.available && offer.reason ? h('small', { class: 'hint unavailable' }, String(offer.reason)) : null;
}

/**
 * The 40k orders of the selected unit: Charge…, the Charge move, the allocation order.
 * @param {import('../types.js').Unit|null|undefined} unit @param {Table} table @returns {HTMLElement|null}
 */
export function fortyUnitOrders(unit, table) {
  const st = table.store.state || {};
  if (!unit || table.store.seat === null || !st.forty) return null;
  const parts = [chargeControls(unit, table), chargeMoveControls(unit, table), allocationControls(unit, table)].filter(Boolean);
  return parts.length ? h('div', { class: 'forty-orders' }, parts) : null;
}

/** Charge…: the tool picks the targets (list or table), then Roll the charge. @param {import('../types.js').Unit} unit @param {Table} table */
function chargeControls(unit, table) {
  const st = table.store.state || {};
  const offer = unitOffer(st, unit.id, 'charge');
  if (!offer) return null;
  const tool = table.tools.forty_charge;
  const on = table.mode === 'forty_charge' && tool.unit === unit.id;
  const targets = Array.isArray(offer.targets) ? offer.targets : [];
  const button = h('button', {
    type: 'button', id: 'forty-charge', class: on ? 'active' : '', 'aria-pressed': on ? 'true' : 'false',
    ...controlAttrs(offer, 'Pick one or more enemy units within 12 in, then roll 2D6'),
    onclick: () => table.setMode(on ? 'idle' : 'forty_charge'),
  }, on ? 'Charge: picking targets' : 'Charge…');
  const list = on
    ? h('fieldset', { class: 'charge-targets', id: 'charge-targets' },
      h('legend', null, 'Targets (click them on the table or tick them here)'),
      targets.map((t) => {
        const id = String(t.unit);
        const name = unitName(st, id);
        const dist = typeof t.distance === 'number' ? `, ${inches(t.distance)} away` : '';
        return h('label', { class: t.available ? '' : 'unavailable', title: t.available ? '' : String(t.reason || '') },
          h('input', {
            type: 'checkbox', name: 'charge-target', value: id, checked: tool.picked.includes(id), disabled: !t.available,
            onchange: () => tool.toggle(id),
          }),
          ` ${name}${dist}`, t.available ? null : h('small', null, ` — not possible: ${t.reason}`));
      }),
      h('div', { class: 'buttons' },
        h('button', {
          type: 'button', id: 'roll-charge', class: 'primary', disabled: !tool.picked.length,
          title: tool.picked.length ? 'Roll 2D6 for the charge' : 'Pick a target first',
          onclick: () => tool.declare(),
        }, 'Roll the charge (2D6)', h('kbd', null, 'Enter'))))
    : null;
  return h('div', { class: 'buttons orders charge-orders' }, button, why(offer), list);
}

/** After the roll: the Charge move (drag, or "Move all towards the target"), Confirm, Give up.
 * @param {import('../types.js').Unit} unit @param {Table} table */
function chargeMoveControls(unit, table) {
  const st = table.store.state || {};
  const offer = unitOffer(st, unit.id, 'charge_move');
  if (!offer) return null;
  const targets = (Array.isArray(offer.targets) ? offer.targets : []).map((id) => unitName(st, id));
  const g = table.moves.ghost;
  const staged = g?.phase === 'staged' && g.id === unit.id && g.action?.type === 'charge_move';
  const on = table.mode === 'charge_move';
  const tool = table.tools.charge_move;
  return h('div', { class: 'buttons orders charge-move', id: 'charge-move' },
    h('p', { class: 'charge-roll' }, `Charge move: each model up to ${offer.range} in, ending within Engagement Range of ${targets.join(' and ')}.`),
    h('button', {
      type: 'button', id: 'charge-drag', class: on ? 'active' : '', 'aria-pressed': on ? 'true' : 'false',
      onclick: () => (on ? table.setMode('idle') : tool.begin(unit.id)),
    }, on ? 'Moving models…' : 'Move models…'),
    h('button', { type: 'button', id: 'charge-towards', onclick: () => tool.towards(unit.id) }, 'Move all towards the target'),
    h('button', {
      type: 'button', id: 'confirm-charge-move', class: 'primary', disabled: !staged,
      title: staged ? 'Send the Charge move: the server judges it' : 'Move the models first',
      onclick: () => tool.confirm(),
    }, 'Confirm Charge move', h('kbd', null, 'Enter')),
    h('button', {
      type: 'button', id: 'give-up-charge',
      title: 'The charge fails and no model moves',
      onclick: () => {
        if (table.mode === 'charge_move') table.setMode('idle');
        void send(table, { type: 'charge_move', unit: unit.id }, 'Give up the charge');
      },
    }, 'Give up the charge'));
}

/** The order the defender's Bodyguard model kinds lose models in (two kinds or more).
 * @param {import('../types.js').Unit} unit @param {Table} table */
function allocationControls(unit, table) {
  const st = table.store.state || {};
  const offer = unitOffer(st, unit.id, 'set_allocation_order');
  const parts = [kindControls(unit, table, offer), casualtyControls(unit, table, offer)].filter(Boolean);
  return parts.length ? h('div', null, parts) : null;
}

/** The owner's order of the unit's models: the sensible default, taken in one key, or changed
 * model by model. @param {import('../types.js').Unit} unit @param {Table} table
 * @param {import('../types.js').AllocationOffer|null|undefined} offer */
function casualtyControls(unit, table, offer) {
  const { ids, names, suggested } = casualtyOrder(offer);
  if (!offer || ids.length < 2) return null;
  const sendOrder = (/** @type {string[]} */ order) => send(table, { type: 'set_allocation_order', unit: unit.id, order }, 'Casualty order');
  return h('div', { class: 'allocation', id: 'casualty-order' },
    h('b', null, 'Casualties'), ' ',
    h('small', null, offer.chosen ? '(your order: attacks take these models first to last; a wounded model always first)' : '(the default: the unit kept in coherency, the models farthest from the enemy first)'),
    h('ol', null, names.map((name, i) => h('li', null, name, ' ',
      i > 0
        ? h('button', { type: 'button', class: 'small', ...controlAttrs(offer, `${name} goes before ${names[i - 1]}`), onclick: () => sendOrder(moveEarlier(ids, i)) }, '↑ earlier')
        : null))),
    !offer.chosen && suggested.length ? h('button', { type: 'button', ...controlAttrs(offer, 'Take the suggested casualty order'), onclick: () => sendOrder(suggested) }, 'Take this order') : null,
    why(offer));
}

/** The order the unit's model kinds lose models in. @param {import('../types.js').Unit} unit @param {Table} table
 * @param {import('../types.js').AllocationOffer|null|undefined} offer */
function kindControls(unit, table, offer) {
  const st = table.store.state || {};
  if (!offer || !Array.isArray(offer.models) || offer.models.length < 2) return null;
  const shown = allocationShown(offer, st.forty?.models?.[unit.id] || []);
  const set = Array.isArray(offer.order) && offer.order.length > 0;
  const send1 = (/** @type {string[]} */ order) => send(table, { type: 'set_allocation_order', unit: unit.id, models: order }, 'Allocation order');
  return h('div', { class: 'allocation', id: 'allocation-order' },
    h('b', null, 'Allocation order'), ' ',
    h('small', null, set ? '(set: attacks on this unit take these models first to last)' : '(not set: within the unit, the sensible default below)'),
    h('ol', null, shown.map((kind, i) => h('li', null, kind, ' ',
      i > 0
        ? h('button', { type: 'button', class: 'small', ...controlAttrs(offer, `${kind} lose models before ${shown[i - 1]}`), onclick: () => send1(moveEarlier(shown, i)) }, `↑ ${kind} earlier`)
        : null))),
    !set ? h('button', { type: 'button', ...controlAttrs(offer, 'Keep this order'), onclick: () => send1(shown) }, 'Set this order') : null,
    why(offer),
    offer.leaders_reason ? h('small', { class: 'hint' }, `${(offer.leaders || []).join(', ')}: ${offer.leaders_reason}`) : null);
}

/** The arrival point typed in (keyboard): the unit is set down around it, as a click does.
 * @param {Table} table */
function arriveForm(table) {
  const field = (/** @type {string} */ label, /** @type {string} */ name) => h('label', { class: 'typed-field' }, h('span', null, label),
    h('input', { type: 'number', name, step: 'any', min: 0, size: 4, required: true, 'aria-label': `Arrive at ${label} (in)` }));
  return h('form', {
    class: 'row typed arrive-at', id: 'arrive-at',
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const form = /** @type {HTMLFormElement} */ (e.target);
      const x = Number(/** @type {HTMLInputElement} */ (form.elements.namedItem('x')).value);
      const y = Number(/** @type {HTMLInputElement} */ (form.elements.namedItem('y')).value);
      if (Number.isFinite(x) && Number.isFinite(y)) void table.tools.arrive.arriveAt({ x, y });
    },
  }, field('x', 'x'), field('y', 'y'), h('button', { type: 'submit' }, 'Arrive here'));
}

/**
 * The 40k Reserves controls of a unit in the tray: at deployment, Strategic Reserves or Deep
 * Strike where offered; in your Movement phase, Arrive… (refused with the reason in round 1).
 * @param {string} id @param {Table} table @returns {HTMLElement|null}
 */
export function reserveControls(id, table) {
  const st = table.store.state || {};
  if (table.store.seat === null) return null;
  const strategic = unitOffer(st, id, 'declare_strategic_reserves');
  // Deep Strike: the shared `declare_reserve` in its 40k mode (Reserves, not Ambush)
  const deep = unitOffer(st, id, 'declare_reserve');
  const arrive = unitOffer(st, id, 'arrive_from_reserves');
  const name = unitName(st, id);
  const out = [];
  if (deep && deep.mode === 'reserve') {
    out.push(h('button', {
      type: 'button', class: 'reserve deep-strike', ...controlAttrs(deep, `${deep.rule || 'Deep Strike'}: keep ${name} off the table; it arrives from battle round 2, more than 9 in from every enemy`),
      onclick: () => send(table, { type: 'declare_reserve', unit: id, mode: deep.mode || 'reserve' }, String(deep.rule || 'Deep Strike')),
    }, `${deep.rule || 'Deep Strike'} (Reserves)`));
  }
  if (strategic) {
    out.push(h('button', {
      type: 'button', class: 'reserve strategic', ...controlAttrs(strategic, `Keep ${name} in Strategic Reserves (at most a quarter of the army's points); it arrives from battle round 2 near an edge`),
      onclick: () => send(table, { type: 'declare_strategic_reserves', unit: id }, 'Strategic Reserves'),
    }, 'Strategic Reserves'), why(strategic));
  }
  if (arrive) {
    const on = table.mode === 'arrive' && table.tools.arrive.unit === id;
    out.push(h('button', {
      type: 'button', class: `arrive${on ? ' active' : ''}`, 'aria-pressed': on ? 'true' : 'false',
      ...controlAttrs(arrive, `${arrive.rule}: set ${name} up ${arrive.where}`),
      onclick: () => (on ? table.setMode('idle') : table.tools.arrive.start(id)),
    }, on ? 'Arriving: click the table' : 'Arrive…'), h('small', null, ` ${arrive.rule}`), why(arrive));
    if (on) out.push(arriveForm(table));
  }
  return out.length ? h('span', { class: 'reserve-orders' }, out) : null;
}
