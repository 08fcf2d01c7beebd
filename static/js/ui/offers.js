// The orders the server offers this viewer (`state.orders`, server/rules/orders.py): per unit,
// what it may do now (move with its allowances, charge and shoot targets, fight, reactions,
// arrival, deployment), and the game-level orders (end phase, concede, propose undo…). The
// client shows exactly these and decides nothing: an order shown but not possible carries the
// server's reason, which a disabled control shows on hover. Pure (tested under node).

/**
 * @typedef {Object} Offer
 * @property {string} action       the action type to send
 * @property {boolean} available
 * @property {string|null} reason  why not, in words (null when available)
 * @property {string|null} [rule]
 * @property {any} [targets]
 * @property {any} [weapons]
 * @property {any} [modes]
 * @property {any} [reactions]
 * @property {any} [hosts]
 * @property {any} [suggested]
 * @property {any} [casters]
 * @property {string|null} [mode]
 * @property {boolean} [reform_centre]
 * @property {number} [move]       the Move (40k Advance) that the die is added to
 * @property {number} [allowance]  a model-by-model move's allowance, inches
 * @property {boolean} [advance]
 * @property {boolean} [restrained]  restrain_pursuit: the order to hold back stands
 * @property {boolean} [entombed]    emerge (whfb8): Entombed Beneath the Sands, marker first
 * @property {{id:string, name:string, text:string}[]} [objectives]  choose_secondary_objective (t9a)
 * @property {string|null} [current]  choose_secondary_objective: the one set now
 * @property {string} [question]  choose_first: the choice the roll-off gives, in words
 * @property {{first:number, label:string}[]} [options]  choose_first: its two answers
 * @property {string} [about]  choose_first: "deploy_first" or "first_turn"
 * @property {Record<string, number[][]>} [outlines]  deploy_unit (ranked): the Unit Boundary per frontage (files), in the unit's own frame
 * @property {number} [files]  deploy_unit: the default frontage
 * @property {number} [facing]  deploy_unit: the default facing
 */

/** @param {any} state @returns {{seat:number|null, units:Record<string, Record<string, Offer>>, game:Record<string, Offer>}} */
export function ordersOf(state) {
  const o = state?.orders;
  return {
    seat: o?.seat ?? null,
    units: o && typeof o.units === 'object' && o.units ? o.units : {},
    game: o && typeof o.game === 'object' && o.game ? o.game : {},
  };
}

/** Every order offered for one unit (key -> offer). @param {any} state @param {string} unitId @returns {Record<string, Offer>} */
export function unitOffers(state, unitId) {
  return ordersOf(state).units[unitId] || {};
}

/** One order of a unit, or null when the server does not offer it now.
 * @param {any} state @param {string} unitId @param {string} key @returns {Offer|null} */
export function unitOffer(state, unitId, key) {
  return unitOffers(state, unitId)[key] || null;
}

/** A game-level order (end_phase, concede, undo, free_move, cast_spell…), or null.
 * @param {any} state @param {string} key @returns {Offer|null} */
export function gameOffer(state, key) {
  return ordersOf(state).game[key] || null;
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
  if (offer.action === 'move_unit') return Boolean(offer.modes && Object.keys(offer.modes).length);
  if (offer.action === 'declare_charge') return Array.isArray(offer.targets) && offer.targets.length > 0;
  return true;
}

/** The targets of a charge or shoot order that may be chosen now (ids).
 * @param {Offer|null} offer @returns {string[]} */
export function targetIds(offer) {
  const list = Array.isArray(offer?.targets) ? offer.targets : [];
  return list.filter((/** @type {any} */ t) => t.available).map((/** @type {any} */ t) => String(t.unit));
}

/** Is this unit moved model by model (its projected shape: positions, no block)?
 * @param {any} unit */
export function movesModelByModel(unit) {
  return !unit?.placement || (Array.isArray(unit?.positions) && unit.positions.length > 0);
}
