// REST calls to the Warfield server. A seat token only ever goes in the Authorization header.

/** An HTTP failure with the server's error body. */
export class HttpError extends Error {
  /** @param {number} status @param {{message?:string, detail?:unknown, code?:string, details?:Record<string, unknown>}|null} body */
  constructor(status, body) {
    super(String(body?.message || body?.detail || `HTTP ${status}`));
    this.status = status;
    this.code = body?.code || `http_${status}`;
    this.details = body?.details || {};
  }
}

/**
 * The body of the server's answer, of the shape the caller names (the route's response model).
 * @template T
 * @param {string} path @param {{method?:string, body?:unknown, token?:string|null}} [opts]
 * @returns {Promise<T>}
 */
async function call(path, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  const res = await fetch(path, {
    method: opts.method || 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    cache: 'no-store',
  });
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { message: text };
  }
  if (!res.ok) throw new HttpError(res.status, body?.error || body);
  return body;
}

/** @param {string} id */
const game = (id) => `/api/games/${encodeURIComponent(id)}`;

/** @param {string} system @param {string} [name] @param {number} [spectatorDelay] seconds
 * @param {'roll_offs'|'fixed'} [pregame] who deploys and plays first: the system's roll-offs or player 1
 * @returns {Promise<import('./types.js').GameCreated>} */
export const createGame = (system, name, spectatorDelay, pregame) =>
  call('/api/games', {
    method: 'POST',
    body: { system, ...(name ? { name } : {}), ...(spectatorDelay ? { spectator_delay_s: spectatorDelay } : {}), ...(pregame ? { pregame } : {}) },
  });

/**
 * Claim seat 2 with the game's invite secret (from the invite link's fragment).
 * @param {string} gameId @param {string|null} invite @returns {Promise<import('./types.js').SeatClaimed>}
 */
export const claimSeat = (gameId, invite) =>
  call(`${game(gameId)}/seats`, { method: 'POST', body: invite ? { invite } : {} });

/** @param {string} gameId @param {string|null} token @returns {Promise<import('./types.js').GameView>} */
export const getGame = (gameId, token) => call(game(gameId), { token });

/** @param {string} gameId @param {number} since @param {string|null} token @returns {Promise<import('./types.js').WireEvent[]>} */
export async function getEvents(gameId, since, token) {
  /** @type {{events?:import('./types.js').WireEvent[]}|null} */
  const body = await call(`${game(gameId)}/events?since=${since}`, { token });
  return Array.isArray(body?.events) ? body.events : [];
}

/** @returns {Promise<{systems?:import('./types.js').SystemInfo[]}>} */
export const getSystems = () => call('/api/systems');

/** The game's state at `seq` as this viewer was shown it then. @param {string} gameId @param {number} seq @param {string|null} token
 * @returns {Promise<import('./types.js').ReplayState>} */
export const getStateAt = (gameId, seq, token) => call(`${game(gameId)}/state?at=${seq}`, { token });

/** Every event with the turn, player and phase after it (the replay's scrubber). @param {string} gameId @param {string|null} token
 * @returns {Promise<import('./types.js').Timeline>} */
export const getTimeline = (gameId, token) => call(`${game(gameId)}/timeline`, { token });

/** Each player's dice luck, its charts (SVG) and the dice proof. @param {string} gameId @param {string|null} token
 * @returns {Promise<import('./types.js').Luck>} */
export const getLuck = (gameId, token) => call(`${game(gameId)}/luck`, { token });

/** The battle report as an HTML page. @param {string} gameId @param {string|null} token @returns {Promise<string>} */
export async function getReport(gameId, token) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'text/html' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${game(gameId)}/report?format=html`, { headers, cache: 'no-store' });
  const text = await res.text();
  if (!res.ok) {
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text };
    }
    throw new HttpError(res.status, body);
  }
  return text;
}

/** The websocket URL of a game on the page's own host. @param {string} gameId */
export function socketUrl(gameId) {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws/games/${encodeURIComponent(gameId)}`;
}

/** The dice proof: the commitment while the game runs, the verified seed after it. @param {string} gameId @param {string|null} token
 * @returns {Promise<import('./types.js').DiceProof>} */
export const getDiceProof = (gameId, token) => call(`${game(gameId)}/dice-proof`, { token });

/** The finished game as a `warfield-game/1` file (409 while it runs). @param {string} gameId @param {string|null} token
 * @returns {Promise<Record<string, unknown>>} */
export const getExport = (gameId, token) => call(`${game(gameId)}/export`, { token });
