// The bracket of an elimination tournament (or a Swiss top cut) drawn as SVG.
//
//   bracketSvg(bracket, {t, names, matchHref}) -> <svg>
//
// `bracket` is GET /api/tournaments/{id}/bracket (app/tournaments/core.py `bracket`): every match
// including those not opened yet, with `bracket` ("winners" | "losers" | "grand_final" | "reset"),
// `level`, `players`, `seeds`, `status`, `result`, `winner` and `sources` ({seed} | {winner: id} |
// {loser: id}). Layout: one column per level; the winners bracket on top, the losers bracket
// under it, the grand final (and its reset) to the right of the winners final. A line joins a
// match to the match its winner goes on to; a slot filled by a loser says where it comes from.
// A match being played links to its live match (#/match/<id>), so the picture is keyboard
// navigable: every link is focusable and says who plays. Styling: static/tournaments.css
// (classes only: the page's Content-Security-Policy allows no inline styles).

import { s } from '../dom.js';

const BOX_W = 188;
const BOX_H = 46;
const COL_GAP = 46;
const ROW_GAP = 14;
const PAD = 12;
const TITLE_H = 26;

function clip(text, max = 22) {
  const str = String(text ?? '');
  return str.length > max ? `${str.slice(0, max - 1)}…` : str;
}

/** Matches grouped by section and level: {winners: [[m...] per level], losers: [...], final: [m...]}. */
function sections(bracket) {
  const out = { winners: [], losers: [], final: [] };
  for (const round of bracket.rounds || []) {
    for (const m of round) {
      if (m.bracket === 'grand_final' || m.bracket === 'reset') {
        out.final.push(m);
        continue;
      }
      const list = m.bracket === 'losers' ? out.losers : out.winners;
      const level = (m.level || 1) - 1;
      while (list.length <= level) list.push([]);
      list[level].push(m);
    }
  }
  return out;
}

/** Column layout of one section: {boxes: Map(id -> {x, y}), width, height}. Each level is spaced
 *  so that a match sits between the two it follows (the usual bracket shape). */
function layout(levels, x0, y0) {
  const boxes = new Map();
  const most = Math.max(1, ...levels.map((l) => l.length));
  const height = most * (BOX_H + ROW_GAP);
  levels.forEach((level, i) => {
    const slot = height / Math.max(1, level.length);
    level.forEach((m, j) => {
      boxes.set(m.id, { x: x0 + i * (BOX_W + COL_GAP), y: y0 + j * slot + (slot - BOX_H) / 2 });
    });
  });
  return { boxes, width: levels.length * (BOX_W + COL_GAP) - COL_GAP, height };
}

export function bracketSvg(bracket, { t, names = {}, matchHref = null } = {}) {
  const sec = sections(bracket);
  const nameOf = (id) => (id === null || id === undefined ? null : names[id] || String(id));
  // Room above the boxes: a section title in a double bracket, else just the match ids.
  const head = bracket.double ? TITLE_H : 12;
  const winners = layout(sec.winners, PAD, PAD + head);
  let height = PAD + head + winners.height;
  let losers = null;
  if (sec.losers.length) {
    const top = height + PAD + TITLE_H;
    losers = layout(sec.losers, PAD, top);
    height = top + losers.height;
  }
  const boxes = new Map([...winners.boxes, ...(losers ? losers.boxes : [])]);
  let width = PAD + Math.max(winners.width, losers ? losers.width : 0);
  // The grand final and its reset: right of the winners final, level with it.
  const finalX = PAD + winners.width + COL_GAP;
  sec.final.forEach((m, i) => {
    const wf = sec.winners.length ? sec.winners[sec.winners.length - 1][0] : null;
    const y = wf && boxes.has(wf.id) ? boxes.get(wf.id).y : PAD + head;
    boxes.set(m.id, { x: finalX + i * (BOX_W + COL_GAP), y });
    width = Math.max(width, finalX + (i + 1) * (BOX_W + COL_GAP) - COL_GAP);
  });
  width += PAD;
  height += PAD;

  const all = [...sec.winners.flat(), ...sec.losers.flat(), ...sec.final];
  const byId = new Map(all.map((m) => [m.id, m]));
  const live = all.filter((m) => m.status === 'pending').length;
  const svg = s('svg', {
    class: 'bracket-svg',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'group',
    'aria-label': t('bracket.label', { count: all.length, live }),
    'data-testid': 'bracket-svg',
  });
  svg.append(s('title', { text: t('bracket.label', { count: all.length, live }) }));

  // Section titles (a single bracket needs none: the panel has its heading).
  if (bracket.double) svg.append(s('text', { class: 'tb-section', x: PAD, y: PAD + 16, text: t('bracket.winners') }));
  if (losers) {
    svg.append(s('text', { class: 'tb-section', x: PAD, y: PAD + head + winners.height + PAD + 16, text: t('bracket.losers') }));
  }
  if (sec.final.length) {
    const first = boxes.get(sec.final[0].id);
    svg.append(s('text', { class: 'tb-section', x: first.x, y: PAD + 16, text: t('bracket.grand_final') }));
  }

  // Connectors first, so the boxes cover their ends.
  const lines = s('g', { class: 'tb-lines', 'aria-hidden': 'true' });
  for (const m of all) {
    const to = boxes.get(m.id);
    if (m.bracket === 'reset') {
      // The reset replays the grand final: one line from it, not two from the brackets.
      const gf = all.find((x) => x.bracket === 'grand_final');
      const from = gf && boxes.get(gf.id);
      if (from) {
        const cls = m.status === 'skipped' ? 'tb-line' : 'tb-line tb-line-done';
        lines.append(s('path', { class: cls, d: `M${from.x + BOX_W} ${from.y + BOX_H / 2} H${to.x}` }));
      }
      continue;
    }
    (m.sources || []).forEach((src, slot) => {
      if (!src || !src.winner || !boxes.has(src.winner)) return;
      const from = boxes.get(src.winner);
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x;
      const y2 = to.y + (slot === 0 ? BOX_H / 4 : (3 * BOX_H) / 4);
      const mid = x1 + Math.max(8, (x2 - x1) / 2);
      const done = byId.get(src.winner)?.status === 'done';
      lines.append(s('path', { class: done ? 'tb-line tb-line-done' : 'tb-line', d: `M${x1} ${y1} H${mid} V${y2} H${x2}` }));
    });
  }
  svg.append(lines);

  for (const m of all) svg.append(matchBox(m, boxes.get(m.id), { t, nameOf, matchHref, byId }));
  return svg;
}

