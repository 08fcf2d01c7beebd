// Orders with typed values, for the keyboard (issue 24 item 1): deploy at a typed spot, move
// forward or back a typed distance, wheel or pivot by typed degrees, charge or shoot at a unit
// picked from a list. They ask the server exactly what a drag or click asks: a typed move is
// staged as a ghost with the server's verdict ("Not allowed: Move Distance · 14.0 in") and sent
// with Confirm; a refusal comes back as the server's words. Nothing here decides a rule.

import { h } from './dom.js';
import { geometryRings, bbox } from '../view/hit.js';
import { boundaryOf, translateGeometry, basisOf } from '../view/manoeuvre.js';
import { round2 } from '../view/transform.js';
import { controlAttrs, unitOffer } from './offers.js';
import { unitName, inches } from '../format.js';

/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../types.js').Unit} Unit */

/** What was typed, kept across the panel's re-renders (per table). */
const typedValues = new WeakMap();

/** @param {Table} table @returns {Record<string, string>} */
function values(table) {
  let v = typedValues.get(table);
  if (!v) typedValues.set(table, (v = { distance: '4', direction: 'forward', degrees: '15', target: '', x: '', y: '', facing: '', deployUnit: '', open: '', files: '', filesFor: '', turn: '0', modelDirection: 'away', modelDistance: '3' }));
  return v;
}

/**
 * The middle of a seat's deployment zone, as the server drew it (the starting value of the
 * typed deploy spot; the server says whether the unit fits there). Pure.
 * @param {import('../view/scene.js').Zone[]} zones @param {number|null} seat
 * @returns {{x:number, y:number}|null}
 */
export function zoneMiddle(zones, seat) {
  const z = zones.find((q) => q.owner === seat);
  const ring = z ? geometryRings(z.geometry)[0] : null;
  if (!ring?.length) return null;
  const b = bbox(ring);
  return { x: round2((b.minX + b.maxX) / 2), y: round2((b.minY + b.maxY) / 2) };
}

/**
 * A spot and facing as the player in `seat` sees the table, from the table's own coordinates,
 * and back (the turn is its own inverse). Player 2 sees the table turned 180° (view/transform.js):
 * their x runs from the left corner of their own edge, their y away from them, and facing 0°
 * is straight away from them. Pure.
 * @param {{x:number, y:number, facing:number}} p @param {number|null} seat
 * @param {{width:number, depth:number}} battlefield
 * @returns {{x:number, y:number, facing:number}}
 */
export function asSeatSees(p, seat, battlefield) {
  if (seat !== 2) return { ...p };
  return {
    x: round2(battlefield.width - p.x),
    y: round2(battlefield.depth - p.y),
    facing: (((p.facing + 180) % 360) + 360) % 360,
  };
}

/**
 * A labelled input (every input has a visible label). @param {string} text
 * @param {Record<string, unknown>} attrs @param {string} key @param {Record<string, string>} v
 */
function field(text, attrs, key, v) {
  const input = h('input', { ...attrs, name: `typed-${key}`, value: v[key],
    oninput: (/** @type {Event} */ e) => { v[key] = /** @type {HTMLInputElement} */ (e.target).value; } });
  return h('label', { class: 'typed-field' }, h('span', null, text), input);
}

/** The ghost a typed order staged last and what was typed for it, per table: Enter on that
 * order while its move is still staged and the values unchanged sends the move (Confirm), where
 * the form would only stage it again. @type {WeakMap<Table, {ghost:unknown, stamp:string}>} */
const stagedBy = new WeakMap();

/** @param {Table} table @param {string} stamp */
function noteStaged(table, stamp) {
  const g = table.moves.ghost;
  if (g?.phase === 'staged') stagedBy.set(table, { ghost: g, stamp });
}

/**
 * A keydown handler for a typed order (its form or row): Enter confirms the move it staged.
 * @param {Table} table @param {() => string} stamp what is typed now
 * @returns {(e:KeyboardEvent) => void}
 */
