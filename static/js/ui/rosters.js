// Roster import and army export in the army builder (issue 18 items 3 and 4). The server reads
// the file (POST /api/systems/{id}/rosters/import: BattleScribe .ros/.rosz, New Recruit JSON or
// our army file) and answers army entries and a mapping report; nothing is submitted until the
// player presses Submit army. Export writes the submit_army units list as our army file.

import { h } from './dom.js';
import { errorText } from '../format.js';

/** @typedef {import('../types.js').ArmyEntryJson} ArmyEntryJson */
/** @typedef {import('../types.js').OwnUnit} OwnUnit */
/** @typedef {import('../types.js').RosterImport} RosterImport */
/** @typedef {import('../types.js').RosterReport} RosterReport */
/** @typedef {import('../types.js').RosterMapped} RosterMapped */

export const ARMY_FORMAT = 'warfield-army';
export const ARMY_VERSION = 1;
/** The REST body limit (server `WARFIELD_MAX_BODY_BYTES`, 256 KiB by default). */
export const MAX_ROSTER_BYTES = 256 * 1024;

/**
 * Our army file: the submit_army units with a format name and version (server/data/rosters.py
 * `export_army` writes the same).
 * @param {string} system @param {ArmyEntryJson[]} units @param {OwnUnit[]} [ownUnits]
 * @returns {string}
 */
export function armyFile(system, units, ownUnits = []) {
  /** @type {import('../types.js').ArmyFile} */
  const body = { format: ARMY_FORMAT, version: ARMY_VERSION, system, units };
  // Units of your own the entries name travel with them (issue 18 item 2).
  if (ownUnits.length) body.own_units = ownUnits;
  return JSON.stringify(body, null, 2);
}

/**
 * Offer the army file as a download.
 * @param {string} system @param {ArmyEntryJson[]} units @param {OwnUnit[]} [ownUnits]
 */
export function downloadArmy(system, units, ownUnits = []) {
  const blob = new Blob([armyFile(system, units, ownUnits)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: `${system}-army.json` });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Send a roster file to the server; resolves to `{format, army, report}` or rejects with the
 * server's `{code, message}`.
 * @param {string} system @param {Blob} file @returns {Promise<RosterImport>}
 */
export async function importRoster(system, file) {
  if (file.size > MAX_ROSTER_BYTES) {
    throw { code: 'too_large', message: `the file is ${file.size} bytes; a roster may be at most ${MAX_ROSTER_BYTES} bytes` };
  }
  const answer = await fetch(`/api/systems/${encodeURIComponent(system)}/rosters/import`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', Accept: 'application/json' },
    body: file,
  });
  const body = await answer.json().catch(() => null);
  if (!answer.ok) throw body || { code: 'bad_request', message: `HTTP ${answer.status}` };
  return /** @type {RosterImport} */ (body);
}

/**
 * Under a mapped unit: what its upgrades changed (issue 18 item 3), what it carries already,
 * and what could not be applied with why. Pure words, then elements.
 * @param {RosterMapped|null|undefined} m a `report.mapped` item @returns {string[]}
 */
export function upgradeLines(m) {
  /** @type {string[]} */
  const out = [];
  for (const c of Array.isArray(m?.changes) ? m.changes : []) {
    out.push(`changed: ${c.what} ${c.was ? `${c.was} → ${c.now}` : `+ ${c.now}`} (${c.source})`);
  }
  if (Array.isArray(m?.on_datasheet) && m.on_datasheet.length) out.push(`on the datasheet already: ${m.on_datasheet.join(', ')}`);
  for (const n of Array.isArray(m?.not_applied) ? m.not_applied : []) out.push(`not applied: ${n.name}: ${n.reason}`);
  if (Array.isArray(m?.rules_as_text) && m.rules_as_text.length) out.push(`kept as text, not automated: ${m.rules_as_text.join('; ')}`);
  return out;
}

