// Words for what the server answered: distances, move verdicts, line of sight, refusals, unit
// markers and the outcome of a declared charge. Pure (tested under node); the table's handlers
// and the panels both use these, so they live apart from either.

/** @typedef {import('./types.js').Verdict} Verdict */
/** @typedef {import('./types.js').LosResult} LosResult */
/** @typedef {import('./types.js').WireError} WireError */
/** @typedef {import('./types.js').GameState} GameState */
/** @typedef {import('./types.js').Unit} Unit */
/** @typedef {import('./store.js').GameEvent} GameEvent */

/**
 * A measure to 0.1, half away from zero on the decimal a person reads: "8.3" for 8.25 and
 * "8.4" for 8.35 (the float 8.3499…). The server says the same (server/rules/naming.py
 * `tenths`; docs/rules-decisions.md "Distances in words"); `toFixed` alone would round the
 * float's binary value and disagree with it. @param {number} value
 */
export function tenths(value) {
  if (!Number.isFinite(value)) return String(value);
  const shortest = String(Math.abs(value));
  let scaled;
  if (/e/i.test(shortest)) scaled = Math.round(Math.abs(value) * 10);
  else {
    const [whole, frac = ''] = shortest.split('.');
    scaled = Number(whole) * 10 + Number(frac[0] || '0') + ((frac[1] || '0') >= '5' ? 1 : 0);
  }
  const sign = value < 0 && scaled > 0 ? '-' : '';
  return `${sign}${Math.floor(scaled / 10)}.${scaled % 10}`;
}

/** A distance in words: "8.3 in" (see `tenths`). Given the `limit` it is measured against, a
 * distance on the other side of it that rounds to the same tenth says so ("just over 8.0 in" for
 * 8.02 against 8, "just under 12.0 in" for 11.98 against 12),
 * as the server's refusal does. @param {number} value @param {number} [limit] */
export function inches(value, limit) {
  const said = tenths(value);
  if (typeof limit === 'number' && value !== limit && said === tenths(limit)) return `just ${value > limit ? 'over' : 'under'} ${said} in`;
  return `${said} in`;
}

/** A distance as the table shows it: to 0.1 in; '' for anything but a number. @param {unknown} d */
export function measureLabel(d) {
  return typeof d === 'number' ? inches(d) : '';
}

/** Words for a preview verdict: "Legal · used 4.0 / 5.0 in", or "Not allowed: Move Distance · 14.0 in
 * (10.0 allowed)" with the rule and obstacle (issue 24 item 3: in words, not only red). @param {Verdict} res */
export function verdictText(res) {
  const parts = [];
  if (res.legal) parts.push(res.counts_as_march ? 'Legal, counts as a March' : 'Legal');
  else parts.push(`Not allowed: ${res.rule || res.message || 'illegal'}`);
  // The server names the obstacle for people; its id (`obstacle`) only marks it on the table.
  if (!res.legal && res.obstacle_name) parts.push(`(${res.obstacle_name} is in the way)`);
  const allowance = typeof res.allowance === 'number' ? tenths(res.allowance) : '';
  const used = typeof res.used === 'number' ? res.used : typeof res.distance === 'number' ? res.distance : null;
  if (used !== null && res.legal) parts.push(`· ${typeof res.used === 'number' ? 'used ' : ''}${tenths(used)}${allowance ? ` / ${allowance}` : ''} in`);
  else if (used !== null) parts.push(`· ${inches(used, typeof res.allowance === 'number' ? res.allowance : undefined)}${allowance ? ` (${allowance} allowed)` : ''}`);
  if (res.legal && Array.isArray(res.hazards) && res.hazards.length) parts.push(`· Danger: ${res.hazards.join('; ')}`);
  return parts.join(' ');
}

/** "Visible · 50% · soft cover". @param {LosResult} res */
export function losText(res) {
  const seen = typeof res.fraction === 'number' ? Math.round(res.fraction * 100) : null;
  if (!res.visible || seen === 0) return 'Not visible';
  const bits = [seen !== null && seen < 100 ? `Partly visible: ${seen} %` : 'Fully visible'];
  bits.push(res.cover && res.cover !== 'none' ? `${res.cover} cover` : 'no cover');
  return bits.join(' · ');
}

