// The would-be move on the table (the ghost), the server's verdict on it and sending it. The
// drag handlers (unit, handles, models, tokens) and the tools that place something (place,
// free move, arrive) all show their move here: `setGhost` with the action to ask about, a
// `preview` goes out at most once a frame (the newest position wins), and `commit` sends it and
// keeps the ghost until the event is back — or leaves it in red with the rule for a moment.

import { LatestOnly } from './net.js';
import { verdictText, errorText } from './format.js';
import { basisOf } from './view/manoeuvre.js';

/** @typedef {import('./table.js').Table} Table */
/** @typedef {import('./types.js').Action} Action */
/** @typedef {import('./types.js').Ack} Ack */
/** @typedef {import('./types.js').Verdict} Verdict */
/** @typedef {import('./types.js').WireError} WireError */

/**
 * The ghost: where the piece would go, and the server's verdict. phase: 'dragging' |
 * 'placing' | 'staged' (waiting for Confirm: 40k model moves, keyboard pivots, free moves) |
 * 'committing'.
 * @typedef {import('./view/render.js').Ghost & {
 *   id?:string, phase?:'dragging'|'placing'|'staged'|'committing', action?:Action|null,
 *   waitSeq?:number, refused?:boolean, result?:Verdict, positions?:number[][], basis?:string,
 *   proposal?:boolean,
 * }} MoveGhost
 */

/** Spacing of the table's questions (previews, measures, ambush options): at most one a frame
 * and no closer than this, well inside the server's per-socket limit (`welcome.limits`: 30
 * messages a second by default, WARFIELD_RATE_LIMIT_PER_S). */
export const QUESTION_INTERVAL_MS = 80;
/** How long a refused move stays on the table in red with its reason. */
const REFUSED_GHOST_MS = 2500;

export class Moves {
  /** @param {Table} table */
  constructor(table) {
    this.table = table;
    /** @type {MoveGhost|null} */
    this.ghost = null;
    /** A preview waits for the next frame. */
    this.previewWanted = false;
    /** The units whose March toggle is on, each with the turn it was set in (the toggle
     * belongs to the unit: selecting another unit shows that unit's own; a new turn starts
     * off). @type {Map<string, string>} */
    this.marching = new Map();
    /** @type {LatestOnly<Action, Verdict>} */
    this.previewer = new LatestOnly(
      (action) => table.conn.preview(action),
      (res, action) => this.onPreview(res, action),
      (err, action) => this.onPreviewError(err, action),
      { minIntervalMs: QUESTION_INTERVAL_MS },
    );
  }

  /** The turn a March toggle was set in. */
  turnKey() {
    const st = this.table.store.state || {};
    return `${st.turn ?? ''}:${st.active_player ?? ''}`;
  }

  /** Does this unit's move March (its own toggle, this turn)? @param {string|null|undefined} id */
  marchingFor(id) {
    return Boolean(id) && this.marching.get(String(id)) === this.turnKey();
  }

  /** Turn a unit's March toggle on or off. @param {string} id @param {boolean} on */
  setMarch(id, on) {
    if (on) this.marching.set(id, this.turnKey());
    else this.marching.delete(id);
  }

  /** The selected unit's March toggle: unit drags and wheels make March moves instead of
   * Advance moves. */
  get march() {
    return this.marchingFor(this.table.selected);
  }

  /** 'march' or 'advance', as the selected unit's March toggle says. */
  get mode() {
    return this.march ? 'march' : 'advance';
  }

  /** A move is on its way to the server. */
  get committing() {
    return this.ghost?.phase === 'committing';
  }

  /** @param {MoveGhost} ghost @param {Action|null} action */
  setGhost(ghost, action) {
    this.previewer.cancel();
    this.ghost = { ...ghost, action };
    this.previewWanted = true;
    this.table.redraw();
  }

  clearGhost() {
    this.previewer.cancel();
    this.ghost = null;
    this.previewWanted = false;
    this.table.redraw();
  }

  /** Ask about the ghost's action with the next frame. */
  ask() {
    this.previewWanted = Boolean(this.ghost?.action);
    this.table.redraw();
  }