/** @param {RosterMapped} m */
function mappedDetails(m) {
  const lines = upgradeLines(m);
  return lines.length ? h('ul', { class: 'upgrades' }, lines.map((line) => h('li', { class: line.startsWith('not applied') ? 'not-applied' : '' }, line))) : null;
}

/**
 * The mapping report: what was mapped to which datasheet, what the catalogue lacks and was
 * made a unit of your own from the roster (with what was assumed), what was skipped and why,
 * and what submit_army would refuse.
 * @param {RosterReport|null|undefined} report @returns {HTMLElement}
 */
export function reportView(report) {
  const mapped = Array.isArray(report?.mapped) ? report.mapped : [];
  const created = Array.isArray(report?.created) ? report.created : [];
  const skipped = Array.isArray(report?.skipped) ? report.skipped : [];
  const problems = Array.isArray(report?.problems) ? report.problems : [];
  const pts = (/** @type {number|undefined} */ p) => (typeof p === 'number' ? ` (${p} pts)` : '');
  const made = created.length ? `, ${created.length} created as your own` : '';
  return h('section', { class: 'roster-report', id: 'roster-report', 'aria-live': 'polite' },
    h('h4', null, `Imported: ${mapped.length} mapped${made}, ${skipped.length} skipped`
      + (typeof report?.roster_points === 'number' ? ` · roster ${report.roster_points} pts` : '')),
    mapped.length ? h('ul', { class: 'mapped' }, mapped.map((m) => h('li', null,
      `${m.name} × ${m.models}${pts(m.points)} → ${m.datasheet_name || m.datasheet}`
      + (typeof m.catalog_points === 'number' && m.catalog_points !== m.points ? ` (ours: ${m.catalog_points} pts)` : ''),
      mappedDetails(m)))) : null,
    created.length ? h('ul', { class: 'created' }, created.map((c) => h('li', null,
      `${c.name} × ${c.models}${pts(c.points)} → a ${c.character ? 'character' : 'unit'} of your own, from the roster's profile`
      + (Array.isArray(c.leads) && c.leads.length ? `; leads ${c.leads.join(', ')}` : '')
      + (Array.isArray(c.assumed) && c.assumed.length ? `; ${c.assumed.join('; ')}` : '')))) : null,
    skipped.length ? h('ul', { class: 'skipped' }, skipped.map((s) => h('li', null,
      `Skipped ${s.name}${s.models ? ` × ${s.models}` : ''}${pts(s.points)}: ${s.reason}`))) : null,
    problems.length ? h('ul', { class: 'problems' }, problems.map((p) => h('li', null,
      `Entry ${Number(p.entry) + 1}: ${p.message}`))) : null);
}

/**
 * The Import roster / Export army buttons.
 * @param {{system:string, units:() => ArmyEntryJson[], ownUnits?:() => OwnUnit[], onImported:(body:RosterImport) => void, toast:import('../table.js').Toast}} opts
 * @returns {HTMLElement}
 */
export function rosterButtons(opts) {
  const input = /** @type {HTMLInputElement} */ (h('input', {
    type: 'file', id: 'roster-file', hidden: true,
    accept: '.ros,.rosz,.json,application/json,application/xml,application/zip',
    onchange: async () => {
      const file = input.files && input.files[0];
      input.value = '';
      if (!file) return;
      try {
        opts.onImported(await importRoster(opts.system, file));
      } catch (err) {
        opts.toast(`Import roster: ${errorText(err)}`, 'error');
      }
    },
  }));
  const exportButton = h('button', {
    type: 'button', id: 'export-army',
    onclick: () => {
      const units = opts.units();
      if (!units.length) { opts.toast('Export army: the army is empty', 'error'); return; }
      downloadArmy(opts.system, units, opts.ownUnits ? opts.ownUnits() : []);
    },
  }, 'Export army');
  return h('div', { class: 'buttons roster-buttons' },
    h('button', { type: 'button', id: 'import-roster', onclick: () => input.click() }, 'Import roster…'),
    exportButton, input);
}
