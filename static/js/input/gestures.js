// Pointer, wheel and pinch gestures on the canvas turned into intents: tap, drag (of a piece,
// or a pan of the table), zoom about a point, hover. Knows nothing of the game.

/** @typedef {{x:number, y:number}} Pt */

/**
 * @typedef {Object} GestureHandlers
 * @property {(pt:Pt, e:PointerEvent) => void} tap
 * @property {(pt:Pt, e:PointerEvent) => boolean} dragStart  true: the drag moves a piece; false: it pans
 * @property {(pt:Pt) => void} dragMove
 * @property {(pt:Pt) => void} dragEnd
 * @property {() => void} dragCancel
 * @property {(dx:number, dy:number) => void} pan
 * @property {(factor:number, pt:Pt) => void} zoom
 * @property {(pt:Pt|null) => void} hover
 */

/** Pixels a pointer may wander before a press becomes a drag. */
export const DRAG_THRESHOLD_PX = 4;

/**
 * @param {HTMLElement} el @param {GestureHandlers} on
 * @returns {() => void} detach
 */
export function attachGestures(el, on) {
  /** @type {Map<number, Pt>} */
  const pointers = new Map();
  /** @type {{id:number, start:Pt, last:Pt, mode:'press'|'piece'|'pan'}|null} */
  let press = null;
  /** @type {{dist:number, mid:Pt}|null} */
  let pinch = null;

  /** @param {PointerEvent|WheelEvent} e @returns {Pt} */
  const local = (e) => {
    const r = el.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  const pinchInfo = () => {
    const [a, b] = [...pointers.values()];
    return { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
  };

  /** @param {PointerEvent} e */
  const down = (e) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    el.setPointerCapture?.(e.pointerId);
    const pt = local(e);
    pointers.set(e.pointerId, pt);
    if (pointers.size === 2) {
      if (press?.mode === 'piece') on.dragCancel();
      press = null;
      pinch = pinchInfo();
    } else if (pointers.size === 1) {
      press = { id: e.pointerId, start: pt, last: pt, mode: 'press' };
    }
  };

  /** @param {PointerEvent} e */
  const move = (e) => {
    const pt = local(e);
    if (!pointers.has(e.pointerId)) {
      if (e.pointerType === 'mouse') on.hover(pt);
      return;
    }
    pointers.set(e.pointerId, pt);
    if (pinch && pointers.size >= 2) {
      const now = pinchInfo();
      on.pan(now.mid.x - pinch.mid.x, now.mid.y - pinch.mid.y);
      on.zoom(now.dist / pinch.dist, now.mid);
      pinch = now;
      return;
    }
    if (!press || press.id !== e.pointerId) return;
    if (press.mode === 'press') {
      if (Math.hypot(pt.x - press.start.x, pt.y - press.start.y) < DRAG_THRESHOLD_PX) return;
      press.mode = on.dragStart(press.start, e) ? 'piece' : 'pan';
    }
    if (press.mode === 'piece') on.dragMove(pt);
    else on.pan(pt.x - press.last.x, pt.y - press.last.y);
    press.last = pt;
  };

  /** @param {PointerEvent} e */
  const up = (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!press || press.id !== e.pointerId) return;
    const pt = local(e);
    if (press.mode === 'press') on.tap(pt, e);
    else if (press.mode === 'piece') on.dragEnd(pt);
    press = null;
  };

  /** @param {PointerEvent} e */
  const cancel = (e) => {
    pointers.delete(e.pointerId);
    if (press?.id === e.pointerId && press.mode === 'piece') on.dragCancel();
    if (press?.id === e.pointerId) press = null;
    if (pointers.size < 2) pinch = null;
  };

  /** @param {WheelEvent} e */
  const wheel = (e) => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    on.zoom(Math.exp(-e.deltaY * unit * 0.0015), local(e));
  };

  const leave = () => on.hover(null);

  el.addEventListener('pointerdown', down);
  el.addEventListener('pointermove', move);
  el.addEventListener('pointerup', up);
  el.addEventListener('pointercancel', cancel);
  el.addEventListener('pointerleave', leave);
  el.addEventListener('wheel', wheel, { passive: false });
  return () => {
    el.removeEventListener('pointerdown', down);
    el.removeEventListener('pointermove', move);
    el.removeEventListener('pointerup', up);
    el.removeEventListener('pointercancel', cancel);
    el.removeEventListener('pointerleave', leave);
    el.removeEventListener('wheel', wheel);
  };
}

/** Commands by key; ignored while typing in a field. */
export const KEYS = {
  m: 'measure',
  l: 'los',
  r: 'rotate',
  R: 'rotateBack',
  f: 'fit',
  Escape: 'cancel',
  '?': 'help',
  Delete: 'remove',
  Backspace: 'remove',
  Enter: 'confirm',
  e: 'endPhase',
  '[': 'narrower',
  ']': 'wider',
};

/**
 * @param {Window|HTMLElement} target @param {(command:string, e:KeyboardEvent) => void} run
 * @param {{home?:HTMLElement}} [o]  `home`: where Esc in a field sends the focus (the table), so
 *   the next key is a command again (Esc, E, Enter ends the phase from any field)
 * @returns {() => void} detach
 */
export function attachKeys(target, run, o = {}) {
  /** @param {Event} ev */
  const handler = (ev) => {
    const e = /** @type {KeyboardEvent} */ (ev);
    if (e.defaultPrevented) return; // a control answered the key itself (typed orders' Enter)
    const t = /** @type {HTMLElement|null} */ (e.target);
    const typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (typing && e.key !== 'Escape') return;
    if (typing && e.key === 'Escape' && o.home && t !== o.home) o.home.focus({ preventScroll: true });
    if (e.key === 'Enter' && t && (t.tagName === 'BUTTON' || t.tagName === 'A' || t.tagName === 'SUMMARY')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.length === 1 && e.key !== 'R' ? e.key.toLowerCase() : e.key;
    const command = /** @type {Record<string,string>} */ (KEYS)[key];
    if (!command) return;
    e.preventDefault();
    run(command, e);
  };
  target.addEventListener('keydown', handler);
  return () => target.removeEventListener('keydown', handler);
}
