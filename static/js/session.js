// Which page, which game, which seat: routes, the URL fragment and the seat kept in the browser.
//
// A seat token travels only in the URL fragment (never sent to the server in a request line)
// and in localStorage, keyed by game id, so a reload rejoins the seat. Pure functions plus one
// async resolver with its side effects injected, so all of it runs under node --test.

/** @typedef {{page:'lobby'} | {page:'table', gameId:string} | {page:'replay', gameId:string} | {page:'missing'}} Route */
/** @typedef {{seat:1|2, token:string, invite?:string}} SeatToken  (invite: seat 1 keeps the game's invite secret to share it) */
/** @typedef {{getItem(k:string):string|null, setItem(k:string,v:string):void, removeItem(k:string):void}} KeyValue */

const GAME_PATH = /^\/games\/([A-Za-z0-9_-]{1,64})\/?$/;
const REPLAY_PATH = /^\/games\/([A-Za-z0-9_-]{1,64})\/replay\/?$/;

/** @param {string} pathname @returns {Route} */
export function routeOf(pathname) {
  if (pathname === '/' || pathname === '/index.html' || pathname === '') return { page: 'lobby' };
  const m = GAME_PATH.exec(pathname);
  if (m) return { page: 'table', gameId: m[1] };
  const r = REPLAY_PATH.exec(pathname);
  return r ? { page: 'replay', gameId: r[1] } : { page: 'missing' };
}

/**
 * @param {string} hash location.hash, with or without '#'
 * @returns {{join:boolean, invite:string|null, seat:1|2|null, token:string|null}}
 */
export function parseFragment(hash) {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const params = new URLSearchParams(raw);
  const seatNum = Number(params.get('seat'));
  const seat = seatNum === 1 || seatNum === 2 ? seatNum : null;
  return {
    join: params.has('join'),
    invite: params.get('join') || params.get('invite') || null,
    seat,
    token: params.get('token') || null,
  };
}

/** @param {{seat:1|2, token?:string|null, invite?:string|null}} s */
export function formatFragment(s) {
  const params = new URLSearchParams({ seat: String(s.seat) });
  if (s.token) params.set('token', s.token);
  if (s.invite) params.set('invite', s.invite);
  return `#${params}`;
}

/**
 * The links to share. The invite link carries the invite secret (`#join=<secret>`, in the
 * fragment, so it never reaches a server log); without the secret there is no invite link
 * (`invite` is null). The spectator link carries nothing. Player 1's link keeps its token
 * and the invite in the fragment, so player 1 can reopen the game and still share the invite.
 * @param {string} origin @param {string} gameId @param {string} [seat1Token] @param {string|null} [invite]
 */
export function gameLinks(origin, gameId, seat1Token = '', invite = null) {
  const base = `${origin}/games/${encodeURIComponent(gameId)}`;
  return {
    invite: invite ? `${base}#${new URLSearchParams({ join: invite })}` : null,
    spectate: base,
    player1: seat1Token ? `${base}${formatFragment({ seat: 1, token: seat1Token, invite })}` : base,
  };
}

/** @param {string} gameId */
export function storageKey(gameId) {
  return `warfield.seat.${gameId}`;
}

/** @param {KeyValue|null} storage @param {string} gameId @returns {SeatToken|null} */
export function loadSeat(storage, gameId) {
  try {
    const raw = storage?.getItem(storageKey(gameId));
    if (!raw) return null;
    const v = JSON.parse(raw);
    if ((v.seat === 1 || v.seat === 2) && typeof v.token === 'string' && v.token) {
      return typeof v.invite === 'string' && v.invite
        ? { seat: v.seat, token: v.token, invite: v.invite }
        : { seat: v.seat, token: v.token };
    }
  } catch {
    /* unreadable: treat as absent */
  }
  return null;
}

/** @param {KeyValue|null} storage @param {string} gameId @param {SeatToken} s */
export function saveSeat(storage, gameId, s) {
  try {
    const value = s.invite ? { seat: s.seat, token: s.token, invite: s.invite } : { seat: s.seat, token: s.token };
    storage?.setItem(storageKey(gameId), JSON.stringify(value));
  } catch {
    /* storage full or disabled: the fragment still works for this page */
  }
}

/** @param {KeyValue|null} storage @param {string} gameId */
export function forgetSeat(storage, gameId) {
  try {
    storage?.removeItem(storageKey(gameId));
  } catch {
    /* ignore */
  }
}

/**
 * @typedef {Object} SeatChoice
 * @property {1|2|null} seat        null: watch as a spectator
 * @property {string|null} token
 * @property {string} [invite]      the game's invite secret, when this browser holds it (seat 1)
 * @property {string|null} fragment  what the URL fragment should become ('' to clear), or null to leave it
 * @property {string} [notice]       something to tell the user
 */

/**
 * Decide which seat this page plays from the fragment and the browser's storage; claim seat 2
 * when the fragment is an invite (`#join=<invite secret>`).
 * @param {Object} o
 * @param {string} o.gameId
 * @param {string} o.hash
 * @param {KeyValue|null} o.storage
 * @param {(invite:string|null) => Promise<{seat:1|2, token:string}>} o.claim   POST /api/games/{id}/seats
 * @returns {Promise<SeatChoice>}
 */
export async function resolveSeat({ gameId, hash, storage, claim }) {
  const frag = parseFragment(hash);
  const stored = loadSeat(storage, gameId);
  if (frag.token && frag.seat) {
    // The invite comes with player 1's own link; else keep the one stored for this seat.
    const invite = frag.invite || (stored?.seat === frag.seat && stored.token === frag.token ? stored.invite : undefined);
    /** @type {SeatToken} */
    const s = invite ? { seat: frag.seat, token: frag.token, invite } : { seat: frag.seat, token: frag.token };
    saveSeat(storage, gameId, s);
    return { ...s, fragment: formatFragment({ seat: s.seat }) };
  }
  if (frag.join) {
    if (stored) {
      return {
        ...stored,
        fragment: formatFragment({ seat: stored.seat }),
        notice: `This browser already holds seat ${stored.seat} in this game.`,
      };
    }
    try {
      const s = await claim(frag.invite);
      saveSeat(storage, gameId, s);
      return { seat: s.seat, token: s.token, fragment: formatFragment({ seat: s.seat }) };
    } catch (err) {
      const failure = /** @type {{status?:number, message?:string}|null|undefined} */ (err);
      const status = failure?.status;
      const notice =
        status === 409
          ? 'Both seats are taken: you are watching as a spectator.'
          : status === 403
            ? 'This invite link does not open a seat in this game (ask its creator for the invite link); watching instead.'
            : `Could not join this game (${failure?.message || err}); watching instead.`;
      return { seat: null, token: null, fragment: '', notice };
    }
  }
  if (stored) return { ...stored, fragment: formatFragment({ seat: stored.seat }) };
  return { seat: null, token: null, fragment: frag.seat ? '' : null };
}
