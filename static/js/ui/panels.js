// The side panels of the table page: turn and phase, tools, what is selected, units off the
// table, dice (roll and log), notes and share links. Each panel renders from the store and the
// table's tool state; buttons send intents through the connection. No rules here.

import { fortyBar } from './forty.js';
import { h, replace } from './dom.js';
import { gameOffer } from './offers.js';
import { errorText, losWords, markerBadges, rollSummary, unitName, tenths, unitStateWords } from '../format.js';
import { describe, extraWords, humanize } from './describe.js';
import { setupPanel, renderTray, unitOrders } from './battle.js';
import { unitActions } from './orders.js';
import { undoneSeqs } from './report.js';
import { magicPanel } from './magic.js';
import { objectivePanel } from './objective.js';
import { pregamePanel } from './pregame.js';
import { resultPanel } from './result.js';
import { engagedNames, renderUnits } from './units.js';
import { terrainLegend } from './legend.js';
import { deployForm, typedMoves, typedModelMoves, targetPicker } from './typed.js';
import { renderFanatics } from './fanatics.js';
import { catalogFor, onCatalog, profileView, sheetOf } from './card.js';
import { stratagemsPanel } from './stratagems.js';
import { fortyUnitOrders } from './forty-orders.js';
import { waitingFor } from './waiting.js';

/** @typedef {import('../types.js').GameState} GameState */
/** @typedef {import('../types.js').Roll} Roll */
/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */
/** @typedef {import('../table.js').Table} Table */

/** @param {number|string|undefined} actor */
export function actorName(actor) {
  return actor === 1 || actor === 2 ? `Player ${actor}` : actor === 'system' || actor === undefined || actor === null ? 'System' : String(actor);
}

// Where an event keeps its dice, as the server declares it (server/rules/core.py ROLL_FIELDS
// and ROLL_REFERENCES): every value of a roll's shape, at any depth, but for the keys that
// repeat a roll an earlier event recorded. The dice log and the replay show what the proof counts.
const ROLL_FIELDS = ['expression', 'dice', 'start', 'end'];
const ROLL_REFERENCES = ['distance_roll', 'frames'];

/**
 * Every roll recorded in an event payload, wherever it keeps it, each once, in draw order.
 * @param {Record<string, unknown>|null|undefined} payload @returns {Roll[]}
 */
export function rollsOf(payload) {
  /** @type {Roll[]} */
  const out = [];
  /** @param {unknown} value */
  const walk = (value) => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) { value.forEach(walk); return; }
    const o = /** @type {Record<string, unknown>} */ (value);
    if (ROLL_FIELDS.every((k) => k in o)) {
      const roll = /** @type {Roll} */ (/** @type {unknown} */ (o));
      if (!out.some((r) => r.start === roll.start && r.end === roll.end && r.expression === roll.expression)) out.push(roll);
      return;
    }
    for (const [k, v] of Object.entries(o)) if (!ROLL_REFERENCES.includes(k)) walk(v);
  };
  walk(payload);
  return out.sort((a, b) => Number(a.start) - Number(b.start));
}

/**
 * @param {Object} o
 * @param {HTMLElement} o.root       the side panel element
 * @param {Store} o.store
 * @param {Connection} o.conn
 * @param {Table} o.table
 * @param {(msg:string, kind?:'info'|'error'|'ok') => void} o.toast
 * @param {{invite:string|null, spectate:string}} o.links
 */
