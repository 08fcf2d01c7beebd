// The panels of a rules game: the setup panel (preset table, army builder, submit), the
// deployment tray (deploy by clicking, Keep in Ambush) and the selected unit's orders (wheel,
// march, charge). Intents only: the server checks every rule and says why when it refuses.

import { h, replace } from './dom.js';
import { errorText, ownerWords, unitName, tenths, inches } from '../format.js';
import { humanize } from './describe.js';
import { ambushTrayItem } from './ambush.js';
import { controlAttrs, gameOffer, targetIds, unitOffer, wholeOrder } from './offers.js';
import { chargePreviewLines } from './charge-preview.js';
import { terrainEditor, terrainForm } from './terrain.js';
import { reportView, rosterButtons } from './rosters.js';
import { cost, loadCatalog, pointsWords } from './card.js';
import { checkOwnUnit, forgetOwnUnit, ownUnitForm, safeStorage, saveOwnUnit, savedOwnUnits } from './own.js';
import { reserveControls } from './forty-orders.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */
/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../types.js').Datasheet} Datasheet */
/** @typedef {import('../types.js').Catalog} Catalog */
/** @typedef {import('../types.js').OwnUnit} OwnUnit */

/**
 * The characters that may join an army entry, as the server's army rules say (the datasheets
 * answer's `joinable`: host id -> character ids; `submit_army` checks again and says why).
 * @template {{id:string}} S
 * @param {Record<string, string[]>} rules @param {S[]} sheets @param {S|null|undefined} host the entry's datasheet
 * @returns {S[]}
 */
export function joinable(rules, sheets, host) {
  const ids = host && Array.isArray(rules?.[host.id]) ? rules[host.id] : [];
  return sheets.filter((c) => ids.includes(c.id));
}

/**
 * An army entry as `submit_army` takes it (what an imported roster brought, files, hidden
 * models and the Battle Standard, is kept).
 * @param {{datasheet:string, models:number, joined:{id:string}[], standard?:boolean, files?:number, concealed?:Record<string, number>, battle_standard?:boolean}} e
 */
export function armyEntry(e) {
  /** @type {import('../types.js').ArmyEntryJson} */
  const out = { datasheet: e.datasheet, models: e.models };
  if (typeof e.files === 'number') out.files = e.files;
  if (e.joined.length) out.joined_characters = e.joined.map((c) => c.id);
  // whfb8 Night Goblin Fanatics (seed 003): written down with the army, seen by nobody else.
  if (e.concealed && Object.values(e.concealed).some((n) => n > 0)) out.concealed = { ...e.concealed };
  if (e.standard) out.standard = true;
  if (e.battle_standard) out.battle_standard = true;
  return out;
}

/**
 * A builder entry from an imported one (`{datasheet, models, joined_characters?, ...}`).
 * @param {import('../types.js').ArmyEntryJson} entry @param {{id:string, name?:string}[]} sheets
 */
export function builderEntry(entry, sheets) {
  const name = (/** @type {string} */ id) => sheets.find((d) => d.id === id)?.name || id;
  const joined = Array.isArray(entry.joined_characters) ? entry.joined_characters : [];
  return {
    datasheet: String(entry.datasheet), name: name(entry.datasheet), models: Number(entry.models),
    joined: joined.map((id) => ({ id, name: name(id) })),
    standard: Boolean(entry.standard), battle_standard: Boolean(entry.battle_standard),
    files: typeof entry.files === 'number' ? entry.files : undefined,
    concealed: entry.concealed && typeof entry.concealed === 'object' ? { ...entry.concealed } : undefined,
  };
}

/**
 * The characters an entry may be joined by: characters already in the army, not joined
 * elsewhere, that the army rules let join it (issue 18 item 6: attaching picks one of them,
 * never a copy). Units of your own are offered for any host; submit_army checks the rules.
 * @param {{datasheet:string, joined:unknown[]}[]} army @param {number} index the host entry
 * @param {Record<string, string[]>} joins @param {(id:string) => Datasheet|null|undefined} sheetFor
 * @returns {number[]} indices of the entries that may join
 */
export function attachable(army, index, joins, sheetFor) {
  const host = sheetFor(army[index].datasheet);
  if (!host || host.character) return [];
  return army.map((e, k) => k).filter((k) => {
    if (k === index || army[k].joined.length) return false;
    const c = sheetFor(army[k].datasheet);
    if (!c || !c.can_join) return false;
    return Boolean(host.own || c.own || (joins?.[host.id] || []).includes(c.id));
  });
}

