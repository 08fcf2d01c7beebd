// The units list: a text view of the table (issue 24 items 1, 2). Every unit and token with
// where it stands, its facing, models and status, grouped as yours, the opponent's and off the
// table (for a spectator: Player 1's, Player 2's, off the table). Each entry is a button that
// selects the piece on the table, so a keyboard or screen-reader user picks units here instead
// of clicking the canvas. The words are pure (tested under node); nothing is worked out that
// the server did not send.

import { h, replace } from './dom.js';
import { humanize } from './describe.js';
import { markerBadges, unitName, tenths, inches } from '../format.js';
import { OFF_TABLE } from '../view/scene.js';

/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Unit} Unit */
/** @typedef {import('../table.js').Table} Table */

const GONE = new Set(['destroyed', 'removed', 'fled']);

/** @typedef {{id:string, name:string, owner:number, onTable:boolean, line:string}} UnitEntry */
/** @typedef {{key:string, title:string, entries:UnitEntry[]}} UnitGroup */

/** Where a unit stands, in words: its front centre (ranked units) or its models' middle.
 * @param {Unit} u @returns {{at:string, facing:number|null}} */
function where(u) {
  const p = u.placement;
  if (p && typeof p.x === 'number' && typeof p.y === 'number') {
    return { at: `front at ${tenths(p.x)}, ${inches(p.y)}`, facing: typeof p.facing === 'number' ? p.facing : null };
  }
  const pos = Array.isArray(u.positions) ? u.positions.filter((q) => Array.isArray(q) && q.length >= 2) : [];
  if (pos.length) {
    const x = pos.reduce((s, q) => s + q[0], 0) / pos.length;
    const y = pos.reduce((s, q) => s + q[1], 0) / pos.length;
    return { at: `models around ${tenths(x)}, ${inches(y)}`, facing: null };
  }
  return { at: '', facing: null };
}

/** @param {unknown} m */
function modelCount(m) {
  if (typeof m === 'number') return m;
  if (Array.isArray(m)) {
    return m.filter((x) => {
      const model = /** @type {{status?:unknown, removed?:unknown}|null} */ (x && typeof x === 'object' ? x : null);
      return !(model && (model.status === 'destroyed' || model.removed));
    }).length;
  }
  return null;
}

/**
 * The names of the enemy units a unit is in combat with: the one it charged (`engaged_with`,
 * the server's charge link) and every unit on the table, not fleeing, that charged it. A
 * fleeing unit only names the one it charged. In a 40k game, the units within Engagement
 * Range the server measured (`forty.engaged`). Pure.
 * @param {Unit & {engaged_with?:string|null}} u @param {GameState|null|undefined} state @returns {string[]}
 */
export function engagedNames(u, state) {
  const units = state?.units || {};
  // wh40k10: engagement is the table's (models within Engagement Range), measured anew with
  // every state, so it never outlives the contact or the enemy unit.
  const measured = state?.forty?.engaged;
  if (measured) return (measured[u.id] || []).map((id) => String(units[id]?.name || id));
  const ids = u.engaged_with ? [String(u.engaged_with)] : [];
  const fleeing = (u.markers || []).includes('fleeing');
  if (!fleeing) {
    for (const v of Object.values(units)) {
      if (v?.engaged_with === u.id && v.status === 'on_table' && !(v.markers || []).includes('fleeing') && !ids.includes(v.id)) ids.push(String(v.id));
    }
  }
  return ids.map((id) => unitName(state, id));
}

/**
 * One unit in words: "Citizen Spears: front at 20.0, 10.0 in, facing 0°, 20 models, 5 wide,
 * on the table, Fleeing, engaged with Mageblight Gremlin".
 * @param {Unit & {engaged_with?:string|null}} u @param {GameState|null|undefined} state @returns {string}
 */