export function mountPanels(o) {
  const { store, conn, table, toast } = o;

  // The turn bar stays at the top of the panel (sticky); the selected unit and the latest
  // combat report come right under it; the long lists (units, dice, notes, log, share) are
  // collapsible sections below (issue 24 item 4).
  const phase = h('section', { class: 'panel phase', 'aria-label': 'Turn', hidden: true });
  const setup = h('section', { class: 'panel setup', id: 'setup', 'aria-label': 'Setup', hidden: true });
  const info = h('section', { class: 'panel info', id: 'info', 'aria-label': 'Selected' });
  const tray = h('section', { class: 'panel tray', 'aria-label': 'Off the table', hidden: true });
  const magic = h('section', { class: 'panel magic', id: 'magic', hidden: true });
  const pregame = h('section', { class: 'panel pregame', id: 'pregame', 'aria-label': 'Roll-offs', hidden: true });
  const objective = h('section', { class: 'panel objective', id: 'objective', 'aria-label': 'Secondary Objective', hidden: true });
  const fanatics = h('section', { class: 'panel fanatics', id: 'fanatics', 'aria-label': 'Fanatics', hidden: true });
  const stratagems = collapsible('stratagems', 'Stratagems', true);
  stratagems.el.hidden = true;
  const units = collapsible('units', 'Units', true);
  const legend = collapsible('legend', 'Terrain legend', false);
  const tools = collapsible('tools', 'Tools', true);
  const dice = collapsible('dice', 'Dice', true);
  const notes = collapsible('notes', 'Notes', true);
  const share = collapsible('share', 'Share', false);
  const gameLog = h('ol', { class: 'log game-log', tabindex: '0', 'aria-label': 'Game log' });
  const logPanel = collapsible('events', 'Game log', true);
  logPanel.body.append(gameLog);
  o.root.append(phase, pregame, setup, objective, info, magic, fanatics, tray, stratagems.el, units.el, legend.el, tools.el, dice.el, notes.el, logPanel.el, share.el);
  legend.body.append(terrainLegend());

  // --- tools -----------------------------------------------------------------------------------
  const label = /** @type {HTMLInputElement} */ (h('input', { name: 'label', placeholder: 'Label', maxlength: 80, size: 8, 'aria-label': 'Token label' }));
  const width = /** @type {HTMLInputElement} */ (h('input', { name: 'width', type: 'number', min: 0.1, max: 48, step: 'any', value: '2', title: 'Width (in)', 'aria-label': 'Token width (in)' }));
  const depth = /** @type {HTMLInputElement} */ (h('input', { name: 'depth', type: 'number', min: 0.1, max: 48, step: 'any', value: '1', title: 'Depth (in)', 'aria-label': 'Token depth (in)' }));
  /** @param {string} text @param {string} cmd @param {string} key */
  const toolButton = (text, cmd, key) =>
    h('button', { type: 'button', dataset: { cmd }, title: `${text} (${key})`, onclick: () => table.command(cmd, {}) }, text, h('kbd', null, key));
  const placeButton = h('button', {
    type: 'button',
    class: 'primary',
    dataset: { cmd: 'place' },
    onclick: () => {
      table.tools.place.template = {
        label: label.value.trim(),
        width: clampNum(width.value, 0.1, 48, 2),
        depth: clampNum(depth.value, 0.1, 48, 1),
      };
      table.setMode(table.mode === 'place' ? 'idle' : 'place');
    },
  }, 'Place token');
  const placeRow = h('form', { class: 'row place', onsubmit: (/** @type {Event} */ e) => e.preventDefault() }, label, width, '×', depth, 'in', placeButton);
  replace(tools.body,
    h('div', { class: 'buttons' },
      toolButton('Measure', 'measure', 'M'), toolButton('Line of sight', 'los', 'L'),
      toolButton('Rotate', 'rotate', 'R'), toolButton('Fit', 'fit', 'F'), toolButton('Help', 'help', '?')),
    placeRow);

  // --- dice ------------------------------------------------------------------------------------
  const diceExpr = /** @type {HTMLInputElement} */ (h('input', { name: 'dice', value: '2D6', maxlength: 32, size: 6, 'aria-label': 'Dice' }));
  const diceReason = /** @type {HTMLInputElement} */ (h('input', { name: 'reason', placeholder: 'Reason', maxlength: 200, size: 10, 'aria-label': 'Reason for the roll' }));
  // Not a live region: it is rebuilt from the history; new rolls are said once by the
  // announcer (ui/announce.js).
  const diceLog = h('ol', { class: 'log dice-log', tabindex: '0', 'aria-label': 'Dice rolled' });
  const diceForm = h('form', {
    class: 'row roll',
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      try {
        await conn.act({ type: 'roll_dice', dice: diceExpr.value.trim(), reason: diceReason.value.trim() });
        diceReason.value = '';
      } catch (err) {
        toast(`Roll: ${errorText(err)}`, 'error');
      }
    },
  }, diceExpr, diceReason, h('button', { type: 'submit' }, 'Roll'));
  replace(dice.body, diceForm, diceLog);

  // --- notes -----------------------------------------------------------------------------------
  const noteText = /** @type {HTMLInputElement} */ (h('input', { name: 'note', placeholder: 'Write a note…', maxlength: 500, 'aria-label': 'Note' }));
  const noteLog = h('ol', { class: 'log note-log', tabindex: '0', 'aria-label': 'Notes' });
  const noteForm = h('form', {
    class: 'row note',
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault();
      const text = noteText.value.trim();
      if (!text) return;
      try {
        await conn.act({ type: 'note', text });
        noteText.value = '';
      } catch (err) {
        toast(`Note: ${errorText(err)}`, 'error');
      }
    },
  }, noteText, h('button', { type: 'submit' }, 'Add'));
  replace(notes.body, noteForm, noteLog);

  const renderSetup = setupPanel(setup, store, conn, toast, table);
  let terrainEditKey = '';
  const renderMagic = magicPanel(magic, store, conn, toast);
  const renderObjective = objectivePanel(objective, store, conn, toast);
  const renderPregame = pregamePanel(pregame, store, conn, toast);
  const renderStratagems = stratagemsPanel(stratagems.el, stratagems.body, store, conn, toast);
  let renderedHistory = -1;
  /** @type {string|null|undefined} */
  let renderedDeploy;
  /** The tool the tray was drawn for (40k Arrive… shows its typed point while picked). */
  let trayMode = '';
  /** @type {GameState|null} */
  let renderedState = null;
  /** @type {number|null|undefined} */
  let renderedSeat;
  /** @type {unknown[]} */
  let unitsKey = [];
  let shareOpened = false;

  function update() {
    const st = store.state || {};
    const seated = store.seat !== null;
    for (const el of [placeRow, diceForm, noteForm, tools.body.querySelector('[data-cmd=rotate]')]) {
      if (el) /** @type {HTMLElement} */ (el).hidden = !seated;
    }
    for (const b of tools.body.querySelectorAll('button[data-cmd]')) {
      const cmd = /** @type {HTMLElement} */ (b).dataset.cmd;
      b.classList.toggle('active', cmd === table.mode);
      if (cmd === 'measure' || cmd === 'los') b.setAttribute('aria-pressed', String(cmd === table.mode));
    }
    const nextUnitsKey = [store.state, store.seat, table.selected, table.mode];
    if (nextUnitsKey.some((v, i) => v !== unitsKey[i])) {
      unitsKey = nextUnitsKey;
      renderUnits(units.body, table);
    }
    if (store.state !== renderedState || store.seat !== renderedSeat || table.tools.deploy.unit !== renderedDeploy) {
      const stateChanged = store.state !== renderedState || store.seat !== renderedSeat;
      renderedState = store.state;
      renderedSeat = store.seat;
      renderedDeploy = table.tools.deploy.unit;
      renderPhase(phase, st, store.seat, conn, toast);
      if (stateChanged) renderSetup();
      renderTray(tray, table, store, conn, toast);
      renderShare(share.body, st, store.seat, o.links);
      // The invite link is wanted until seat 2 is taken: the section opens for it, once.
      if (!shareOpened && store.seat !== null && o.links.invite && st.seats && !st.seats['2']) {
        shareOpened = true;
        /** @type {HTMLDetailsElement} */ (share.el).open = true;
      }
    }
    // The setup panel's terrain editor follows the edit tool and its selected piece.
    const editKey = `${table.mode === 'terrain_edit'}:${table.tools.terrain_edit.selected}`;
    if (editKey !== terrainEditKey) {
      terrainEditKey = editKey;
      renderSetup();
    }
    if (`${table.mode}:${table.tools.arrive.unit}` !== trayMode) {
      trayMode = `${table.mode}:${table.tools.arrive.unit}`;
      renderTray(tray, table, store, conn, toast);
    }
    renderMagic();
    renderObjective();
    renderPregame();
    renderStratagems();
    renderInfo(info, table, store);
    const key = store.history.length ? store.history[store.history.length - 1].seq * 1e6 + store.history.length : 0;
    if (key !== renderedHistory) {
      renderedHistory = key;
      renderDiceLog(diceLog, store);
      renderNotes(noteLog, store);
      renderGameLog(gameLog, store);
      renderTray(tray, table, store, conn, toast); // ambush rolls come with the log
      renderFanatics(fanatics, store, conn, toast);
    }
  }

  store.subscribe(update);
  onCatalog(update); // unit cards show the profile once the datasheets arrive
  update();
  return update;
}