/**
 * The setup panel: only while the stage is `setup` and for a seated player. Faction first (the
 * picker then offers that faction's datasheets and your own units), the game size, then units,
 * with each entry's points and the total against the size's limit.
 * @param {HTMLElement} el @param {Store} store @param {Connection} conn @param {import('../table.js').Toast} toast @param {Table} table
 */
export function setupPanel(el, store, conn, toast, table) {
  /** @type {{datasheet:string, name:string, models:number, joined:{id:string, name:string}[], standard?:boolean, files?:number, concealed?:Record<string, number>, battle_standard?:boolean}[]} */
  const army = [];
  /** The last roster import's mapping report, shown until the army is submitted. @type {import('../types.js').RosterReport|null} */
  let importReport = null;
  /** @type {Catalog|null} */
  let catalog = null;
  let faction = '';
  /** @type {string|null} */
  let gameSize = null;
  /** Units of your own this session knows (saved ones and new ones), by ref. @type {Map<string, {unit:OwnUnit, sheet:Datasheet}>} */
  const own = new Map();
  let submitting = false;
  /** The army as last submitted (entries, faction, game size): back in the builder when the
   * player takes it back, to change and submit again. @type {{army:typeof army, faction:string, gameSize:string|null}|null} */
  let lastSubmitted = null;
  /** The "Submit army?" dialog, made once (outside the panel, which re-renders). @type {HTMLDialogElement|null} */
  let confirmDialog = null;
  /** The "Define a unit of your own" form. @type {HTMLElement|null} */
  let ownForm = null;

  async function act(/** @type {import('../types.js').Action} */ action, /** @type {string} */ what) {
    try {
      await conn.act(action);
      return true;
    } catch (err) {
      toast(`${what}: ${errorText(err)}`, 'error');
      return false;
    }
  }

  /** A preset table; over terrain already on the table, only once the player confirms that
   * it replaces it (issue 19 item 4). @param {string} name @param {string} what */
  function usePreset(name, what) {
    const pieces = Array.isArray(store.state?.terrain) ? store.state.terrain.length : 0;
    if (pieces && !window.confirm(`Replace the ${pieces} terrain piece${pieces === 1 ? '' : 's'} on the table with the ${what}?`)) return;
    if (table.mode === 'terrain_edit') table.tools.terrain_edit.pick(null);
    void act({ type: 'use_preset_table', preset: name, replace: pieces > 0 }, what);
  }

  /** "Take back": before player 2 joins, player 1's own last setup action, at once (the
   * server's `take_back` order says what it takes back, or why not). */
  function takeBackButton() {
    const o = gameOffer(store.state, 'take_back');
    // Taking back the army (both seats taken) is offered beside "Army submitted", by name.
    if (!o || o.army) return null;
    const events = Array.isArray(o.undo?.events) ? o.undo.events : [];
    const words = events.map((e) => String(e.text || e.type)).join('; ');
    return h('button', {
      type: 'button', id: 'take-back', disabled: !o.available,
      title: o.available ? `Takes back: ${words}` : String(o.reason || 'nothing to take back'),
      onclick: () => act({ type: 'take_back' }, 'Take back'),
    }, 'Take back');
  }

  /** "Take back my army": with both seats taken, while the opponent has not submitted theirs
   * (the server's `take_back` order with `army`; disabled with its reason when the opponent
   * has acted since). The army comes back into the builder. */
  function takeBackArmyButton() {
    const o = gameOffer(store.state, 'take_back');
    if (!o?.army) return null;
    return h('button', {
      type: 'button', id: 'take-back-army', disabled: !o.available,
      title: o.available ? 'Take the army back to change it; submit it again when ready' : String(o.reason || 'the army cannot be taken back now'),
      onclick: async () => {
        if (!(await act({ type: 'take_back' }, 'Take back my army'))) return;
        if (lastSubmitted && !army.length) {
          army.push(...lastSubmitted.army);
          faction = lastSubmitted.faction;
          gameSize = lastSubmitted.gameSize;
        }
        render();
        // The keyboard user's focus goes to the builder's Submit, not lost to the page.
        /** @type {HTMLElement|null} */ (el.querySelector('#submit-army'))?.focus();
      },
    }, 'Take back my army');
  }

  /**
   * Ask before submitting: a modal dialog naming the army's units and points (Enter or the
   * button submits, Esc or "Keep editing" goes back; the focus returns to Submit army).
   * @param {string} words what is submitted ("3 units, 1,250 points")
   * @returns {Promise<boolean>}
   */
  function confirmSubmit(words) {
    if (!confirmDialog) {
      confirmDialog = /** @type {HTMLDialogElement} */ (h('dialog', {
        id: 'submit-army-dialog', class: 'confirm-dialog', 'aria-labelledby': 'submit-army-title', 'aria-describedby': 'submit-army-words',
        // The page behind is inert while it is open: its keys are not the table's (whose
        // Esc handler would otherwise swallow the dialog's own Esc).
        onkeydown: (/** @type {KeyboardEvent} */ e) => {
          e.stopPropagation();
          if (e.key === 'Escape') {
            e.preventDefault();
            /** @type {HTMLDialogElement} */ (e.currentTarget).close('cancel');
          }
        },
      }));
      document.body.appendChild(confirmDialog);
    }
    const dialog = confirmDialog;
    return new Promise((resolve) => {
      const ok = h('button', { type: 'button', class: 'primary', id: 'confirm-submit-army', onclick: () => dialog.close('submit') }, 'Submit army');
      replace(dialog,
        h('h2', { id: 'submit-army-title' }, 'Submit your army?'),
        h('p', { id: 'submit-army-words' }, words),
        h('p', { class: 'hint' }, 'You can take it back until your opponent submits theirs.'),
        h('div', { class: 'buttons' }, ok,
          h('button', { type: 'button', id: 'cancel-submit-army', onclick: () => dialog.close('cancel') }, 'Keep editing')));
      dialog.returnValue = '';
      dialog.addEventListener('close', () => {
        resolve(dialog.returnValue === 'submit');
        /** @type {HTMLElement|null} */ (el.querySelector('#submit-army'))?.focus();
      }, { once: true });
      dialog.showModal();
      ok.focus();
    });
  }

  /** @returns {Datasheet[]} */
  const sheets = () => (Array.isArray(catalog?.datasheets) ? catalog.datasheets : []);
  /** @returns {import('../types.js').ArmyRules} */
  const armyRules = () => (catalog?.army && typeof catalog.army === 'object' ? catalog.army : {});
  /** @param {string} id */
  const sheetFor = (id) => own.get(id)?.sheet || sheets().find((d) => d.id === id) || null;
  /** @param {typeof army[number]} e */
  const entryPoints = (e) => {
    let total = cost(sheetFor(e.datasheet)?.points, e.models);
    for (const c of e.joined) total += cost(sheetFor(c.id)?.points, 1);
    for (const [id, n] of Object.entries(e.concealed || {})) total += n > 0 ? cost(sheetFor(id)?.points, n) : 0;
    return total;
  };

  let loadingFor = '';
  function load(/** @type {string} */ system) {
    if (loadingFor === system) return;
    loadingFor = system;
    loadCatalog(system).then((body) => {
      catalog = body;
      ownForm = null;
      const sizes = Array.isArray(body?.army?.game_sizes) ? body.army.game_sizes : [];
      if (gameSize === null && sizes.length) gameSize = String(sizes[0].name);
      // Units of your own saved in this browser come back, checked again by the server.
      for (const unit of savedOwnUnits(safeStorage(), system)) {
        checkOwnUnit(system, unit).then((sheet) => { own.set(unit.ref, { unit, sheet }); render(); }).catch(() => {});
      }
      render();
    }).catch((err) => { loadingFor = ''; toast(`Datasheets: ${err.message}`, 'error'); });
  }

  function render() {
    const st = store.state || {};
    el.hidden = st.stage !== 'setup' || store.seat === null;
    if (el.hidden) return;
    if (st.system) load(st.system);
    const submitted = store.seat !== null && Array.isArray(st.armies_submitted) && st.armies_submitted.includes(store.seat);
    const preset = h('div', { class: 'terrain-setup' },
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: 'preset-village', onclick: () => usePreset('village', 'Village table') }, 'Village table'),
        h('button', { type: 'button', id: 'preset-ruins', onclick: () => usePreset('ruins', 'Ruins table') }, 'Ruins table'),
        takeBackButton()),
      terrainForm(table),
      terrainEditor(table));
    if (submitted) {
      replace(el, h('h2', null, 'Setup'), preset,
        h('p', { class: 'waiting', id: 'army-waiting' }, "Army submitted: waiting for opponent's army."),
        takeBackArmyButton());
      return;
    }
    const rules = armyRules();
    const factions = Array.isArray(rules.factions) ? rules.factions : [];
    const sizes = Array.isArray(rules.game_sizes) ? rules.game_sizes : [];
    const factionPick = /** @type {HTMLSelectElement} */ (h('select', {
      name: 'faction', 'aria-label': 'Faction',
      onchange: (/** @type {Event} */ e) => { faction = /** @type {HTMLSelectElement} */ (e.target).value; render(); },
    }, h('option', { value: '' }, 'Pick a faction…'), factions.map((/** @type {string} */ f) => h('option', { value: f, selected: f === faction }, f))));
    const sizePick = /** @type {HTMLSelectElement} */ (h('select', {
      name: 'game_size', 'aria-label': 'Game size',
      onchange: (/** @type {Event} */ e) => { gameSize = /** @type {HTMLSelectElement} */ (e.target).value || ''; render(); },
    }, sizes.map((g) => h('option', { value: g.name, selected: g.name === gameSize }, `${g.name} (${Number(g.points).toLocaleString('en')} points)`)),
    h('option', { value: '', selected: gameSize === '' }, 'No points limit')));
    // Faction first: then only that faction's datasheets (and units of your own) are offered.
    const offered = sheets().filter((s) => !faction || rules.allies || s.faction === faction);
    const ownOffered = [...own.entries()];
    const pick = /** @type {HTMLSelectElement} */ (h('select', { name: 'datasheet', 'aria-label': 'Datasheet' },
      offered.map((s) => h('option', { value: s.id }, s.name || s.id)),
      ownOffered.length ? h('optgroup', { label: 'Units of your own' }, ownOffered.map(([ref, o]) => h('option', { value: ref }, `${o.sheet.name} (your own)`))) : null));
    const count = /** @type {HTMLInputElement} */ (h('input', { name: 'models', type: 'number', min: 1, step: 1, size: 3, 'aria-label': 'Models' }));
    const limits = h('span', { class: 'limits', id: 'model-limits' });
    const setDefault = () => {
      const s = sheetFor(pick.value);
      if (!s) return;
      count.value = String(s.models?.default ?? s.models?.min ?? 1);
      if (s.models?.min) count.min = String(s.models.min);
      if (s.models?.max) count.max = String(s.models.max);
      replace(limits, s.models ? ` ${s.models.min}–${s.models.max} models · ${pointsWords(s.points)}` : '');
    };
    pick.addEventListener('change', setDefault);
    setDefault();
    const form = h('form', {
      class: 'row army-add',
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        const s = sheetFor(pick.value);
        if (!s) return;
        army.push({ datasheet: pick.value, name: s.name || s.id, models: Math.max(1, Math.round(Number(count.value) || 1)), joined: [] });
        render();
      },
    }, pick, count, h('button', { type: 'submit' }, 'Add'), limits);
    const list = h('ol', { class: 'army-list' }, army.map((u, i) => {
      const host = sheetFor(u.datasheet);
      const chars = attachable(army, i, joinsOf(catalog), sheetFor);
      const join = chars.length
        ? h('select', {
          class: 'join', 'aria-label': `Join a character of your army to ${u.name}`,
          onchange: (/** @type {Event} */ e) => {
            const k = Number(/** @type {HTMLSelectElement} */ (e.target).value);
            const c = army[k];
            if (!c) return;
            // The character already in the army joins: its own entry goes, no copy is made.
            u.joined.push({ id: c.datasheet, name: c.name });
            army.splice(k, 1);
            render();
          },
        }, h('option', { value: '' }, rules.leaders ? '+ Leader…' : '+ Character…'),
        chars.map((k) => h('option', { value: String(k) }, army[k].name)))
        : null;
      const m = host?.models;
      const outside = m && (u.models < m.min || u.models > m.max);
      return h('li', { dataset: { datasheet: u.datasheet } },
        h('span', null, `${u.name} × ${u.models}`),
        m ? h('small', { class: `limits${outside ? ' outside' : ''}` }, outside ? ` (outside ${m.min}–${m.max} models)` : ` (${m.min}–${m.max})`) : null,
        h('small', { class: 'entry-points' }, ` ${entryPoints(u).toLocaleString('en')} pts`),
        host?.faction && faction && host.faction !== faction && !rules.allies
          ? h('small', { class: 'outside' }, ` (${host.faction}: not this army's ${rules.faction_rule || 'faction'})`) : null,
        u.joined.map((c, k) => h('span', { class: 'joined' }, ` + ${c.name} `,
          h('button', {
            type: 'button', class: 'small', 'aria-label': `Detach ${c.name}`,
            onclick: () => { u.joined.splice(k, 1); army.push({ datasheet: c.id, name: c.name, models: 1, joined: [] }); render(); },
          }, '✕'))),
        ' ',
        h('button', { type: 'button', 'aria-label': `Remove ${u.name}`, onclick: () => { army.splice(i, 1); render(); } }, '✕'),
        join,
        // A Standard Bearer (+1 combat score in t9a): where the army rules allow one.
        rules.standards && host && !host.character
          ? h('label', { class: 'standard' },
            h('input', { type: 'checkbox', name: 'standard', checked: Boolean(u.standard),
              onchange: (/** @type {Event} */ e) => { u.standard = /** @type {HTMLInputElement} */ (e.target).checked; } }),
            ' Standard')
          : null,
        // Hidden models the unit may conceal (whfb8 Night Goblin Fanatics, seed 003).
        (Array.isArray(host?.conceals) ? host.conceals : []).map((c) => h('label', { class: 'concealed' },
          ` Hidden ${sheetFor(c.datasheet)?.name || c.datasheet} (0-${c.max}) `,
          h('input', { type: 'number', min: 0, max: c.max, step: 1, size: 2, name: 'concealed', value: String(u.concealed?.[c.datasheet] ?? 0),
            onchange: (/** @type {Event} */ e) => {
              u.concealed = { ...(u.concealed || {}), [c.datasheet]: Math.max(0, Math.round(Number(/** @type {HTMLInputElement} */ (e.target).value) || 0)) };
              render();
            } }))));
    }));
    const total = army.reduce((sum, e) => sum + entryPoints(e), 0);
    const size = sizes.find((g) => g.name === gameSize);
    const over = size ? total - Number(size.points) : 0;
    const points = h('p', { class: `army-points${over > 0 ? ' over' : ''}`, id: 'army-points', 'aria-live': 'polite' },
      `Total: ${total.toLocaleString('en')}`,
      size ? ` of ${Number(size.points).toLocaleString('en')} points (${size.name})` : ' points',
      over > 0 ? ` — over by ${over.toLocaleString('en')} (${rules.points_rule || 'points limit'})` : '');
    const submit = /** @type {HTMLButtonElement} */ (h('button', {
      type: 'button', class: 'primary', id: 'submit-army',
      onclick: async () => {
        if (submitting || !army.length) return;
        submitting = true;
        const n = army.length;
        const sized = size ? ` of ${Number(size.points).toLocaleString('en')} (${size.name})` : '';
        if (!(await confirmSubmit(`${n} unit${n === 1 ? '' : 's'}, ${total.toLocaleString('en')} points${sized}.`))) {
          submitting = false;
          return;
        }
        const kept = { army: army.slice(), faction, gameSize };
        const ok = await act(submitAction(), 'Submit army');
        submitting = false;
        if (ok) { lastSubmitted = kept; army.length = 0; importReport = null; }
        render();
      },
    }, 'Submit army'));
    submit.disabled = army.length === 0;
    const rosters = rosterButtons({
      system: String(st.system),
      units: () => army.map(armyEntry),
      ownUnits: () => usedOwn().map(([, o]) => o.unit),
      toast,
      onImported: (/** @type {import('../types.js').RosterImport|null} */ body) => {
        // An army file's units of your own come back, checked by the server on import.
        const ownSheets = body?.own_datasheets && typeof body.own_datasheets === 'object' ? body.own_datasheets : {};
        for (const unit of Array.isArray(body?.own_units) ? body.own_units : []) {
          const sheet = ownSheets[unit?.ref];
          if (!sheet) continue;
          own.set(unit.ref, { unit, sheet });
          saveOwnUnit(safeStorage(), String(st.system), unit);
        }
        army.splice(0, army.length, ...(Array.isArray(body?.army) ? body.army : []).map((e) => builderEntry(e, [...sheets(), ...[...own.values()].map((o) => o.sheet)].map((d) => ({ ...d, id: ownRef(d) })))));
        // The imported list replaces the army: its first catalogue unit names the faction.
        faction = army.map((e) => sheetFor(e.datasheet)?.faction).find(Boolean) || faction;
        importReport = body?.report || null;
        render();
      },
    });
    // Made once per catalogue: what the player is typing survives the panel's redraws.
    if (catalog && !ownForm) {
      ownForm = ownUnitForm({
        system: String(st.system), catalog,
        taken: () => [...own.keys(), ...sheets().map((s) => s.id)],
        onDefined: (unit, sheet) => {
          own.set(unit.ref, { unit, sheet });
          saveOwnUnit(safeStorage(), String(st.system), unit);
          army.push({ datasheet: unit.ref, name: sheet.name, models: Number(sheet.models?.default) || 1, joined: [] });
          render();
        },
      });
    }
    replace(el, h('h2', null, 'Setup'), preset,
      h('h3', null, 'Army'),
      catalog ? h('div', { class: 'row army-choice' },
        h('label', null, 'Faction ', factionPick), ' ', h('label', null, 'Game size ', sizePick)) : null,
      rosters, importReport ? reportView(importReport) : null,
      catalog ? form : h('p', null, 'Loading datasheets…'), list, points, submit,
      ownForm,
      own.size ? h('div', { class: 'own-saved' }, h('small', null, 'Saved units of your own: '),
        [...own.entries()].map(([ref, o]) => h('span', { class: 'own-saved-unit' }, `${o.sheet.name} `,
          h('button', { type: 'button', class: 'small', 'aria-label': `Forget ${o.sheet.name}`, onclick: () => {
            forgetOwnUnit(safeStorage(), String(st.system), ref);
            own.delete(ref);
            render();
          } }, '✕')))) : null);
  }

  /** A datasheet's id as the army's entries name it (a unit of your own: its ref). @param {Datasheet} d */
  function ownRef(d) {
    for (const [ref, o] of own) if (o.sheet === d) return ref;
    return d.id;
  }

  /** The units of your own the army's entries name, by ref. */
  function usedOwn() {
    const used = new Set(army.flatMap((e) => [e.datasheet, ...e.joined.map((c) => c.id)]));
    return [...own.entries()].filter(([ref]) => used.has(ref));
  }

  /** The submit_army action: the entries, the faction, the game size and the units of your own they use. */
  function submitAction() {
    const units = army.map(armyEntry);
    /** @type {import('../types.js').Action} */
    const action = { type: 'submit_army', units };
    if (faction) action.faction = faction;
    if (gameSize) action.game_size = gameSize;
    const ownUnits = usedOwn().map(([, o]) => o.unit);
    if (ownUnits.length) action.own_units = ownUnits;
    return action;
  }

  return render;
}

