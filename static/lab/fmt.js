// The lab report's numbers, for its tables and charts alike: rates as percentages with one
// decimal, 95% intervals as [lo, hi], differences in points with a sign.

export function pct(x, digits = 1) {
  return x === null || x === undefined ? '—' : (100 * x).toFixed(digits);
}
export function ci(p) {
  return `[${pct(p.lo)}, ${pct(p.hi)}]`;
}
export function dci(d) {
  if (!d || d.diff === null || d.diff === undefined) return '—';
  const s = (v) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
  return `${s(d.diff)} [${s(d.lo)}, ${s(d.hi)}]`;
}