/**
 * E (input/gestures.js): the keyboard goes to End phase, and Enter presses it — two keys from the
 * table or any button, three from a field (Esc first). Not pressed here: one stray key never
 * ends a phase. Refused (another player's phase, something to do first): the reason, said.
 * @param {HTMLElement} root the side panel @param {import('../table.js').Toast} toast
 */
export function focusEndPhase(root, toast) {
  const end = /** @type {HTMLButtonElement|null} */ (root.querySelector('#end-phase'));
  if (!end || end.hidden || end.closest('[hidden]')) return toast('End phase: there is no phase to end now.', 'info');
  if (end.disabled) return toast(`End phase: ${end.title || 'not possible now'}`, 'info');
  end.scrollIntoView?.({ block: 'nearest' });
  end.focus();
}

/**
 * Stage, turn, phase and whose move it is, from the state; End phase only while there is one.
 * @param {HTMLElement} el @param {GameState} st @param {number|null} seat @param {Connection} conn @param {import('../table.js').Toast} toast
 */
function renderPhase(el, st, seat, conn, toast) {
  const hasPhase = st.phase !== undefined && st.phase !== null;
  el.hidden = !hasPhase && !st.stage;
  if (el.hidden) return;
  const active = st.active_player;
  const end = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button',
    class: 'primary',
    id: 'end-phase',
    onclick: async () => {
      try {
        await conn.act({ type: 'end_phase' });
      } catch (err) {
        toast(`End phase: ${errorText(err)}`, 'error');
      }
    },
  }, 'End phase', h('kbd', null, 'E')));
  // The server offers End phase to the active player, refused (with why) while something
  // must happen first: a charge waiting for its reaction, ambushers that must arrive.
  const offer = gameOffer(st, 'end_phase');
  end.hidden = seat === null || !hasPhase;
  if (hasPhase && !offer) {
    end.disabled = true;
    end.title = `Player ${active} ends this phase`;
  } else if (offer && !offer.available) {
    end.disabled = true;
    end.title = String(offer.reason || 'not possible now');
    end.setAttribute('aria-disabled', 'true');
  }
  const line = [];
  if (st.over || st.stage === 'over') {
    line.push(h('span', { class: 'phase-name' }, 'Game over'), st.winner ? h('span', { class: `who owner-${st.winner}` }, `Player ${st.winner} wins`) : h('span', null, 'a draw'));
    line.push(...fortyBar(st, seat, conn, toast));
  } else if (hasPhase) {
    line.push(h('span', { class: 'turn' }, `Turn ${st.turn}${st.turns ? ` of ${st.turns}` : ''}`));
    line.push(h('span', { class: 'phase-name' }, `${humanize(String(st.phase))} phase`));
    if (active) line.push(h('span', { class: `who owner-${active}` }, active === seat ? 'Your turn' : `${actorName(active)} to act`));
    // A decision out of turn holds the game: everyone reads whose it is and what.
    const wait = waitingFor(st, seat);
    if (wait) line.push(h('span', { class: `waiting-for owner-${wait.seat}`, id: 'waiting-for', role: 'status', dataset: { kind: wait.kind } }, wait.text));
    line.push(...fortyBar(st, seat, conn, toast));
  } else {
    line.push(h('span', { class: 'phase-name' }, humanize(String(st.stage))));
    if (st.deploying) line.push(h('span', { class: `who owner-${st.deploying}` }, st.deploying === seat ? 'You deploy' : `${actorName(st.deploying)} deploys`));
  }
  const phases = Array.isArray(st.phases) && hasPhase
    ? h('ol', { class: 'phases' }, st.phases.map((/** @type {string} */ p) => h('li', { class: p === st.phase ? 'current' : '' }, p)))
    : null;
  const result = st.over || st.stage === 'over' ? resultPanel(st.game_result, seat) : null;
  replace(el, h('div', { class: 'phase-line' }, line), end, phases, result);
}