/** @param {Catalog|null} catalog @returns {Record<string, string[]>} */
function joinsOf(catalog) {
  return catalog?.joinable && typeof catalog.joinable === 'object' ? catalog.joinable : {};
}

/**
 * Units off the table; during deployment your undeployed units can be picked and deployed.
 * @param {HTMLElement} el @param {Table} table @param {Store} store @param {Connection} conn @param {import('../table.js').Toast} toast
 */
export function renderTray(el, table, store, conn, toast) {
  const st = store.state || {};
  const entries = table.currentScene().tray;
  el.hidden = entries.length === 0;
  if (el.hidden) return;
  const myTurn = st.stage === 'deployment' && store.seat !== null && st.deploying === store.seat;
  const head = st.stage === 'deployment'
    ? h('p', { class: 'deploy-turn', id: 'deploy-turn' }, myTurn
      ? 'Your turn to deploy: pick a unit, then click on the table.'
      : st.deploying ? `Player ${st.deploying} deploys.` : 'Deployment waits for a roll-off choice (see Roll-offs).')
    : null;
  replace(el, h('h2', null, 'Off the table'), head,
    h('ul', { class: 'tray-list' }, entries.map((t) => {
      const mine = myTurn && t.owner === store.seat && t.status === 'undeployed';
      const reserve = unitOffer(st, t.id, 'declare_reserve');
      return h('li', { class: `owner-${t.owner}${table.tools.deploy.unit === t.id ? ' picked' : ''}`, dataset: { unit: t.id } },
        mine
          ? h('button', { type: 'button', class: 'deploy', onclick: () => table.tools.deploy.start(t.id) }, t.label)
          : h('b', null, t.label),
        ' ', h('span', { class: 'tray-owner' }, `(${ownerWords(t.owner, store.seat)})`),
        ' ', t.status === 'ambush'
          ? ambushTrayItem(t.id, { table, store, conn, toast, rerender: () => renderTray(el, table, store, conn, toast) })
          : h('small', null, humanize(t.status)),
        reserveControls(t.id, table),
        mine && reserve && reserve.mode !== 'reserve'
          ? h('button', {
            type: 'button', class: 'ambush', ...controlAttrs(reserve, `Keep off the table (${reserve.rule || 'reserve'})`),
            onclick: async () => {
              try {
                await conn.act({ type: 'declare_reserve', unit: t.id, mode: reserve.mode || 'ambush' });
              } catch (err) {
                toast(`Keep off the table: ${errorText(err)}`, 'error');
              }
            },
          }, reserve.rule && reserve.rule !== 'Ambush' ? `Keep off the table: ${reserve.rule}` : 'Keep in Ambush')
          : null);
    })));
}

