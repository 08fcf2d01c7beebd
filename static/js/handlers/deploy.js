// The Deploy tool: a unit picked in the tray goes where the next click on the table puts the
// front of it, facing away from its owner's edge.

import { Tool } from './handler.js';
import { round2 } from '../view/transform.js';
import { errorText } from '../format.js';

/** @typedef {import('../types.js').Pt} Pt */

export class DeployTool extends Tool {
  /** @param {import('../table.js').Table} table */
  constructor(table) {
    super(table);
    /** The unit the next click deploys. @type {string|null} */
    this.unit = null;
  }

  get enterToast() {
    return 'Deploy: click on the table where the front of the unit goes.';
  }

  hint() {
    return 'Click on the table where the front of the unit goes (Esc to cancel).';
  }

  removeHooks() {
    this.unit = null;
  }

  /** Pick a unit in the tray; the next click on the table deploys it. @param {string} id */
  start(id) {
    this.table.setMode('deploy');
    this.unit = id;
    this.table.onChange();
  }

  /** @param {Pt} w */
  tap(w) {
    void this.deployAt(w);
    return true;
  }

  /** Deploy the picked unit with its front centre at `w` (facing away from its owner's edge
   * unless typed). @param {Pt} w @param {number} [facing] */
  async deployAt(w, facing) {
    const t = this.table;
    const id = this.unit;
    if (!id) return t.setMode('idle');
    const name = t.store.state?.units?.[id]?.name || id;
    const action = { type: 'deploy_unit', unit: id, x: round2(w.x), y: round2(w.y), facing: facing ?? (t.store.seat === 2 ? 180 : 0) };
    try {
      await t.conn.act(action);
      t.setMode('idle');
      t.toast(`${name} deployed.`, 'ok');
    } catch (err) {
      t.toast(`Deploy ${name}: ${errorText(/** @type {import('../types.js').WireError} */ (err))}`, 'error');
    }
  }
}
