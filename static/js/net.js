// The websocket to one game: hello with the last seq seen, the welcome and events into the
// store, gap fetches over REST, automatic reconnect with backoff, and request/response by ref
// for actions, previews, measures and line of sight.
//
// Everything outside the socket is injected (WebSocket class, timers, REST fetchers), so the
// seq and resync logic runs under `node --test` with a fake socket.

/** @typedef {import('./store.js').Store} Store */
/** @typedef {import('./store.js').GameEvent} GameEvent */
/** @typedef {'connecting'|'online'|'reconnecting'|'closed'} Status */
/** @typedef {import('./types.js').Ack} Ack */
/** @typedef {import('./types.js').Verdict} Verdict */
/** @typedef {import('./types.js').MeasureResult} MeasureResult */
/** @typedef {import('./types.js').LosResult} LosResult */

/** A refused request: the server's error frame, or a local failure (offline, timeout). @typedef {import('./types.js').WireError} WireError */
/** @typedef {import('./types.js').ServerFrame} ServerFrame */
/** @typedef {import('./types.js').GameState} GameState */

/** Reply types that settle a request, by the request's type. */
const REPLIES = {
  action: 'ack',
  preview: 'preview_result',
  measure: 'measure_result',
  line_of_sight: 'line_of_sight_result',
  ambush_options: 'ambush_options_result',
};

/** Hello refusals after which reconnecting with the same hello is pointless. */
const FATAL_AT_HELLO = new Set(['unauthorized', 'not_found', 'forbidden', 'bad_request']);

/** How often a message the server could not take for now (`unavailable`: its database
 * restarting) is sent again, with the same ref, which makes it count once whatever happened. */
export const MAX_RESENDS = 5;

/** Ref prefixes by request type (refs are also the server's idempotency keys). */
const PREFIX = { action: 'c', preview: 'p', measure: 'm', line_of_sight: 'l', ambush_options: 'a' };

/**
 * Milliseconds to wait before reconnect attempt `attempt` (0-based): exponential from 500 ms,
 * capped at 10 s, with jitter so a restarted server is not hit by every client at once.
 * @param {number} attempt @param {() => number} [random]
 */
export function backoffDelay(attempt, random = Math.random) {
  const base = Math.min(10_000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.5 + 0.5 * random()));
}

/**
 * A per-page-load ref prefix: refs are idempotency keys per seat on the server, so a reloaded
 * page must never reuse the refs of the page before it.
 * @param {() => number} [random]
 */
export function sessionTag(random = Math.random) {
  return Math.floor(random() * 36 ** 6).toString(36).padStart(6, '0') + Date.now().toString(36).slice(-4);
}

/**
 * @typedef {Object} ConnectionOptions
 * @property {string} url                   the game's websocket URL
 * @property {string|null} token            seat token, or null for a spectator
 * @property {Store} store
 * @property {(since:number) => Promise<GameEvent[]>} fetchEvents   REST events?since=
 * @property {() => Promise<{seq:number, state:GameState}>} [fetchState]   REST game state
 * @property {typeof WebSocket} [WebSocket]  the WebSocket class (injected in tests)
 * @property {{setTimeout:Function, clearTimeout:Function}} [timers]
 * @property {() => number} [random]
 * @property {number} [requestTimeoutMs]
 * @property {string} [tag]                 ref prefix for this page load
 */

export class Connection {
  /** @param {ConnectionOptions} opts */
  constructor(opts) {
    this.url = opts.url;
    this.token = opts.token;
    this.store = opts.store;
    this.fetchEvents = opts.fetchEvents;
    this.fetchState = opts.fetchState || null;
    this.WS = opts.WebSocket || globalThis.WebSocket;
    this.timers = opts.timers || globalThis;
    this.random = opts.random || Math.random;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.tag = opts.tag || sessionTag(this.random);
    /** @type {Status} */
    this.status = 'closed';
    this.attempt = 0;
    this.counter = 0;
    /** @type {WebSocket|null} */
    this.ws = null;
    /** @type {unknown} */
    this.retryTimer = null;
    this.stopped = true;
    this.welcomed = false;
    this.welcomedThisSocket = false;
    /** The server's limits for this socket, from its `welcome` (null before one).
     * @type {import('./types.js').ClientLimits|null} */
    this.limits = null;
    /** @type {Map<string, {reply:string, resolve:(reply:unknown) => void, reject:(err:WireError) => void, timer:unknown, frame:Record<string, unknown>, resends:number}>} */
    this.inflight = new Map();
    /** @type {Promise<void>|null} */
    this.gapFetch = null;
    /** @type {Promise<void>|null} */
    this.stateFetch = null;
    /** How many times the whole state was read over REST (patches make this rare). */
    this.stateFetches = 0;
    /** @type {Set<(status:Status) => void>} */
    this.statusListeners = new Set();
    /** @type {Set<(err:WireError) => void>} errors not tied to a request */
    this.errorListeners = new Set();
    /** @type {Set<(msg:ServerFrame) => void>} transient overlays others share (not events) */
    this.overlayListeners = new Set();
    /** @type {Set<(action:import('./types.js').Action) => ((ok:boolean) => void)|void>} */
    this.actListeners = new Set();
  }

