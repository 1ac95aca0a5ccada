// The one DOM builder of the client (plain ES module, no build step). Every screen and board
// builds its nodes with h (HTML) and s (SVG); text always goes in as text nodes, never as HTML.
//
//   h('p', { class: 'note', onclick: go }, 'Hello, ', h('b', {}, name))
//   s('circle', { cx: 5, cy: 5, r: 4, class: 'token' })
//
// Attributes: null, undefined and false are left out; true is an empty attribute; `class` is
// the class list; `text` sets the text content; `dataset` is an object of data-* values;
// `on<event>` functions become listeners. Children: nodes or text, arrays flattened at any
// depth, null, undefined and false skipped.

const SVGNS = 'http://www.w3.org/2000/svg';

export function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  return node;
}

export function append(node, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** An HTML element. */
export function h(tag, attrs, ...children) {
  return append(setAttrs(document.createElement(tag), attrs), children);
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  return append(setAttrs(document.createElementNS(SVGNS, tag), attrs), children);
}
