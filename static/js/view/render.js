// Canvas drawing, back to front: table and grid, terrain, pieces, then the overlays (ghost,
// measure, line of sight). Each function draws one layer from plain values; the table module
// calls `drawFrame` once per animation frame. Pieces are batched into one path per owner so
// hundreds of models cost a handful of fill calls.

import { toScreen, visibleWorld } from './transform.js';
import { rectCorners, geometryRings, axes, bbox } from './hit.js';
import { terrainStyle, terrainPattern, rgba, TABLE_COLOR } from './terrain-style.js';
import { drawSight } from './sight.js';

/** @typedef {import('./transform.js').View} View */
/** @typedef {import('./scene.js').Piece} Piece */
/** @typedef {import('./scene.js').Scene} Scene */
/** @typedef {import('../types.js').Geometry} Geometry */
/** @typedef {{zone:Geometry|null, point:{x:number, y:number}|null, fixed:boolean, requested:Geometry|null}} AmbushOverlay */

export const COLORS = {
  background: '#1d2127',
  table: TABLE_COLOR,
  tableEdge: '#c9b98b',
  grid: 'rgba(255,255,255,0.07)',
  gridMajor: 'rgba(255,255,255,0.18)',
  owner: { 1: '#3d7be0', 2: '#e0902c', 0: '#8a8f98' },
  ownerLine: { 1: '#cfe0ff', 2: '#ffe3bd', 0: '#e5e5e5' },
  character: '#f2c94c', // joined characters' ring (issue 19 item 9)
  selected: '#ffffff',
  legal: 'rgba(60, 200, 90, 0.45)',
  legalLine: '#48e070',
  illegal: 'rgba(230, 50, 50, 0.45)',
  illegalLine: '#ff5050',
  pending: 'rgba(220, 220, 220, 0.30)',
  measure: '#ffe14d',
  los: '#7fe7ff',
  blocked: '#ff5d5d',

};

/**
 * @typedef {Object} Ghost
 * @property {number} x
 * @property {number} y
 * @property {number} facing
 * @property {number} width
 * @property {number} depth
 * @property {'unknown'|'legal'|'illegal'|'pending'} verdict
 * @property {string} [text]
 * @property {string} [label]   what is asked ("Pivot 30°"), shown until the verdict comes
 * @property {Geometry|null} [swept]   GeoJSON from the server's preview
 * @property {Geometry} [geometry] a unit's outline (GeoJSON) drawn instead of the rectangle
 */

/**
 * @typedef {Object} Frame
 * @property {View} view
 * @property {number} vw   viewport CSS px
 * @property {number} vh
 * @property {number} dpr
 * @property {Scene} scene
 * @property {string|null} selected
 * @property {Set<string>} [hidden]     ids drawn faded (being dragged)
 * @property {Ghost|null} ghost
 * @property {{points:number[][], label:string}|null} measure
 * @property {{viewer:string|null, target:string|null, lines:number[][][], blocked:number[][][], blockers?:string[], label:string}|null} los
 * @property {string|null} [hover]
 * @property {import('./manoeuvre.js').Handle[]|null} [handles]  wheel/pivot/reform handles
 * @property {{points:number[][], label:string, seat:number, alpha:number}[]} [overlays]  others' measures
 * @property {{points:number[][], label:string}|null} [aim]  the line to the Shoot target of the selected unit (Warhammer 40,000)
 * @property {import('./sight.js').Sight|null} [sight]  the selected shooter's weapon areas and targets (t9a, whfb8)
 * @property {AmbushOverlay|null} [ambush]  the ambush tool
 * @property {{points:number[][], kind:string, closing:boolean}|null} [terrainDraft]  a terrain feature being drawn
 */

/** @param {CanvasRenderingContext2D} ctx @param {Frame} f */
export function drawFrame(ctx, f) {
  ctx.setTransform(f.dpr, 0, 0, f.dpr, 0, 0);
  ctx.fillStyle = COLORS.background;
  ctx.fillRect(0, 0, f.vw, f.vh);
  drawTable(ctx, f.view);
  drawGrid(ctx, f.view, f.vw, f.vh);
  drawZones(ctx, f.view, f.scene.zones || []);
  drawTerrain(ctx, f.view, f.scene.terrain);
  drawObjectives(ctx, f.view, f.scene.objectives || []);
  if (f.sight) drawSight(ctx, f.view, f.sight);
  drawPieces(ctx, f);
  if (f.ambush) drawAmbush(ctx, f.view, f.ambush);
  if (f.terrainDraft) drawTerrainDraft(ctx, f.view, f.terrainDraft);
  if (f.ghost) drawGhost(ctx, f.view, f.ghost);
  if (f.handles) drawHandles(ctx, f.view, f.handles);
  for (const o of f.overlays || []) {
    ctx.globalAlpha = o.alpha;
    drawMeasure(ctx, f.view, o, /** @type {Record<number, string>} */ (COLORS.ownerLine)[o.seat] || COLORS.measure);
    ctx.globalAlpha = 1;
  }
  if (f.aim) drawMeasure(ctx, f.view, f.aim, COLORS.measure);
  if (f.measure) drawMeasure(ctx, f.view, f.measure);
  if (f.los) drawLos(ctx, f.view, f.los, f.scene);
}