/** @param {HTMLElement} list @param {Store} store */
function renderGameLog(list, store) {
  const undone = undoneSeqs(store.history);
  const items = store.history.slice(-150).reverse()
    .map((ev) => h('li', { class: `owner-${ev.actor}${undone.has(ev.seq) ? ' undone' : ''}`, dataset: { seq: ev.seq, type: ev.type } }, h('small', null, `#${ev.seq} `), describe(ev, store.state)));
  replace(list, items.length ? items : h('li', { class: 'empty' }, 'Nothing yet.'));
}

/** @param {HTMLElement} el @param {Table} table @param {Store} store */
function renderInfo(el, table, store) {
  const rows = [];
  const g = table.moves.ghost;
  const measure = table.tools.measure.measure;
  const los = table.tools.los.los;
  if (g?.text) rows.push(h('p', { class: `verdict ${g.verdict}` }, g.text));
  if (measure?.label) rows.push(h('p', { class: 'measure-result' }, `Distance: ${measure.label}`));
  if (los?.result) {
    const r = los.result;
    const st = store.state || {};
    const seen = typeof r.fraction === 'number' ? Math.round(r.fraction * 100) : null;
    rows.push(h('p', { class: `los-result ${!r.visible || seen === 0 ? 'not-visible' : seen !== null && seen < 100 ? 'partly-visible' : 'visible'}`, id: 'los-result', role: 'status' },
      h('b', null, `${unitName(st, los.viewer)} → ${unitName(st, los.target)}: `),
      losWords(r, unitName(st, los.target), (id) => thingName(st, id, true))));
  }
  const unit = table.selected ? store.state?.units?.[table.selected] : null;
  const sel = table.selected ? store.state?.tokens?.[table.selected] : null;
  if (unit) {
    const ordered = unitOrders(unit, table, store);
    const actions = unitActions(unit, table);
    rows.push(unitCard(unit, store.state), ordered, actions, fortyUnitOrders(unit, table));
    // Typed values for the same orders (keyboard): a distance, degrees, a target from a list.
    if (ordered && unit.placement) rows.push(typedMoves(unit, table));
    if (!unit.placement) rows.push(typedModelMoves(unit, table));
    rows.push(targetPicker(unit, table));
  }
  if (sel) {
    const own = store.seat !== null && sel.owner === store.seat;
    rows.push(h('div', { class: `selected owner-${sel.owner}` },
      h('b', null, sel.label || sel.name || sel.id), ' ',
      h('small', null, `${actorName(sel.owner)}`),
      typeof sel.x === 'number' ? h('div', { class: 'coords' }, `(${tenths(sel.x)}, ${tenths(sel.y)}) facing ${Math.round(sel.facing || 0)}°`) : null,
      own && store.state?.tokens?.[sel.id]
        ? h('div', { class: 'buttons' },
          h('button', { type: 'button', onclick: () => table.handlers.tokens.rotateSelected(45) }, '⟲ 45°'),
          h('button', { type: 'button', onclick: () => table.handlers.tokens.rotateSelected(-45) }, '⟳ 45°'),
          h('button', { type: 'button', class: 'danger', onclick: () => table.handlers.tokens.removeSelected() }, 'Remove'))
        : null));
  }
  if (table.mode !== 'idle') rows.push(h('p', { class: 'hint' }, modeHint(table)));
  rows.push(deployForm(table));
  const shown = rows.filter(Boolean);
  el.hidden = shown.length === 0;
  replace(el, shown);
}