export function enterConfirms(table, stamp) {
  return (e) => {
    if (e.key !== 'Enter' || e.shiftKey || e.ctrlKey || e.altKey || e.metaKey) return;
    const g = table.moves.ghost;
    const last = stagedBy.get(table);
    if (g?.phase !== 'staged' || !last || last.ghost !== g || last.stamp !== stamp()) return;
    e.preventDefault();
    table.moves.confirmStaged();
  };
}

/** @param {string} s @returns {number|null} */
function num(s) {
  const n = Number(String(s).trim());
  return String(s).trim() !== '' && Number.isFinite(n) ? n : null;
}

/**
 * Deploy the unit picked in the tray at a typed spot and facing (the deploy tool's click,
 * from the keyboard).
 * @param {Table} table @returns {HTMLElement|null}
 */
export function deployForm(table) {
  const tool = table.tools.deploy;
  const id = tool.unit;
  if (table.mode !== 'deploy' || !id) return null;
  const v = values(table);
  const seat = table.store.seat;
  const field0 = table.store.state?.battlefield;
  const bf = { width: Number(field0?.width || 0), depth: Number(field0?.depth || 0) };
  // Typed as the player sees the table (player 2's turned around), sent in the table's own.
  if (v.deployUnit !== id) {
    const mid = zoneMiddle(table.currentScene().zones, seat);
    const seen = mid ? asSeatSees({ ...mid, facing: 0 }, seat, bf) : null;
    v.deployUnit = id;
    v.x = seen ? String(seen.x) : '';
    v.y = seen ? String(seen.y) : '';
    v.facing = '0';
  }
  const name = unitName(table.store.state, id);
  const byModels = !tool.offer()?.outlines;
  return h('form', {
    class: 'typed deploy-form', id: 'deploy-form', 'aria-label': `Deploy ${name}`,
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const x = num(v.x);
      const y = num(v.y);
      const facing = num(v.facing);
      if (x === null || y === null) return table.toast('Deploy: type where the front of the unit goes (x and y in inches).', 'info');
      const at = asSeatSees({ x, y, facing: facing ?? 0 }, seat, bf);
      void tool.deployAt({ x: at.x, y: at.y }, at.facing);
    },
  },
  h('p', { class: 'hint' }, `Deploy ${name}: ${byModels ? 'the middle of the unit' : 'the front centre'} at x, y as you see the table (inches: x from the left corner of your own edge, y away from you) and its facing (0° straight away from you, towards the enemy).`),
  h('div', { class: 'row' },
    field('x (in)', { type: 'number', step: 'any', size: 4 }, 'x', v),
    field('y (in)', { type: 'number', step: 'any', size: 4 }, 'y', v),
    field('Facing (°)', { type: 'number', step: 'any', size: 4 }, 'facing', v)),
  h('div', { class: 'buttons' },
    h('button', { type: 'submit', class: 'primary', id: 'deploy-here' }, 'Deploy here'),
    h('button', { type: 'button', onclick: () => table.setMode('idle') }, 'Cancel')));
}

/**
 * Stage a straight move of a typed distance as a ghost: the server's verdict shows, Confirm
 * (or Enter) sends it. @param {Table} table @param {Unit} unit @param {'forward'|'backward'} dir @param {number} distance
 */
export function stageStraightMove(table, unit, dir, distance) {
  const b = boundaryOf(unit);
  if (!b) return false;
  const a = (b.facing * Math.PI) / 180;
  const along = dir === 'forward' ? distance : -distance;
  const dx = along * -Math.sin(a);
  const dy = along * Math.cos(a);
  const moves = table.moves;
  moves.setGhost({
    id: unit.id, x: b.centre[0] + dx, y: b.centre[1] + dy, facing: b.facing, width: 4, depth: 4,
    geometry: translateGeometry(b.geometry, dx, dy), verdict: 'unknown', phase: 'staged', basis: basisOf(unit),
    label: `Move ${dir === 'forward' ? '' : 'back '}${inches(distance)}`,
  }, { type: 'move_unit', unit: unit.id, manoeuvre: dir, mode: moves.mode, distance });
  table.onChange();
  return true;
}