/** Handles on the selected unit: wheel at the front corners, pivot knob, reform at the rear.
 * @param {CanvasRenderingContext2D} ctx @param {View} v @param {import('./manoeuvre.js').Handle[]} hs */
function drawHandles(ctx, v, hs) {
  const pivot = hs.find((h) => h.kind === 'pivot');
  const front = hs.filter((h) => h.kind.startsWith('wheel'));
  if (pivot && front.length === 2) {
    const a = toScreen(v, (front[0].x + front[1].x) / 2, (front[0].y + front[1].y) / 2);
    const b = toScreen(v, pivot.x, pivot.y);
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.strokeStyle = 'rgba(255,255,255,0.7)';
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  ctx.font = '700 10px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (const h of hs) {
    const p = toScreen(v, h.x, h.y);
    ctx.beginPath();
    if (h.kind === 'reform') ctx.rect(p.x - 6, p.y - 6, 12, 12);
    else ctx.arc(p.x, p.y, 7, 0, Math.PI * 2);
    const kind = /** @type {string} */ (h.kind);
    ctx.fillStyle = kind === 'pivot' ? '#ffe14d' : kind === 'reform' || kind === 'move' ? '#b48cff' : '#ffffff';
    ctx.fill();
    ctx.strokeStyle = 'rgba(0,0,0,0.7)';
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.fillStyle = '#111';
    ctx.fillText(kind === 'pivot' ? '↻' : kind === 'reform' ? '⇔' : kind === 'move' ? '✥' : 'W', p.x, p.y + 0.5);
  }
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v */
function drawTable(ctx, v) {
  const a = toScreen(v, 0, 0);
  const b = toScreen(v, v.width, v.depth);
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  ctx.fillStyle = COLORS.table;
  ctx.fillRect(x, y, Math.abs(b.x - a.x), Math.abs(b.y - a.y));
  ctx.strokeStyle = COLORS.tableEdge;
  ctx.lineWidth = 2;
  ctx.strokeRect(x, y, Math.abs(b.x - a.x), Math.abs(b.y - a.y));
  // The near edges' owners, small, outside the table.
  ctx.fillStyle = 'rgba(255,255,255,0.55)';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const p1 = toScreen(v, v.width / 2, 0);
  const p2 = toScreen(v, v.width / 2, v.depth);
  ctx.fillText('Player 1 edge', p1.x, p1.y + (v.flip ? -9 : 9));
  ctx.fillText('Player 2 edge', p2.x, p2.y + (v.flip ? 9 : -9));
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v @param {number} vw @param {number} vh */
function drawGrid(ctx, v, vw, vh) {
  const r = visibleWorld(v, vw, vh);
  const x0 = Math.max(0, Math.ceil(r.minX));
  const x1 = Math.min(v.width, Math.floor(r.maxX));
  const y0 = Math.max(0, Math.ceil(r.minY));
  const y1 = Math.min(v.depth, Math.floor(r.maxY));
  const step = v.scale >= 6 ? 1 : v.scale >= 2.5 ? 3 : 6;
  /** @param {number} every @param {string} color @param {(n:number) => boolean} pick */
  const lines = (every, color, pick) => {
    ctx.beginPath();
    for (let x = Math.ceil(x0 / every) * every; x <= x1; x += every) {
      if (!pick(x)) continue;
      const a = toScreen(v, x, 0);
      const b = toScreen(v, x, v.depth);
      ctx.moveTo(Math.round(a.x) + 0.5, a.y);
      ctx.lineTo(Math.round(b.x) + 0.5, b.y);
    }
    for (let y = Math.ceil(y0 / every) * every; y <= y1; y += every) {
      if (!pick(y)) continue;
      const a = toScreen(v, 0, y);
      const b = toScreen(v, v.width, y);
      ctx.moveTo(a.x, Math.round(a.y) + 0.5);
      ctx.lineTo(b.x, Math.round(b.y) + 0.5);
    }
    ctx.strokeStyle = color;
    ctx.lineWidth = 1;
    ctx.stroke();
  };
  lines(step, COLORS.grid, (n) => n % 6 !== 0);
  lines(6, COLORS.gridMajor, () => true);
}

/** Deployment zones, tinted by owner. @param {CanvasRenderingContext2D} ctx @param {View} v @param {import('./scene.js').Zone[]} zones */
function drawZones(ctx, v, zones) {
  for (const z of zones) {
    ctx.beginPath();
    for (const ring of geometryRings(z.geometry)) traceRing(ctx, v, ring);
    ctx.fillStyle = z.owner === 1 ? 'rgba(61,123,224,0.16)' : 'rgba(224,144,44,0.16)';
    ctx.fill('evenodd');
  }
}

/** Objective markers (40k): a gold diamond marked with who holds it (P1, P2, –), its 3 in control ring in the holder's colour, and a label naming it and its holder.
 * @param {CanvasRenderingContext2D} ctx @param {View} v @param {import('./scene.js').Objective[]} marks */
function drawObjectives(ctx, v, marks) {
  for (const m of marks) {
    const c = toScreen(v, m.x, m.y);
    const colour = m.controller ? /** @type {Record<number, string>} */ (COLORS.owner)[m.controller] : '#d8d8d8';
    ctx.beginPath();
    ctx.arc(c.x, c.y, (20 / 25.4 + 3) * v.scale, 0, Math.PI * 2);
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = colour;
    ctx.stroke();
    ctx.setLineDash([]);
    // The marker itself: a gold diamond (never mistaken for a round model base), with who holds
    // it written on it ("P1", "–") and in the label under it ("Objective 1 · P1 holds · OC
    // 4:2"): not by colour alone.
    const r = Math.max(9, (20 / 25.4) * v.scale * 1.25);
    ctx.beginPath();
    ctx.moveTo(c.x, c.y - r);
    ctx.lineTo(c.x + r, c.y);
    ctx.lineTo(c.x, c.y + r);
    ctx.lineTo(c.x - r, c.y);
    ctx.closePath();
    ctx.fillStyle = '#e8c547';
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = m.controller ? colour : '#222';
    ctx.stroke();
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.font = '700 10px system-ui, sans-serif';
    ctx.fillStyle = '#111';
    ctx.fillText(m.controller ? `P${m.controller}` : '–', c.x, c.y);
    ctx.textBaseline = 'top';
    ctx.font = '600 10px system-ui, sans-serif';
    const y = c.y + (20 / 25.4 + 3) * v.scale + 2;
    // Two markers share a row (the 40k layout): neither label may take more than half the board.
    const board = tableBox(v);
    const placed = boardLabel([`${m.name} · ${m.label}`, m.name, m.label], c.x, board, (t) => ctx.measureText(t).width, (board.x1 - board.x0) / 2 - 8);
    ctx.lineWidth = 3;
    ctx.strokeStyle = 'rgba(0,0,0,0.75)';
    ctx.fillStyle = '#fff';
    placed.lines.forEach((line, i) => {
      ctx.strokeText(line, placed.x, y + i * 12);
      ctx.fillText(line, placed.x, y + i * 12);
    });
  }
}

/** The table's box on the screen. @param {View} v @returns {Box} */
function tableBox(v) {
  const a = toScreen(v, 0, 0);
  const b = toScreen(v, v.width, v.depth);
  return { x0: Math.min(a.x, b.x), y0: Math.min(a.y, b.y), x1: Math.max(a.x, b.x), y1: Math.max(a.y, b.y) };
}

/**
 * A centred label kept inside the board (a marker near a table edge on a phone would push
 * half of it off): the whole text on one line if it fits the board, else the following
 * parts on a line each (`[whole, first, second]`), each cut to fit; the centre moved in so no
 * line crosses the board's edge. Pure apart from `measure`.
 * @param {string[]} parts @param {number} cx @param {Box} board @param {(s:string) => number} measure
 * @param {number} [widest] the most one line may take (px; default: the board's width)
 * @returns {{lines:string[], x:number, width:number}}
 */
export function boardLabel(parts, cx, board, measure, widest = Infinity) {
  const room = Math.max(0, Math.min(board.x1 - board.x0 - 8, widest));
  const [whole, ...rest] = parts;
  const lines = measure(whole) <= room || !rest.length ? [fitLabel(whole, room, measure)] : rest.map((t) => fitLabel(t, room, measure));
  const width = Math.max(0, ...lines.map(measure));
  const x = Math.min(Math.max(cx, board.x0 + 4 + width / 2), board.x1 - 4 - width / 2);
  return { lines: lines.filter(Boolean), x, width };
}

/** Terrain: each kind's light fill and its pattern of dark marks (view/terrain-style.js), so
 * the kind shows without colour. @param {CanvasRenderingContext2D} ctx @param {View} v @param {import('./scene.js').TerrainPiece[]} terrain */
function drawTerrain(ctx, v, terrain) {
  for (const t of terrain) {
    const style = terrainStyle(t.kind);
    ctx.beginPath();
    for (const ring of geometryRings(t.geometry)) traceRing(ctx, v, ring);
    ctx.fillStyle = rgba(style.fill, style.alpha);
    ctx.fill('evenodd');
    const pattern = terrainPattern(ctx, t.kind);
    if (pattern) {
      ctx.fillStyle = pattern;
      ctx.fill('evenodd');
    }
    ctx.strokeStyle = 'rgba(0,0,0,0.7)';
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  // Names, small, where there is room for them: dark on a light halo over the light fills.
  ctx.font = '600 11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.lineWidth = 3;
  ctx.strokeStyle = 'rgba(255,255,255,0.85)';
  ctx.fillStyle = '#111';
  const board = tableBox(v);
  const measure = (/** @type {string} */ s) => ctx.measureText(s).width;
  for (const t of terrain) {
    if (!t.label) continue;
    const ring = geometryRings(t.geometry)[0];
    if (!ring?.length) continue;
    const b = bbox(ring);
    const px = (b.maxX - b.minX) * v.scale;
    // On a small board (a phone) the name is cut to the piece (or its initials), not left out.
    if (px < 16) continue;
    const c = toScreen(v, (b.minX + b.maxX) / 2, (b.minY + b.maxY) / 2);
    const text = fitLabel(t.label, Math.max(px * 1.4, 36), measure);
    if (!text) continue;
    const { x } = boardLabel([text], c.x, board, measure);
    ctx.strokeText(text, x, c.y);
    ctx.fillText(text, x, c.y);
  }
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v @param {number[][]} ring */
function traceRing(ctx, v, ring) {
  ring.forEach(([x, y], i) => {
    const p = toScreen(v, x, y);
    if (i === 0) ctx.moveTo(p.x, p.y);
    else ctx.lineTo(p.x, p.y);
  });
  ctx.closePath();
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v @param {Piece} p */
function tracePiece(ctx, v, p) {
  if (p.rect) traceRing(ctx, v, rectCorners(p.rect));
  else if (p.circle) {
    const c = toScreen(v, p.circle.x, p.circle.y);
    ctx.moveTo(c.x + p.circle.r * v.scale, c.y);
    ctx.arc(c.x, c.y, p.circle.r * v.scale, 0, Math.PI * 2);
  } else for (const ring of geometryRings(p.geometry)) traceRing(ctx, v, ring);
}

/** A piece's centre and size in inches, for culling, markers and labels. @param {Piece} p */
export function pieceCentre(p) {
  if (p.rect) return { x: p.rect.x, y: p.rect.y, size: Math.min(p.rect.width, p.rect.depth), span: Math.max(p.rect.width, p.rect.depth) };
  if (p.circle) return { x: p.circle.x, y: p.circle.y, size: 2 * p.circle.r, span: 2 * p.circle.r };
  // Every ring: a 40k unit's boundary is one polygon per model.
  const rings = geometryRings(p.geometry);
  const ring = rings.length > 1 ? rings.flat() : rings[0] || [[0, 0]];
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of ring) {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x);
    minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  return { x: (minX + maxX) / 2, y: (minY + maxY) / 2, size: Math.min(maxX - minX, maxY - minY), span: Math.max(maxX - minX, maxY - minY) };
}

/** @param {CanvasRenderingContext2D} ctx @param {Frame} f */
function drawPieces(ctx, f) {
  const v = f.view;
  const r = visibleWorld(v, f.vw, f.vh);
  /** @type {Map<number, Piece[]>} */
  const byOwner = new Map();
  /** @type {Piece[]} */
  const visible = [];
  for (const p of f.scene.pieces) {
    const c = pieceCentre(p);
    if (c.x + c.span < r.minX || c.x - c.span > r.maxX || c.y + c.span < r.minY || c.y - c.span > r.maxY) continue;
    visible.push(p);
    const owner = p.owner === 1 || p.owner === 2 ? p.owner : 0;
    if (!byOwner.has(owner)) byOwner.set(owner, []);
    /** @type {Piece[]} */ (byOwner.get(owner)).push(p);
  }
  const outlines = visible.filter((p) => p.kind === 'boundary');
  if (outlines.length) {
    ctx.beginPath();
    for (const p of outlines) tracePiece(ctx, v, p);
    ctx.strokeStyle = 'rgba(255,255,255,0.45)';
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.setLineDash([]);
  }
  for (const [owner, list] of byOwner) {
    ctx.beginPath();
    for (const p of list) if (p.kind !== 'boundary') tracePiece(ctx, v, p);
    ctx.globalAlpha = 1;
    ctx.fillStyle = /** @type {Record<number, string>} */ (COLORS.owner)[owner];
    ctx.fill();
    ctx.strokeStyle = /** @type {Record<number, string>} */ (COLORS.ownerLine)[owner];
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  // Joined characters stand out from the rank and file: a gold ring inside their base.
  const characters = visible.filter((p) => p.character);
  if (characters.length) {
    ctx.beginPath();
    for (const p of characters) tracePiece(ctx, v, p);
    ctx.strokeStyle = COLORS.character;
    ctx.lineWidth = 2.5;
    ctx.stroke();
  }
  drawFacingMarkers(ctx, v, visible);
  if (f.hidden?.size) {
    ctx.beginPath();
    for (const p of visible) if (f.hidden.has(p.id)) tracePiece(ctx, v, p);
    ctx.fillStyle = 'rgba(29,33,39,0.55)';
    ctx.fill();
  }
  for (const id of [f.hover, f.selected]) {
    if (!id) continue;
    ctx.beginPath();
    for (const p of visible) if (p.id === id) tracePiece(ctx, v, p);
    ctx.strokeStyle = id === f.selected ? COLORS.selected : 'rgba(255,255,255,0.6)';
    ctx.lineWidth = id === f.selected ? 3 : 1.5;
    ctx.stroke();
  }
  drawLabels(ctx, v, visible, f.selected, f.hover || null);
}

/** A short bar along each piece's front edge. @param {CanvasRenderingContext2D} ctx @param {View} v @param {Piece[]} pieces */
function drawFacingMarkers(ctx, v, pieces) {
  ctx.beginPath();
  for (const p of pieces) {
    if (p.front) {
      frontMarker(ctx, v, p.front);
      continue;
    }
    if (p.geometry || p.facing === undefined) continue;
    const c = pieceCentre(p);
    if (c.size * v.scale < 5) continue;
    const { fx, fy, rx, ry } = axes(p.facing);
    const half = p.rect ? p.rect.depth / 2 : c.size / 2;
    const w = (p.rect ? p.rect.width : c.size) * 0.35;
    const inset = Math.min(half * 0.25, 0.25);
    const tipX = c.x + fx * (half - inset);
    const tipY = c.y + fy * (half - inset);
    const back = Math.min(half * 0.6, w);
    const a = toScreen(v, tipX, tipY);
    const b = toScreen(v, tipX - fx * back + rx * w, tipY - fy * back + ry * w);
    const d = toScreen(v, tipX - fx * back - rx * w, tipY - fy * back - ry * w);
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.lineTo(d.x, d.y);
    ctx.closePath();
  }
  ctx.fillStyle = 'rgba(255,255,255,0.85)';
  ctx.fill();
}

/** A triangle just in front of a unit's front centre, pointing along its facing.
 * @param {CanvasRenderingContext2D} ctx @param {View} v @param {{x:number, y:number, facing:number}} f */
function frontMarker(ctx, v, f) {
  const { fx, fy, rx, ry } = axes(f.facing);
  const size = Math.max(0.4, 8 / v.scale);
  const a = toScreen(v, f.x + fx * size * 1.2, f.y + fy * size * 1.2);
  const b = toScreen(v, f.x + rx * size * 0.7, f.y + ry * size * 0.7);
  const c = toScreen(v, f.x - rx * size * 0.7, f.y - ry * size * 0.7);
  ctx.moveTo(a.x, a.y);
  ctx.lineTo(b.x, b.y);
  ctx.lineTo(c.x, c.y);
  ctx.closePath();
}

/**
 * A label that fits `max` px at full size (never squeezed, issue 24 item 5): the name; else
 * the name cut with an ellipsis (at least 4 letters); else its initials ("Citizen Spears" →
 * "CS"); else nothing. What tells a unit apart stays whole: the number of a same-named unit
 * ("Night Gob… (2)", "NG (2)") and a marker after " · " ("Boyz · Battle-shocked"), the marker
 * dropped only when nothing fits with it. Pure apart from `measure`.
 * @param {string} text @param {number} max @param {(s:string) => number} measure @returns {string}
 */
export function fitLabel(text, max, measure) {
  if (measure(text) <= max) return text;
  const [, name, number, marks] = /** @type {RegExpExecArray} */ (/^(.*?)((?: \(\d+\))?)((?: · .+)?)$/s.exec(text));
  const initials = name.split(/\s+/).filter(Boolean).map((w) => (/^\d+$/.test(w) ? w : w[0].toUpperCase())).join('');
  for (const tail of marks ? [`${number}${marks}`, number] : [number]) {
    if (tail !== `${number}${marks}` && measure(`${name}${tail}`) <= max) return `${name}${tail}`;
    for (let n = name.length - 1; n >= 4; n -= 1) {
      const cut = `${name.slice(0, n).trimEnd()}…${tail}`;
      if (measure(cut) <= max) return cut;
    }
    if (initials && measure(`${initials}${tail}`) <= max) return `${initials}${tail}`;
  }
  return '';
}

/** @typedef {{x0:number, y0:number, x1:number, y1:number}} Box */

/** A piece's box on the screen. @param {View} v @param {Piece} p @returns {Box} */
function screenBox(v, p) {
  /** @type {number[][]} */
  let pts;
  if (p.rect) pts = rectCorners(p.rect);
  else if (p.circle) pts = [[p.circle.x - p.circle.r, p.circle.y - p.circle.r], [p.circle.x + p.circle.r, p.circle.y + p.circle.r]];
  else pts = geometryRings(p.geometry).flat();
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const [x, y] of pts) {
    const q = toScreen(v, x, y);
    box.x0 = Math.min(box.x0, q.x); box.x1 = Math.max(box.x1, q.x);
    box.y0 = Math.min(box.y0, q.y); box.y1 = Math.max(box.y1, q.y);
  }
  return box;
}

/** @param {Box} a @param {Box} b */
function overlaps(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/**
 * Unit names under (or, when that is taken, over) each unit, readable at full size and never
 * over another unit (one in contact), nor over the selected unit and its handles: a label
 * with no free place is left out (the units list names every unit). Wounds on the models.
 * The hovered and the selected unit's whole name is drawn on a dark box over everything
 * (a cut or left-out label is read there: issue 19 item 9).
 * @param {CanvasRenderingContext2D} ctx @param {View} v @param {Piece[]} pieces @param {string|null} [selected]
 * @param {string|null} [hover]
 */
function drawLabels(ctx, v, pieces, selected = null, hover = null) {
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.font = '600 11px system-ui, sans-serif';
  // The screen box of every labelled piece (a unit's boundary, a token); the selected one
  // grown by its handles' reach.
  /** @type {{id:string, box:Box}[]} */
  const boxes = [];
  for (const p of pieces) {
    if (!p.labelHere) continue;
    const b = screenBox(v, p);
    const grow = p.id === selected ? 22 : 0;
    boxes.push({ id: p.id, box: { x0: b.x0 - grow, y0: b.y0 - grow, x1: b.x1 + grow, y1: b.y1 + grow } });
  }
  const measure = (/** @type {string} */ t) => ctx.measureText(t).width;
  for (const p of pieces) {
    const c = pieceCentre(p);
    const px = c.span * v.scale;
    if (!((p.labelHere && px >= 24) || p.wounds)) continue;
    const s = toScreen(v, c.x, c.y);
    if (p.labelHere && p.label && px >= 24 && p.id !== selected) {
      const own = screenBox(v, p);
      const text = fitLabel(p.label, Math.max(48, px * 1.6), measure);
      const w = measure(text) + 6;
      const cx = (own.x0 + own.x1) / 2;
      const at = [own.y1 + 9, own.y0 - 9].find((y) => {
        const box = { x0: cx - w / 2, y0: y - 8, x1: cx + w / 2, y1: y + 8 };
        return !boxes.some((b) => b.id !== p.id && overlaps(box, b.box));
      });
      if (text && at !== undefined) {
        ctx.lineWidth = 3;
        ctx.strokeStyle = 'rgba(0,0,0,0.75)';
        ctx.strokeText(text, cx, at);
        ctx.fillStyle = '#fff';
        ctx.fillText(text, cx, at);
      }
    }
    if (p.wounds && c.size * v.scale >= 14) {
      ctx.fillStyle = '#fff';
      ctx.fillText(p.wounds, s.x, s.y);
    }
  }
  for (const { piece, grow } of fullLabels(pieces, hover, selected)) {
    const own = screenBox(v, piece);
    const text = String(piece.label);
    const w = measure(text) + 10;
    const cx = (own.x0 + own.x1) / 2;
    // Below the unit (past its handles' reach), else above it; never over another unit (one
    // in contact, issue 24 item 5): where neither is free the name stays in the side panel.
    const y = [own.y1 + grow + 10, own.y0 - grow - 10].find((at) => {
      const box = { x0: cx - w / 2, y0: at - 8, x1: cx + w / 2, y1: at + 8 };
      return !boxes.some((b) => b.id !== piece.id && overlaps(box, b.box));
    });
    if (y === undefined) continue;
    ctx.fillStyle = 'rgba(15,17,20,0.88)';
    ctx.fillRect(cx - w / 2, y - 8, w, 16);
    ctx.fillStyle = '#fff';
    ctx.fillText(text, cx, y + 0.5);
  }
}

/**
 * The units whose whole name is shown (issue 19 item 9): the hovered one and the selected one
 * (below its handles' reach), each once. Pure.
 * @param {Piece[]} pieces @param {string|null} hover @param {string|null} selected
 * @returns {{piece:Piece, grow:number}[]}
 */
export function fullLabels(pieces, hover, selected) {
  const out = [];
  for (const id of new Set([selected, hover])) {
    if (!id) continue;
    const piece = pieces.find((p) => p.id === id && p.labelHere && p.label);
    if (piece) out.push({ piece, grow: id === selected ? 22 : 0 });
  }
  return out;
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v @param {Ghost} g */
export function drawGhost(ctx, v, g) {
  const fill = g.verdict === 'legal' ? COLORS.legal : g.verdict === 'illegal' ? COLORS.illegal : COLORS.pending;
  const line = g.verdict === 'legal' ? COLORS.legalLine : g.verdict === 'illegal' ? COLORS.illegalLine : '#ddd';
  if (g.swept) {
    ctx.beginPath();
    for (const ring of geometryRings(g.swept)) traceRing(ctx, v, ring);
    ctx.fillStyle = g.verdict === 'illegal' ? 'rgba(230,50,50,0.15)' : 'rgba(60,200,90,0.15)';
    ctx.fill('evenodd');
  }
  ctx.beginPath();
  if (g.geometry) for (const ring of geometryRings(g.geometry)) traceRing(ctx, v, ring);
  else traceRing(ctx, v, rectCorners(g));
  ctx.fillStyle = fill;
  ctx.fill('evenodd');
  if (g.verdict === 'illegal') {
    // Not by colour alone (issue 24 item 3): a heavy black-and-white dotted outline and a
    // "not allowed" sign, which read under any colour vision.
    ctx.lineWidth = 5;
    ctx.strokeStyle = '#000';
    ctx.stroke();
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#fff';
    ctx.stroke();
  } else {
    ctx.setLineDash([6, 4]);
    ctx.strokeStyle = line;
    ctx.lineWidth = 2;
    ctx.stroke();
  }
  ctx.setLineDash([]);
  if (!g.geometry) drawFacingMarkers(ctx, v, [{ id: '', kind: 'token', owner: 0, label: '', rect: g, facing: g.facing }]);
  if (g.verdict === 'illegal') {
    // On the ghost's far edge, next to its words, leaving the ghost's middle to show its fill.
    const c = toScreen(v, g.x, g.y);
    notAllowedSign(ctx, c.x, c.y - (Math.max(g.width, g.depth) * v.scale) / 2, 10);
  }
  const text = g.text || g.label;
  if (text) {
    const s = toScreen(v, g.x, g.y);
    const dy = (Math.max(g.width, g.depth) * v.scale) / 2 + 16;
    callout(ctx, text, s.x, s.y - dy, line);
  }
}

/** A "not allowed" sign: a white disc with a black ring and bar. @param {CanvasRenderingContext2D} ctx @param {number} x @param {number} y @param {number} r */
function notAllowedSign(ctx, x, y, r) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = '#fff';
  ctx.fill();
  ctx.lineWidth = Math.max(2, r / 4);
  ctx.strokeStyle = '#000';
  ctx.stroke();
  ctx.beginPath();
  const d = r * 0.62;
  ctx.moveTo(x - d, y - d);
  ctx.lineTo(x + d, y + d);
  ctx.stroke();
}

/** A text box with a coloured border. @param {CanvasRenderingContext2D} ctx @param {string} text @param {number} x @param {number} y @param {string} color */
export function callout(ctx, text, x, y, color) {
  ctx.font = '600 13px system-ui, sans-serif';
  const w = ctx.measureText(text).width + 14;
  ctx.fillStyle = 'rgba(15,17,20,0.88)';
  ctx.fillRect(x - w / 2, y - 11, w, 22);
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x - w / 2, y - 11, w, 22);
  ctx.fillStyle = '#fff';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x, y + 0.5);
}

/** @param {CanvasRenderingContext2D} ctx @param {View} v @param {{points:number[][], label:string}} m @param {string} [color] */
function drawMeasure(ctx, v, m, color = COLORS.measure) {
  if (m.points.length < 2) return;
  ctx.beginPath();
  m.points.forEach(([x, y], i) => {
    const p = toScreen(v, x, y);
    if (i === 0) ctx.moveTo(p.x, p.y);
    else ctx.lineTo(p.x, p.y);
  });
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.setLineDash([8, 5]);
  ctx.stroke();
  ctx.setLineDash([]);
  for (const [x, y] of [m.points[0], m.points[m.points.length - 1]]) {
    const p = toScreen(v, x, y);
    ctx.beginPath();
    ctx.arc(p.x, p.y, 4, 0, Math.PI * 2);
    ctx.fillStyle = color;
    ctx.fill();
  }
  if (m.label) {
    const a = m.points[0];
    const b = m.points[m.points.length - 1];
    const mid = toScreen(v, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
    callout(ctx, m.label, mid.x, mid.y - 16, color);
  }
}

/**
 * Sight lines (clear in cyan, blocked in red), the blockers outlined in red, and the verdict.
 * With no clear line, a dashed red line joins the two units.
 * @param {CanvasRenderingContext2D} ctx @param {View} v
 * @param {{viewer:string|null, target:string|null, lines:number[][][], blocked:number[][][], blockers?:string[], coverFrom?:string[], label:string}} l
 * @param {import('./scene.js').Scene} scene
 */
function drawLos(ctx, v, l, scene) {
  /** @param {number[][][]} segs @param {string} color */
  const stroke = (segs, color) => {
    ctx.beginPath();
    for (const seg of segs) {
      seg.forEach(([x, y], i) => {
        const p = toScreen(v, x, y);
        if (i === 0) ctx.moveTo(p.x, p.y);
        else ctx.lineTo(p.x, p.y);
      });
    }
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  };
  /** @param {Set<string>} ids @param {string} color */
  const outline = (ids, color) => {
    ctx.beginPath();
    for (const t of scene.terrain) if (ids.has(t.id)) for (const ring of geometryRings(t.geometry)) traceRing(ctx, v, ring);
    for (const p of scene.pieces) if (ids.has(p.id) && p.kind !== 'model') tracePiece(ctx, v, p);
    ctx.strokeStyle = color;
    ctx.lineWidth = 3;
    ctx.setLineDash([6, 3]);
    ctx.stroke();
    ctx.setLineDash([]);
  };
  if (l.coverFrom?.length) outline(new Set(l.coverFrom), COLORS.measure);
  const blockers = new Set(l.blockers || []);
  if (blockers.size) outline(blockers, COLORS.blocked);
  stroke(l.lines, COLORS.los);
  stroke(l.blocked, COLORS.blocked);
  let first = l.lines[0] || l.blocked[0];
  if (!first && l.viewer && l.target) {
    const a = centreOf(scene, l.viewer);
    const b = centreOf(scene, l.target);
    if (a && b) {
      first = [a, b];
      ctx.setLineDash([8, 6]);
      stroke([first], COLORS.blocked);
      ctx.setLineDash([]);
    }
  }
  if (first && l.label) {
    const a = first[0];
    const b = first[first.length - 1];
    const mid = toScreen(v, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
    callout(ctx, l.label, mid.x, mid.y - 16, l.lines.length ? COLORS.los : COLORS.blocked);
  }
}

/** The centre of a unit's (or token's) first piece, inches. @param {import('./scene.js').Scene} scene @param {string} id @returns {number[]|null} */
function centreOf(scene, id) {
  const p = scene.pieces.find((x) => x.id === id);
  if (!p) return null;
  const c = pieceCentre(p);
  return [c.x, c.y];
}

/**
 * A terrain feature being drawn: its corners, the outline so far and the edge to the pointer
 * (closing on the first corner when the pointer is on it).
 * @param {CanvasRenderingContext2D} ctx @param {View} v
 * @param {{points:number[][], kind:string, closing:boolean}} d
 */
function drawTerrainDraft(ctx, v, d) {
  const pts = d.points.map(([x, y]) => toScreen(v, x, y));
  ctx.beginPath();
  pts.forEach((p, i) => (i ? ctx.lineTo(p.x, p.y) : ctx.moveTo(p.x, p.y)));
  if (d.closing) ctx.closePath();
  ctx.fillStyle = 'rgba(255, 225, 77, 0.12)';
  if (pts.length > 2) ctx.fill();
  ctx.setLineDash([6, 4]);
  ctx.strokeStyle = COLORS.measure;
  ctx.lineWidth = 2;
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.fillStyle = COLORS.measure;
  for (const p of pts.slice(0, d.points.length - 1 || 1)) {
    ctx.beginPath();
    ctx.arc(p.x, p.y, 4, 0, Math.PI * 2);
    ctx.fill();
  }
}

/**
 * The ambush tool: the 6 in zone around the edge point (from the server), the point itself,
 * and, dashed, the placement the player asks for when the ghost snapped away from it.
 * @param {CanvasRenderingContext2D} ctx @param {View} v
 * @param {AmbushOverlay} a
 */
function drawAmbush(ctx, v, a) {
  if (a.zone) {
    ctx.beginPath();
    for (const ring of geometryRings(a.zone)) traceRing(ctx, v, ring);
    ctx.fillStyle = 'rgba(255, 225, 77, 0.14)';
    ctx.fill('evenodd');
    ctx.setLineDash([6, 4]);
    ctx.strokeStyle = COLORS.measure;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.setLineDash([]);
  }
  if (a.requested) {
    ctx.beginPath();
    for (const ring of geometryRings(a.requested)) traceRing(ctx, v, ring);
    ctx.setLineDash([3, 3]);
    ctx.strokeStyle = COLORS.illegalLine;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    ctx.setLineDash([]);
  }
  if (a.point) {
    const p = toScreen(v, a.point.x, a.point.y);
    ctx.beginPath();
    ctx.arc(p.x, p.y, a.fixed ? 6 : 4, 0, Math.PI * 2);
    ctx.fillStyle = COLORS.measure;
    ctx.fill();
    ctx.strokeStyle = 'rgba(0,0,0,0.7)';
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
}