/** What a player needs to know about a unit (issue 18 item 5): its entry and state, then its
 * whole profile (characteristics, weapons, points, base, every rule with its words and whether
 * the server automates it) and each joined character's own profile. The same for the
 * opponent's units: an army list is public. @param {import('../types.js').Unit} u @param {GameState|null} [st] */
function unitCard(u, st) {
  const catalog = catalogFor(String(st?.system || ''));
  const sheet = sheetOf(st, catalog, String(u.datasheet || ''));
  const registry = Array.isArray(catalog?.rules) ? catalog.rules : [];
  const notAuto = Array.isArray(u.not_automated) ? u.not_automated : [];
  const partly = u.partly_automated && typeof u.partly_automated === 'object' ? u.partly_automated : {};
  const rules = Array.isArray(u.rules) ? u.rules : [];
  const said = unitStateWords(u, catalog?.army?.wound_name || 'Wound');
  const shocked = markerBadges(u, st ?? null).includes('Battle-shocked');
  return h('div', { class: `selected unit owner-${u.owner}` },
    h('b', null, unitName(st, u.id)), ' ', h('small', null, actorName(u.owner)),
    h('div', { class: 'coords' },
      [said.models, u.files ? `${u.files} wide` : '', humanize(String(u.status || ''))].filter(Boolean).join(' · ')),
    said.damage ? h('div', { class: 'coords damage' }, said.damage) : null,
    (Array.isArray(u.markers) && u.markers.length) || shocked
      ? h('div', { class: 'markers' }, (u.markers || []).map((/** @type {string} */ m) => h('span', { class: `badge marker ${markerBadges({ markers: [m] }).length ? `marker-${m}` : ''}` }, humanize(String(m)))),
        // 40k's Battle-shocked is kept in the state, not as a marker: said in words here too.
        shocked ? h('span', { class: 'badge marker marker-battle-shocked' }, 'Battle-shocked') : null)
      : null,
    engagedNames(u, st).length ? h('div', { class: 'coords engaged' }, `Engaged with ${engagedNames(u, st).join(', ')}`) : null,
    u.moved && Object.keys(u.moved).length && typeof u.moved.used === 'number'
      ? h('div', { class: 'coords' }, `Moved ${tenths(u.moved.used)}${u.moved.allowance ? ` of ${u.moved.allowance} in` : ' in'}`)
      : null,
    // The profile scrolls in its own box (issue 24 item 4) so the latest combat report under
    // the card stays in view; focusable, so the keyboard scrolls it too.
    sheet
      ? h('div', { class: 'card-profile', tabindex: '0', role: 'region', 'aria-label': `${unitName(st, u.id)} profile` },
        profileView(sheet, { notAutomated: notAuto, partly, registry }))
      : h('div', null,
        h('p', { class: 'hint' }, 'Loading the profile…'),
        rules.length ? h('ul', { class: 'rules' }, rules.map((/** @type {string} */ r) => h('li', { class: notAuto.includes(r) ? 'manual' : '' }, r,
          notAuto.includes(r) ? h('small', null, ' not automated') : null))) : null),
    Array.isArray(u.characters) && u.characters.length
      ? h('ul', { class: 'characters' }, u.characters.map((c) => {
        const cs = sheetOf(st, catalog, String(c.datasheet || ''));
        return h('li', null, `With ${c.name || c.datasheet}`,
          c.damage ? h('small', null, ` · ${c.damage} wound${c.damage === 1 ? '' : 's'} lost`) : null,
          cs ? profileView(cs, { registry }) : null);
      }))
      : null);
}