/**
 * A line-of-sight answer in plain words (issue 19 item 7): "Partly visible: 82 % of the
 * Citizen Spears, behind the Farmhouse; soft cover", "Fully visible: all of the Citizen Spears;
 * no cover", "Not visible: the Farmhouse is in the way". A target 0 % seen is not visible.
 * @param {{visible?:boolean, fraction?:number, cover?:string|null, blockers?:unknown[], cover_from?:unknown[]}} res
 * @param {string} target the target's name
 * @param {(id:string) => string} [nameOf] a blocker's name ("the Farmhouse", "Citizen Archers")
 */
export function losWords(res, target, nameOf = (id) => id) {
  const seen = typeof res.fraction === 'number' ? Math.round(res.fraction * 100) : null;
  const names = (/** @type {unknown} */ ids) => (Array.isArray(ids) ? ids.map((id) => nameOf(String(id))) : []);
  const list = (/** @type {string[]} */ xs) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}` : xs[0] || '');
  const blockers = names(res.blockers);
  if (!res.visible || seen === 0) {
    return `Not visible: ${blockers.length ? `${list(blockers)} ${blockers.length > 1 ? 'are' : 'is'} in the way` : `none of the ${target} can be seen`}`;
  }
  const behind = [...new Set([...names(res.cover_from), ...blockers])];
  const cover = res.cover && res.cover !== 'none' ? `${res.cover} cover` : 'no cover';
  if (seen === null || seen >= 100) return `Fully visible: all of the ${target}${behind.length ? `, behind ${list(behind)}` : ''}; ${cover}`;
  return `Partly visible: ${seen} % of the ${target}${behind.length ? `, behind ${list(behind)}` : ''}; ${cover}`;
}

/** A refusal in words, its rule first when it names one. @param {unknown} err */
export function errorText(err) {
  const e = /** @type {Partial<WireError>|null|undefined} */ (err);
  if (!e) return 'failed';
  const rule = e.details?.rule ? `${e.details.rule}: ` : '';
  return `${rule}${e.message || e.code || 'failed'}`;
}

/** Who did something: a seat, or the game itself. @param {number|string|undefined} actor */
export function who(actor) {
  return actor === 1 || actor === 2 ? `Player ${actor}` : 'The game';
}

/** The "Player 2: " a log line opens with; nothing for what the game did by itself (its
 * words already say who: "Tomb Swarm charged…", not "The game: Tomb Swarm charged…").
 * @param {number|string|undefined} actor */
export function byWho(actor) {
  return actor === 1 || actor === 2 ? `Player ${actor}: ` : '';
}

/**
 * A roll as "2D6 maximised x1: 6 4 (1) = 10" (discarded faces in brackets).
 * @param {{expression?:string, dice?:{face:number, kept?:boolean}[], total?:number|null}|null|undefined} roll
 */
export function rollWords(roll) {
  if (!roll || typeof roll !== 'object') return '';
  const faces = Array.isArray(roll.dice) ? roll.dice.map((d) => (d.kept ? String(d.face) : `(${d.face})`)).join(' ') : '';
  const total = roll.total === null || roll.total === undefined ? '' : ` = ${roll.total}`;
  return `${roll.expression ?? ''}: ${faces}${total}`;
}

/** "Night Goblins'", "Tomb King's": a name owning something (server/rules/naming.py possessive). @param {string} name */
export function possessive(name) {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

/** A unit's name from the state, or its id. @param {GameState|null|undefined} state @param {unknown} id */
export function unitName(state, id) {
  const units = state?.units || {};
  const unit = units[String(id)];
  if (!unit) return String(id || 'a unit');
  const name = String(unit.name || id);
  // Two units of one name are numbered as the server numbers them in its texts
  // (server/rules/naming.py: by id, numerically, "u5" before "u12").
  const same = Object.keys(units).filter((k) => String(units[k]?.name || k) === name).sort(compareIds);
  return same.length > 1 ? `${name} (${same.indexOf(String(id)) + 1})` : name;
}

/** Ids in numeric order ("u5" before "u12"), as the server orders them. @param {string} a @param {string} b */
export function compareIds(a, b) {
  const key = (/** @type {string} */ s) => {
    const m = /^(\D*)(\d+)(.*)$/.exec(s);
    return m ? [m[1], Number(m[2]), m[3]] : [s, -1, ''];
  };
  const [pa, na, ra] = key(a);
  const [pb, nb, rb] = key(b);
  if (pa !== pb) return pa < pb ? -1 : 1;
  if (na !== nb) return Number(na) - Number(nb);
  return ra === rb ? 0 : ra < rb ? -1 : 1;
}

/** "1 model", "2 models": a count and its noun, singular for one. @param {number} n @param {string} noun @param {string} [many] */
export function plural(n, noun, many = `${noun}s`) {
  return `${n} ${n === 1 ? noun : many}`;
}

/**
 * The state lines of a unit card: how many models remain and the wounds the one wounded model
 * has lost, in the system's word (`wound`: "Wound", t9a "Health Point", from the catalogue's
 * `army.wound_name`): "1 model remaining", "One model has lost 1 Wound".
 * @param {{models?:unknown, damage?:unknown}} u @param {string} [wound]
 * @returns {{models:string, damage:string}}
 */
export function unitStateWords(u, wound = 'Wound') {
  const models = typeof u.models === 'number' ? `${plural(u.models, 'model')} remaining` : '';
  const lost = Number(u.damage ?? 0);
  return { models, damage: lost > 0 ? `One model has lost ${plural(lost, wound)}` : '' };
}

/** The badges drawn on a unit: Fleeing, Shaken; with the state, 40k's Battle-shocked (the
 * state's `forty.battle_shocked`, not a marker on the unit). In words, never colour alone.
 * @param {(Pick<Unit, 'markers'> & {id?:string})|null|undefined} unit @param {GameState|null} [state] */
export function markerBadges(unit, state) {
  const markers = Array.isArray(unit?.markers) ? unit.markers.map(String) : [];
  /** @type {string[]} */
  const out = markers.filter((m) => m === 'fleeing' || m === 'shaken').map((m) => (m === 'fleeing' ? 'Fleeing' : 'Shaken'));
  const shocked = state?.forty?.battle_shocked;
  if (unit?.id && Array.isArray(shocked) && shocked.includes(unit.id)) out.push('Battle-shocked');
  return out;
}

/** A unit's label on the table: its name (numbered among same-named units) and its badges,
 * "Boyz (2) · Battle-shocked" (view/render.js `fitLabel` keeps the number and the badge).
 * @param {GameState|null|undefined} state @param {string} id */
export function tableLabel(state, id) {
  const unit = state?.units?.[id];
  const badges = markerBadges(unit ? { ...unit, id } : null, state ?? null);
  return [unitName(state, id), ...badges].join(' · ');
}

/**
 * What to say after a declared charge is acked: waiting for the reaction, or the result when
 * it came at once (40k, or a target already fleeing). Null when the events are not here yet.
 * @param {GameEvent[]} history @param {number} ackSeq @param {GameState|null} state
 * @returns {null|{text:string, kind:'info'|'ok'}}
 */
export function chargeAckToast(history, ackSeq, state) {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const ev = history[i];
    if (ev.seq > ackSeq) continue;
    const p = ev.payload || {};
    if (ev.type === 'fleeing_unit_caught') return { text: `Charge succeeded: ${unitName(state, p.unit)} are caught and destroyed!`, kind: 'ok' };
    if (ev.type === 'charge_succeeded') return { text: 'Charge succeeded!', kind: 'ok' };
    if (ev.type === 'charge_failed') return { text: `Charge failed: ${p.reason || ''}`, kind: 'info' };
    if (ev.type === 'charge_declared') {
      if (p.answer) return { text: `Charge declared on ${unitName(state, p.target)}: waiting for Player ${p.reacting_player} to answer the charge (${p.answer}).`, kind: 'info' };
      return { text: `Charge declared on ${unitName(state, p.target)}: waiting for Player ${p.reacting_player}'s Charge Reaction.`, kind: 'info' };
    }
    if (ackSeq - ev.seq > 8) break;
  }
  return null;
}