  /** `fn` is called as each action of this seat is sent, and what it returns once the action
   * is answered (acked or refused): the page puts the focus somewhere a stray Enter does
   * nothing (ui/focus.js). @param {(action:import('./types.js').Action) => ((ok:boolean) => void)|void} fn */
  onAct(fn) {
    this.actListeners.add(fn);
    return () => this.actListeners.delete(fn);
  }

  /** @param {(msg:ServerFrame) => void} fn */
  onOverlay(fn) {
    this.overlayListeners.add(fn);
    return () => this.overlayListeners.delete(fn);
  }

  /** @param {(status:Status) => void} fn */
  onStatus(fn) {
    this.statusListeners.add(fn);
    return () => this.statusListeners.delete(fn);
  }

  /** @param {(err:WireError) => void} fn */
  onError(fn) {
    this.errorListeners.add(fn);
    return () => this.errorListeners.delete(fn);
  }

  /** @param {Status} status */
  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    for (const fn of this.statusListeners) fn(status);
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    if (this.retryTimer) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.failAll('closed', 'connection closed');
    this.setStatus('closed');
  }

  open() {
    this.setStatus(this.attempt === 0 && !this.welcomed ? 'connecting' : 'reconnecting');
    const ws = new this.WS(this.url);
    this.ws = ws;
    this.welcomedThisSocket = false;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.sendRaw({ type: 'hello', token: this.token, since: this.store.seq });
    };
    ws.onmessage = (/** @type {MessageEvent} */ e) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(String(e.data));
      } catch {
        return;
      }
      this.handle(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.failAll('offline', 'connection lost');
      if (this.stopped) return;
      this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows; nothing to do */
    };
  }

  scheduleReconnect() {
    this.setStatus('reconnecting');
    const delay = backoffDelay(this.attempt, this.random);
    this.attempt += 1;
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  /** @param {ServerFrame} msg */
  handle(msg) {
    switch (msg?.type) {
      case 'welcome':
        this.attempt = 0;
        this.welcomedThisSocket = true;
        this.welcomed = true;
        this.limits = msg.limits ?? null;
        this.store.welcome(msg);
        this.setStatus('online');
        this.afterEvents();
        return;
      case 'events':
        this.store.receive(Array.isArray(msg.events) ? msg.events : [], { frame: true, patch: msg.patch });
        this.afterEvents();
        return;
      case 'presence':
        this.store.setPresence(msg);
        return;
      case 'overlay':
        for (const fn of this.overlayListeners) fn(msg);
        return;
      case 'error':
        if (msg.ref && this.inflight.has(msg.ref)) {
          if (this.resend(msg.ref, toError(msg))) return;
          this.settle(msg.ref, null, toError(msg));
          return;
        }
        // Refused at hello (bad token, no such game): retrying the same hello cannot help.
        if (!this.welcomedThisSocket && FATAL_AT_HELLO.has(msg.code || '')) this.stopped = true;
        for (const fn of this.errorListeners) fn(toError(msg));
        if (this.stopped) this.setStatus('closed');
        return;
      default:
        if (msg?.ref && this.inflight.has(msg.ref)) this.settle(msg.ref, msg, null);
    }
  }

  /** After new events: fetch a gap, or the whole state when an event was not foldable here. */
  afterEvents() {
    if (this.store.gapAfter() !== null) this.fillGap();
    if (this.store.needsRefresh) this.refreshState();
  }

  fillGap() {
    if (this.gapFetch) return;
    const since = this.store.gapAfter();
    if (since === null) return;
    this.gapFetch = this.fetchEvents(since)
      .then((events) => {
        this.store.receive(events);
      })
      .catch(() => {})
      .finally(() => {
        this.gapFetch = null;
        if (this.store.needsRefresh) this.refreshState();
      });
  }

  refreshState() {
    if (this.stateFetch || !this.fetchState) return;
    let again = false;
    this.stateFetches += 1;
    this.stateFetch = this.fetchState()
      .then(({ seq, state }) => {
        if (this.store.seq === null || seq >= this.store.seq || this.store.needsRefresh) {
          this.store.replaceState(state, seq);
        }
        // Events past the fetched state that only the server can fold (an `events_undone`
        // or a unit event that came in while the fetch was out): fetch once more.
        again = this.store.needsRefresh && this.store.seq !== null && seq < this.store.seq;
      })
      .catch(() => {})
      .finally(() => {
        this.stateFetch = null;
        if (again) this.refreshState();
      });
  }

  /** @param {Record<string, unknown>} obj */
  sendRaw(obj) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /**
   * Whether `obj` is over the server's frame limit (`welcome.limits.max_frame_bytes`): such a
   * frame would be answered `too_large` and the socket closed with 1009, so it is not sent.
   * @param {Record<string, unknown>} obj
   */
  tooLarge(obj) {
    if (!this.limits) return false;
    return new TextEncoder().encode(JSON.stringify(obj)).length > this.limits.max_frame_bytes;
  }

  /**
   * Send a request and wait for its reply by ref.
   * @param {'action'|'preview'|'measure'|'line_of_sight'|'ambush_options'} type
   * @param {Record<string, unknown>} body
   * @returns {Promise<unknown>}
   */
  request(type, body) {
    const ref = `${PREFIX[type]}-${this.tag}-${++this.counter}`;
    if (this.status !== 'online') {
      return Promise.reject({ code: 'offline', message: 'not connected to the game server' });
    }
    const frame = { type, ref, ...body };
    if (this.tooLarge(frame)) {
      const limit = this.limits?.max_frame_bytes ?? 0;
      return Promise.reject({ code: 'too_large', message: `frames are limited to ${Math.floor(limit / 1024)} KiB`, details: { limit } });
    }
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.settle(ref, null, { code: 'timeout', message: 'the server did not answer' });
      }, this.requestTimeoutMs);
      this.inflight.set(ref, { reply: REPLIES[type], resolve, reject, timer, frame, resends: 0 });
      this.sendRaw(frame);
    });
  }

  /**
   * Send a request again, the same frame and ref, when the server said it could not take it
   * for now and to retry (`unavailable` with `details.retry`): after `retry_after` seconds,
   * longer each time, at most MAX_RESENDS times. The ref makes the server count it once.
   * Whether it was resent (false: the error settles the request).
   * @param {string} ref @param {WireError} err
   */
  resend(ref, err) {
    const req = this.inflight.get(ref);
    if (!req || err.code !== 'unavailable' || !err.details?.retry || req.resends >= MAX_RESENDS) {
      return false;
    }
    req.resends += 1;
    const after = Math.min(10, Math.max(0.1, Number(err.details.retry_after) || 1));
    this.timers.clearTimeout(req.timer);
    req.timer = this.timers.setTimeout(() => {
      if (this.inflight.get(ref) !== req) return;
      req.timer = this.timers.setTimeout(() => {
        this.settle(ref, null, { code: 'timeout', message: 'the server did not answer' });
      }, this.requestTimeoutMs);
      if (!this.sendRaw(req.frame)) this.settle(ref, null, { code: 'offline', message: 'connection lost' });
    }, after * 1000 * req.resends);
    return true;
  }

  /**
   * @param {string} ref @param {unknown} reply @param {WireError|null} err
   */
  settle(ref, reply, err) {
    const req = this.inflight.get(ref);
    if (!req) return;
    this.inflight.delete(ref);
    this.timers.clearTimeout(req.timer);
    if (err) req.reject(err);
    else req.resolve(reply);
  }

  /** @param {string} code @param {string} message */
  failAll(code, message) {
    for (const ref of [...this.inflight.keys()]) this.settle(ref, null, { code, message });
  }

  /** Perform an action as this seat. @param {import('./types.js').Action} action @returns {Promise<Ack>} */
  act(action) {
    /** @type {Record<string, unknown>} */
    const body = { action };
    if (this.store.seq !== null) body.expected_seq = this.store.seq;
    const answered = [...this.actListeners].map((fn) => fn(action)).filter((f) => typeof f === 'function');
    const settle = (/** @type {boolean} */ ok) => { for (const f of answered) /** @type {(ok:boolean) => void} */ (f)(ok); };
    return this.request('action', body).then((reply) => {
      const ack = /** @type {Ack} */ (reply);
      this.store.noteAck?.(ack?.seq);
      settle(true);
      return ack;
    }, (err) => {
      settle(false);
      throw err;
    });
  }

  /** Ask whether an action would be legal, without doing it. @param {import('./types.js').Action} action @returns {Promise<Verdict>} */
  preview(action) {
    return /** @type {Promise<Verdict>} */ (this.request('preview', { action }));
  }

  /**
   * Closest-point distance; with `share`, a seated player's measurement is also shown to
   * everyone else watching (an `overlay` frame).
   * @param {string|{x:number,y:number}} from @param {string|{x:number,y:number}} to
   * @param {boolean} [share]
   * @returns {Promise<MeasureResult>}
   */
  measure(from, to, share = false) {
    return /** @type {Promise<MeasureResult>} */ (this.request('measure', share ? { from, to, share: true } : { from, to }));
  }

  /** @param {string} viewer @param {string} target @returns {Promise<LosResult>} */
  lineOfSight(viewer, target) {
    return /** @type {Promise<LosResult>} */ (this.request('line_of_sight', { viewer, target }));
  }

  /**
   * t9a Ambush: the 6 in zone around an edge point, the verdict on a placement and the valid
   * placement nearest to it.
   * @param {string} unit @param {{x:number, y:number}} point
   * @param {{x:number, y:number, facing:number}} [placement]
   * @returns {Promise<import('./types.js').AmbushAnswer>}
   */
  ambushOptions(unit, point, placement) {
    return /** @type {Promise<import('./types.js').AmbushAnswer>} */ (this.request('ambush_options', placement ? { unit, point, placement } : { unit, point }));
  }
}