  /** The ghost's action has none to ask about: no verdict to show. */
  noVerdict() {
    if (this.ghost) Object.assign(this.ghost, { verdict: 'unknown', swept: null, text: '' });
  }

  /** Once a frame: the newest position's preview goes out. */
  flush() {
    if (this.previewWanted && this.ghost?.action) {
      this.previewWanted = false;
      this.previewer.offer(this.ghost.action);
    }
  }

  /** The state changed: drop a ghost whose event arrived, or a staged move planned from where
   * the unit no longer stands. */
  onStore() {
    const store = this.table.store;
    if (this.ghost?.waitSeq !== undefined && (store.seq ?? 0) >= this.ghost.waitSeq && !store.needsRefresh) this.clearGhost();
    if (this.ghost?.phase === 'staged' && this.ghost.basis !== basisOf(store.state?.units?.[this.ghost.id || ''])) this.clearGhost();
  }

  /** The server's verdict on the ghost. @param {Verdict} res @param {Action|null} action */
  onPreview(res, action) {
    const g = this.ghost;
    if (!g || g.phase === 'committing' || !action) return;
    // Answers come in order; one for an older spot is still the best news until the next.
    g.verdict = res.legal ? 'legal' : 'illegal';
    g.swept = res.swept || null;
    g.text = `${g.label ? `${g.label} · ` : ''}${verdictText(res)}`;
    g.result = res;
    this.table.onChange();
    this.table.redraw();
  }

  /**
   * A preview the server could not answer. A refusal with a rule (an illegal spot, another
   * player's token) is a verdict; anything else (rate limit, preview not offered) leaves the
   * ghost's verdict as it was.
   * @param {WireError} err @param {Action} action
   */
  onPreviewError(err, action) {
    if (['illegal_move', 'forbidden', 'out_of_phase', 'not_found'].includes(err?.code)) {
      return this.onPreview({ legal: false, rule: err.details?.rule || null, obstacle: err.details?.obstacle || null, obstacle_name: err.details?.obstacle_name || null, message: err.message }, action);
    }
    if (err?.code === 'bad_request' && /unknown message type/.test(err.message || '') && this.ghost) {
      this.ghost.text = 'No preview from this server: the move is checked on release';
      this.table.redraw();
    }
  }

  /**
   * Send an action; keep the ghost until the event arrives, or drop it with the reason.
   * @param {Action} action @param {string} what  for the toast ("Move Spearmen")
   * @returns {Promise<Ack|null>} the ack, or null when refused
   */
  async commit(action, what) {
    const t = this.table;
    // The ghost this action was sent from: only it waits for the action's event. A ghost
    // made meanwhile (the events came before the ack: the next step of a tool) is not this one.
    const sent = this.ghost;
    if (sent) {
      this.previewer.cancel();
      sent.phase = 'committing';
      sent.verdict = sent.verdict === 'illegal' ? 'illegal' : 'pending';
    }
    t.redraw();
    try {
      const ack = await t.conn.act(action);
      if (sent && this.ghost === sent) {
        if ((t.store.seq ?? 0) >= ack.seq) this.clearGhost();
        else sent.waitSeq = ack.seq;
      }
      return ack;
    } catch (err) {
      const e = /** @type {WireError} */ (err);
      t.toast(`${what}: ${errorText(e)}`, 'error');
      const g = this.ghost;
      if (g && e?.code === 'illegal_move') {
        // Leave the refused spot in red with the rule for a moment, then let it go.
        g.verdict = 'illegal';
        g.refused = true;
        g.text = verdictText({ legal: false, rule: e.details?.rule, obstacle: e.details?.obstacle, obstacle_name: e.details?.obstacle_name, message: e.message, distance: e.details?.distance });
        t.redraw();
        setTimeout(() => this.ghost === g && this.clearGhost(), REFUSED_GHOST_MS);
      } else this.clearGhost();
      return null;
    }
  }

  /** Send the staged move (40k models, keyboard pivot). */
  confirmStaged() {
    const g = this.ghost;
    if (g?.phase !== 'staged' || !g.action) return;
    const u = this.table.store.state?.units?.[g.id || ''];
    void this.commit(g.action, `Move ${u?.name || g.id}`);
  }
}