/**
 * A roll summed up for the dice log: "100D6: 312, 17 sixes" — the total of the kept dice and,
 * for D6 rolls, the sixes; with a target (`extra.target`/`extra.needed` or a "4+" style
 * expression) the successes: "10D6 4+: 6 successes (total 38)". Issue 19 item 9.
 * @param {{expression?:string, dice?:{face:number, kept?:boolean}[], total?:number|null, extra?:Record<string, unknown>|null}|null|undefined} roll
 */
export function rollSummary(roll) {
  if (!roll || typeof roll !== 'object') return '';
  const kept = (Array.isArray(roll.dice) ? roll.dice : []).filter((d) => d && d.kept !== false).map((d) => Number(d.face));
  const expr = String(roll.expression ?? `${kept.length}D6`);
  const total = typeof roll.total === 'number' ? roll.total : kept.reduce((a, b) => a + b, 0);
  const extra = roll.extra && typeof roll.extra === 'object' ? roll.extra : {};
  const fromExpr = /(\d)\+/.exec(expr);
  const target = Number(extra.target ?? extra.needed ?? (fromExpr ? fromExpr[1] : NaN));
  const d6 = /D6\b/i.test(expr) || /^\d*D\b/i.test(expr);
  if (Number.isFinite(target) && target > 0 && kept.length) {
    const hits = kept.filter((f) => f >= target).length;
    return `${expr}: ${hits} ${hits === 1 ? 'success' : 'successes'} (total ${total})`;
  }
  if (d6 && kept.length > 1) {
    const sixes = kept.filter((f) => f === 6).length;
    return `${expr}: ${total}, ${sixes} ${sixes === 1 ? 'six' : 'sixes'}`;
  }
  return `${expr}: ${total}`;
}

