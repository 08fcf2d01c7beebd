// Units of your own in the army builder (issue 18 item 2): a unit the catalogue lacks, written
// by the player from a catalogue unit's shape (name, base, models, the system's characteristics
// per model and weapon, points), special rules picked from the system's list, other rules kept
// as text. The server checks it like a datasheet (POST /api/systems/{id}/own-units/check, and
// again at submit_army) and says which field is wrong. Saved in this browser (localStorage) for
// the next game; a unit of your own is public like the rest of the army list.

import { h, replace } from './dom.js';
import { errorText } from '../format.js';
import { isObject, label, profileView } from './card.js';

/** @typedef {import('../types.js').OwnUnit} OwnUnit */
/** @typedef {import('../types.js').Datasheet} Datasheet */
/** @typedef {import('../types.js').Catalog} Catalog */
/** @typedef {import('../types.js').RuleInfo} RuleInfo */
/** An editor of one profile value and how to read it back. @typedef {{el:HTMLElement, get:() => unknown}} FieldEditor */

/** localStorage, or null where the browser refuses it. */
export function safeStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** @param {string} system */
export const ownKey = (system) => `warfield.own-units.${system}`;

/** A saved unit of your own: an object with its ref (the server checks the rest again,
 * `checkOwnUnit`, before the builder offers it). @param {unknown} u @returns {u is OwnUnit} */
function isSavedUnit(u) {
  return isObject(u) && typeof u.ref === 'string';
}

/** @param {Storage|null} storage @param {string} system @returns {OwnUnit[]} */
export function savedOwnUnits(storage, system) {
  try {
    const raw = storage?.getItem(ownKey(system));
    /** @type {unknown} */
    const list = raw ? JSON.parse(raw) : [];
    return Array.isArray(list) ? /** @type {unknown[]} */ (list).filter(isSavedUnit) : [];
  } catch {
    return [];
  }
}

/** Save (or replace, by ref) a unit of your own. @param {Storage|null} storage @param {string} system @param {OwnUnit} unit */
export function saveOwnUnit(storage, system, unit) {
  const list = savedOwnUnits(storage, system).filter((u) => u.ref !== unit.ref);
  try {
    storage?.setItem(ownKey(system), JSON.stringify([...list, unit]));
  } catch { /* storage full or refused: the unit still serves this game */ }
}

/** @param {Storage|null} storage @param {string} system @param {string} ref */
export function forgetOwnUnit(storage, system, ref) {
  try {
    storage?.setItem(ownKey(system), JSON.stringify(savedOwnUnits(storage, system).filter((u) => u.ref !== ref)));
  } catch { /* nothing saved */ }
}

/**
 * The ref a unit of your own is named by in the army's entries: "my-" and its name, made unique.
 * @param {string} name @param {string[]} taken @returns {string}
 */
export function refFor(name, taken) {
  const slug = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'unit';
  let ref = `my-${slug}`;
  for (let n = 2; taken.includes(ref); n += 1) ref = `my-${slug}-${n}`;
  return ref;
}

/**
 * Points by unit size as a player writes them ("5: 80, 10: 160") -> `{5: 80, 10: 160}`
 * (server/data/schema.py `Points.tiers`). A part that is not "models: points" is kept, its
 * points NaN (sent as null), so that the server's check names it instead of it being dropped.
 * @param {string} text @returns {Record<string, number>}
 */
export function pointsTiers(text) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [size, cost = ''] = part.split(':').map((p) => p.trim());
    out[size] = cost === '' ? Number.NaN : Number(cost);
  }
  return out;
}

/** The tiers written back as the form shows them. @param {Record<string, number>|undefined} tiers */
export function tiersText(tiers) {
  return Object.entries(tiers || {}).map(([size, cost]) => `${size}: ${cost}`).join(', ');
}

/** A typed value back from an input: '' is null (a printed "-"), whole numbers are numbers.
 * @param {string} text @returns {string|number|null} */
export function parseValue(text) {
  const t = text.trim();
  if (t === '' || t === '-') return null;
  if (/^-?\d+$/.test(t)) return Number(t);
  return t;
}

/** @param {string} text @returns {string[]} */
export function splitRules(text) {
  return text.split(/[,;\n]/).map((s) => s.trim()).filter(Boolean);
}

/**
 * Lines "Name: what it does" as rules of your own (kept as text, never automated).
 * @param {string} text @returns {{name:string, text:string}[]}
 */
export function otherRules(text) {
  return text.split('\n').map((line) => line.trim()).filter(Boolean).map((line) => {
    const at = line.indexOf(':');
    return at > 0 ? { name: line.slice(0, at).trim(), text: line.slice(at + 1).trim() } : { name: line, text: '' };
  });
}