/**
 * The charge the Charge tool is previewing: the server's judgement in words (✓ / ✗ per check),
 * a warning when the path is blocked or out of reach, and Declare / Cancel.
 * @param {Table} table @param {import('../types.js').GameState} st
 */
function chargePreviewPanel(table, st) {
  const tool = table.tools.charge;
  const p = tool.pending;
  if (!p) return null;
  if (!p.verdict) return h('div', { class: 'charge-preview', id: 'charge-preview', role: 'status', 'aria-live': 'polite' }, `Charge ${unitName(st, p.target)}: asking the server…`);
  const words = chargePreviewLines(p.verdict, st);
  return h('div', { class: 'charge-preview', id: 'charge-preview', role: 'status', 'aria-live': 'polite', dataset: { target: p.target } },
    h('b', null, words.title),
    h('ul', null, words.lines.map((l) => h('li', { class: l.ok === false ? 'bad' : l.ok ? 'ok' : '', dataset: { check: l.key } },
      l.ok === null ? '' : l.ok ? '✓ ' : '✗ ', l.text))),
    words.warning ? h('div', { class: 'warning', id: 'charge-warning', role: 'alert' }, words.warning) : null,
    h('div', { class: 'buttons' },
      h('button', {
        type: 'button', id: 'declare-charge', class: words.declarable && !words.warning ? 'primary' : '',
        disabled: !words.declarable, title: words.declarable ? 'Declare the charge' : String(words.warning || ''),
        onclick: () => tool.declare(),
      }, words.warning && words.declarable ? 'Declare anyway' : 'Declare charge', h('kbd', null, 'Enter')),
      h('button', { type: 'button', id: 'cancel-charge', onclick: () => table.setMode('idle') }, 'Cancel', h('kbd', null, 'Esc'))));
}