/**
 * The presence line: each seat online or offline, and the watchers; while this page's own
 * connection is down it says so instead (the list it last heard is stale). Issue 19 item 8.
 * @param {{players?:number[], spectators?:number}|null|undefined} presence
 * @param {string} status  the connection's status ('online', 'reconnecting', ...)
 * @param {number[]} [seats] the seats of the game (default 1 and 2)
 */
export function presenceText(presence, status, seats = [1, 2]) {
  if (status !== 'online') return status === 'connecting' ? 'Connecting…' : 'You are offline · reconnecting…';
  const on = new Set(Array.isArray(presence?.players) ? presence.players.map(Number) : []);
  const players = seats.map((s) => `Player ${s} ${on.has(s) ? 'online' : 'offline'}`).join(', ');
  const watching = Number(presence?.spectators ?? 0);
  return `${players} · ${watching} watching`;
}

/**
 * A spectator's badge when they watch with a delay (the game's `spectator_delay_s`, sent in
 * the welcome): "Live, 30 s behind", "Live, 2 min behind", "Live, 1 min 30 s behind"; nothing
 * for a player (who sees the game as it is) or a game without a delay. In words, so the badge
 * does not rely on its colour.
 * @param {unknown} delay seconds @param {number|null|undefined} seat this page's seat
 */
export function delayWords(delay, seat) {
  const s = Math.round(Number(delay) || 0);
  if (seat === 1 || seat === 2 || s <= 0) return '';
  const min = Math.floor(s / 60);
  const sec = s % 60;
  const behind = [min ? `${min} min` : '', sec ? `${sec} s` : ''].filter(Boolean).join(' ');
  return `Live, ${behind} behind`;
}

/** Whose a unit is, for the off-table tray: "yours", "Player 2's". Issue 19 item 9.
 * @param {number|undefined|null} owner @param {number|null|undefined} seat this page's seat */
export function ownerWords(owner, seat) {
  if (owner !== 1 && owner !== 2) return '';
  return owner === seat ? 'yours' : `Player ${owner}'s`;
}
