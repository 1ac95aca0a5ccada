// What every game board does the same way (plain ES module, no build step), so each game
// module keeps only its own rules and drawing.

import { append as appendAll, h, s as svgNode, setAttrs } from '../dom.js';

export { setAttrs };

/** Children (nodes or text, nested arrays flattened; null, undefined and false skipped). */
export function append(node, children) {
  return appendAll(node, children);
}

/** An HTML element: el('p', { class: 'x' }, [child, 'text']). */
export function el(tag, attrs, children) {
  return h(tag, attrs, children);
}

/** An SVG element, as el. */
export function svg(tag, attrs, children) {
  return svgNode(tag, attrs, children);
}

export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A decision clock's time left as m:ss, rounded up (0:00 only when time is out). */
export function fmtClock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * A decision clock in `node`: `label(msLeft)` as its text, marked `urgent` in the last 10 s;
 * empty when there is no `deadline` (ISO time text, or null).
 */
export function showClock(node, deadline, label) {
  const at = deadline ? Date.parse(deadline) : NaN;
  if (Number.isNaN(at)) {
    node.textContent = '';
    node.classList.remove('urgent');
    return;
  }
  const left = at - Date.now();
  node.textContent = label(left);
  node.classList.toggle('urgent', left < 10000);
}

/**
 * Hand one action to the shell (`ctx.act`: the shared websocket client) and report back once:
 * `finish(null)` when it was applied, `finish(message)` when it was refused or could not be
 * sent. Nothing is reported to a board that was unmounted meanwhile (`isMounted()` false).
 * The board sets its own busy state before calling and clears it in `finish`.
 */
export function submitAction(ctx, action, isMounted, finish) {
  Promise.resolve()
    .then(() => ctx.act(action))
    .then(() => {
      if (isMounted()) finish(null);
    })
    .catch((err) => {
      if (isMounted()) finish((err && (err.message || err.code)) || String(err));
    });
}
