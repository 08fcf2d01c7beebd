// How each terrain kind looks: a fill light enough to stand out from the table (at least 3:1,
// WCAG's contrast for graphics) and a pattern of dark marks that says the kind without colour
// (issue 24 item 3): cross-hatch impassable, diagonal stripes blocks sight, dots cover,
// zig-zags dangerous, open ground plain. The canvas and the legend draw from this one table.
// The colour maths is pure (tested under node).

/** @typedef {{fill:string, alpha:number, mark:'hatch'|'stripes'|'dots'|'zigzag'|'none', name:string, says:string}} TerrainStyle */

/** The table's green (view/render.js COLORS.table). */
export const TABLE_COLOR = '#3f5a36';
/** The dark marks of the patterns. */
export const MARK_COLOR = 'rgba(20, 20, 20, 0.75)';

/** @type {Record<string, TerrainStyle>} */
export const TERRAIN_STYLES = {
  impassable: { fill: '#c8c8c8', alpha: 0.9, mark: 'hatch', name: 'Impassable', says: 'cross-hatched: nothing moves through' },
  blocks_los: { fill: '#e0b887', alpha: 0.9, mark: 'stripes', name: 'Blocks line of sight', says: 'striped: hides what is behind it from models no taller than it (a hill is Large)' },
  cover: { fill: '#a9df8e', alpha: 0.85, mark: 'dots', name: 'Cover', says: 'dotted: units in it are in cover' },
  dangerous: { fill: '#f4a6cc', alpha: 0.9, mark: 'zigzag', name: 'Dangerous', says: 'zig-zag: dangerous to move through (Dangerous Terrain tests: not automated, roll them yourselves)' },
  open: { fill: '#d9d1a3', alpha: 0.75, mark: 'none', name: 'Open ground', says: 'plain: no effect' },
};

/** @param {string} kind @returns {TerrainStyle} */
export function terrainStyle(kind) {
  return TERRAIN_STYLES[kind] || TERRAIN_STYLES.open;
}

/** '#rrggbb' to [r, g, b] 0..255. @param {string} hex @returns {number[]} */
export function rgb(hex) {
  const s = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(s.slice(i, i + 2), 16));
}

/** WCAG relative luminance of [r, g, b]. @param {number[]} c */
export function luminance(c) {
  const [r, g, b] = c.map((v) => {
    const x = v / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours [r, g, b]. @param {number[]} a @param {number[]} b */
export function contrast(a, b) {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** A fill as it shows on the table (its alpha over the table's green). @param {TerrainStyle} s */
export function shownFill(s) {
  const f = rgb(s.fill);
  const t = rgb(TABLE_COLOR);
  return f.map((v, i) => Math.round(v * s.alpha + t[i] * (1 - s.alpha)));
}

/** '#rrggbb' with an alpha as a CSS colour. @param {string} hex @param {number} alpha */
export function rgba(hex, alpha) {
  const [r, g, b] = rgb(hex);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

/** Patterns made, per drawing context and mark. @type {WeakMap<CanvasRenderingContext2D, Map<string, CanvasPattern|null>>} */
const patternsByContext = new WeakMap();

/**
 * The repeating marks of a kind as a canvas pattern (made once per kind), or null (open
 * ground, or no canvas to draw it on).
 * @param {CanvasRenderingContext2D} ctx @param {string} kind @returns {CanvasPattern|null}
 */
export function terrainPattern(ctx, kind) {
  const style = terrainStyle(kind);
  if (style.mark === 'none' || typeof document === 'undefined') return null;
  let patterns = patternsByContext.get(ctx);
  if (!patterns) patternsByContext.set(ctx, (patterns = new Map()));
  if (patterns.has(style.mark)) return patterns.get(style.mark) || null;
  const size = 12;
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const g = /** @type {CanvasRenderingContext2D} */ (tile.getContext('2d'));
  drawMarks(g, style.mark, size);
  const p = ctx.createPattern(tile, 'repeat');
  patterns.set(style.mark, p);
  return p;
}

/**
 * The marks of one pattern tile (size × size px).
 * @param {CanvasRenderingContext2D} g @param {TerrainStyle['mark']} mark @param {number} size
 */
export function drawMarks(g, mark, size) {
  g.strokeStyle = MARK_COLOR;
  g.fillStyle = MARK_COLOR;
  g.lineWidth = 1.5;
  g.beginPath();
  if (mark === 'hatch') {
    g.moveTo(0, 0); g.lineTo(size, size);
    g.moveTo(size, 0); g.lineTo(0, size);
    g.stroke();
  } else if (mark === 'stripes') {
    g.moveTo(0, size); g.lineTo(size, 0);
    g.moveTo(-size / 2, size / 2); g.lineTo(size / 2, -size / 2);
    g.moveTo(size / 2, size * 1.5); g.lineTo(size * 1.5, size / 2);
    g.stroke();
  } else if (mark === 'dots') {
    g.arc(size / 2, size / 2, 1.8, 0, Math.PI * 2);
    g.fill();
  } else if (mark === 'zigzag') {
    g.moveTo(0, size * 0.7); g.lineTo(size / 4, size * 0.3); g.lineTo(size / 2, size * 0.7); g.lineTo(size * 0.75, size * 0.3); g.lineTo(size, size * 0.7);
    g.stroke();
  }
}
