// The Charge tool: with one of your units selected, click the enemy unit it charges. The first
// click asks the server's preview (distance needed, arc, sight, a blocked path: no dice) and
// shows it in the side panel and on the table; Declare (Enter, or a second click on the same
// unit) declares it. The server rolls and says what came of it (a toast; the reaction waits
// for the other player).

import { Tool } from './handler.js';
import { chargeAckToast, errorText, inches } from '../format.js';
import { unitOffer } from '../ui/offers.js';

/** @typedef {import('../types.js').Pt} Pt */

export class ChargeTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The target being previewed and the server's answer (null while it is asked).
     * @type {{unit:string, target:string, verdict:import('../types.js').Verdict|null}|null} */
    this.pending = null;
  }

  get enterToast() {
    return 'Charge: click the enemy unit to charge.';
  }

  hint() {
    return this.pending
      ? 'Declare the charge (Enter, or click the unit again), or click another enemy unit (Esc to cancel).'
      : 'Click the enemy unit to charge (Esc to cancel).';
  }

  removeHooks() {
    this.pending = null;
  }

  confirm() {
    void this.declare();
    return true;
  }

  /** @param {Pt} _w @param {string|null} hit */
  tap(_w, hit) {
    void this.click(hit);
    return true;
  }

  /** The same as a click on the piece, from the units list. @param {string} id */
  pickPiece(id) {
    void this.click(id);
    this.table.onChange();
    return true;
  }

  /** @param {string|null} hit */
  async click(hit) {
    const t = this.table;
    const unit = t.ownUnit(t.selected);
    if (!unit) return t.setMode('idle');
    const target = hit ? t.store.state?.units?.[hit] : null;
    // The server's order lists the units this one may be given as targets (each with why not).
    const offered = unitOffer(t.store.state, unit.id, 'declare_charge');
    const listed = Array.isArray(offered?.targets) && offered.targets.some((x) => x.unit === target?.id);
    if (!target || (offered && !listed)) return t.toast('Charge: click an enemy unit.', 'info');
    if (this.pending?.target === target.id && this.pending.verdict) return this.declare();
    /** @type {{unit:string, target:string, verdict:import('../types.js').Verdict|null}} */
    const asked = { unit: unit.id, target: target.id, verdict: null };
    this.pending = asked;
    t.onChange();
    let verdict;
    try {
      verdict = await t.conn.preview({ type: 'declare_charge', unit: unit.id, target: target.id });
    } catch (err) {
      verdict = { legal: false, message: errorText(/** @type {import('../types.js').WireError} */ (err)) };
    }
    if (this.pending !== asked) return;
    asked.verdict = verdict;
    t.onChange();
    t.redraw();
  }

  /** Declare the previewed charge (the server rolls nothing until the reaction in t9a and
   * whfb8; 40k rolls at once). */
  async declare() {
    const t = this.table;
    const p = this.pending;
    if (!p?.verdict?.legal) return;
    t.setMode('idle');
    try {
      const ack = await t.conn.act({ type: 'declare_charge', unit: p.unit, target: p.target });
      const said = chargeAckToast(t.store.history, ack.seq, t.store.state);
      if (said) t.toast(said.text, said.kind);
    } catch (err) {
      t.toast(`Charge: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }

  /** The charge path the server judged, over the table: green, or red where it is blocked.
   * @returns {import('./handler.js').Layers} */
  layers() {
    const v = this.pending?.verdict;
    const c = v?.explain;
    const aim = this.pending ? this.table.store.state?.units?.[this.pending.target] : null;
    if (!this.enabled || !c?.swept || !aim) return {};
    const [x, y] = centreOf(c.swept);
    const bad = !v?.legal || c.blocked || c.reachable === false;
    return {
      ghost: {
        x, y, facing: 0, width: 1, depth: 1, verdict: bad ? 'illegal' : 'legal',
        geometry: c.swept, swept: null,
        text: c.blocked ? `Blocked: ${c.obstacle_name || c.rule}` : `Charge: needs ${inches(Number(c.needed))}`,
      },
    };
  }
}

/** The middle of a GeoJSON polygon's outer ring (where the path's words go).
 * @param {import('../types.js').Geometry} g @returns {number[]} */
function centreOf(g) {
  const ring = /** @type {number[][]|undefined} */ (g?.type === 'MultiPolygon' ? g.coordinates?.[0]?.[0] : g && 'coordinates' in g ? g.coordinates?.[0] : undefined);
  if (!Array.isArray(ring) || !ring.length) return [0, 0];
  const n = ring.length;
  return [ring.reduce((a, p) => a + p[0], 0) / n, ring.reduce((a, p) => a + p[1], 0) / n];
}