/** @param {Table} table */
function modeHint(table) {
  return table.tool?.hint() || '';
}

/** A unit's or terrain piece's name for the line-of-sight verdict ("the Farmhouse" with
 * `article`). @param {GameState} st @param {string} id @param {boolean} [article] */
function thingName(st, id, article = false) {
  const unit = st.units?.[id];
  if (unit) return unitName(st, id);
  const t = (Array.isArray(st.terrain) ? st.terrain : []).find((x) => x.id === id);
  const name = t ? t.label || humanize(String(t.kind)) : id;
  return article && t ? `the ${name}` : name;
}

/** @param {HTMLElement} list @param {Store} store */
function renderDiceLog(list, store) {
  /** @type {HTMLElement[]} */
  const items = [];
  for (const ev of store.history) {
    rollsOf(ev.payload).forEach((roll, i) => items.push(diceItem(ev, roll, i)));
  }
  items.reverse();
  replace(list, items.length ? items.slice(0, 200) : h('li', { class: 'empty' }, 'No rolls yet.'));
}

/** @param {import('../store.js').GameEvent} ev @param {Roll} roll @param {number} i its place among the event's rolls */
function diceItem(ev, roll, i) {
  // A roll-off's dice are both players': whose each is comes beside them (`seats`).
  const seats = Array.isArray(ev.payload?.seats) ? ev.payload.seats : null;
  const why = seats ? `Player ${seats[i]}` : ev.payload?.reason ? String(ev.payload.reason) : '';
  const what = ev.type === 'roll_off' ? 'Roll-off' : humanize(ev.type);
  const reason = ev.type === 'dice_rolled' ? why : `${what}${why ? `: ${why}` : ''}`;
  const dice = Array.isArray(roll.dice) ? roll.dice : [];
  return h('li', { class: `roll owner-${ev.actor}`, dataset: { seq: ev.seq } },
    h('div', { class: 'roll-head' },
      h('span', { class: 'who' }, actorName(ev.actor)),
      h('span', { class: 'expr' }, String(roll.expression ?? '')),
      reason ? h('span', { class: 'reason' }, String(reason)) : null),
    h('div', { class: 'faces' },
      dice.map((d) => h('span', {
        class: `die ${d.kept ? 'kept' : 'discarded'}${d.rerolled ? ' rerolled' : ''}`,
        title: `${d.kept ? 'kept' : 'discarded'}${d.rerolled ? ', re-rolled' : ''}`,
      }, String(d.face))),
      roll.total !== null && roll.total !== undefined ? h('span', { class: 'total' }, `= ${roll.total}`) : null),
    dice.length > 1 ? h('div', { class: 'roll-summary' }, rollSummary(roll)) : null,
    roll.extra && typeof roll.extra === 'object' && Object.keys(roll.extra).length
      ? h('div', { class: 'extra' }, extraWords(roll.extra))
      : null);
}