/**
 * Orders for the selected own unit in the battle, exactly as the server offers them: the
 * move (wheels, the March toggle, each with the allowance left), Advance (D6) and Charge….
 * A control shown but not possible is disabled with the server's reason on hover.
 * @param {import('../types.js').Unit|null|undefined} unit @param {Table} table @param {Store} store
 */
export function unitOrders(unit, table, store) {
  const st = store.state || {};
  if (!unit || store.seat === null) return null;
  const move = unitOffer(st, unit.id, 'move_unit');
  const models = unitOffer(st, unit.id, 'move_models');
  const advance = unitOffer(st, unit.id, 'advance');
  // 40k charges several targets and moves model by model (`charge`: ui/forty-orders.js)
  const charge = unitOffer(st, unit.id, 'charge') || unitOffer(st, unit.id, 'charge_move') ? null : unitOffer(st, unit.id, 'declare_charge');
  const g = table.moves.ghost;
  // (a 40k Charge move has its own Confirm: ui/forty-orders.js)
  const staged = g?.phase === 'staged' && g.id === unit.id && !g.proposal && g.action?.type !== 'charge_move';
  // Only what the unit may do now (issue 19 item 5): an order the server refuses for the unit
  // as a whole (engaged, fled, already charged or reformed) is one line saying why, not a row
  // of dead buttons; a part of an order refused (a wheel while marching) stays, disabled with
  // the reason on hover and for screen readers.
  const moving = wholeOrder(move);
  const charging = wholeOrder(charge);
  if (!move && !models && !advance && !charge && !staged) return null;
  // The March toggle belongs to the unit: once it has begun a move, the server's order says
  // which kind, and the toggle follows it.
  const marching = table.moves.marchingFor(unit.id);
  if (move?.mode && (move.mode === 'march') !== marching) table.moves.setMarch(unit.id, move.mode === 'march');
  const marchOn = table.moves.marchingFor(unit.id);
  const mode = marchOn ? 'march' : 'advance';
  const modeOffer = move?.modes?.[mode];
  const march = move?.modes?.march;
  const wheel = modeOffer?.manoeuvres?.wheel;
  const left = modeOffer && modeOffer.available ? ` (${tenths(Number(modeOffer.left))} of ${inches(Number(modeOffer.allowance))} left)` : '';
  const targets = targetIds(charge).map((id) => unitName(st, id));
  const wheelStaged = staged && g?.action?.manoeuvre === 'wheel';
  return h('div', { class: 'buttons orders' },
    staged ? h('button', { type: 'button', id: 'confirm-move', class: 'primary', onclick: () => table.moves.confirmStaged() }, wheelStaged ? 'Confirm wheel' : 'Confirm move', h('kbd', null, 'Enter')) : null,
    staged ? h('button', { type: 'button', id: 'reset-move', onclick: () => table.cancel() }, 'Reset', h('kbd', null, 'Esc')) : null,
    moving ? h('button', { type: 'button', id: 'wheel-left', ...controlAttrs(move, `Wheel left 15°${left}`, wheel), onclick: () => table.handlers.handles.wheelSelected(15) }, 'Wheel left 15°') : null,
    moving ? h('button', { type: 'button', id: 'wheel-right', ...controlAttrs(move, `Wheel right 15°${left}`, wheel), onclick: () => table.handlers.handles.wheelSelected(-15) }, 'Wheel right 15°') : null,
    moving ? h('button', {
      type: 'button', id: 'march', class: marchOn ? 'active' : '', 'aria-pressed': marchOn ? 'true' : 'false',
      ...controlAttrs(move, march ? `March: up to ${inches(Number(march.allowance))}` : 'March', marchOn ? undefined : march),
      onclick: () => { table.moves.setMarch(unit.id, !marchOn); if (staged) table.cancel(); table.onChange(); },
    }, marchOn ? 'March: on' : 'March: off') : null,
    // 40k Advance: the D6 is rolled and committed first; the move is then judged against it.
    advance ? h('button', {
      type: 'button', id: 'advance', ...controlAttrs(advance, `Roll the Advance D6 now, then move up to Move ${advance.move ?? ''} in + the die`),
      onclick: () => table.conn.act({ type: 'advance', unit: unit.id })
        .catch((/** @type {unknown} */ err) => table.toast(`Advance: ${errorText(err)}`, 'error')),
    }, 'Advance (D6)') : null,
    charging ? h('button', {
      type: 'button', id: 'charge', class: table.mode === 'charge' ? 'active' : '',
      ...controlAttrs(charge, targets.length ? `Charge: ${targets.join(', ')}` : 'Charge…'),
      onclick: () => table.setMode(table.mode === 'charge' ? 'idle' : 'charge'),
    }, 'Charge…') : null,
    charging && table.mode === 'charge' ? chargePreviewPanel(table, st) : null,
    move && move.available ? h('small', { class: 'hint' }, 'Drag the unit forward or back; drag a corner (W) to wheel, the knob (↻) to pivot, the rear corner (⇔) to reform (R turns it 90°). R stages a 15° pivot.') : null,
    models && models.available ? h('small', { class: 'hint' }, `Drag a model to move it (up to ${inches(Number(models.allowance))}), Shift+drag (or between models) to move them all, or type a direction and distance below; then Confirm.`) : null,
    [move && !moving ? move : null, models && !models.available ? models : null, charge && !charging ? charge : null]
      .filter(Boolean).map((o) => h('small', { class: 'hint unavailable', dataset: { order: String(o?.action) } }, sentence(String(o?.reason || 'not possible now')))),
    move?.reform_centre && move.available ? h('small', { class: 'hint light-troops' }, 'Light Troops: drag ✥ at the centre to reform and move the unit (up to twice its Mobility; R turns it 90°).') : null);
}

/** A reason as a sentence: capital first, full stop. @param {string} text */
function sentence(text) {
  const t = text.trim();
  return t ? `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}` : t;
}
