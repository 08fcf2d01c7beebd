// Unit cards with the whole profile (issue 18 item 5): characteristics per model type, weapons
// with ranges and abilities, points, base, every special rule with its text and automated /
// partly / not automated, the characters joined with their own profiles. The profile comes
// from the system's datasheets (GET /api/systems/{id}/datasheets, fetched once per system) or,
// for a unit of your own, from the game state's `own_datasheets` (public, like any army list).
// The words are pure functions of that data (tested under node).

import { h } from './dom.js';

/** @typedef {import('../types.js').Catalog} Catalog */
/** @typedef {import('../types.js').Datasheet} Datasheet */
/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Points} Points */
/** @typedef {import('../types.js').RuleInfo} RuleInfo */
/**
 * How a card marks the rules: the unit's `not_automated` / `partly_automated` (when the unit
 * view gives them) and the system's rule list.
 * @typedef {{notAutomated?:string[], partly?:Record<string, string>, registry?:RuleInfo[]}} Marks
 */
/** A rule line on a card. @typedef {{printed:string, mark:'automated'|'partly'|'not', text:string, note?:string}} RuleLine */

/** An object whose fields a generic walk of a profile reads (an array's read as missing).
 * @param {unknown} v @returns {v is Record<string, unknown>} */
export function isObject(v) {
  return typeof v === 'object' && v !== null;
}

/** @type {Map<string, Promise<Catalog>>} */
const loading = new Map();
/** @type {Map<string, Catalog>} */
const loaded = new Map();
/** @type {Set<() => void>} */
const listeners = new Set();

/**
 * The system's datasheets answer (`{datasheets, rules, army, joinable}`), fetched once.
 * @param {string} system @returns {Promise<Catalog>}
 */
