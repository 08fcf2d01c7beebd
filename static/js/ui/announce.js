// The polite live region: each new event of the game, said once in words (issue 24 item 2).
// The log panels are rebuilt from the history and are not live; this region only ever gets
// the events that arrived since the last announcement, so a screen reader hears each one
// once: never the backlog a page loads on arrival, never an event again when a panel re-renders.

import { h } from './dom.js';
import { describe } from './describe.js';

/** @typedef {import('../store.js').Store} Store */
/** @typedef {import('../store.js').GameEvent} GameEvent */

/** Events too small to be worth saying (they happen many times a second or say nothing). */
const QUIET = new Set(['measure_shared']);

/** At most this many lines go out at once (a melee round is many events: the last ones win). */
export const MAX_LINES = 6;

/**
 * What to announce for events that arrived: the ones after `lastSeq`, oldest first, in the
 * game log's words; and the new `lastSeq`. Pure (tested under node).
 * @param {GameEvent[]} events @param {number} lastSeq @param {import('../types.js').GameState|null|undefined} state
 * @returns {{lines:string[], lastSeq:number}}
 */
export function announcements(events, lastSeq, state) {
  const fresh = events.filter((ev) => typeof ev.seq === 'number' && ev.seq > lastSeq).sort((a, b) => a.seq - b.seq);
  const last = fresh.length ? fresh[fresh.length - 1].seq : lastSeq;
  const lines = fresh.filter((ev) => !QUIET.has(ev.type)).map((ev) => describe(ev, state)).filter(Boolean);
  const skipped = lines.length - MAX_LINES;
  const out = skipped > 0 ? [`${skipped} earlier event${skipped === 1 ? '' : 's'}, then:`, ...lines.slice(-MAX_LINES)] : lines;
  return { lines: out, lastSeq: last };
}

/**
 * Mount the live region (visually hidden) and announce live events. The history a page loads
 * (welcome, backfill) only moves the mark.
 * @param {HTMLElement} parent @param {Store} store
 * @returns {HTMLElement} the region
 */
export function mountAnnouncer(parent, store) {
  const region = h('div', { class: 'sr-only', id: 'announcer', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  parent.append(region);
  /** @type {number|null} */
  let mark = null;
  store.subscribe((change) => {
    if (change.kind === 'welcome' || change.kind === 'state' || mark === null) {
      mark = Math.max(mark ?? 0, store.seq ?? 0);
      return;
    }
    if (change.kind !== 'events') return;
    const said = announcements(change.events || [], mark, store.state);
    mark = said.lastSeq;
    for (const line of said.lines) region.append(h('p', null, line));
    // Keep the region small: what was said stays said.
    while (region.childElementCount > 20) region.firstElementChild?.remove();
  });
  return region;
}
