// Drawn over the table after the frame: badges on fleeing and shaken units, and the swept
// areas of charges and flights flashing for a moment as they arrive. Plain values in, pixels
// out; the table calls it once per frame.

import { toScreen } from './transform.js';
import { geometryRings } from './hit.js';
import { markerBadges, unitName } from '../format.js';

/** How long a swept area flashes, ms. */
export const FLASH_MS = 2500;

const BADGE_COLORS = /** @type {Record<string, string>} */ ({ Fleeing: '#ff5050', Shaken: '#d9b43a' });

/** Opacity of a flash `age` ms old. @param {number} age */
export function flashAlpha(age) {
  return Math.max(0, Math.min(1, 1 - age / FLASH_MS));
}

/**
 * @param {CanvasRenderingContext2D} ctx @param {import('./transform.js').View} v @param {import('../types.js').GameState|null} state
 * @param {{flashes?:{geometry:import('../types.js').Geometry, born:number, kind:string}[], proposalGhost?:{proposal:string, unit:string, label:string}|null}} holder  keeps the live flashes; records the proposal ghost drawn
 * @param {number} now
 * @returns {boolean} true while something is still animating (ask for another frame)
 */
export function drawOrderLayer(ctx, v, state, holder, now) {
  const flashes = (holder.flashes || []).filter((f) => now - f.born < FLASH_MS);
  holder.flashes = flashes;
  for (const f of flashes) {
    ctx.globalAlpha = flashAlpha(now - f.born);
    ctx.beginPath();
    for (const ring of geometryRings(f.geometry)) {
      ring.forEach((/** @type {number[]} */ p, i) => {
        const s = toScreen(v, p[0], p[1]);
        if (i === 0) ctx.moveTo(s.x, s.y);
        else ctx.lineTo(s.x, s.y);
      });
      ctx.closePath();
    }
    ctx.fillStyle = f.kind === 'flee' ? 'rgba(255,80,80,0.35)' : 'rgba(255,225,77,0.35)';
    ctx.fill('evenodd');
    ctx.strokeStyle = f.kind === 'flee' ? '#ff5050' : '#ffe14d';
    ctx.lineWidth = 2;
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  holder.proposalGhost = drawProposalGhost(ctx, v, state);
  for (const u of Object.values(state?.units || {})) {
    if (u.status !== 'on_table') continue;
    const badges = markerBadges(u);
    if (!badges.length) continue;
    const top = topOf(v, u);
    if (top) drawBadges(ctx, badges, top.x, top.y - 10);
  }
  return flashes.length > 0;
}

/**
 * The open free-move proposal's position, drawn on every table (the opponent's, the
 * spectators', the proposer's): a dashed outline with a hatched fill and its words, so that
 * what is asked is seen before it is answered (issue 19 item 2). Returns what it drew.
 * @param {CanvasRenderingContext2D} ctx @param {import('./transform.js').View} v @param {import('../types.js').GameState|null} state
 * @returns {{proposal:string, unit:string, label:string}|null}
 */
export function drawProposalGhost(ctx, v, state) {
  const p = state?.proposal;
  const outline = p?.kind === 'free_move' && p.open !== false ? p.free_move?.outline : null;
  if (!p || !outline) return null;
  const unitId = String(p.free_move?.unit || '');
  const name = state?.units?.[unitId] ? unitName(state, unitId) : 'unit';
  const label = `Proposed: ${name} (free move, player ${p.by})`;
  ctx.beginPath();
  /** @type {{x:number, y:number}|null} */
  let top = null;
  for (const ring of geometryRings(outline)) {
    ring.forEach((/** @type {number[]} */ pt, i) => {
      const s = toScreen(v, pt[0], pt[1]);
      if (!top || s.y < top.y) top = s;
      if (i === 0) ctx.moveTo(s.x, s.y);
      else ctx.lineTo(s.x, s.y);
    });
    ctx.closePath();
  }
  ctx.fillStyle = 'rgba(120,170,255,0.3)';
  ctx.fill('evenodd');
  ctx.setLineDash([8, 4]);
  ctx.lineWidth = 2;
  ctx.strokeStyle = '#9cc2ff';
  ctx.stroke();
  ctx.setLineDash([]);
  if (top) {
    const t = /** @type {{x:number, y:number}} */ (top);
    ctx.font = '12px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.lineWidth = 3;
    ctx.strokeStyle = 'rgba(0,0,0,0.8)';
    ctx.strokeText(label, t.x, t.y - 6);
    ctx.fillStyle = '#dbe8ff';
    ctx.fillText(label, t.x, t.y - 6);
  }
  return { proposal: String(p.id), unit: unitId, label };
}

/** The screen point above a unit's outline. @param {import('./transform.js').View} v @param {import('../types.js').Unit} u */
function topOf(v, u) {
  const features = u.footprint?.features;
  if (!Array.isArray(features) || !features.length) return null;
  let minY = Infinity;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const f of features) {
    for (const ring of geometryRings(f?.geometry)) {
      for (const p of ring) {
        const s = toScreen(v, p[0], p[1]);
        minY = Math.min(minY, s.y);
        minX = Math.min(minX, s.x);
        maxX = Math.max(maxX, s.x);
      }
    }
  }
  return Number.isFinite(minY) ? { x: (minX + maxX) / 2, y: minY } : null;
}

/** @param {CanvasRenderingContext2D} ctx @param {string[]} badges @param {number} x @param {number} y */
function drawBadges(ctx, badges, x, y) {
  ctx.font = '700 11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const widths = badges.map((b) => ctx.measureText(b.toUpperCase()).width + 12);
  let left = x - (widths.reduce((a, b) => a + b, 0) + 4 * (badges.length - 1)) / 2;
  badges.forEach((b, i) => {
    const w = widths[i];
    ctx.fillStyle = BADGE_COLORS[b] || '#888';
    ctx.fillRect(left, y - 8, w, 16);
    ctx.fillStyle = '#111';
    ctx.fillText(b.toUpperCase(), left + w / 2, y + 0.5);
    left += w + 4;
  });
}
