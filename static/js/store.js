// The client's copy of the last server state, and the log of every event it has seen.
//
// The server is the authority: a `welcome` (or a REST state fetch) replaces the state outright;
// events are then folded in strictly in seq order. Events already covered by the state only go
// to the history (dice log, notes); events that arrive after a gap wait in `pending` until the
// missing ones are fetched. Event types this client does not know how to fold are kept in the
// history and flag the state for a refresh from the server instead of guessing.

import { ordersOf, unitOffers } from './ui/offers.js';

/**
 * @typedef {Object} GameEvent
 * @property {number} seq
 * @property {string} type
 * @property {number|string} [actor]
 * @property {Record<string, unknown>} payload
 */

/** @typedef {{kind:'welcome'|'state'|'events'|'presence'|'history', events?:GameEvent[]}} Change */

/** How many events the history keeps (the oldest are dropped). */
export const HISTORY_LIMIT = 5000;

/**
 * Folders for the event types the client understands. Each mutates the (already copied) state.
 * @type {Object<string, (state:import('./types.js').GameState, payload:Record<string, unknown>) => void>}
 */
export const FOLDERS = {
  game_created(state, p) {
    for (const key of ['id', 'system', 'name', 'battlefield', 'dice_commitment']) {
      if (p[key] !== undefined) /** @type {Record<string, unknown>} */ (state)[key] = p[key];
    }
  },
  seat_claimed(state, p) {
    state.seats = { ...(state.seats || {}), [String(p.seat)]: true };
  },
  token_placed(state, payload) {
    const p = /** @type {{token:import('./types.js').Token}} */ (payload);
    state.tokens = { ...(state.tokens || {}), [p.token.id]: { ...p.token } };
  },
  token_moved(state, payload) {
    const p = /** @type {{id:string, x:number, y:number, facing?:number}} */ (payload);
    const old = state.tokens?.[p.id];
    if (!old) return;
    const facing = p.facing ?? old.facing;
    state.tokens = { ...state.tokens, [p.id]: { ...old, x: p.x, y: p.y, facing } };
  },
  token_removed(state, p) {
    if (!state.tokens) return;
    const tokens = { ...state.tokens };
    delete tokens[String(p.id)];
    state.tokens = tokens;
  },
};

/** Event types that never change the state the client draws. */
export const NO_STATE_CHANGE = new Set(['dice_rolled', 'note_added', 'hidden']);

export class Store {
  constructor() {
    /** @type {1|2|null} */
    this.seat = null;
    /** @type {number|null} last seq folded into `state` */
    this.seq = null;
    /** @type {import('./types.js').GameState|null} */
    this.state = null;
    /** @type {GameEvent[]} every event seen, ascending by seq */
    this.history = [];
    /** @type {Set<number>} */
    this.historySeqs = new Set();
    /** @type {Map<number, GameEvent>} events past a gap, waiting */
    this.pending = new Map();
    /** @type {{players:number[], spectators:number}|null} */
    this.presence = null;
    /** Seconds a spectator's view is behind the game (0: live). */
    this.delay = 0;
    /** True when an event arrived that only the server can fold: fetch the state again. */
    this.needsRefresh = false;
    /** @type {Set<(change:Change) => void>} */
    this.listeners = new Set();
    /** Live `events` frames as [first seq, last seq]: one frame is one action's batch. */
    this.frames = /** @type {[number, number][]} */ ([]);
    /** Seqs the server acked for this page's own actions (the last event of each batch). */
    this.ownAcks = /** @type {number[]} */ ([]);
  }

  /** @param {(change:Change) => void} fn @returns {() => void} unsubscribe */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** @param {Change} change */
  emit(change) {
    for (const fn of this.listeners) fn(change);
  }

  /**
   * The server's welcome: authoritative seat, seq and state.
   * @param {{seat?:1|2|null, seq?:number, state?:import('./types.js').GameState, spectator_delay_s?:number}} msg
   */
  welcome(msg) {
    this.seat = msg.seat ?? null;
    // A spectator of a delayed game sees it `spectator_delay_s` behind (server/games/delay.py).
    this.delay = Number(msg.spectator_delay_s ?? 0) || 0;
    this.replaceState(msg.state ?? null, msg.seq ?? 0, 'welcome');
  }

  /**
   * Replace the state with one from the server (welcome or REST), then fold what waits.
   * @param {import('./types.js').GameState|null} state @param {number} seq @param {'welcome'|'state'} [kind]
   */
  replaceState(state, seq, kind = 'state') {
    this.state = structuredClone(state);
    // Events we folded past this state's seq are folded again on top of it.
    for (const ev of this.history) if (ev.seq > seq) this.pending.set(ev.seq, ev);
    this.seq = seq;
    if (this.state && typeof this.state === 'object') this.state.seq = seq;
    this.needsRefresh = false;
    const ready = this.drain();
    this.emit({ kind, events: ready });
  }

  /**
   * Take events from the server (live or fetched). Returns where a gap starts, if any: the
   * caller fetches `events?since=gapAfter` and hands them back here.
   * @param {unknown[]} events  as received (anything that is not an event is skipped)
   * @param {{frame?:boolean, patch?:import('./types.js').StatePatch}} [opts]  frame: a live `events` frame (one action's
   *   batch); patch: its state patch from the server
   * @returns {{applied:GameEvent[], gapAfter:number|null}}
   */
  receive(events, opts = {}) {
    if (opts.frame) this.noteFrame(events);
    // A live frame's patch applies only to a state that was in step before the frame.
    const inStep = opts.patch && !this.needsRefresh && this.seq !== null && this.seq === opts.patch.base;
    let historyOnly = false;
    for (const ev of events) {
      if (!isEvent(ev)) continue;
      if (this.seq !== null && ev.seq <= this.seq) {
        historyOnly = this.remember(ev) || historyOnly;
      } else if (!this.pending.has(ev.seq)) {
        this.pending.set(ev.seq, ev);
      }
    }
    const applied = this.drain();
    if (inStep && opts.patch && this.seq === opts.patch.seq) this.applyPatch(opts.patch);
    if (applied.length) this.emit({ kind: 'events', events: applied });
    else if (historyOnly) this.emit({ kind: 'history', events: [] });
    return { applied, gapAfter: this.gapAfter() };
  }

