// Shooting with sight (issue 19 item 7): while a t9a or whfb8 shooter with the server's `shoot`
// order is selected, its weapons' areas (in range and in the front arc, as the server drew them:
// server/geometry/arcs.py front_arc_reach) are shaded on the table and each enemy unit is
// marked: ✓ in range and sight (with how much of it is seen and its cover), ✗ with why not.
// The server judges; this module only reads its order (pure `sightOf`) and draws it.

import { toScreen } from './transform.js';
import { geometryRings } from './hit.js';
import { unitOffer } from '../ui/offers.js';
import { inches, unitName } from '../format.js';

/** @typedef {import('../types.js').Geometry} Geometry */

/**
 * @typedef {Object} SightTarget
 * @property {string} unit
 * @property {string} name
 * @property {boolean} ok         may be shot at now
 * @property {string} text        in words: "✓ 22.0 in · 82 % seen · soft cover" / "✗ out of range…"
 * @property {string|null} reason the server's reason when not
 * @property {number[][][]} rings  its Unit Boundary, for the mark
 */

/**
 * @typedef {Object} Sight
 * @property {string} shooter
 * @property {boolean} available  the shooter may shoot now
 * @property {string|null} reason
 * @property {{name:string, range:number, area:Geometry|null}[]} weapons  longest range first
 * @property {SightTarget[]} targets  those that may be shot at first
 */

/**
 * What the selected unit may see and reach, from its `shoot` order; null when the server
 * offers it none (not its Shooting phase, not a shooter, a 40k unit: ui/forty.js).
 * @param {import('../types.js').GameState|null|undefined} state @param {string|null|undefined} unitId @returns {Sight|null}
 */
export function sightOf(state, unitId) {
  if (!unitId) return null;
  const o = unitOffer(state, unitId, 'shoot');
  if (!o) return null;
  const weapons = (Array.isArray(o.weapons) ? o.weapons : [])
    .map((w) => ({ name: String(w.name), range: Number(w.range), area: w.area && typeof w.area === 'object' ? w.area : null }))
    .sort((a, b) => b.range - a.range);
  const targets = (Array.isArray(o.targets) ? o.targets : []).map((t) => {
    const id = String(t.unit);
    const name = unitName(state, id);
    const ok = Boolean(t.available);
    const rings = (state?.units?.[id]?.footprint?.features || []).filter((f) => f?.properties?.role === 'boundary')
      .flatMap((f) => geometryRings(f.geometry));
    return { unit: id, name, ok, reason: ok ? null : String(t.reason || 'cannot be shot at now'), text: targetText(t, ok), rings };
  });
  targets.sort((/** @type {SightTarget} */ a, /** @type {SightTarget} */ b) => Number(b.ok) - Number(a.ok));
  return { shooter: String(unitId), available: Boolean(o.available), reason: o.available ? null : String(o.reason || ''), weapons, targets };
}

/** One target in words. @param {import('../types.js').RankedShootTarget} t @param {boolean} ok */
function targetText(t, ok) {
  const bits = [];
  if (typeof t.distance === 'number') bits.push(`${inches(t.distance)}`);
  if (ok) {
    if (typeof t.seen === 'number') bits.push(Math.round(t.seen * 100) >= 100 ? 'fully visible' : `partly visible (${Math.round(t.seen * 100)} %)`);
    bits.push(t.cover && t.cover !== 'none' ? `${t.cover} cover` : 'no cover');
    if (Array.isArray(t.weapons) && t.weapons.length) bits.push(`with ${t.weapons.join(', ')}`);
    return `✓ ${bits.join(' · ')}`;
  }
  // The reason of a target out of range says the distance already.
  if (t.reason) return `✗ ${/ in away/.test(String(t.reason)) ? '' : `${bits.join(' · ')} · `}${t.reason}`;
  return `✗ ${bits.join(' · ')}`;
}

/** @param {CanvasRenderingContext2D} ctx @param {import('./transform.js').View} v @param {number[][]} ring */
function trace(ctx, v, ring) {
  ring.forEach((p, i) => {
    const s = toScreen(v, p[0], p[1]);
    if (i === 0) ctx.moveTo(s.x, s.y);
    else ctx.lineTo(s.x, s.y);
  });
  ctx.closePath();
}

/**
 * Draw the weapons' areas (the longest faintest; a dashed edge with the weapon and its range)
 * and a mark on each enemy unit: a solid green ring and ✓ for a target, a dashed grey ring and
 * ✗ for one that is not (never colour alone).
 * @param {CanvasRenderingContext2D} ctx @param {import('./transform.js').View} v @param {Sight} sight
 */
export function drawSight(ctx, v, sight) {
  // The areas stop at the table's edges.
  const a = toScreen(v, 0, 0);
  const b = toScreen(v, v.width, v.depth);
  ctx.save();
  ctx.beginPath();
  ctx.rect(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.abs(b.x - a.x), Math.abs(b.y - a.y));
  ctx.clip();
  for (const w of sight.weapons) {
    if (!w.area) continue;
    ctx.beginPath();
    let top = null;
    for (const ring of geometryRings(w.area)) {
      trace(ctx, v, ring);
      for (const p of ring) {
        const s = toScreen(v, p[0], p[1]);
        if (!top || s.y < top.y) top = s;
      }
    }
    ctx.fillStyle = sight.available ? 'rgba(255, 225, 77, 0.10)' : 'rgba(200, 200, 200, 0.08)';
    ctx.fill('evenodd');
    ctx.strokeStyle = sight.available ? 'rgba(255, 225, 77, 0.85)' : 'rgba(200, 200, 200, 0.6)';
    ctx.lineWidth = 1.5;
    ctx.setLineDash([6, 4]);
    ctx.stroke();
    ctx.setLineDash([]);
    if (top) {
      ctx.font = '600 11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'bottom';
      ctx.fillStyle = 'rgba(255, 240, 180, 0.95)';
      ctx.fillText(`${w.name} ${w.range} in`, top.x, top.y - 2);
    }
  }
  ctx.restore();
  for (const t of sight.targets) {
    const rings = t.rings;
    if (!rings.length) continue;
    ctx.beginPath();
    let right = null;
    for (const ring of rings) {
      trace(ctx, v, ring);
      for (const p of ring) {
        const s = toScreen(v, p[0], p[1]);
        if (!right || s.x > right.x) right = s;
      }
    }
    ctx.strokeStyle = t.ok ? '#48e070' : 'rgba(200, 200, 200, 0.8)';
    ctx.lineWidth = t.ok ? 3 : 1.5;
    if (!t.ok) ctx.setLineDash([4, 4]);
    ctx.stroke();
    ctx.setLineDash([]);
    if (right) {
      const x = right.x + 10;
      const y = right.y;
      ctx.beginPath();
      ctx.arc(x, y, 8, 0, Math.PI * 2);
      ctx.fillStyle = t.ok ? '#48e070' : '#5a5f68';
      ctx.fill();
      ctx.font = '700 11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = t.ok ? '#062' : '#fff';
      ctx.fillText(t.ok ? '✓' : '✗', x, y + 0.5);
    }
  }
}