export function loadCatalog(system) {
  let found = loading.get(system);
  if (!found) {
    found = fetch(`/api/systems/${encodeURIComponent(system)}/datasheets`, { headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((/** @type {Catalog} */ body) => {
        loaded.set(system, body);
        for (const fn of listeners) fn();
        return body;
      })
      .catch((err) => { loading.delete(system); throw err; });
    loading.set(system, found);
  }
  return found;
}

/** The system's datasheets answer if loaded (starting the load otherwise).
 * @param {string} system @returns {Catalog|null} */
export function catalogFor(system) {
  if (!system) return null;
  if (!loaded.has(system)) loadCatalog(system).catch(() => {});
  return loaded.get(system) || null;
}

/** Call `fn` whenever a system's datasheets arrive. @param {() => void} fn */
export function onCatalog(fn) {
  listeners.add(fn);
}

/**
 * A datasheet by id: the game's units of your own first, then the catalogue.
 * @param {GameState|null|undefined} st the game state @param {Catalog|null} catalog @param {string} id
 * @returns {Datasheet|null}
 */
export function sheetOf(st, catalog, id) {
  const own = st?.own_datasheets?.[id];
  if (own) return own;
  const sheets = Array.isArray(catalog?.datasheets) ? catalog.datasheets : [];
  return sheets.find((s) => s.id === id) || null;
}

/**
 * What `models` models cost (server/data/schema.py Points.cost: a ranked unit's fixed part and
 * per-model cost, or a 40k unit's tier for its size).
 * @param {Partial<Points>|null|undefined} points @param {number} models @returns {number}
 */
export function cost(points, models) {
  if (!points || typeof points !== 'object') return 0;
  const tiers = points.tiers && typeof points.tiers === 'object' ? points.tiers : {};
  const sizes = Object.keys(tiers).map(Number).filter((n) => Number.isFinite(n));
  if (sizes.length) {
    const reached = sizes.filter((n) => n <= models);
    return Number(tiers[String(reached.length ? Math.max(...reached) : Math.min(...sizes))]) || 0;
  }
  return (Number(points.unit) || 0) + (Number(points.per_model) || 0) * models;
}

/** The cost written as players read it. @param {Partial<Points>|null|undefined} points @returns {string} */
export function pointsWords(points) {
  if (!points || typeof points !== 'object') return 'no points given';
  const tiers = points.tiers && typeof points.tiers === 'object' ? Object.entries(points.tiers) : [];
  if (tiers.length) return tiers.map(([n, p]) => `${n}+ models: ${p} pts`).join(', ');
  const parts = [];
  if (points.unit) parts.push(`${points.unit} pts`);
  if (points.per_model) parts.push(`${points.per_model} pts per model`);
  return parts.length ? parts.join(' + ') : '0 pts';
}

/** The base in words: "20 × 20 mm rectangular", "32 mm round".
 * @param {import('../types.js').Base|null|undefined} base @returns {string} */
export function baseWords(base) {
  if (!base) return '';
  if (base.shape === 'round') return `${base.diameter_mm} mm round`;
  return `${base.width_mm} × ${base.depth_mm} mm ${base.shape}`;
}

/** Column and row names on a profile. */
const LABELS = /** @type {Record<string, string>} */ ({
  name: 'Name', range_in: 'Range', shots: 'Shots', aim: 'Aim', strength: 'Str', armour_penetration: 'AP',
  attacks: 'Att', offensive_skill: 'Off', agility: 'Agi', advance_rate: 'Adv', march_rate: 'Mar',
  discipline: 'Dis', health_points: 'HP', defensive_skill: 'Def', resilience: 'Res', armour: 'Arm',
  aegis: 'Aegis', special_rules: 'Rules', keywords: 'Abilities', carried_by: 'Carried by', type: 'Type',
  global_characteristics: 'Global', defensive: 'Defensive', offensive: 'Offensive', shooting: 'Shooting',
  models: 'Models', weapons: 'Weapons', height: 'Height', troop_type: 'Troop type', save: 'Armour save',
  ward_save: 'Ward save', invulnerable_save: 'Invulnerable save',
});

/** @param {string} key */
export function label(key) {
  return LABELS[key] || key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

/** Values that are a roll to make (printed "4+"). */
const ROLLS = ['save', 'ward_save', 'invulnerable_save', 'aegis', 'aim', 'Sv'];
/** ...and those that are one only on a weapon: a weapon's skill is its roll to hit (40k),
 * while a model's WS and BS are characteristics compared on a chart (whfb8). */
const WEAPON_ROLLS = ['BS', 'WS'];

/** A value as printed: rules by their printed form, a missing value "-", a range in inches.
 * `group`: the profile's list the value is in (`weapons`, `models`, ...).
 * @param {string} key @param {unknown} value @param {string} [group] @returns {string} */
export function cell(key, value, group = '') {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return /** @type {unknown[]} */ (value).map((v) => (isObject(v) ? v.printed || v.name : String(v))).join(', ') || '-';
  if (key === 'range_in') return `${value}″`;
  const roll = ROLLS.includes(key) || (group === 'weapons' && WEAPON_ROLLS.includes(key));
  if (roll && typeof value === 'number') return `${value}+`;
  return String(value);
}

/**
 * The profile as tables and lines: `{title, columns, rows}` for lists and groups of
 * characteristics, `{title, text}` for single values. Pure.
 * @param {import('../types.js').Profile|Record<string, unknown>|null|undefined} profile
 * @returns {{title:string, columns?:string[], rows?:string[][], text?:string}[]}
 */
export function profileBlocks(profile) {
  /** @type {{title:string, columns?:string[], rows?:string[][], text?:string}[]} */
  const out = [];
  if (!isObject(profile)) return out;
  for (const [key, value] of Object.entries(profile)) {
    if (key === 'system') continue;
    if (Array.isArray(value)) {
      const items = /** @type {unknown[]} */ (value).filter(isObject);
      if (!items.length) continue;
      const columns = [...new Set(items.flatMap((v) => Object.keys(v)))];
      out.push({ title: label(key), columns: columns.map(label), rows: items.map((v) => columns.map((c) => cell(c, v[c], key))) });
    } else if (isObject(value)) {
      const columns = Object.keys(value);
      out.push({ title: label(key), columns: columns.map(label), rows: [columns.map((c) => cell(c, value[c], key))] });
    } else if (value !== null && value !== undefined) {
      out.push({ title: label(key), text: cell(key, value) });
    }
  }
  return out;
}

/**
 * Every rule on the sheet with its mark and words: unit rules, equipment, the rules of its
 * model parts and weapons (server Datasheet.all_rules), then the rules of your own (text, not
 * automated). Pure.
 * @param {Datasheet|null|undefined} sheet @param {Marks} marks
 * @returns {RuleLine[]}
 */
export function ruleLines(sheet, marks) {
  if (!sheet) return [];
  const registry = new Map((marks.registry || []).map((r) => [r.name, r]));
  /** @type {Record<string, string>} */
  const texts = sheet.rule_texts && typeof sheet.rule_texts === 'object' ? sheet.rule_texts : {};
  // Rules as the dump has them ({name, param, printed}); older data may give printed strings.
  /** @type {unknown[]} */
  const all = [...(sheet.special_rules || []), ...(sheet.equipment || [])];
  const profile = sheet.profile || {};
  for (const list of Object.values(profile)) {
    if (!Array.isArray(list)) continue;
    for (const part of /** @type {unknown[]} */ (list)) {
      if (!isObject(part)) continue;
      all.push(...(Array.isArray(part.special_rules) ? part.special_rules : []), ...(Array.isArray(part.keywords) ? part.keywords : []));
    }
  }
  const not = new Set(marks.notAutomated || []);
  const partly = marks.partly || {};
  /** @type {Map<string, RuleLine>} */
  const seen = new Map();
  for (const r of all) {
    const rule = isObject(r) ? r : {};
    const printed = typeof r === 'string' ? r : String(rule.printed || rule.name || '');
    if (!printed || seen.has(printed)) continue;
    const name = typeof r === 'string' ? r : String(rule.name || printed);
    const info = registry.get(name);
    const automated = info ? info.automation !== 'not' && info.automated !== false : false;
    /** @type {'automated'|'partly'|'not'} */
    const mark = not.has(printed) ? 'not' : partly[printed] ? 'partly'
      : marks.notAutomated ? 'automated' : automated ? (info?.automation === 'partly' ? 'partly' : 'automated') : 'not';
    seen.set(printed, { printed, mark, text: texts[name] || info?.summary || '', note: partly[printed] || (mark === 'partly' ? info?.notes || undefined : undefined) });
  }
  for (const r of Array.isArray(sheet.other_rules) ? sheet.other_rules : []) {
    seen.set(`own:${r.name}`, { printed: String(r.name), mark: 'not', text: String(r.text || '') });
  }
  return [...seen.values()];
}

const MARK_WORDS = { automated: 'automated', partly: 'partly automated', not: 'not automated' };

/**
 * What a roster's upgrades changed on a catalogue unit (a unit of your own `based_on` it,
 * issue 18 item 3), one line each: "Str (Commander): 4 → 6 (Great Weapon)",
 * "shooting weapon: + Bow 24" Str 3 AP 0 Aim 3+ (Bow (3+))". Pure.
 * @param {Datasheet|null|undefined} sheet @returns {string[]}
 */
export function changeLines(sheet) {
  const changes = Array.isArray(sheet?.changes) ? sheet.changes : [];
  return changes.map((c) => {
    const now = c.was ? `${c.was} → ${c.now}` : `+ ${c.now}`;
    return `${c.what}: ${now} (${c.source})`;
  });
}

/**
 * The profile part of a card (also used for joined characters and the builder's preview).
 * @param {Datasheet} sheet @param {Marks} marks
 * @returns {HTMLElement}
 */
export function profileView(sheet, marks) {
  const blocks = profileBlocks(sheet.profile);
  const rules = ruleLines(sheet, marks);
  const changed = changeLines(sheet);
  return h('div', { class: 'profile', dataset: { datasheet: sheet.id } },
    h('div', { class: 'coords profile-facts' }, [
      sheet.based_on ? `${sheet.faction || ''} ${sheet.name} with the roster's upgrades`.trim()
        : sheet.own ? 'Unit of your own' : sheet.faction || '',
      `Base ${baseWords(sheet.base)}`,
      sheet.models ? `${sheet.models.min}–${sheet.models.max} models` : '',
      `Points: ${pointsWords(sheet.points)}`,
    ].filter(Boolean).join(' · ')),
    changed.length
      ? h('div', { class: 'changes' }, h('b', null, 'Changed by upgrades'),
        h('ul', null, changed.map((line) => h('li', null, line))))
      : null,
    blocks.map((b) => (b.text !== undefined
      ? h('div', { class: 'profile-line' }, h('b', null, `${b.title}: `), b.text)
      : h('table', { class: 'profile-table' },
        h('caption', null, b.title),
        h('thead', null, h('tr', null, (b.columns || []).map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, (b.rows || []).map((row) => h('tr', null, row.map((v) => h('td', null, v)))))))),
    rules.length
      ? h('ul', { class: 'rules' }, rules.map((r) => h('li', { class: r.mark === 'not' ? 'manual' : r.mark === 'partly' ? 'partly' : '' },
        h('b', null, r.printed), h('small', { class: `mark mark-${r.mark}` }, ` (${MARK_WORDS[r.mark]})`),
        r.text ? h('div', { class: 'rule-text' }, r.text) : null,
        r.note ? h('div', { class: 'note' }, r.note) : null)))
      : h('p', { class: 'hint' }, 'No special rules.'));
}
