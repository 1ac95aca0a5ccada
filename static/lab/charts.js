// The lab report's charts as SVG (static/lab.js draws them from the report JSON): rates with
// 95% whiskers, a histogram of game lengths, differences between two rule sets with their
// intervals. Colours are attributes (the page's Content-Security-Policy allows no inline styles).

import { s } from '../dom.js';
import { ci, dci, pct } from './fmt.js';

const RED = '#b3261e';
const INK = '#1b1b1b';
const GREY = '#6b6b6b';

/** Horizontal bars 0..100% with 95% whiskers; rows: [{label, p: {rate, lo, hi}}]. */
export function ratesChart(title, rows, mark = 0.5) {
  const left = 170;
  const width = 420;
  const bar = 16;
  const gap = 8;
  const height = 34 + rows.length * (bar + gap) + 24;
  const x = (p) => left + width * p;
  const svg = s('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 60} ${height}`,
    width: left + width + 60,
    height,
  });
  svg.append(s('title', {}, title), s('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  rows.forEach((r, i) => {
    const y = 30 + i * (bar + gap);
    const rate = r.p.rate || 0;
    svg.append(s('text', { x: left - 8, y: y + bar - 4, 'text-anchor': 'end', 'font-size': 12, fill: INK }, r.label));
    const rect = s('rect', { x: left, y, width: (width * rate).toFixed(1), height: bar, fill: RED, 'fill-opacity': 0.8 });
    rect.append(s('title', {}, `${r.label}: ${pct(r.p.rate)}% ${ci(r.p)}`));
    svg.append(rect);
    svg.append(s('line', { x1: x(r.p.lo), x2: x(r.p.hi), y1: y + bar / 2, y2: y + bar / 2, stroke: INK, 'stroke-width': 1.5 }));
    for (const end of [r.p.lo, r.p.hi]) {
      svg.append(s('line', { x1: x(end), x2: x(end), y1: y + 3, y2: y + bar - 3, stroke: INK, 'stroke-width': 1.5 }));
    }
    svg.append(s('text', { x: left + width + 6, y: y + bar - 4, 'font-size': 12, fill: INK }, `${pct(r.p.rate)}%`));
  });
  const axis = 30 + rows.length * (bar + gap);
  svg.append(s('line', { x1: left, x2: left + width, y1: axis, y2: axis, stroke: INK }));
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(s('text', { x: x(tick), y: axis + 16, 'font-size': 11, 'text-anchor': 'middle', fill: GREY }, `${tick * 100}%`));
  }
  if (mark !== null) {
    svg.append(s('line', { x1: x(mark), x2: x(mark), y1: 26, y2: axis, stroke: GREY, 'stroke-dasharray': '4 3' }));
  }
  return svg;
}

/** Game length histogram. */
export function histogramChart(title, hist, unit) {
  const left = 50;
  const width = 520;
  const height = 160;
  const counts = hist.counts || [];
  const svg = s('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 20} ${height + 72}`,
    width: left + width + 20,
    height: height + 72,
  });
  svg.append(s('title', {}, title), s('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  const top = Math.max(1, ...counts);
  const bw = width / Math.max(1, counts.length);
  const base = 30 + height;
  counts.forEach((c, i) => {
    const bh = (height * c) / top;
    const rect = s('rect', { x: left + i * bw + 1, y: base - bh, width: Math.max(1, bw - 2), height: bh, fill: RED, 'fill-opacity': 0.8 });
    rect.append(s('title', {}, `${hist.edges[i]}–${hist.edges[i + 1] - 1} ${unit}: ${c}`));
    svg.append(rect);
  });
  svg.append(s('line', { x1: left, x2: left + width, y1: base, y2: base, stroke: INK }));
  const step = Math.max(1, Math.floor(hist.edges.length / 8));
  for (let i = 0; i < hist.edges.length; i += step) {
    svg.append(s('text', { x: left + i * bw, y: base + 16, 'font-size': 11, 'text-anchor': 'middle', fill: GREY }, hist.edges[i]));
  }
  svg.append(s('text', { x: left + width, y: base + 34, 'font-size': 11, 'text-anchor': 'end', fill: GREY }, unit));
  svg.append(s('text', { x: left - 6, y: 34, 'font-size': 11, 'text-anchor': 'end', fill: GREY }, top));
  return svg;
}

/** Differences in points with 95% intervals; rows: [{label, d: {diff, lo, hi}}]. */
export function diffChart(title, rows) {
  rows = rows.filter((r) => r.d && r.d.diff !== null && r.d.diff !== undefined);
  const left = 170;
  const width = 420;
  const bar = 14;
  const gap = 8;
  const height = 34 + rows.length * (bar + gap) + 24;
  const span = Math.max(0.1, ...rows.map((r) => Math.max(Math.abs(r.d.lo), Math.abs(r.d.hi))));
  const x = (v) => left + width / 2 + ((width / 2) * v) / span;
  const svg = s('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 70} ${height}`,
    width: left + width + 70,
    height,
  });
  svg.append(s('title', {}, title), s('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  rows.forEach((r, i) => {
    const y = 30 + i * (bar + gap);
    const [x0, x1] = [x(0), x(r.d.diff)].sort((a, b) => a - b);
    svg.append(s('text', { x: left - 8, y: y + bar - 3, 'text-anchor': 'end', 'font-size': 12, fill: INK }, r.label));
    const rect = s('rect', { x: x0, y, width: Math.max(1, x1 - x0), height: bar, fill: RED, 'fill-opacity': 0.8 });
    rect.append(s('title', {}, `${r.label}: ${dci(r.d)}`));
    svg.append(rect);
    svg.append(s('line', { x1: x(r.d.lo), x2: x(r.d.hi), y1: y + bar / 2, y2: y + bar / 2, stroke: INK, 'stroke-width': 1.5 }));
    svg.append(s('text', { x: left + width + 6, y: y + bar - 3, 'font-size': 12, fill: INK }, dci({ diff: r.d.diff, lo: r.d.diff, hi: r.d.diff }).split(' ')[0]));
  });
  const axis = 30 + rows.length * (bar + gap);
  svg.append(s('line', { x1: x(0), x2: x(0), y1: 26, y2: axis, stroke: INK }));
  return svg;
}