/** The ways a unit placed model by model can be moved by typing, as the player sees the table,
 * with the table direction each is for Player 1 (Player 2 sees the table turned 180°). */
export const MODEL_DIRECTIONS = /** @type {[string, string, number, number][]} */ ([
  ['away', 'away from you', 0, 1], ['away-left', 'away and to your left', -1, 1],
  ['left', 'to your left', -1, 0], ['back-left', 'towards you and to your left', -1, -1],
  ['back', 'towards you', 0, -1], ['back-right', 'towards you and to your right', 1, -1],
  ['right', 'to your right', 1, 0], ['away-right', 'away and to your right', 1, 1],
]);

/** How far in x and y a typed move of `distance` inches `direction` (MODEL_DIRECTIONS) goes,
 * for the player in `seat`. Pure. @param {string} direction @param {number} distance @param {number|null} seat
 * @returns {[number, number]} */
export function modelMoveVector(direction, distance, seat) {
  const d = MODEL_DIRECTIONS.find((m) => m[0] === direction) || MODEL_DIRECTIONS[0];
  const turned = seat === 2 ? -1 : 1;
  const n = Math.hypot(d[2], d[3]);
  // (`|| 0`: no -0 for a direction straight along an axis)
  return [round2((turned * d[2] * distance) / n) || 0, round2((turned * d[3] * distance) / n) || 0];
}

/** Stage every model of `unit` moved `distance` inches `direction` (MODEL_DIRECTIONS), on top
 * of what is staged already; the ghost asks the server, Confirm sends it.
 * @param {Table} table @param {Unit} unit @param {string} direction @param {number} distance */
export function stageModelMove(table, unit, direction, distance) {
  const [dx, dy] = modelMoveVector(direction, distance, table.store.seat);
  const g = table.moves.ghost;
  const from = g?.phase === 'staged' && g.id === unit.id && g.positions ? g.positions : unit.positions || [];
  table.handlers.models.stage(unit, from.map((p) => [round2(p[0] + dx), round2(p[1] + dy)]), 'staged');
  table.onChange();
}

/**
 * A typed move for the selected own unit placed model by model (40k), from the keyboard: every
 * model the same distance the same way, staged as a ghost with the server's verdict; Confirm
 * (or Enter) sends it, and each model can still be dragged before that.
 * @param {Unit} unit @param {Table} table @returns {HTMLElement|null}
 */
export function typedModelMoves(unit, table) {
  const offer = unitOffer(table.store.state, unit.id, 'move_models');
  if (!offer?.available || !Array.isArray(unit.positions) || !unit.positions.length) return null;
  const v = values(table);
  const direction = h('select', {
    name: 'typed-model-direction',
    onchange: (/** @type {Event} */ e) => { v.modelDirection = /** @type {HTMLSelectElement} */ (e.target).value; },
  }, MODEL_DIRECTIONS.map(([key, words]) => h('option', { value: key, selected: v.modelDirection === key }, words)));
  const stamp = () => `models:${unit.id}:${v.modelDirection}:${v.modelDistance}`;
  return h('form', {
    class: 'row typed model-move-form', id: 'model-move-form', 'aria-label': `Move ${unitName(table.store.state, unit.id)} by typing`,
    onkeydown: enterConfirms(table, stamp),
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const d = num(v.modelDistance);
      if (d === null || d <= 0) return table.toast('Move: type a distance in inches.', 'info');
      stageModelMove(table, unit, v.modelDirection, d);
      noteStaged(table, stamp());
    },
  },
  h('label', { class: 'typed-field' }, h('span', null, 'Direction'), direction),
  field('Distance (in)', { type: 'number', min: 0, step: 'any', size: 4 }, 'modelDistance', v),
  h('button', { type: 'submit', id: 'stage-model-move' }, 'Show move'));
}

