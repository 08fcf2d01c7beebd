// The replay's timeline, pure (tested under node): where each phase begins, stepping by event
// or by phase, the turns as segments of the scrubber, and the `#seq=N` of a shareable link.
// The states themselves are the server's (GET /api/games/{id}/state?at=N): one fold, there.

/**
 * @typedef {Object} TimelineStep   one event of the log and where the game stood after it
 * @property {number} seq
 * @property {string} stage
 * @property {number|null} turn
 * @property {number|null} player
 * @property {string|null} phase
 * @property {string} type          'hidden' for an event kept from this viewer
 * @property {number|string} actor
 */

/** @typedef {{turn:number|null, player:number|null, from:number, to:number, label:string}} Segment */

/** The seq a `#seq=N` fragment names, within 0..last (the last seq when absent or unreadable).
 * @param {string} hash @param {number} last */
export function seqFromHash(hash, last) {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const raw = params.get('seq');
  const n = raw === null || raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isInteger(n)) return last;
  return Math.min(Math.max(n, 0), last);
}

/** @param {number} seq */
export function hashOf(seq) {
  return `#seq=${seq}`;
}

/** What the game was in after a step, in words: "Turn 2 · Player 1 · Shooting". @param {TimelineStep|null|undefined} s */
export function stepLabel(s) {
  if (!s) return 'Before the game';
  if (s.stage === 'over') return 'The game is over';
  if (s.turn === null || s.stage === 'setup' || s.stage === 'deployment') {
    return s.stage === 'deployment' ? 'Deployment' : 'Setting up';
  }
  return [`Turn ${s.turn}`, s.player ? `Player ${s.player}` : null, s.phase].filter(Boolean).join(' · ');
}

/** @param {TimelineStep} s */
function phaseKey(s) {
  return `${s.stage}|${s.turn}|${s.player}|${s.phase}`;
}

/** The seqs at which a phase begins (0, the start, first). @param {TimelineStep[]} steps */
export function phaseStarts(steps) {
  const out = [0];
  let prev = '';
  for (const s of steps) {
    const key = phaseKey(s);
    if (key !== prev && s.seq > 0) out.push(s.seq);
    prev = key;
  }
  return [...new Set(out)];
}

/** One event forward (+1) or back (-1), within 0..last. @param {number} seq @param {1|-1} dir @param {number} last */
export function stepEvent(seq, dir, last) {
  return Math.min(Math.max(seq + dir, 0), last);
}

/** The next phase's first event (forward), or the start of this phase, or of the one before
 * when already at a start (back). @param {number[]} starts @param {number} seq @param {1|-1} dir @param {number} last */
export function stepPhase(starts, seq, dir, last) {
  if (dir > 0) return starts.find((s) => s > seq) ?? last;
  const before = starts.filter((s) => s < seq);
  return before.length ? before[before.length - 1] : 0;
}

/** The scrubber's turns: consecutive steps of one (turn, player) as one segment.
 * @param {TimelineStep[]} steps @returns {Segment[]} */
export function turnSegments(steps) {
  /** @type {Segment[]} */
  const out = [];
  for (const s of steps) {
    const turn = s.stage === 'battle' ? s.turn : null;
    const player = turn === null ? null : s.player;
    const last = out[out.length - 1];
    if (last && last.turn === turn && last.player === player) {
      last.to = s.seq;
      continue;
    }
    const label = turn === null ? (s.stage === 'over' ? 'End' : 'Setup') : `T${turn}${player ? ` P${player}` : ''}`;
    out.push({ turn, player, from: s.seq, to: s.seq, label });
  }
  return out;
}
