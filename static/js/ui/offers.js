// The orders the server offers this viewer (`state.orders`, server/rules/orders.py): per unit,
// what it may do now (move with its allowances, charge and shoot targets, fight, reactions,
// arrival, deployment), and the game-level orders (end phase, concede, propose undo…). The
// client shows exactly these and decides nothing: an order shown but not possible carries the
// server's reason, which a disabled control shows on hover. Pure (tested under node).

/** @typedef {import('../types.js').Offer} Offer */
/** @typedef {import('../types.js').UnitOffers} UnitOffers */
/** @typedef {import('../types.js').GameOffers} GameOffers */
/** @typedef {import('../types.js').GameState} GameState */

/** @param {GameState|null|undefined} state @returns {{seat:number|null, units:Record<string, Record<string, Offer>>, game:Record<string, Offer>}} */
export function ordersOf(state) {
  const o = state?.orders;
  return {
    seat: o?.seat ?? null,
    units: o && typeof o.units === 'object' && o.units ? o.units : {},
    game: o && typeof o.game === 'object' && o.game ? o.game : {},
  };
}

/** Every order offered for one unit (key -> offer). @param {GameState|null|undefined} state @param {string} unitId @returns {Record<string, Offer>} */
export function unitOffers(state, unitId) {
  return ordersOf(state).units[unitId] || {};
}

/** One order of a unit, or null when the server does not offer it now; typed by its key (the
 * shape the server's offer for that key has, types.js `UnitOffers`).
 * @template {keyof UnitOffers} K
 * @param {GameState|null|undefined} state @param {string} unitId @param {K} key @returns {UnitOffers[K]|null} */
export function unitOffer(state, unitId, key) {
  return /** @type {UnitOffers[K]|undefined} */ (unitOffers(state, unitId)[key]) || null;
}

/** A game-level order (end_phase, concede, undo, free_move, cast_spell…), or null; typed by
 * its key (types.js `GameOffers`).
 * @template {keyof GameOffers} K
 * @param {GameState|null|undefined} state @param {K} key @returns {GameOffers[K]|null} */
export function gameOffer(state, key) {
  return /** @type {GameOffers[K]|undefined} */ (ordersOf(state).game[key]) || null;
}

/** Is the order offered and possible now? @param {Offer|null|undefined} offer */
export function canGive(offer) {
  return Boolean(offer && offer.available);
}

/** The attributes of a control for an order: disabled with the server's reason as its title
 * (hover) and as its accessible description (`aria-description`, read by screen readers
 * even where a disabled control's title is not) when the order is shown but not possible.
 * @param {Offer|null|undefined} offer @param {string} [title] the title when available
 * @param {{available?:boolean, reason?:string|null}} [sub] a part of the order (a mode, a manoeuvre) */
export function controlAttrs(offer, title = '', sub) {
  const ok = canGive(offer) && (sub ? Boolean(sub.available) : true);
  const reason = !offer ? 'not possible now' : !offer.available ? offer.reason : sub && !sub.available ? sub.reason : null;
  return ok
    ? { disabled: false, title }
    : { disabled: true, title: String(reason || 'not possible now'), 'aria-disabled': 'true', 'aria-description': String(reason || 'not possible now') };
}

/** Is an order for the unit as a whole possible, or refused only in a part (a mode, a
 * manoeuvre, some targets)? A move refused with no modes, or a charge refused with no targets
 * listed, is refused for the unit itself (engaged, fled, already charged): not a control.
 * @param {Offer|null} offer */
export function wholeOrder(offer) {
  if (!offer) return false;
  if (offer.available) return true;
  if (offer.action === 'move_unit') {
    const modes = /** @type {import('../types.js').MoveOffer} */ (offer).modes;
    return Boolean(modes && Object.keys(modes).length);
  }
  if (offer.action === 'declare_charge') {
    const targets = /** @type {import('../types.js').ChargeOffer} */ (offer).targets;
    return Array.isArray(targets) && targets.length > 0;
  }
  return true;
}

/** The targets of a charge or shoot order that may be chosen now (ids).
 * @param {{targets?:{unit:string, available:boolean}[]}|null} offer @returns {string[]} */
export function targetIds(offer) {
  const list = Array.isArray(offer?.targets) ? offer.targets : [];
  return list.filter((t) => t.available).map((t) => String(t.unit));
}

/** Is this unit moved model by model (its projected shape: positions, no block)?
 * @param {import('../types.js').Unit|null|undefined} unit */
export function movesModelByModel(unit) {
  return !unit?.placement || (Array.isArray(unit?.positions) && unit.positions.length > 0);
}
