// The Deploy tool: a unit picked in the tray goes where the next click on the table puts the
// front of it. Ranked units (t9a, whfb8) show their footprint under the pointer as a ghost the
// server judges (issue 19 item 6), with the frontage and facing the player chooses: R / Shift+R
// turn it 15°, [ and ] take a file off or add one. The outlines come from the server's
// `deploy_unit` order (one per frontage, in the unit's own frame); the client draws, the
// server judges (`preview`) and decides (`deploy_unit`). A 40k unit's ghost is its models'
// bases set down around the pointer as the server deploys a unit (rows of five: the
// datasheets' bases, `gridPositions`); R / Shift+R turn it too.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';
import { errorText, unitName } from '../format.js';
import { unitOffer } from '../ui/offers.js';
import { outlineBox, placeOutline } from '../view/ambush.js';
import { baseInches, basesGeometry, datasheetBases, gridPositions, modelCount } from '../ui/forty-orders.js';

/** @typedef {import('../types.js').Pt} Pt */

/** Degrees a press of R turns the ghost. */
export const DEPLOY_TURN_DEG = 15;

/**
 * The frontage after a press of [ (-1) or ] (+1), kept to the frontages the server offers.
 * @param {number} files @param {number} step @param {Record<string, unknown>} outlines
 * @returns {number}
 */
export function nextFiles(files, step, outlines) {
  const choices = Object.keys(outlines || {}).map(Number).filter((n) => n > 0).sort((a, b) => a - b);
  if (!choices.length) return files;
  const want = files + step;
  return Math.min(choices[choices.length - 1], Math.max(choices[0], want));
}

export class DeployTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The unit the next click deploys. @type {string|null} */
    this.unit = null;
    /** The frontage and facing chosen for it (null: the server's default). */
    this.files = /** @type {number|null} */ (null);
    this.facing = /** @type {number|null} */ (null);
    /** Where the pointer last was over the table. @type {Pt|null} */
    this.at = null;
    /** A unit placed model by model (40k): its base, once the datasheets are in. @type {{round:boolean, width:number, depth:number}|null} */
    this.base = null;
  }

  get enterToast() {
    return 'Deploy: the ghost shows the unit under the pointer; click to deploy it there.';
  }

  hint() {
    const o = this.offer();
    if (o?.outlines) return `Click where the front of the unit goes: R / Shift+R turn it ${DEPLOY_TURN_DEG}°, [ and ] change its frontage (${this.chosenFiles()} files); Esc cancels.`;
    return this.base
      ? `Click where the middle of the unit goes (its models in rows of five): R / Shift+R turn it ${DEPLOY_TURN_DEG}°; Esc cancels.`
      : 'Click on the table where the front of the unit goes (Esc to cancel).';
  }

  removeHooks() {
    this.unit = null;
    this.files = null;
    this.facing = null;
    this.at = null;
    this.base = null;
    this.table.moves.clearGhost();
  }

  /** The server's order for the picked unit (its outlines, default frontage and facing). */
  offer() {
    return this.unit ? unitOffer(this.table.store.state, this.unit, 'deploy_unit') : null;
  }

  chosenFiles() {
    const o = this.offer();
    return this.files ?? Number(o?.files || 1);
  }

  chosenFacing() {
    const o = this.offer();
    return this.facing ?? Number(o?.facing ?? (this.table.store.seat === 2 ? 180 : 0));
  }

  /** Pick a unit in the tray; the next click on the table deploys it. @param {string} id */
  start(id) {
    this.table.setMode('deploy');
    this.unit = id;
    this.files = null;
    this.facing = null;
    this.base = null;
    const t = this.table;
    const st = t.store.state;
    const unit = st?.units?.[id];
    // No outlines: a unit placed model by model; its ghost needs its datasheet's base.
    if (unit && !this.offer()?.outlines) {
      datasheetBases(String(st?.system || 'wh40k10'))
        .then((bases) => {
          if (this.unit !== id) return;
          this.base = baseInches(bases[String(unit.datasheet)]);
          this.showGhost();
          t.onChange();
        })
        .catch((err) => t.toast(`Deploy: the datasheets could not be read (${err.message})`, 'error'));
    }
    t.onChange();
  }

  /** The ghost at the pointer, with the deploy action the server is asked about. */
  showGhost() {
    const t = this.table;
    const o = this.offer();
    const outline = o?.outlines?.[String(this.chosenFiles())];
    if (!this.unit || !this.at) return;
    const pl = { x: round2(this.at.x), y: round2(this.at.y), facing: this.chosenFacing() };
    const name = unitName(t.store.state, this.unit);
    if (!Array.isArray(outline)) {
      const unit = t.store.state?.units?.[this.unit];
      if (!this.base || !unit) return;
      const positions = gridPositions(modelCount(unit), pl.x, pl.y, pl.facing, this.base);
      t.moves.setGhost({
        id: this.unit, x: pl.x, y: pl.y, facing: pl.facing, width: 2, depth: 2,
        geometry: basesGeometry(positions, this.base), verdict: 'unknown', label: name,
        text: `${name} · checking…`, phase: 'placing',
      }, this.action(pl));
      return;
    }
    const box = outlineBox(outline, pl);
    t.moves.setGhost({
      id: this.unit, x: box.x, y: box.y, facing: pl.facing, width: box.width, depth: box.depth,
      geometry: placeOutline(outline, pl), verdict: 'unknown', label: `${name} · ${this.chosenFiles()} files`,
      text: `${name} · checking…`, phase: 'placing',
    }, this.action(pl));
  }

  /** @param {{x:number, y:number, facing:number}} pl */
  action(pl) {
    const o = this.offer();
    return {
      type: 'deploy_unit', unit: /** @type {string} */ (this.unit), x: pl.x, y: pl.y, facing: pl.facing,
      ...(o?.outlines ? { files: this.chosenFiles() } : {}),
    };
  }

  /** @param {Pt} w */
  hover(w) {
    if (!this.unit) return;
    this.at = w;
    this.showGhost();
  }

  /** R / Shift+R: turn the ghost. @param {1|-1} sign */
  rotate(sign) {
    if (!this.unit || !(this.offer()?.outlines || this.base)) return false;
    this.facing = (((this.chosenFacing() + sign * DEPLOY_TURN_DEG) % 360) + 360) % 360;
    this.showGhost();
    this.table.onChange();
    return true;
  }

  /** [ / ]: a narrower or a wider frontage. @param {string} cmd */
  command(cmd) {
    if (cmd !== 'narrower' && cmd !== 'wider') return false;
    const o = this.offer();
    if (!this.unit || !o?.outlines) return false;
    this.files = nextFiles(this.chosenFiles(), cmd === 'wider' ? 1 : -1, o.outlines);
    this.showGhost();
    this.table.onChange();
    return true;
  }

  /** @param {Pt} w */
  tap(w) {
    void this.deployAt(w);
    return true;
  }

  /** Deploy the picked unit with its front centre at `w`, in the facing and frontage chosen
   * (or typed: `facing`). @param {Pt} w @param {number} [facing] */
  async deployAt(w, facing) {
    const t = this.table;
    const id = this.unit;
    if (!id) return t.setMode('idle');
    const name = unitName(t.store.state, id);
    const action = this.action({ x: round2(w.x), y: round2(w.y), facing: facing ?? this.chosenFacing() });
    try {
      await t.conn.act(action);
      t.setMode('idle');
      t.toast(`${name} deployed.`, 'ok');
    } catch (err) {
      t.toast(`Deploy ${name}: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }
}