/**
 * Typed moves for the selected own ranked unit: a distance forward or back (staged, then
 * Confirm), a wheel or a pivot by typed degrees. @param {Unit} unit @param {Table} table
 */
export function typedMoves(unit, table) {
  const v = values(table);
  if (v.filesFor !== unit.id) {
    v.filesFor = unit.id;
    v.files = String(unit.files || 1);
  }
  const degrees = () => num(v.degrees);
  const direction = h('select', {
    name: 'typed-direction',
    onchange: (/** @type {Event} */ e) => { v.direction = /** @type {HTMLSelectElement} */ (e.target).value; },
  }, h('option', { value: 'forward', selected: v.direction === 'forward' }, 'forward'),
  h('option', { value: 'backward', selected: v.direction === 'backward' }, 'back'));
  const moveStamp = () => `move:${unit.id}:${v.direction}:${v.distance}`;
  const move = h('form', {
    class: 'row typed move-form', id: 'move-form',
    onkeydown: enterConfirms(table, moveStamp),
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const d = num(v.distance);
      if (d === null || d <= 0) return table.toast('Move: type a distance in inches.', 'info');
      stageStraightMove(table, unit, v.direction === 'backward' ? 'backward' : 'forward', d);
      noteStaged(table, moveStamp());
    },
  },
  h('label', { class: 'typed-field' }, h('span', null, 'Direction'), direction),
  field('Distance (in)', { type: 'number', min: 0, step: 'any', size: 4 }, 'distance', v),
  h('button', { type: 'submit', id: 'stage-move' }, 'Show move'));
  // Each click turns a little more; Enter on the row, once turned, sends the wheel or pivot.
  const turnStamp = () => `turn:${unit.id}:${v.degrees}`;
  const turn = h('div', { class: 'row typed turn-form', onkeydown: enterConfirms(table, turnStamp) },
    field('Degrees', { type: 'number', min: 0, max: 360, step: 'any', size: 4 }, 'degrees', v),
    h('button', { type: 'button', id: 'typed-wheel-left', onclick: () => { const d = degrees(); if (d && table.handlers.handles.wheelSelected(d)) noteStaged(table, turnStamp()); } }, 'Wheel left'),
    h('button', { type: 'button', id: 'typed-wheel-right', onclick: () => { const d = degrees(); if (d && table.handlers.handles.wheelSelected(-d)) noteStaged(table, turnStamp()); } }, 'Wheel right'),
    h('button', { type: 'button', id: 'typed-pivot', onclick: () => {
      const d = degrees();
      if (!d) return;
      if (table.moves.ghost?.phase === 'staged') table.moves.clearGhost();
      if (table.handlers.handles.nudgePivot(d)) noteStaged(table, turnStamp());
    } }, 'Pivot'));
  const reformStamp = () => `reform:${unit.id}:${v.files}:${v.turn}`;
  const reform = h('form', {
    class: 'row typed reform-form', id: 'reform-form',
    onkeydown: enterConfirms(table, reformStamp),
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault();
      const files = num(v.files);
      if (files === null || files < 1 || !Number.isInteger(files)) return table.toast('Reform: type how many models wide.', 'info');
      if (table.handlers.handles.stageReform(files, num(v.turn) ?? 0)) noteStaged(table, reformStamp());
    },
  },
  field('Files (wide)', { type: 'number', min: 1, step: 1, size: 3 }, 'files', v),
  field('Turn (°)', { type: 'number', step: 'any', size: 4 }, 'turn', v),
  h('button', { type: 'submit', id: 'stage-reform' }, 'Show reform'));
  return h('details', {
    class: 'typed-orders', id: 'typed-orders', open: v.open === '1',
    ontoggle: (/** @type {Event} */ e) => { v.open = /** @type {HTMLDetailsElement} */ (e.target).open ? '1' : ''; },
  }, h('summary', null, 'Typed orders (distance, degrees, files)'), move, turn, reform);
}