export function unitLine(u, state) {
  const status = String(u.status || 'on_table');
  const { at, facing } = OFF_TABLE.has(status) ? { at: '', facing: null } : where(u);
  const models = modelCount(u.models);
  const foes = engagedNames(u, state);
  const engaged = foes.length ? `engaged with ${foes.join(', ')}` : '';
  const bits = [
    at,
    facing !== null ? `facing ${Math.round(((facing % 360) + 360) % 360)}°` : '',
    models !== null ? `${models} model${models === 1 ? '' : 's'}` : '',
    // (a unit with fewer models than its files stands as wide as it has models)
    u.files ? `${models !== null && models > 0 ? Math.min(u.files, models) : u.files} wide` : '',
    status === 'on_table' ? 'on the table' : humanize(status).toLowerCase(),
    ...(Array.isArray(u.markers) ? u.markers.map((m) => humanize(String(m))) : []),
    // 40k's Battle-shocked lives in the state, not in the unit's markers.
    markerBadges(u, state ?? null).includes('Battle-shocked') ? 'Battle-shocked' : '',
    engaged,
  ].filter(Boolean);
  return `${unitName(state, u.id)}: ${bits.join(', ')}`;
}

/**
 * The units (and tokens) grouped for the list: yours, the opponent's and off the table for a
 * player; Player 1's, Player 2's and off the table for a spectator. Destroyed units are left
 * out (the log has them). Pure.
 * @param {GameState|null|undefined} state @param {number|null} seat @returns {UnitGroup[]}
 */
export function unitGroups(state, seat) {
  /** @type {UnitEntry[]} */
  const all = [];
  for (const u of Object.values(state?.units || {})) {
    const status = String(u.status || 'on_table');
    if (GONE.has(status)) continue;
    all.push({ id: u.id, name: unitName(state, u.id), owner: Number(u.owner), onTable: !OFF_TABLE.has(status), line: unitLine(u, state) });
  }
  for (const t of Object.values(state?.tokens || {})) {
    if (typeof t.x !== 'number' || typeof t.y !== 'number') continue;
    const name = t.label || t.name || t.id;
    all.push({ id: t.id, name, owner: Number(t.owner), onTable: true,
      line: `${name}: token at ${tenths(t.x)}, ${inches(t.y)}, facing ${Math.round(t.facing || 0)}°, ${t.width} × ${t.depth} in` });
  }
  const mine = seat === 1 || seat === 2 ? seat : null;
  const other = mine === 1 ? 2 : mine === 2 ? 1 : null;
  const onTable = all.filter((e) => e.onTable);
  /** @type {UnitGroup[]} */
  const groups = mine !== null && other !== null
    ? [
      { key: 'mine', title: 'Your units', entries: onTable.filter((e) => e.owner === mine) },
      { key: 'theirs', title: "Opponent's units", entries: onTable.filter((e) => e.owner === other) },
    ]
    : [
      { key: 'p1', title: "Player 1's units", entries: onTable.filter((e) => e.owner === 1) },
      { key: 'p2', title: "Player 2's units", entries: onTable.filter((e) => e.owner === 2) },
    ];
  const rest = onTable.filter((e) => e.owner !== 1 && e.owner !== 2);
  if (rest.length) groups.push({ key: 'shared', title: 'Other pieces', entries: rest });
  groups.push({ key: 'off', title: 'Off the table', entries: all.filter((e) => !e.onTable) });
  return groups;
}

/**
 * Render the units list into `el`: one button per piece on the table (it selects it and
 * says so with aria-pressed), plain text for units off the table (the tray deploys them).
 * @param {HTMLElement} el @param {Table} table
 */
export function renderUnits(el, table) {
  const state = table.store.state;
  const groups = unitGroups(state, table.store.seat);
  const any = groups.some((g) => g.entries.length);
  replace(el, any
    ? groups.filter((g) => g.entries.length).map((g) => h('div', { class: `unit-group ${g.key}` },
      h('h3', null, `${g.title} (${g.entries.length})`),
      h('ul', { class: 'unit-list' }, g.entries.map((e) => h('li', { class: `owner-${e.owner}` },
        e.onTable
          ? h('button', {
            type: 'button', class: `unit-pick${table.selected === e.id ? ' active' : ''}`,
            dataset: { pick: e.id }, 'aria-pressed': table.selected === e.id ? 'true' : 'false',
            onclick: () => pick(table, e.id),
          }, e.line)
          : h('span', { class: 'unit-off' }, e.line))))))
    : h('p', { class: 'hint' }, 'No units or tokens yet.'));
}

/**
 * A piece picked in the list: the tool that wants a piece (charge, shoot, line of sight,
 * measure) gets it as if it were clicked on the table; otherwise it is selected.
 * @param {Table} table @param {string} id
 */
export function pick(table, id) {
  const tool = table.tool;
  if (tool?.pickPiece(id)) return;
  table.select(table.selected === id ? null : id);
}
