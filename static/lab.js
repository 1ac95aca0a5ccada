// Balance lab (organisers and admins): the page at #/lab.
//
//   import { labScreen } from './lab.js';
//   const screen = labScreen(main, shell);   // shell: h, t, errorText, me, lang (app.js)
//   screen.destroy();
//
// A form for one run (game, number of matches, a bot level per seat, seed, strong budget,
// duellists / decks to pair, rule options as JSON and optionally a second rule set to compare),
// then the run's progress (POST /api/lab/runs, then GET /api/lab/runs/{id} once a second), then
// its report: tables with 95% intervals and SVG charts drawn here from the report JSON (the
// same numbers as the server's HTML report, which can be downloaded). #/lab?run=<id> reopens a
// run. Every string comes from static/i18n/<lang>/lab.json. See docs/lab.md.

import { request, download } from './api.js';
import { ensureNamespace, translatorFor } from './i18n.js';

const enc = encodeURIComponent;
const POLL_MS = 1000;
const SVG_NS = 'http://www.w3.org/2000/svg';
const RED = '#b3261e';
const INK = '#1b1b1b';
const GREY = '#6b6b6b';

let cssLoaded = false;
function loadCss() {
  if (cssLoaded || typeof document === 'undefined') return;
  cssLoaded = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('./lab.css', import.meta.url).href;
  document.head.append(link);
}

export function canUseLab(user) {
  return !!user && (user.role === 'admin' || user.role === 'organiser');
}

function pct(x, digits = 1) {
  return x === null || x === undefined ? '—' : (100 * x).toFixed(digits);
}
function ci(p) {
  return `[${pct(p.lo)}, ${pct(p.hi)}]`;
}
function dci(d) {
  if (!d || d.diff === null || d.diff === undefined) return '—';
  const s = (v) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
  return `${s(d.diff)} [${s(d.lo)}, ${s(d.hi)}]`;
}

function runQuery() {
  const q = (location.hash.split('?')[1] || '').split('&').map((kv) => kv.split('='));
  const hit = q.find(([k]) => k === 'run');
  return hit ? decodeURIComponent(hit[1] || '') : null;
}

function svgEl(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Horizontal bars 0..100% with 95% whiskers; rows: [{label, p: {rate, lo, hi}}]. */
function ratesChart(title, rows, mark = 0.5) {
  const left = 170;
  const width = 420;
  const bar = 16;
  const gap = 8;
  const height = 34 + rows.length * (bar + gap) + 24;
  const x = (p) => left + width * p;
  const svg = svgEl('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 60} ${height}`,
    width: left + width + 60,
    height,
  });
  svg.append(svgEl('title', {}, title), svgEl('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  rows.forEach((r, i) => {
    const y = 30 + i * (bar + gap);
    const rate = r.p.rate || 0;
    svg.append(svgEl('text', { x: left - 8, y: y + bar - 4, 'text-anchor': 'end', 'font-size': 12, fill: INK }, r.label));
    const rect = svgEl('rect', { x: left, y, width: (width * rate).toFixed(1), height: bar, fill: RED, 'fill-opacity': 0.8 });
    rect.append(svgEl('title', {}, `${r.label}: ${pct(r.p.rate)}% ${ci(r.p)}`));
    svg.append(rect);
    svg.append(svgEl('line', { x1: x(r.p.lo), x2: x(r.p.hi), y1: y + bar / 2, y2: y + bar / 2, stroke: INK, 'stroke-width': 1.5 }));
    for (const end of [r.p.lo, r.p.hi]) {
      svg.append(svgEl('line', { x1: x(end), x2: x(end), y1: y + 3, y2: y + bar - 3, stroke: INK, 'stroke-width': 1.5 }));
    }
    svg.append(svgEl('text', { x: left + width + 6, y: y + bar - 4, 'font-size': 12, fill: INK }, `${pct(r.p.rate)}%`));
  });
  const axis = 30 + rows.length * (bar + gap);
  svg.append(svgEl('line', { x1: left, x2: left + width, y1: axis, y2: axis, stroke: INK }));
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(svgEl('text', { x: x(tick), y: axis + 16, 'font-size': 11, 'text-anchor': 'middle', fill: GREY }, `${tick * 100}%`));
  }
  if (mark !== null) {
    svg.append(svgEl('line', { x1: x(mark), x2: x(mark), y1: 26, y2: axis, stroke: GREY, 'stroke-dasharray': '4 3' }));
  }
  return svg;
}