/** One enemy unit as the server offers it to a charge or shooting order: its option's words say
 * whether each order may target it and, when not, the server's reason.
 * @param {string} name @param {import('../types.js').ChargeTarget|null} charge the declare_charge target entry (or null)
 * @param {import('../types.js').RankedShootTarget|null} shoot the shoot target entry (or null) @returns {string} */
export function targetLabel(name, charge, shoot) {
  const parts = [];
  if (charge) parts.push(charge.available
    ? `charge${typeof charge.distance === 'number' ? ` (${inches(charge.distance)})` : ''}`
    : `no charge: ${charge.reason || 'not possible'}`);
  if (shoot) parts.push(shoot.available
    ? `shoot${Array.isArray(shoot.weapons) && shoot.weapons.length ? ` (${shoot.weapons.join(', ')})` : ''}`
    : `no shooting: ${shoot.reason || 'not possible'}`);
  return parts.length ? `${name} — ${parts.join('; ')}` : name;
}

/**
 * An enemy unit picked from a list, then Charge or Shoot at it (the same intents as clicking
 * it on the table with the tool). The list and what each button may do come from the server's
 * orders for this unit (`declare_charge` and `shoot` targets, with reasons): the client judges
 * nothing. @param {Unit} unit @param {Table} table
 */
export function targetPicker(unit, table) {
  const st = table.store.state;
  // 40k charges with `charge` (several targets, ui/forty-orders.js), not this one-target one
  const charge = unitOffer(st, unit.id, 'charge') || unitOffer(st, unit.id, 'charge_move') ? null : unitOffer(st, unit.id, 'declare_charge');
  const shoot = unitOffer(st, unit.id, 'shoot');
  if (!charge && !shoot) return null;
  /** @template {{unit:string}} T @param {{targets?:T[]}|null} o @returns {Map<string, T>} */
  const byUnit = (o) => new Map((Array.isArray(o?.targets) ? o.targets : []).map((t) => [String(t.unit), t]));
  const charges = byUnit(charge);
  const shots = byUnit(shoot);
  const ids = [...new Set([...charges.keys(), ...shots.keys()])].filter((id) => st?.units?.[id]);
  if (!ids.length) return null;
  const v = values(table);
  /** @param {string} id */
  const usable = (id) => Boolean(charges.get(id)?.available || shots.get(id)?.available);
  if (!ids.includes(v.target)) v.target = ids.find(usable) || ids[0];
  // The charge is previewed first (issue 19): the unit's orders then show Declare / Cancel.
  const chargeButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'charge-target', onclick: () => { if (table.mode !== 'charge') table.setMode('charge'); void table.tools.charge.click(v.target); } }, 'Charge it'));
  const shootButton = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', id: 'shoot-target', onclick: () => void table.tools.shoot.shootAt(v.target) }, 'Shoot it'));
  /** Each button is enabled only for a target the server offers it, with the reason otherwise. */
  const judge = () => {
    for (const [button, order, entries] of /** @type {const} */ ([[chargeButton, charge, charges], [shootButton, shoot, shots]])) {
      const entry = entries.get(v.target);
      const attrs = controlAttrs(order, '', entry ? { available: Boolean(entry.available), reason: entry.reason || `${unitName(st, v.target)} is not a target of this order` } : { available: false, reason: `${unitName(st, v.target)} is not a target of this order` });
      button.disabled = attrs.disabled;
      button.title = attrs.title;
      if (attrs.disabled) button.setAttribute('aria-disabled', 'true');
      else button.removeAttribute('aria-disabled');
    }
  };
  const select = h('select', {
    name: 'typed-target', id: 'typed-target',
    onchange: (/** @type {Event} */ e) => { v.target = /** @type {HTMLSelectElement} */ (e.target).value; judge(); },
  }, ids.map((id) => h('option', { value: id, selected: id === v.target },
    targetLabel(unitName(st, id), charges.get(id) || null, shots.get(id) || null))));
  judge();
  return h('div', { class: 'row typed target-form' },
    h('label', { class: 'typed-field' }, h('span', null, 'Target'), select),
    charge ? chargeButton : null,
    shoot ? shootButton : null);
}