  /**
   * The server's patch of this viewer's state for one batch (server/games/views.py): changed
   * top-level keys, and units and tokens one by one. Once applied the state is the server's again, so nothing
   * needs fetching even when the batch held events this store cannot fold itself.
   * @param {import('./types.js').StatePatch} patch
   */
  applyPatch(patch) {
    // The state key by key, as the patch names them (its keys and items are the server's).
    const prev = /** @type {Record<string, unknown>} */ (this.state || {});
    /** @type {Record<string, unknown>} */
    const next = { ...prev, ...(patch.state || {}) };
    for (const key of patch.dropped || []) delete next[key];
    for (const [key, tail] of Object.entries(patch.tails || {})) {
      const was = prev[key];
      const list = Array.isArray(was) ? was : [];
      next[key] = [...list.slice(tail.drop), ...tail.push];
    }
    for (const [key, changed] of Object.entries(patch.items || {})) {
      /** @type {Record<string, unknown>} */
      const things = { .../** @type {Record<string, unknown>|undefined} */ (prev[key]), ...changed };
      for (const id of patch.removed?.[key] || []) delete things[id];
      next[key] = things;
    }
    next.seq = patch.seq;
    this.state = next;
    this.needsRefresh = false;
  }

  /** @param {unknown[]} events */
  noteFrame(events) {
    const seqs = events.filter(isEvent).map((ev) => ev.seq);
    if (!seqs.length) return;
    this.frames.push([Math.min(...seqs), Math.max(...seqs)]);
    if (this.frames.length > 500) this.frames.splice(0, this.frames.length - 500);
  }

  /** The server acked one of this page's actions at `seq`. @param {number} seq */
  noteAck(seq) {
    if (!Number.isInteger(seq)) return;
    this.ownAcks.push(seq);
    if (this.ownAcks.length > 500) this.ownAcks.splice(0, this.ownAcks.length - 500);
  }

  /** The seq after which events are missing, or null when nothing is waiting. */
  gapAfter() {
    if (this.seq === null || this.pending.size === 0) return null;
    return this.seq;
  }

  /** @param {{players?:number[], spectators?:number}} p */
  setPresence(p) {
    this.presence = { players: [...(p.players || [])], spectators: p.spectators ?? 0 };
    this.emit({ kind: 'presence' });
  }

  /** Fold every pending event that follows on from `seq`. @returns {GameEvent[]} */
  drain() {
    /** @type {GameEvent[]} */
    const applied = [];
    if (this.seq === null) return applied;
    for (const seq of [...this.pending.keys()]) {
      if (seq <= this.seq) {
        this.remember(/** @type {GameEvent} */ (this.pending.get(seq)));
        this.pending.delete(seq);
      }
    }
    while (this.pending.has(this.seq + 1)) {
      const ev = /** @type {GameEvent} */ (this.pending.get(this.seq + 1));
      this.pending.delete(ev.seq);
      this.fold(ev);
      this.remember(ev);
      applied.push(ev);
    }
    return applied;
  }

  /** @param {GameEvent} ev */
  fold(ev) {
    const folder = FOLDERS[ev.type];
    if (folder) {
      const next = { ...this.state };
      try {
        folder(next, ev.payload || {});
        this.state = next;
      } catch {
        this.needsRefresh = true;
      }
    } else if (!NO_STATE_CHANGE.has(ev.type)) {
      this.needsRefresh = true;
    }
    this.seq = ev.seq;
    this.state = { ...this.state, seq: ev.seq };
  }

  /** Add to the history unless already there. @param {GameEvent} ev @returns {boolean} added */
  remember(ev) {
    if (this.historySeqs.has(ev.seq)) return false;
    this.historySeqs.add(ev.seq);
    const last = this.history[this.history.length - 1];
    this.history.push(ev);
    if (last && last.seq > ev.seq) this.history.sort((a, b) => a.seq - b.seq);
    if (this.history.length > HISTORY_LIMIT) {
      for (const old of this.history.splice(0, this.history.length - HISTORY_LIMIT)) {
        this.historySeqs.delete(old.seq);
      }
    }
    return true;
  }

  /** The orders the server offers this viewer for one unit (key -> offer; see ui/offers.js).
   * @param {string} unitId @returns {Record<string, import('./ui/offers.js').Offer>} */
  unitOrders(unitId) {
    return unitOffers(this.state, unitId);
  }

  /** This viewer's game-level orders (end_phase, concede, undo…). @returns {Record<string, import('./ui/offers.js').Offer>} */
  gameOrders() {
    return ordersOf(this.state).game;
  }

  /** History events of some types, oldest first. @param {...string} types */
  eventsOfType(...types) {
    const want = new Set(types);
    return this.history.filter((ev) => want.has(ev.type));
  }
}

/** @param {unknown} ev @returns {ev is GameEvent} */
function isEvent(ev) {
  const e = /** @type {Partial<GameEvent>|null} */ (ev);
  return Boolean(e) && typeof e === 'object' && Number.isInteger(e?.seq) && typeof e?.type === 'string';
}