const RULE_LISTS = new Set(['special_rules', 'keywords']);

/**
 * An editor for a profile value (the system's characteristics): objects as groups, lists of
 * model parts / weapons as rows that can be added and removed, rules as comma-separated text.
 * `templates` gives a list's item shape when the starting unit has none (a bow for a unit
 * that had no shooting). Each input carries `data-path` ("profile.defensive.armour").
 * @param {unknown} value @param {string} path @param {string} key @param {Record<string, unknown>} templates
 * @returns {FieldEditor}
 */
export function valueEditor(value, path, key, templates) {
  if (RULE_LISTS.has(key) && Array.isArray(value)) {
    const input = /** @type {HTMLInputElement} */ (h('input', { type: 'text', dataset: { path }, 'aria-label': `${label(key)} (comma-separated)`,
      value: /** @type {unknown[]} */ (value).map((r) => (isObject(r) ? r.printed || r.name : String(r))).join(', ') }));
    return { el: h('label', { class: 'own-field' }, h('span', null, label(key)), input), get: () => splitRules(input.value) };
  }
  if (Array.isArray(value)) {
    const values = /** @type {unknown[]} */ (value);
    const list = h('div', { class: 'own-list', dataset: { path } });
    /** @type {FieldEditor[]} */
    let items = [];
    const template = values.length ? values[values.length - 1] : templates[key];
    const draw = () => replace(list, items.map((item, i) => h('div', { class: 'own-item' }, item.el,
      h('button', { type: 'button', class: 'small', onclick: () => { items.splice(i, 1); renumber(); } }, `Remove ${label(key).toLowerCase()} ${i + 1}`))),
    template ? h('button', { type: 'button', class: 'small', dataset: { add: path }, onclick: () => { items.push(valueEditor(structuredClone(template), `${path}.${items.length}`, key, templates)); draw(); } }, `Add to ${label(key).toLowerCase()}`) : null);
    const renumber = () => { items = items.map((it, i) => valueEditor(it.get(), `${path}.${i}`, key, templates)); draw(); };
    items = values.map((v, i) => valueEditor(v, `${path}.${i}`, key, templates));
    draw();
    return { el: h('fieldset', { class: 'own-group' }, h('legend', null, label(key)), list), get: () => items.map((it) => it.get()) };
  }
  if (isObject(value)) {
    const fields = Object.entries(value).filter(([k]) => k !== 'system' && k !== 'printed')
      .map(([k, v]) => /** @type {[string, FieldEditor]} */ ([k, valueEditor(v, `${path}.${k}`, k, templates)]));
    return {
      el: h('fieldset', { class: 'own-group' }, h('legend', null, label(key)), fields.map(([, f]) => f.el)),
      get: () => Object.fromEntries(fields.map(([k, f]) => [k, f.get()])),
    };
  }
  const input = /** @type {HTMLInputElement} */ (h('input', { type: 'text', size: key === 'name' ? 14 : 3, dataset: { path }, 'aria-label': label(key), value: value === null || value === undefined ? '' : String(value) }));
  return { el: h('label', { class: 'own-field' }, h('span', null, label(key)), input), get: () => (key === 'name' || key === 'type' || key === 'height' || key === 'troop_type' || key === 'carried_by' ? (input.value.trim() || null) : parseValue(input.value)) };
}

/** List shapes from the whole catalogue: the first non-empty instance of each profile list.
 * @param {Datasheet[]} sheets @returns {Record<string, unknown>} */
export function listTemplates(sheets) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const s of sheets) {
    for (const [k, v] of Object.entries(/** @type {Record<string, unknown>} */ (s.profile || {}))) {
      if (Array.isArray(v) && v.length && !(k in out)) out[k] = v[0];
    }
  }
  return out;
}

/**
 * Ask the server whether a unit of your own is valid: its datasheet, or throws `{message, details:{problems}}`.
 * @param {string} system @param {OwnUnit} unit @returns {Promise<Datasheet>}
 */
export async function checkOwnUnit(system, unit) {
  const answer = await fetch(`/api/systems/${encodeURIComponent(system)}/own-units/check`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(unit),
  });
  const body = await answer.json().catch(() => null);
  if (!answer.ok) throw body || { code: 'bad_request', message: `HTTP ${answer.status}` };
  return /** @type {{datasheet:Datasheet}} */ (body).datasheet;
}

/**
 * The "Define a unit of your own" form.
 * @param {{system:string, catalog:Catalog, taken:() => string[], onDefined:(unit:OwnUnit, sheet:Datasheet) => void}} opts
 * @returns {HTMLElement}
 */