/** @param {HTMLElement} list @param {Store} store */
function renderNotes(list, store) {
  const notes = store.eventsOfType('note_added').slice(-100).reverse();
  replace(list, notes.length
    ? notes.map((ev) => h('li', { class: `owner-${ev.actor}` }, h('b', null, `${actorName(ev.actor)}: `), String(ev.payload?.text ?? '')))
    : h('li', { class: 'empty' }, 'No notes yet.'));
}

/** @param {HTMLElement} el @param {GameState} st @param {number|null} seat @param {{invite:string|null, spectate:string}} links */
function renderShare(el, st, seat, links) {
  const open = !st.seats?.['2'];
  replace(el,
    seat !== null && open && links.invite ? copyRow('Invite (seat 2)', links.invite, 'invite') : null,
    copyRow('Spectators', links.spectate, 'spectate'));
}

/** @param {string} title @param {string} url @param {string} name */
export function copyRow(title, url, name) {
  const input = /** @type {HTMLInputElement} */ (h('input', { readonly: true, value: url, name, 'aria-label': title, onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }));
  const button = h('button', {
    type: 'button',
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        button.textContent = 'Copied';
      } catch {
        input.select();
      }
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    },
  }, 'Copy');
  return h('label', { class: 'copy-row' }, h('span', null, title), h('div', { class: 'row' }, input, button));
}

export { humanize };

/**
 * A panel section that folds: a `<details>` whose summary is the heading; `body` is what the
 * panel renders into (the open/closed state survives the re-renders).
 * @param {string} name @param {string} title @param {boolean} open
 * @returns {{el:HTMLElement, body:HTMLElement}}
 */
function collapsible(name, title, open) {
  const body = h('div', { class: 'section-body' });
  const el = h('details', { class: `panel fold ${name}`, id: `section-${name}`, open },
    h('summary', null, h('h2', null, title)), body);
  return { el, body };
}

/** @param {string} v @param {number} lo @param {number} hi @param {number} dflt */
function clampNum(v, lo, hi, dflt) {
  const n = Number(v);
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : dflt;
}