/** Game length histogram. */
function histogramChart(title, hist, unit) {
  const left = 50;
  const width = 520;
  const height = 160;
  const counts = hist.counts || [];
  const svg = svgEl('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 20} ${height + 72}`,
    width: left + width + 20,
    height: height + 72,
  });
  svg.append(svgEl('title', {}, title), svgEl('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  const top = Math.max(1, ...counts);
  const bw = width / Math.max(1, counts.length);
  const base = 30 + height;
  counts.forEach((c, i) => {
    const bh = (height * c) / top;
    const rect = svgEl('rect', { x: left + i * bw + 1, y: base - bh, width: Math.max(1, bw - 2), height: bh, fill: RED, 'fill-opacity': 0.8 });
    rect.append(svgEl('title', {}, `${hist.edges[i]}–${hist.edges[i + 1] - 1} ${unit}: ${c}`));
    svg.append(rect);
  });
  svg.append(svgEl('line', { x1: left, x2: left + width, y1: base, y2: base, stroke: INK }));
  const step = Math.max(1, Math.floor(hist.edges.length / 8));
  for (let i = 0; i < hist.edges.length; i += step) {
    svg.append(svgEl('text', { x: left + i * bw, y: base + 16, 'font-size': 11, 'text-anchor': 'middle', fill: GREY }, hist.edges[i]));
  }
  svg.append(svgEl('text', { x: left + width, y: base + 34, 'font-size': 11, 'text-anchor': 'end', fill: GREY }, unit));
  svg.append(svgEl('text', { x: left - 6, y: 34, 'font-size': 11, 'text-anchor': 'end', fill: GREY }, top));
  return svg;
}

/** Differences in points with 95% intervals; rows: [{label, d: {diff, lo, hi}}]. */
function diffChart(title, rows) {
  rows = rows.filter((r) => r.d && r.d.diff !== null && r.d.diff !== undefined);
  const left = 170;
  const width = 420;
  const bar = 14;
  const gap = 8;
  const height = 34 + rows.length * (bar + gap) + 24;
  const span = Math.max(0.1, ...rows.map((r) => Math.max(Math.abs(r.d.lo), Math.abs(r.d.hi))));
  const x = (v) => left + width / 2 + ((width / 2) * v) / span;
  const svg = svgEl('svg', {
    class: 'chart',
    role: 'img',
    'aria-label': title,
    viewBox: `0 0 ${left + width + 70} ${height}`,
    width: left + width + 70,
    height,
  });
  svg.append(svgEl('title', {}, title), svgEl('text', { x: 0, y: 16, 'font-weight': 'bold', fill: INK }, title));
  rows.forEach((r, i) => {
    const y = 30 + i * (bar + gap);
    const [x0, x1] = [x(0), x(r.d.diff)].sort((a, b) => a - b);
    svg.append(svgEl('text', { x: left - 8, y: y + bar - 3, 'text-anchor': 'end', 'font-size': 12, fill: INK }, r.label));
    const rect = svgEl('rect', { x: x0, y, width: Math.max(1, x1 - x0), height: bar, fill: RED, 'fill-opacity': 0.8 });
    rect.append(svgEl('title', {}, `${r.label}: ${dci(r.d)}`));
    svg.append(rect);
    svg.append(svgEl('line', { x1: x(r.d.lo), x2: x(r.d.hi), y1: y + bar / 2, y2: y + bar / 2, stroke: INK, 'stroke-width': 1.5 }));
    svg.append(svgEl('text', { x: left + width + 6, y: y + bar - 3, 'font-size': 12, fill: INK }, dci({ diff: r.d.diff, lo: r.d.diff, hi: r.d.diff }).split(' ')[0]));
  });
  const axis = 30 + rows.length * (bar + gap);
  svg.append(svgEl('line', { x1: x(0), x2: x(0), y1: 26, y2: axis, stroke: INK }));
  return svg;
}

export function labScreen(main, shell) {
  const { h } = shell;
  loadCss();
  let destroyed = false;
  let timer = null;
  let meta = null;
  const wrap = h('div', { class: 'lab-page', 'data-testid': 'lab-page' }, h('p', { class: 'muted loading' }, shell.t('common.loading')));
  main.append(wrap);

  ensureNamespace('lab').then(() => {
    if (!destroyed) start();
  });

  function start() {
    const tl = translatorFor('lab');
    if (!canUseLab(shell.me())) {
      wrap.replaceChildren(
        h(
          'section',
          { class: 'panel panel-welcome', 'data-testid': 'lab-forbidden' },
          h('h1', {}, tl('lab.title')),
          h('p', {}, tl('lab.forbidden')),
          h('a', { class: 'btn btn-primary', href: '#/' }, tl('lab.back')),
        ),
      );
      return;
    }
    request('GET', '/api/lab/meta')
      .then((m) => {
        if (destroyed) return;
        meta = m;
        build(tl);
      })
      .catch((err) => {
        if (!destroyed) wrap.replaceChildren(h('p', { class: 'error', role: 'alert' }, shell.errorText(err)));
      });
  }

  function build(tl) {
    const error = h('p', { id: 'lab-error', class: 'error', role: 'alert', hidden: true });
    const status = h('div', { id: 'lab-status', 'aria-live': 'polite' });
    const result = h('div', { id: 'lab-result', class: 'lab-report' });
    const runsList = h('ul', { class: 'lab-runs', id: 'lab-runs' });

    // ---- the form --------------------------------------------------------------------
    const field = (id, label, control, help) =>
      h('div', { class: 'field' }, h('label', { for: id }, label), control, help ? h('p', { class: 'help', id: `${id}-help` }, help) : null);
    const gameSel = h(
      'select',
      { id: 'lab-game', name: 'game' },
      meta.games.map((g) => h('option', { value: g.id }, g.name)),
    );
    const games = h('input', { id: 'lab-games', name: 'games', type: 'number', min: 1, max: meta.max_games, value: 200, required: true, 'aria-describedby': 'lab-games-help' });
    const seed = h('input', { id: 'lab-seed', name: 'seed', type: 'number', min: 0, value: 1, required: true });
    const budget = h('input', { id: 'lab-budget', name: 'budget', type: 'number', min: 1, max: 512, placeholder: tl('lab.budget_default'), 'aria-describedby': 'lab-budget-help' });
    const seats = h('input', { id: 'lab-seats-count', name: 'seats', type: 'number', min: 2, max: 2, value: 2 });
    const seatBox = h('fieldset', { class: 'lab-seats', id: 'lab-seats' });
    const lineupBox = h('fieldset', { class: 'lab-lineups', id: 'lab-lineups' });
    const rotate = h('input', { id: 'lab-rotate', name: 'rotate', type: 'checkbox', checked: true });
    const options = h('textarea', { id: 'lab-options', name: 'options', spellcheck: 'false', 'aria-describedby': 'lab-options-help' });
    options.value = '{}';
    const compareOn = h('input', { id: 'lab-compare-on', name: 'compare_on', type: 'checkbox' });
    const compare = h('textarea', { id: 'lab-compare', name: 'compare', spellcheck: 'false', disabled: true });
    compare.value = '{}';
    compareOn.addEventListener('change', () => {
      compare.disabled = !compareOn.checked;
    });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'lab-submit' }, tl('lab.start'));

    function gameMeta() {
      return meta.games.find((g) => g.id === gameSel.value) || meta.games[0];
    }
    function drawSeats() {
      const g = gameMeta();
      seats.max = g.max_players;
      seats.min = g.min_players;
      seats.disabled = g.min_players === g.max_players;
      let n = Math.min(g.max_players, Math.max(g.min_players, Number(seats.value) || 2));
      seats.value = n;
      const old = [...seatBox.querySelectorAll('select')].map((s) => s.value);
      seatBox.replaceChildren(h('legend', {}, tl('lab.bots')));
      const row = h('div', { class: 'lab-inline' });
      for (let i = 0; i < n; i++) {
        const letter = String.fromCharCode(65 + i);
        const sel = h(
          'select',
          { id: `lab-bot-${letter}`, name: `bot_${letter}` },
          (g.bot_levels || meta.levels).map((lv) => h('option', { value: lv, selected: (old[i] || (i === 0 ? 'strong' : 'random')) === lv }, tl(`lab.level.${lv}`, null, { fallback: lv }))),
        );
        row.append(h('div', { class: 'lab-seat' }, h('label', { for: `lab-bot-${letter}` }, tl('lab.seat', { seat: letter })), sel));
      }
      seatBox.append(row);
      lineupBox.replaceChildren();
      lineupBox.hidden = !g.lineup;
      if (g.lineup) {
        lineupBox.append(h('legend', {}, tl(`lab.lineups_${g.lineup}`)));
        const box = h('div', { class: 'lab-inline' });
        for (const name of g.lineups) {
          const id = `lab-lineup-${name}`;
          box.append(h('label', { for: id }, h('input', { type: 'checkbox', id, value: name, checked: g.lineup === 'deck' }), tl(`lab.lineup.${name}`, null, { fallback: name })));
        }
        lineupBox.append(box, h('p', { class: 'help' }, tl(`lab.lineups_${g.lineup}_help`)));
      }
    }
    gameSel.addEventListener('change', drawSeats);
    seats.addEventListener('change', drawSeats);

    function parseJson(ta, what) {
      try {
        const v = JSON.parse(ta.value || '{}');
        if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
        return v;
      } catch {
        throw { code: 'invalid_lab_run', message: tl('lab.bad_json', { what }) };
      }
    }

    function body() {
      const g = gameMeta();
      const out = {
        game: g.id,
        games: Number(games.value),
        seed: Number(seed.value),
        bots: [...seatBox.querySelectorAll('select')].map((s) => s.value),
        options: parseJson(options, tl('lab.options')),
        rotate: rotate.checked,
        seats: Number(seats.value) || 2,
      };
      if (budget.value) out.budget = Number(budget.value);
      if (compareOn.checked) out.compare = parseJson(compare, tl('lab.compare'));
      if (g.lineup) {
        const chosen = [...lineupBox.querySelectorAll('input:checked')].map((c) => c.value);
        if (chosen.length) out.lineups = chosen;
      }
      return out;
    }

    const form = h(
      'form',
      { id: 'lab-form', class: 'lab-form', novalidate: true },
      h(
        'div',
        { class: 'filters' },
        field('lab-game', tl('lab.game'), gameSel),
        field('lab-games', tl('lab.games'), games, tl('lab.games_help', { max: meta.max_games })),
        field('lab-seed', tl('lab.seed'), seed),
        field('lab-budget', tl('lab.budget'), budget, tl('lab.budget_help')),
        field('lab-seats-count', tl('lab.seats'), seats),
      ),
      seatBox,
      h('p', {}, h('label', { for: 'lab-rotate' }, rotate, ' ', tl('lab.rotate'))),
      lineupBox,
      field('lab-options', tl('lab.options'), options, tl('lab.options_help')),
      h('p', {}, h('label', { for: 'lab-compare-on' }, compareOn, ' ', tl('lab.compare_on'))),
      field('lab-compare', tl('lab.compare'), compare),
      h('div', { class: 'filters-actions' }, submit),
    );
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      error.hidden = true;
      let payload;
      try {
        payload = body();
      } catch (err) {
        showError(err);
        return;
      }
      submit.disabled = true;
      try {
        const run = await request('POST', '/api/lab/runs', payload);
        history.replaceState(null, '', `#/lab?run=${enc(run.id)}`);
        follow(run.id);
        loadRuns();
      } catch (err) {
        showError(err);
      } finally {
        submit.disabled = false;
      }
    });

    function showError(err) {
      // The lab's own error codes are in lab.json; the server's sentence says what exactly.
      const own = tl(`lab.error.${err?.code}`, null, { fallback: '' });
      const detail = err?.message && err.message !== err.code ? err.message : '';
      error.textContent = own ? (detail && detail !== own ? `${own} ${detail}` : own) : shell.errorText(err);
      error.hidden = false;
    }

    // ---- a run: progress, then its report --------------------------------------------------
    function follow(id) {
      clearTimeout(timer);
      result.replaceChildren();
      const poll = async () => {
        if (destroyed) return;
        let run;
        try {
          run = await request('GET', `/api/lab/runs/${enc(id)}`);
        } catch (err) {
          status.replaceChildren(h('p', { class: 'error', role: 'alert' }, shell.errorText(err)));
          return;
        }
        if (destroyed) return;
        drawStatus(run);
        if (run.status === 'done') {
          drawReport(run);
          loadRuns();
        } else if (run.status !== 'failed') {
          timer = setTimeout(poll, POLL_MS);
        }
      };
      poll();
    }

    function drawStatus(run) {
      const { done, total } = run.progress;
      const bar = h('progress', { id: 'lab-progress', max: total, value: done, 'aria-label': tl('lab.progress') });
      const parts = [
        h(
          'div',
          { class: 'lab-progress' },
          bar,
          h('span', { id: 'lab-status-text', 'data-status': run.status }, tl(`lab.status.${run.status}`, { done, total })),
        ),
      ];
      if (run.error) parts.push(h('p', { class: 'error', role: 'alert' }, run.error));
      status.replaceChildren(...parts);
    }

    function outcomeRows(report, r) {
      const rows = [];
      for (const [s, v] of Object.entries(r.seats)) rows.push([tl('lab.row_seat', { seat: s }), v]);
      for (const [b, v] of Object.entries(r.bots)) rows.push([tl('lab.row_bot', { bot: tl(`lab.level.${b}`, null, { fallback: b }) }), v]);
      for (const [k, v] of Object.entries(r.lineups)) rows.push([tl('lab.lineup.' + k, null, { fallback: k }), v]);
      return rows;
    }

    function table(id, caption, head, rows) {
      return h(
        'div',
        { class: 'lab-table-wrap' },
        h(
          'table',
          { id, class: 'data-table' },
          h('caption', { class: 'sr-only' }, caption),
          h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { scope: 'col' }, i === 0 ? h('span', { class: 'sr-only' }, c) : c)))),
          h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))),
        ),
      );
    }

    function drawReport(run) {
      const report = run.report;
      if (!report) return;
      // The game's own words (GET /api/lab/meta: its lab profile), translated when the
      // catalogue knows them.
      const lab = meta?.games.find((g) => g.id === report.game)?.lab || {};
      const unitWord = lab.length_unit || 'decisions';
      const unit = tl(`lab.unit.${unitWord}`, null, { fallback: unitWord });
      const parts = [
        h('h2', { id: 'lab-report-title' }, tl('lab.report_title', { game: report.game_name, games: report.spec.games })),
        h(
          'div',
          { class: 'lab-report-actions' },
          h('button', { type: 'button', class: 'btn', id: 'lab-download-html', onclick: () => download(`/api/lab/runs/${enc(run.id)}/report.html`, `lab-${run.id}.html`).catch(showError) }, tl('lab.download_html')),
          h(
            'button',
            {
              type: 'button',
              class: 'btn',
              id: 'lab-download-json',
              onclick: () => {
                const url = URL.createObjectURL(new Blob([JSON.stringify(report, null, 1)], { type: 'application/json' }));
                const a = h('a', { href: url, download: `lab-${run.id}.json`, hidden: true });
                document.body.append(a);
                a.click();
                a.remove();
                setTimeout(() => URL.revokeObjectURL(url), 30000);
              },
            },
            tl('lab.download_json'),
          ),
        ),
      ];
      for (const rs of report.rule_sets) {
        const r = rs.report;
        parts.push(h('h3', {}, tl('lab.rule_set', { label: rs.label, options: JSON.stringify(rs.options) })));
        const rows = outcomeRows(report, r);
        parts.push(
          table(`lab-outcomes-${rs.label}`, tl('lab.outcomes'), [tl('lab.col_who'), tl('lab.col_games'), tl('lab.col_wins'), tl('lab.col_draws'), tl('lab.col_losses'), tl('lab.col_win'), tl('lab.col_ci')],
            rows.map(([label, v]) => [label, v.games, v.wins, v.draws, v.losses, pct(v.win_rate.rate), ci(v.win_rate)])),
        );
        parts.push(ratesChart(tl('lab.chart_win', { label: rs.label }), rows.map(([label, v]) => ({ label, p: v.win_rate }))));
        const facts = [tl('lab.draw_rate', { rate: pct(r.draws.rate), ci: ci(r.draws) })];
        if (r.first_player) facts.push(tl('lab.first_player', { rate: pct(r.first_player.win_rate.rate), ci: ci(r.first_player.win_rate), games: r.first_player.games }));
        else facts.push(tl('lab.no_first_player'));
        facts.push(tl('lab.length', { mean: r.length.mean?.toFixed(1), lo: r.length.lo?.toFixed(1), hi: r.length.hi?.toFixed(1), p50: r.length.p50, p90: r.length.p90, unit }));
        parts.push(h('p', { class: 'lab-facts' }, facts.join(' ')));
        parts.push(histogramChart(tl('lab.chart_length', { label: rs.label }), r.length_histogram, unit));
        for (const key of ['moves', 'actions']) {
          const u = r[key];
          const items = Object.entries(u.items);
          if (!items.length) continue;
          const title = key === 'moves' ? tl(`lab.moves_${report.game}`, null, { fallback: lab.moves || key }) : tl('lab.actions');
          parts.push(h('h4', {}, title));
          parts.push(
            table(`lab-${key}-${rs.label}`, title, [tl('lab.col_move'), tl('lab.col_uses'), tl('lab.col_share'), tl('lab.col_ci'), tl('lab.col_used_in'), tl('lab.col_ci'), tl('lab.col_win_used'), tl('lab.col_win_not'), tl('lab.col_contribution'), tl('lab.col_flags')],
              items.map(([m, v]) => [m, v.uses, pct(v.share.rate), ci(v.share), pct(v.used_in.rate), ci(v.used_in), pct(v.win_when_used.rate), pct(v.win_when_not.rate), dci(v.contribution), h('span', { class: 'flag' }, v.flags.map((f) => tl(`lab.flag.${f}`)).join(' '))])),
          );
          parts.push(ratesChart(tl('lab.chart_share', { what: title, label: rs.label }), items.map(([m, v]) => ({ label: m, p: v.share })), null));
        }
      }
      const c = report.compare;
      if (c) {
        const rows = [
          ...Object.entries(c.seats).map(([s, d]) => ({ label: tl('lab.row_seat', { seat: s }), d })),
          ...Object.entries(c.bots).map(([b, d]) => ({ label: tl('lab.row_bot', { bot: tl(`lab.level.${b}`, null, { fallback: b }) }), d })),
          ...Object.entries(c.lineups).map(([k, d]) => ({ label: k, d })),
          { label: tl('lab.row_draws'), d: c.draws },
        ];
        if (c.first_player) rows.push({ label: tl('lab.row_first'), d: c.first_player });
        parts.push(h('h3', {}, tl('lab.compare_title')));
        parts.push(table('lab-compare-table', tl('lab.compare_title'), [tl('lab.col_who'), tl('lab.col_diff')], rows.map((r) => [r.label, dci(r.d)])));
        parts.push(diffChart(tl('lab.chart_diff'), rows));
      }
      parts.push(h('p', { class: 'muted' }, tl('lab.method', { rare: pct(report.thresholds.rare_share, 0), margin: pct(report.thresholds.dominant_margin, 0) })));
      result.replaceChildren(...parts);
    }

    async function loadRuns() {
      try {
        const { runs } = await request('GET', '/api/lab/runs');
        if (destroyed) return;
        runsList.replaceChildren(
          ...runs.map((r) =>
            h(
              'li',
              {},
              h('a', { href: `#/lab?run=${enc(r.id)}`, onclick: (ev) => { ev.preventDefault(); history.replaceState(null, '', `#/lab?run=${enc(r.id)}`); follow(r.id); } },
                tl('lab.run_line', { game: r.spec.game, games: r.spec.games, bots: r.spec.bots.join(', '), created: r.created })),
              ' ',
              h('span', { class: 'muted' }, tl(`lab.status.${r.status}`, { done: r.progress.done, total: r.progress.total })),
            ),
          ),
        );
        if (!runs.length) runsList.replaceChildren(h('li', { class: 'muted' }, tl('lab.no_runs')));
      } catch {
        /* the list is a convenience; the form still works */
      }
    }

    wrap.replaceChildren(
      h('h1', {}, tl('lab.title')),
      h('p', { class: 'lead' }, tl('lab.lead')),
      h('section', { class: 'panel', 'aria-labelledby': 'lab-form-title' }, h('h2', { id: 'lab-form-title' }, tl('lab.new_run')), error, form),
      h('section', { class: 'panel', 'aria-labelledby': 'lab-run-title' }, h('h2', { id: 'lab-run-title' }, tl('lab.run')), status, result),
      h('section', { class: 'panel', 'aria-labelledby': 'lab-runs-title' }, h('h2', { id: 'lab-runs-title' }, tl('lab.my_runs')), runsList),
    );
    drawSeats();
    loadRuns();
    const id = runQuery();
    if (id) follow(id);
    else status.replaceChildren(h('p', { class: 'muted' }, tl('lab.no_run')));
  }

  return {
    destroy() {
      destroyed = true;
      clearTimeout(timer);
    },
  };
}
