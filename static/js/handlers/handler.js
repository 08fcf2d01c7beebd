// The base of the table's handlers (after Leaflet's L.Handler): each interaction — selecting,
// dragging a unit or its handles, a tool such as Measure — is one object that owns its state
// and can be enabled and disabled. The table passes pointer and keyboard input to the enabled
// ones; a disabled handler ignores it. Subclasses override the hooks they need.

/** @typedef {import('../table.js').Table} Table */
/** @typedef {import('../types.js').Pt} Pt */
/** @typedef {Partial<import('../view/render.js').Frame>} Layers */

export class Handler {
  /** @param {Table} table */
  constructor(table) {
    this.table = table;
    /** @private */
    this.on = false;
  }

  /** Is it taking input? */
  get enabled() {
    return this.on;
  }

  /** Start taking input (idempotent). @returns {this} */
  enable() {
    if (this.on) return this;
    this.on = true;
    this.addHooks();
    return this;
  }

  /** Stop taking input and drop what was in hand (idempotent). @returns {this} */
  disable() {
    if (!this.on) return this;
    this.on = false;
    this.removeHooks();
    return this;
  }

  /** Called by enable(): set up (reset the state a fresh start needs). */
  addHooks() {}

  /** Called by disable(): let go of anything in progress. */
  removeHooks() {}

  // --- pointer hooks (world inches; `hit` is the piece under the pointer) ----------------------

  /** A click. @param {Pt} _w @param {string|null} _hit @returns {boolean} true: handled */
  tap(_w, _hit) {
    return false;
  }

  /** The pointer moved without a button. @param {Pt} _w @param {string|null} _hit */
  hover(_w, _hit) {}

  /** The cursor this handler wants over `w`, or null for no opinion. @param {Pt} _w @param {string|null} _hit @returns {string|null} */
  cursor(_w, _hit) {
    return null;
  }

  /** A press-and-drag begins. @param {Pt} _w @param {{shiftKey?:boolean}} [_e] @returns {boolean} true: this handler takes the drag (false: the table pans) */
  dragStart(_w, _e) {
    return false;
  }

  /** @param {Pt} _w */
  dragMove(_w) {}

  dragEnd() {}

  dragCancel() {}

  /** A piece picked in the units list (ui/units.js) instead of clicked on the table.
   * @param {string} _id @returns {boolean} true: handled (false: the list selects it) */
  pickPiece(_id) {
    return false;
  }

  // --- keyboard hooks --------------------------------------------------------------------------

  /** A key command ('rotate', 'confirm', 'remove'…). @param {string} _cmd @param {{shiftKey?:boolean}} [_e] @returns {boolean} true: handled */
  command(_cmd, _e) {
    return false;
  }

  /** R / Shift+R. @param {1|-1} _sign @returns {boolean} true: handled */
  rotate(_sign) {
    return false;
  }

  /** Enter. @returns {boolean} true: handled */
  confirm() {
    return false;
  }

  // --- every frame -----------------------------------------------------------------------------

  /** Once per animation frame, enabled or not: send the questions it has waiting. */
  frame() {}

  /** What it draws over the table this frame (measure line, sight lines, handles…). @returns {Layers} */
  layers() {
    return {};
  }
}

/**
 * A tool: a handler picked with `table.setMode(name)`; one at a time, and while one is
 * enabled the idle handlers (select, drags) are disabled.
 */
export class Tool extends Handler {
  /** Said when the tool is picked. */
  get enterToast() {
    return '';
  }

  /** One line for the side panel. @returns {string} */
  hint() {
    return '';
  }

  /** @returns {string|null} */
  cursor() {
    return 'crosshair';
  }
}
