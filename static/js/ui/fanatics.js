// Night Goblin Fanatics in the side panel (whfb8, seed 003): the owner's mark on the units that
// conceal Fanatics (only the owner's state has it), the release tool when the server has
// stopped a move at 8 in (point on the concealing unit and direction; the server checks both),
// and the last whirls and their hits for everyone.

import { h, replace } from './dom.js';
import { errorText, unitName } from '../format.js';
import { concealedCount, releasesFor, othersReleasing, defaultRelease, waitingWords, whirlWords, hitWords, directionHint } from '../view/fanatics.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../net.js').Connection} Connection */

/**
 * The owner's marks of hidden Fanatics, one a unit, the unit numbered as everywhere ("Night
 * Goblins (2): 1 hidden Fanatic"): two same-named units are told apart by their number.
 * @param {import('../types.js').GameState|Record<string, unknown>} st @returns {{unit:string, text:string}[]}
 */
export function fanaticMarks(st) {
  return Object.keys(st.units || {}).filter((id) => concealedCount(st, id) > 0).map((id) => {
    const n = concealedCount(st, id);
    return { unit: id, text: `${unitName(st, id)}: ${n} hidden Fanatic${n === 1 ? '' : 's'} (only you see this)` };
  });
}

/**
 * Render the Fanatics section into `el` (hidden when there is nothing to show).
 * @param {HTMLElement} el @param {Store} store @param {Connection} conn @param {import('../table.js').Toast} toast
 */
export function renderFanatics(el, store, conn, toast) {
  const st = store.state || {};
  const units = st.units || {};
  const name = (/** @type {string} */ id) => unitName(st, id);
  const marks = fanaticMarks(st).map((m) => h('li', { class: 'fanatic-mark', dataset: { unit: m.unit } }, m.text));
  const tools = releasesFor(st, store.seat).map((r) => {
    const start = defaultRelease(units[r.unit]) || { x: 0, y: 0, facing: 0 };
    const field = (/** @type {string} */ label, /** @type {number} */ value) => /** @type {HTMLInputElement} */ (
      h('input', { type: 'number', step: 'any', size: 5, value: String(Math.round(value * 100) / 100), 'aria-label': label }));
    const x = field('Start x', start.x);
    const y = field('Start y', start.y);
    const facing = field('Direction (degrees)', start.facing);
    return h('form', {
      class: 'release-fanatic', dataset: { unit: r.unit },
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        try {
          await conn.act({ type: 'release_fanatic', unit: r.unit, point: [Number(x.value), Number(y.value)], facing: Number(facing.value) });
        } catch (err) {
          toast(`Release: ${errorText(err)}`, 'error');
        }
      },
    }, h('p', null, `${name(r.unit)} must release ${r.left} Fanatic${r.left === 1 ? '' : 's'}: a point on the unit and a direction`),
    // Visible labels too (the inputs keep their accessible names): where on the table, in
    // inches, and which way, as the table's facings count (counter-clockwise from up).
    h('label', { class: 'release-field' }, 'Start x (in) ', x),
    h('label', { class: 'release-field' }, 'Start y (in) ', y),
    h('label', { class: 'release-field' }, 'Direction (°) ', facing),
    h('p', { class: 'hint' }, directionHint(store.seat)),
    h('button', { type: 'submit', class: 'primary' }, 'Release'));
  });
  // Everyone reads what waits: whose release it is, and the flee or pursuit it stopped.
  const waits = [...othersReleasing(st, store.seat, name), waitingWords(st)].filter(Boolean)
    .map((text) => h('p', { class: 'fanatic-waiting' }, text));
  if (!tools.length && !othersReleasing(st, store.seat, name).length) waits.length = 0;
  const report = [];
  for (const ev of (store.history || []).slice(-40)) {
    if (ev.type === 'fanatic_released' || ev.type === 'fanatic_moved') report.push(h('li', { class: 'whirl' }, whirlWords(/** @type {import('../types.js').WhirlPayload} */ (ev.payload), name)));
    if (ev.type === 'fanatic_hits') report.push(h('li', { class: 'fanatic-hits' }, hitWords(/** @type {import('../types.js').FanaticHitsPayload} */ (ev.payload), name)));
  }
  el.hidden = !marks.length && !tools.length && !report.length && !waits.length;
  replace(el, h('h3', null, 'Fanatics'), marks.length ? h('ul', null, marks) : null, ...tools, ...waits,
    report.length ? h('ul', { class: 'fanatic-report' }, report) : null);
}