export function ownUnitForm(opts) {
  const sheets = Array.isArray(opts.catalog?.datasheets) ? opts.catalog.datasheets : [];
  const registry = Array.isArray(opts.catalog?.rules) ? opts.catalog.rules : [];
  const templates = listTemplates(sheets);
  const from = /** @type {HTMLSelectElement} */ (h('select', { name: 'own-from', 'aria-label': 'Start from the characteristics of' },
    sheets.map((s) => h('option', { value: s.id }, s.name))));
  const body = h('div', { class: 'own-body' });
  const problems = h('div', { class: 'own-problems', id: 'own-problems', role: 'alert' });
  const preview = h('div', { class: 'own-preview', id: 'own-preview' });
  /** The unit as the form has it, without its ref. @type {() => Omit<OwnUnit, 'ref'>|null} */
  let read = () => null;

  function fill() {
    const start = sheets.find((s) => s.id === from.value) || sheets[0];
    if (!start) return;
    const name = /** @type {HTMLInputElement} */ (h('input', { name: 'own-name', required: true, maxlength: 80, 'aria-label': 'Unit name', value: '' }));
    const shape = /** @type {HTMLSelectElement} */ (h('select', { name: 'own-base-shape', 'aria-label': 'Base shape' },
      ['rectangular', 'round', 'oval'].map((s) => h('option', { value: s, selected: start.base?.shape === s }, s))));
    // Counts and points step by 1; a base is a measure and takes any decimal (25.5 mm).
    const num = (/** @type {string} */ n, /** @type {string} */ aria, /** @type {number|null|undefined} */ v, /** @type {number|string} */ step = 1) => /** @type {HTMLInputElement} */ (h('input', { name: n, type: 'number', min: 0, step, size: 4, 'aria-label': aria, value: v === null || v === undefined ? '' : String(v) }));
    const width = num('own-base-width', 'Base width (mm)', start.base?.width_mm ?? start.base?.diameter_mm, 'any');
    const depth = num('own-base-depth', 'Base depth (mm)', start.base?.depth_mm ?? start.base?.diameter_mm, 'any');
    const min = num('own-models-min', 'Fewest models', start.models?.min);
    const max = num('own-models-max', 'Most models', start.models?.max);
    const dflt = num('own-models-default', 'Usual number of models', start.models?.default);
    const unitPts = num('own-points-unit', 'Points for the unit', start.points?.unit ?? 0);
    const perModel = num('own-points-per-model', 'Points per model', start.points?.per_model ?? 0);
    // Costs by unit size (40k datasheets: "5: 80, 10: 160"), used instead of the two above.
    const tiers = /** @type {HTMLInputElement} */ (h('input', { type: 'text', name: 'own-points-tiers', size: 16,
      'aria-label': 'Points by unit size: models: points, comma-separated', placeholder: '5: 80, 10: 160',
      value: tiersText(start.points?.tiers) }));
    const character = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', name: 'own-character', checked: Boolean(start.character) }));
    // 40k (the system's Leaders): a character of your own leads the catalogue units ticked here.
    const leaders = Boolean(opts.catalog?.army?.leaders);
    const starts = new Set(Array.isArray(start.leads) ? start.leads : []);
    /** @type {HTMLInputElement[]} */
    const leadBoxes = leaders
      ? sheets.filter((s) => !s.character).map((s) => /** @type {HTMLInputElement} */ (
        h('input', { type: 'checkbox', name: 'own-leads', value: s.id, checked: starts.has(s.id), 'aria-label': `May lead ${s.name}` })))
      : [];
    const profile = valueEditor(structuredClone(start.profile), 'profile', 'profile', templates);
    const have = new Set((start.special_rules || []).map((r) => r.name));
    /** @type {{rule:RuleInfo, box:HTMLInputElement, param:HTMLInputElement|null, el:HTMLElement}[]} */
    const picks = registry.filter((r) => r.kind === 'rule').map((r) => {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', name: 'own-rule', value: r.name, checked: have.has(r.name) }));
      const param = r.param !== 'none'
        ? /** @type {HTMLInputElement} */ (h('input', { type: 'text', size: 6, name: 'own-rule-param', 'aria-label': `${r.name}: value`,
          value: String((start.special_rules || []).find((x) => x.name === r.name)?.param ?? '') }))
        : null;
      return { rule: r, box, param, el: h('li', null, h('label', null, box, ` ${r.name} `), param,
        h('small', null, r.automation === 'not' || r.automated === false ? ' (not automated)' : r.automation === 'partly' ? ' (partly automated)' : ' (automated)'),
        h('div', { class: 'rule-text' }, r.summary || '')) };
    });
    const equipment = /** @type {HTMLInputElement} */ (h('input', { type: 'text', name: 'own-equipment', size: 30,
      'aria-label': 'Equipment from the rulebook, comma-separated',
      value: (start.equipment || []).map((r) => r.printed || r.name).join(', ') }));
    const other = /** @type {HTMLTextAreaElement} */ (h('textarea', { name: 'own-other-rules', rows: 3, cols: 40, maxlength: 4000,
      'aria-label': 'Other rules, one per line: Name: what it does', placeholder: 'Sea Guard Drill: may re-form before shooting' }));
    read = () => {
      const round = shape.value === 'round';
      const n = (/** @type {HTMLInputElement} */ i) => (i.value === '' ? null : Number(i.value));
      const models = { min: n(min), max: n(max), default: n(dflt) };
      // The profile editor of an object gives an object back (a datasheet always has a profile).
      const edited = profile.get();
      /** @type {Omit<OwnUnit, 'ref'>} */
      const unit = {
        name: name.value.trim(),
        // The select offers exactly the three shapes of server/data/schema.py `Base`.
        base: round ? { shape: 'round', diameter_mm: n(width) } : { shape: /** @type {import('../types.js').Base['shape']} */ (shape.value), width_mm: n(width), depth_mm: n(depth) },
        models,
        profile: isObject(edited) ? edited : {},
        special_rules: picks.filter((p) => p.box.checked).map((p) => (p.param ? { name: p.rule.name, param: parseValue(p.param.value) } : p.rule.name)),
        equipment: splitRules(equipment.value),
        other_rules: otherRules(other.value),
        character: character.checked,
        points: tiers.value.trim()
          ? { unit: 0, per_model: 0, tiers: pointsTiers(tiers.value) }
          : { unit: n(unitPts) ?? 0, per_model: n(perModel) ?? 0 },
      };
      const leads = leadBoxes.filter((b) => b.checked).map((b) => b.value);
      if (character.checked && leads.length) unit.leads = leads;
      if (typeof start.default_files === 'number' && !character.checked) unit.default_files = Math.min(start.default_files, Number(models.default) || 1);
      if (Array.isArray(start.keywords) && start.keywords.length) unit.keywords = [...start.keywords];
      return unit;
    };
    replace(body,
      h('label', null, h('span', null, 'Name '), name),
      h('div', { class: 'row' }, h('label', null, 'Base ', shape), ' ', h('label', null, 'width / diameter (mm) ', width), ' ', h('label', null, 'depth (mm) ', depth)),
      h('div', { class: 'row' }, h('label', null, 'Models from ', min), ' ', h('label', null, 'to ', max), ' ', h('label', null, 'usually ', dflt)),
      h('div', { class: 'row' }, h('label', null, 'Points ', unitPts), ' ', h('label', null, '+ per model ', perModel), ' ', h('label', null, 'or by unit size ', tiers), ' ', h('label', null, character, ' Character (may join units)')),
      leadBoxes.length
        ? h('div', { class: 'row own-leads' }, h('span', null, 'A character may lead: '), leadBoxes.map((b) => h('label', null, b, ` ${sheets.find((s) => s.id === b.value)?.name || b.value} `)))
        : null,
      h('h5', null, 'Characteristics'), profile.el,
      h('label', null, h('span', null, 'Equipment '), equipment),
      h('h5', null, 'Special rules from the rulebook'),
      h('ul', { class: 'own-rules' }, picks.map((p) => p.el)),
      h('h5', null, 'Other rules (kept as text, not automated)'), other);
  }

  from.addEventListener('change', fill);
  fill();
  const submit = h('button', {
    type: 'button', id: 'own-check', class: 'primary',
    onclick: async () => {
      const draft = read();
      if (!draft) return;
      /** @type {OwnUnit} */
      const unit = { ...draft, ref: refFor(draft.name || 'unit', opts.taken()) };
      replace(problems);
      try {
        const sheet = await checkOwnUnit(opts.system, unit);
        replace(preview, h('h5', null, `${sheet.name}: checked`), profileView(sheet, { registry }));
        opts.onDefined(unit, sheet);
      } catch (err) {
        // The server's refusal: `{code, message, details:{problems}}` (one line per field).
        const list = isObject(err) && isObject(err.details) ? err.details.problems : undefined;
        replace(problems, h('p', { class: 'error' }, 'This unit does not check out:'),
          Array.isArray(list) ? h('ul', null, list.map((/** @type {string} */ p) => h('li', null, p))) : h('p', null, errorText(err)));
      }
    },
  }, 'Check and add to the army');
  return h('details', { class: 'own-unit', id: 'own-unit' },
    h('summary', null, 'Define a unit of your own…'),
    h('p', { class: 'hint' }, 'For a unit our catalogue lacks. Rules from the rulebook work as on any unit (those marked automated are applied); other rules are kept as text and marked not automated on its card. It is saved in this browser for your next game, and your opponent sees it like the rest of your list.'),
    h('label', null, 'Start from ', from), body, problems, submit, preview);
}
