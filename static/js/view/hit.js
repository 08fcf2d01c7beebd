// Hit testing in world inches: rotated rectangles (tokens, bases) and GeoJSON polygons
// (footprints the server sends). Pure functions, no DOM; drawing order decides which piece is
// on top, so `topmost` scans from the end.

/** @typedef {[number, number]} Pos */
/** @typedef {{x:number, y:number, facing:number, width:number, depth:number}} Rect */
/** @typedef {import('../types.js').Geometry} Geometry */

const DEG = Math.PI / 180;

/**
 * Unit vectors of a facing (degrees, 0 = +y, counter-clockwise): forward and right.
 * @param {number} facingDeg
 * @returns {{fx:number, fy:number, rx:number, ry:number}}
 */
export function axes(facingDeg) {
  const f = facingDeg * DEG;
  const fx = -Math.sin(f);
  const fy = Math.cos(f);
  return { fx, fy, rx: fy, ry: -fx };
}

/**
 * The four corners of a rectangle placed by its centre: front-left, front-right, back-right,
 * back-left (front = the facing side).
 * @param {Rect} r @returns {Pos[]}
 */
export function rectCorners(r) {
  const { fx, fy, rx, ry } = axes(r.facing || 0);
  const hw = r.width / 2;
  const hd = r.depth / 2;
  /** @param {number} a across @param {number} b along @returns {Pos} */
  const p = (a, b) => [r.x + a * rx + b * fx, r.y + a * ry + b * fy];
  return [p(-hw, hd), p(hw, hd), p(hw, -hd), p(-hw, -hd)];
}

/**
 * Whether (x, y) lies inside a rotated rectangle (edges included).
 * @param {Rect} r @param {number} x @param {number} y
 */
export function pointInRect(r, x, y) {
  const { fx, fy, rx, ry } = axes(r.facing || 0);
  const dx = x - r.x;
  const dy = y - r.y;
  const across = dx * rx + dy * ry;
  const along = dx * fx + dy * fy;
  const eps = 1e-9;
  return Math.abs(across) <= r.width / 2 + eps && Math.abs(along) <= r.depth / 2 + eps;
}

/**
 * Even-odd test against one closed or open ring.
 * @param {number[][]} ring @param {number} x @param {number} y
 */
export function pointInRing(ring, x, y) {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * Whether (x, y) lies inside a GeoJSON Polygon or MultiPolygon (holes respected).
 * @param {Geometry|null|undefined} geom @param {number} x @param {number} y @returns {boolean}
 */
export function pointInGeometry(geom, x, y) {
  if (!geom) return false;
  if (geom.type === 'Polygon') return pointInPolygonRings(geom.coordinates, x, y);
  if (geom.type === 'MultiPolygon') {
    return geom.coordinates.some((rings) => pointInPolygonRings(rings, x, y));
  }
  if (geom.type === 'GeometryCollection') {
    return (geom.geometries || []).some((/** @type {Geometry} */ g) => pointInGeometry(g, x, y));
  }
  return false;
}

/** @param {number[][][]} rings @param {number} x @param {number} y */
function pointInPolygonRings(rings, x, y) {
  if (!rings.length || !pointInRing(rings[0], x, y)) return false;
  for (let k = 1; k < rings.length; k++) if (pointInRing(rings[k], x, y)) return false;
  return true;
}

/**
 * All outer and inner rings of a GeoJSON geometry, for drawing.
 * @param {Geometry|null|undefined} geom @returns {number[][][]}
 */
export function geometryRings(geom) {
  if (!geom) return [];
  switch (geom.type) {
    case 'Polygon':
      return geom.coordinates;
    case 'MultiPolygon':
      return geom.coordinates.flat();
    case 'LineString':
      return [geom.coordinates];
    case 'MultiLineString':
      return geom.coordinates;
    case 'GeometryCollection':
      return (geom.geometries || []).flatMap(geometryRings);
    default:
      return [];
  }
}

/**
 * Bounding box of points.
 * @param {number[][]} pts @returns {{minX:number, minY:number, maxX:number, maxY:number}}
 */
export function bbox(pts) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of pts) {
    if (x < minX) minX = x;
    if (y < minY) minY = y;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY };
}

/**
 * A drawable, hittable piece: a token/base rectangle, a round base or a footprint polygon.
 * @typedef {{id:string, rect?:Rect, geometry?:Geometry, circle?:{x:number, y:number, r:number}}} Piece
 */

/**
 * Whether a piece contains (x, y), with `slop` inches of tolerance for tiny pieces.
 * @param {Piece} piece @param {number} x @param {number} y @param {number} [slop]
 */
export function pieceContains(piece, x, y, slop = 0) {
  if (piece.rect) {
    const r = piece.rect;
    const grown = slop ? { ...r, width: r.width + 2 * slop, depth: r.depth + 2 * slop } : r;
    return pointInRect(grown, x, y);
  }
  if (piece.circle) {
    const c = piece.circle;
    return Math.hypot(x - c.x, y - c.y) <= c.r + slop;
  }
  return pointInGeometry(piece.geometry, x, y);
}

/**
 * The id of the topmost piece (the last in drawing order) containing (x, y), or null.
 * @param {Piece[]} pieces @param {number} x @param {number} y @param {number} [slop]
 * @returns {string|null}
 */
export function topmost(pieces, x, y, slop = 0) {
  for (let i = pieces.length - 1; i >= 0; i--) {
    if (pieceContains(pieces[i], x, y, slop)) return pieces[i].id;
  }
  return null;
}