/** Who is (or will be) in slot ``i``. A match not opened yet has no players, but a slot whose
 *  source match is over already shows that match's winner (or loser). */
function slotPlayer(m, i, byId) {
  const p = m.players?.[i];
  if (p !== null && p !== undefined) return p;
  const src = m.status === 'waiting' ? m.sources?.[i] : null;
  const from = src && byId.get(src.winner || src.loser);
  if (from?.status === 'done') return src.winner ? from.winner : from.loser;
  return null;
}

function slotText(m, i, { t, nameOf, byId }) {
  const p = slotPlayer(m, i, byId);
  if (p !== null && p !== undefined) return nameOf(p);
  if (m.status === 'waiting') {
    const src = m.sources?.[i];
    if (src?.loser) return t('bracket.loser_of', { match: src.loser });
    if (src?.winner) return t('bracket.winner_of', { match: src.winner });
    return t('bracket.tbd');
  }
  return m.void ? '—' : t('bracket.bye');
}

function matchBox(m, at, { t, nameOf, matchHref, byId }) {
  const state = m.status === 'pending' ? 'live' : m.status;
  const games = m.result?.games || null;
  const g = s('g', {
    class: `tb-match tb-${state}${m.bye ? ' tb-bye' : ''}`,
    transform: `translate(${at.x} ${at.y})`,
    'data-match': m.id,
    'data-status': m.status,
  });
  g.append(s('rect', { class: 'tb-box', width: BOX_W, height: BOX_H, rx: 2 }));
  g.append(s('line', { class: 'tb-divider', x1: 0, y1: BOX_H / 2, x2: BOX_W, y2: BOX_H / 2 }));
  const labels = [];
  for (const i of [0, 1]) {
    const y = i === 0 ? BOX_H / 4 : (3 * BOX_H) / 4;
    const player = slotPlayer(m, i, byId);
    const won = m.status === 'done' && m.winner !== null && m.winner !== undefined && player === m.winner;
    const seed = m.seeds?.[i];
    const label = slotText(m, i, { t, nameOf, byId });
    labels.push(label);
    if (seed) g.append(s('text', { class: 'tb-seed', x: 6, y: y + 4, text: String(seed) }));
    g.append(s('text', {
      class: `tb-name${won ? ' tb-won' : ''}${player === null || player === undefined ? ' tb-empty' : ''}`,
      x: 26, y: y + 4, text: clip(label),
    }));
    if (games && m.status === 'done' && !m.bye) {
      g.append(s('text', { class: `tb-score${won ? ' tb-won' : ''}`, x: BOX_W - 8, y: y + 4, 'text-anchor': 'end', text: String(games[i]) }));
    }
    if (won) g.append(s('rect', { class: 'tb-mark', x: 0, y: i * (BOX_H / 2), width: 4, height: BOX_H / 2 }));
  }
  g.append(s('text', { class: 'tb-id', x: BOX_W - 4, y: -4, 'text-anchor': 'end', text: m.id }));
  const desc = t(`bracket.status_${state}`, { match: m.id, a: labels[0], b: labels[1], winner: nameOf(m.winner) || '' });
  g.append(s('title', { text: desc }));
  const href = matchHref ? matchHref(m) : null;
  if (href) {
    return s('a', { href, class: 'tb-link', 'aria-label': desc }, g);
  }
  return g;
}
