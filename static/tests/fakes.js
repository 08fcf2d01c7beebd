// A real Table on a stand-in canvas, store and connection, for node tests of the handlers.
// Nothing is drawn (requestAnimationFrame never calls back); the connection answers every
// question with `answer` and records what was asked.

import { Table } from '../js/table.js';
import { Store } from '../js/store.js';
import { makeView, fit, toScreen } from '../js/view/transform.js';

if (typeof globalThis.requestAnimationFrame !== 'function') {
  globalThis.requestAnimationFrame = () => 0;
}

/**
 * @param {{state?:any, seat?:number|null}} [o]
 */
export function fakeTable(o = {}) {
  const store = new Store();
  store.state = o.state ?? { battlefield: { width: 72, depth: 48 }, units: {}, tokens: {} };
  store.seat = o.seat === undefined ? 1 : o.seat;
  store.seq = 0;
  /** @type {{type:string, body:any}[]} */
  const asked = [];
  /** @type {Set<(msg:any) => void>} */
  const overlayListeners = new Set();
  const conn = {
    asked,
    overlayListeners,
    /** @param {string} type @param {any} body */
    ask(type, body) {
      asked.push({ type, body });
      return new Promise(() => {});
    },
    /** @param {any} a */ act(a) { return this.ask('act', a); },
    /** @param {any} a */ preview(a) { return this.ask('preview', a); },
    /** @param {any} from @param {any} to @param {boolean} share */ measure(from, to, share) { return this.ask('measure', { from, to, share }); },
    /** @param {string} v @param {string} t */ lineOfSight(v, t) { return this.ask('line_of_sight', { v, t }); },
    /** @param {string} unit @param {any} point @param {any} placement */ ambushOptions(unit, point, placement) { return this.ask('ambush_options', { unit, point, placement }); },
    /** @param {(msg:any) => void} fn */
    onOverlay(fn) {
      overlayListeners.add(fn);
      return () => overlayListeners.delete(fn);
    },
  };
  /** @type {string[]} */
  const toasts = [];
  // A 2D context that draws nothing: every method is a no-op, every property takes a value.
  const ctx = new Proxy({}, {
    get: (target, key) => (key in target ? /** @type {any} */ (target)[key] : () => ({ width: 0 })),
    set: (target, key, value) => { /** @type {any} */ (target)[key] = value; return true; },
  });
  const canvas = {
    style: { cursor: '' },
    getContext: () => ctx,
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 720, height: 480 }),
  };
  const table = new Table(/** @type {any} */ ({
    canvas, store, conn, toast: (/** @type {string} */ m) => toasts.push(m), onChange: () => {}, toggleHelp: () => {},
  }));
  table.vw = 720;
  table.vh = 480;
  table.view = fit(makeView({ width: 72, depth: 48 }, { flip: false }), 720, 480, 0);
  return Object.assign(table, { asked, toasts, overlayListeners });
}

/** The canvas point over world inches (x, y). @param {Table} table @param {number} x @param {number} y */
export function screenAt(table, x, y) {
  return toScreen(/** @type {any} */ (table.view), x, y);
}