/** @param {ServerFrame} msg @returns {WireError} */
function toError(msg) {
  return { code: String(msg.code || 'error'), message: String(msg.message || ''), details: msg.details || {} };
}

/**
 * Keeps at most one request in flight, at most one every `minIntervalMs`, and skips inputs
 * that were superseded before they could be sent: while dragging, each animation frame offers
 * the ghost's position; the newest offer waits and replaces any older waiting one. (The server
 * allows each socket `limits.messages_per_s` messages a second, sent in its `welcome`: 30 by
 * default, WARFIELD_RATE_LIMIT_PER_S; so previews cannot go out at a full 60 frames.)
 * Answers arrive in order with the input they answer; after `cancel` nothing more is reported.
 * @template I, R
 */
export class LatestOnly {
  /**
   * @param {(input:I) => Promise<R>} ask
   * @param {(result:R, input:I) => void} onResult
   * @param {(err:WireError, input:I) => void} [onError]
   * @param {{minIntervalMs?:number, now?:() => number, timers?:{setTimeout:Function, clearTimeout:Function}}} [opts]
   */
  constructor(ask, onResult, onError, opts = {}) {
    this.ask = ask;
    this.onResult = onResult;
    this.onError = onError || (() => {});
    this.minIntervalMs = opts.minIntervalMs ?? 0;
    this.now = opts.now || (() => Date.now());
    this.timers = opts.timers || globalThis;
    /** @type {I|undefined} */
    this.waiting = undefined;
    this.busy = false;
    this.generation = 0;
    this.lastSent = -Infinity;
    /** @type {unknown} */
    this.timer = null;
  }

  /** Nothing waits to be sent and no answer is out. */
  get idle() {
    return !this.busy && this.waiting === undefined && !this.timer;
  }

  /** Offer a new input; older unanswered inputs are superseded. @param {I} input */
  offer(input) {
    this.waiting = input;
    if (!this.busy && !this.timer) this.pump();
  }

  /** Forget everything pending; answers still on the way are dropped. */
  cancel() {
    this.waiting = undefined;
    this.generation += 1;
  }

  pump() {
    if (this.waiting === undefined) return;
    const wait = this.lastSent + this.minIntervalMs - this.now();
    if (wait > 0) {
      this.timer = this.timers.setTimeout(() => {
        this.timer = null;
        if (!this.busy) this.pump();
      }, wait);
      return;
    }
    const input = this.waiting;
    const gen = this.generation;
    this.waiting = undefined;
    this.busy = true;
    this.lastSent = this.now();
    this.ask(input)
      .then(
        (res) => {
          if (gen === this.generation) this.onResult(res, input);
        },
        (err) => {
          if (gen === this.generation) this.onError(err, input);
        },
      )
      .finally(() => {
        this.busy = false;
        if (!this.timer) this.pump();
      });
  }
}
