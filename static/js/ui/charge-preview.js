// What the server would judge of a charge before it is declared (issue 19 item 1): the
// `preview` of a `declare_charge` carries `explain` (server/rules/charge.py charge_preview):
// distance needed, front arc, line of sight, a blocked path, what the path runs into (whfb8
// Fanatics), the most the roll can reach. Pure:
// words for the side panel, each line marked ✓ or ✗ (never colour alone).

import { unitName, inches } from '../format.js';

/** @typedef {{ok:boolean|null, text:string, key:string}} PreviewLine */

/** @param {unknown} n */
const inch = (n) => inches(Number(n));

/**
 * The lines to show for a charge preview, and whether declaring is allowed.
 * @param {import('../types.js').Verdict|null|undefined} verdict the preview answer ({legal, message, rule, explain})
 * @param {import('../types.js').GameState|null|undefined} state the game state (for unit names)
 * @returns {{lines:PreviewLine[], declarable:boolean, warning:string|null, title:string}}
 */
export function chargePreviewLines(verdict, state) {
  const c = verdict?.explain || {};
  const target = unitName(state, c.target);
  /** @type {PreviewLine[]} */
  const lines = [];
  if (typeof c.distance === 'number') lines.push({ key: 'distance', ok: null, text: `${target} is ${inch(c.distance)} away` });
  if (typeof c.in_arc === 'boolean') lines.push({ key: 'arc', ok: c.in_arc, text: c.in_arc ? 'In the front arc' : 'Not in the front arc' });
  if (typeof c.in_sight === 'boolean') {
    lines.push({ key: 'sight', ok: c.in_sight, text: c.in_sight ? 'In line of sight' : `Not in line of sight${c.sight_blocked_by ? ` (${c.sight_blocked_by} is in the way)` : ''}` });
  }
  if (typeof c.within_range === 'boolean') {
    lines.push({ key: 'range', ok: c.within_range, text: c.within_range ? `Within ${c.declare_within} in` : `Further than ${c.declare_within} in` });
  }
  /** @type {string[]} what the path runs into and what it costs (whfb8: Fanatics) */
  const hazards = Array.isArray(c.hazards) ? c.hazards.map(String) : [];
  if (typeof c.blocked === 'boolean' && 'rule' in c) {
    const open = hazards.length ? 'Path open but dangerous' : 'Path clear';
    lines.push({
      key: 'path', ok: !c.blocked && !hazards.length,
      text: c.blocked
        ? `Path blocked: ${c.rule}${c.obstacle_name ? ` (${c.obstacle_name} is in the way)` : ''} — the charge will fail whatever is rolled`
        : c.wheel ? `${open} with one ${Math.abs(c.wheel)}° wheel to the ${c.wheel > 0 ? 'left' : 'right'} (counted in the distance)` : open,
    });
  }
  if (!c.blocked) for (const text of hazards) lines.push({ key: 'hazard', ok: false, text });
  if (typeof c.needed === 'number' && !c.blocked) {
    const reach = typeof c.max_range === 'number' && c.max_range < c.needed;
    lines.push({
      key: 'needed', ok: !reach,
      text: `Needs ${inch(c.needed)} on ${c.roll || 'the charge roll'}${reach ? ` — at most ${c.max_range} in: out of reach` : ` (at most ${c.max_range} in)`}`,
    });
  }
  if (c.failed_move) lines.push({ key: 'failed', ok: null, text: `If it fails, it moves ${c.failed_move} towards the target` });
  const declarable = Boolean(verdict?.legal);
  let warning = null;
  if (!declarable) warning = `Cannot charge: ${verdict?.message || verdict?.rule || 'not allowed'}`;
  else if (c.blocked) warning = `Warning: the path is blocked by ${c.obstacle_name || c.rule}`;
  else if (c.reachable === false) warning = 'Warning: out of reach even on the highest roll';
  else if (hazards.length) warning = `Warning: ${hazards.join('; ')}`;
  return { lines, declarable, warning, title: `Charge ${target}?` };
}
