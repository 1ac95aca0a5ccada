// What every game board does the same way (plain ES module, no build step), so each game
// module keeps only its own rules and drawing.

const SVGNS = 'http://www.w3.org/2000/svg';

/**
 * Attributes from a plain object: null, undefined and false are left out, true is an empty
 * attribute, `on<event>` functions become listeners and `text` sets the text content.
 */
export function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
}

/** Children (nodes or text, nested arrays flattened; null, undefined and false skipped). */
export function append(node, children) {
  for (const c of [].concat(children ?? []).flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** An HTML element: el('p', { class: 'x' }, [child, 'text']). */
export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  return append(node, children);
}

/** An SVG element, as el. */
export function svg(tag, attrs, children) {
  const node = document.createElementNS(SVGNS, tag);
  setAttrs(node, attrs);
  return append(node, children);
}

/** Same JSON value (actions and events as the server sends them: key order is stable). */
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
