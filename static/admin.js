// Admin pages (only for the admin role; the server checks it on every call too):
//
//   #/admin                 match search (game, player, dates, status, result, duration,
//                           reported, flagged) with a results table
//   #/admin/match/<id>      review: a step scrubber over steps 0..N, the match as a chosen viewer
//                           saw it (omniscient / as A / as B / ... / spectator) drawn by the game's
//                           own board module, read-only; the action log with times; flag, notes,
//                           reports of the match; JSON and text exports
//   #/admin/reports         the report queue
//   #/admin/users           user search: grant a role, suspend, restore
//   #/admin/audit           every admin action
//
// The review shows exactly what GET /api/admin/matches/{id}/steps/{n}?as=<viewer> returns: the
// raw JSON is printed under the board, and the board gets a view document built from it (its
// events are the viewer's events of the steps up to n, at most HISTORY_STEPS of them, so the
// board's log covers the match up to that step and nothing after it). Filters and the review position live in the
// hash's query (#/admin/match/<id>?step=12&as=A), written with history.replaceState.

import { request, download } from './api.js';
import { ensureNamespace, translatorFor } from './i18n.js';
import { loadBoard } from './games/index.js';
import { isAdmin, modal } from './account.js';
import { isBot, botName, botBadge } from './bots.js';
import { hashQuery, setHashQuery, fmtDate, fmtNum, dataTable } from './profile.js';

const enc = encodeURIComponent;
const STEP_FETCH_CONCURRENCY = 6;
// The board gets the viewer's events of at most this many steps up to the one shown (each step
// is one request, and the server replays the match for each): enough for the exchanges around
// it; a long match's earlier log is left out rather than costing hundreds of requests.
const HISTORY_STEPS = 64;
const names = new Map(); // user id -> Promise<name>

function nameOf(id) {
  if (!id) return Promise.resolve('—');
  if (!names.has(id)) {
    names.set(
      id,
      request('GET', `/api/users/${enc(id)}`)
        .then((p) => p?.user?.name || id)
        .catch(() => id),
    );
  }
  return names.get(id);
}

function fmtDuration(seconds, lang) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Number(seconds);
  if (s < 60) return `${fmtNum(s, lang, 1)} s`;
  const whole = Math.round(s);
  const hrs = Math.floor(whole / 3600);
  const min = Math.floor((whole % 3600) / 60);
  const sec = String(whole % 60).padStart(2, '0');
  return hrs ? `${hrs}:${String(min).padStart(2, '0')}:${sec}` : `${min}:${sec}`;
}

/** datetime-local value (local wall clock) -> ISO 8601 UTC, or null. */
function localToIso(value) {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function compact(value) {
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}

function resultText(t, result, seatName) {
  if (!result) return '—';
  if (result.draw) return t('result.draw');
  let winner = result.winner ?? null;
  if (!winner) {
    const firsts = Object.entries(result.places || {}).filter(([, p]) => p === 1);
    if (firsts.length === 1) winner = firsts[0][0];
  }
  if (winner) return t('result.player_won', { name: seatName(winner) });
  return t('result.over');
}

function playersText(seats, t) {
  const name = (u) => (isBot(u) ? `${botName(t, u)} [${t('bots.badge')}]` : u.name);
  return (seats || []).map((s) => `${s.seat} ${s.user ? name(s.user) : '—'}`).join(' · ');
}

function focusHeading(main) {
  const heading = main.querySelector('h1');
  const active = document.activeElement;
  if (heading && (!active || active === document.body || !document.contains(active))) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Entry: the admin area with its sub-navigation
// ---------------------------------------------------------------------------------------------
export function adminScreen(main, shell, route) {
  const { h, t } = shell;
  if (!isAdmin(shell.me())) {
    main.append(
      h(
        'section',
        { class: 'panel panel-welcome', 'data-testid': 'admin-forbidden' },
        h('h1', {}, t('admin.forbidden_title')),
        h('p', {}, t('admin.forbidden')),
        h('a', { class: 'btn btn-primary', href: '#/' }, t('match.back')),
      ),
    );
    return { destroy() {} };
  }
  const section = route.section || 'matches';
  const tabs = [
    ['matches', '#/admin', t('admin.nav_matches')],
    ['reports', '#/admin/reports', t('admin.nav_reports')],
    ['users', '#/admin/users', t('admin.nav_users')],
    ['audit', '#/admin/audit', t('admin.nav_audit')],
  ];
  const current = section === 'match' ? 'matches' : section;
  const nav = h(
    'nav',
    { class: 'admin-nav', 'aria-label': t('admin.nav_label') },
    h(
      'ul',
      {},
      tabs.map(([key, href, label]) =>
        h('li', {}, h('a', { href, id: `admin-nav-${key}`, 'aria-current': key === current ? 'page' : null }, label)),
      ),
    ),
  );
  const body = h('div', { class: 'admin-body' });
  main.append(h('div', { class: 'page admin', 'data-testid': `admin-${section}` }, nav, body));
  const screens = { matches: searchPage, match: reviewPage, reports: reportsPage, users: usersPage, audit: auditPage };
  const page = (screens[section] || searchPage)(body, shell, route);
  focusHeading(main);
  return page;
}

// ---------------------------------------------------------------------------------------------
// Match search
// ---------------------------------------------------------------------------------------------
function searchPage(root, shell) {
  const { h, t } = shell;
  const lang = shell.lang();
  let gone = false;
  let seq = 0;
  const q = hashQuery();
  const keys = ['game', 'player', 'since', 'until', 'status', 'result', 'min_duration', 'max_duration', 'reported', 'flagged'];
  const values = Object.fromEntries(keys.map((k) => [k, q.get(k) || '']));

  const sel = (id, name, opts) =>
    h(
      'select',
      { id, name },
      opts.map(([v, label]) => h('option', { value: v, selected: v === values[name] }, label)),
    );
  const input = (id, name, type, extra = {}) => {
    const el = h('input', { id, name, type, ...extra });
    el.value = values[name];
    return el;
  };
  const field = (id, label, control, help) =>
    h('div', { class: 'field' }, h('label', { for: id }, label), control, help ? h('p', { class: 'help' }, help) : null);
  const yesNo = [
    ['', t('admin.any')],
    ['true', t('admin.yes')],
    ['false', t('admin.no')],
  ];
  const gameSel = sel('search-game', 'game', [['', t('admin.any_game')]]);
  const controls = {
    game: gameSel,
    player: input('search-player', 'player', 'text', { maxlength: '40', autocomplete: 'off' }),
    since: input('search-since', 'since', 'datetime-local'),
    until: input('search-until', 'until', 'datetime-local'),
    status: sel('search-status', 'status', [['', t('admin.any')], ...['open', 'live', 'finished', 'aborted'].map((s) => [s, t(`status.${s}`)])]),
    result: sel('search-result', 'result', [
      ['', t('admin.any')],
      ['draw', t('admin.result_draw')],
      ['decisive', t('admin.result_decisive')],
    ]),
    min_duration: input('search-min-duration', 'min_duration', 'number', { min: '0', step: 'any', inputmode: 'decimal' }),
    max_duration: input('search-max-duration', 'max_duration', 'number', { min: '0', step: 'any', inputmode: 'decimal' }),
    reported: sel('search-reported', 'reported', yesNo),
    flagged: sel('search-flagged', 'flagged', yesNo),
  };
  const form = h(
    'form',
    { id: 'match-search', class: 'filters filters-wide', role: 'search', 'aria-label': t('admin.search_title') },
    field('search-game', t('admin.f_game'), controls.game),
    field('search-player', t('admin.f_player'), controls.player, t('admin.f_player_help')),
    field('search-since', t('admin.f_since'), controls.since),
    field('search-until', t('admin.f_until'), controls.until),
    field('search-status', t('admin.f_status'), controls.status),
    field('search-result', t('admin.f_result'), controls.result),
    field('search-min-duration', t('admin.f_min_duration'), controls.min_duration),
    field('search-max-duration', t('admin.f_max_duration'), controls.max_duration),
    field('search-reported', t('admin.f_reported'), controls.reported),
    field('search-flagged', t('admin.f_flagged'), controls.flagged),
    h(
      'div',
      { class: 'filters-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'search-submit' }, t('admin.search')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', id: 'search-clear', onclick: clear }, t('profile.clear')),
    ),
  );
  const results = h('div', { id: 'search-results', 'aria-live': 'polite', 'aria-busy': 'true' });
  const error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.search_title')),
    error,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-title' }, form),
    h('section', { class: 'panel', 'aria-labelledby': 'results-title' }, h('h2', { id: 'results-title' }, t('admin.results')), results),
  );

  shell.ensureGames().then((games) => {
    if (gone) return;
    for (const g of games) gameSel.append(h('option', { value: g.id, selected: g.id === values.game }, g.name || g.id));
  });

  function clear() {
    for (const k of keys) controls[k].value = '';
    form.requestSubmit();
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    for (const k of keys) values[k] = String(controls[k].value || '').trim();
    setHashQuery(values);
    search();
  });

  async function search() {
    const mine = ++seq;
    results.setAttribute('aria-busy', 'true');
    error.hidden = true;
    const qs = new URLSearchParams({ limit: '200' });
    for (const k of keys) {
      let v = values[k];
      if (!v) continue;
      if (k === 'since' || k === 'until') v = localToIso(v);
      if (v) qs.set(k, v);
    }
    try {
      const list = await request('GET', `/api/admin/matches?${qs}`);
      if (gone || mine !== seq) return;
      render(Array.isArray(list) ? list : []);
    } catch (err) {
      if (gone || mine !== seq) return;
      results.removeAttribute('aria-busy');
      results.replaceChildren();
      error.textContent = shell.errorText(err);
      error.hidden = false;
    }
  }

  function render(list) {
    results.removeAttribute('aria-busy');
    if (!list.length) {
      results.replaceChildren(h('p', { class: 'empty', id: 'search-empty' }, t('admin.no_results')));
      return;
    }
    const rows = list.map((m) => {
      const seatName = (seat) => (m.seats || []).find((s) => s.seat === seat)?.user?.name || seat;
      return h(
        'tr',
        { 'data-testid': 'search-row', 'data-match-id': m.id },
        h('td', { 'data-label': t('admin.col_created') }, fmtDate(m.created_at, lang)),
        h('td', { 'data-label': t('admin.col_game') }, h('span', { class: 'game-name' }, shell.gameName(m.game)), h('br'), h('code', { class: 'small' }, m.id)),
        h('td', { 'data-label': t('admin.col_players') }, playersText(m.seats, t)),
        h('td', { 'data-label': t('admin.col_status') }, h('span', { class: `status-pill status-${m.status}` }, t(`status.${m.status}`, null, { fallback: m.status }))),
        h('td', { 'data-label': t('admin.col_result') }, resultText(t, m.result, seatName)),
        h('td', { class: 'num', 'data-label': t('admin.col_duration') }, fmtDuration(m.duration_seconds, lang)),
        h(
          'td',
          { 'data-label': t('admin.col_marks') },
          m.flagged ? h('span', { class: 'tag tag-flag' }, t('admin.flagged')) : null,
          m.reports ? h('span', { class: 'tag' }, t('admin.reports_count', { count: m.reports })) : null,
        ),
        h(
          'td',
          { class: 'actions' },
          h(
            'a',
            { class: 'btn btn-small', href: `#/admin/match/${enc(m.id)}`, 'data-testid': 'review-link', 'aria-label': t('admin.review_aria', { id: m.id }) },
            t('admin.review'),
          ),
        ),
      );
    });
    results.replaceChildren(
      h('p', { class: 'muted small', id: 'search-count' }, t('admin.results_count', { count: list.length })),
      dataTable(h, {
        id: 'search-table',
        caption: t('admin.results'),
        columns: [
          t('admin.col_created'),
          t('admin.col_game'),
          t('admin.col_players'),
          t('admin.col_status'),
          t('admin.col_result'),
          t('admin.col_duration'),
          t('admin.col_marks'),
          h('span', { class: 'sr-only' }, t('lobby.col_actions')),
        ],
        rows,
      }),
    );
  }

  search();
  return {
    destroy() {
      gone = true;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Match review
// ---------------------------------------------------------------------------------------------
function reviewPage(root, shell, route) {
  const { h, t } = shell;
  const lang = shell.lang();
  const id = route.id;
  const r = {
    gone: false,
    detail: null,
    record: null,
    n: 0, // number of steps
    step: 0,
    as: 'omniscient',
    viewers: [],
    cache: new Map(), // `${as}|${k}` -> Promise<step doc>
    showSeq: 0,
    board: null,
    timer: null,
  };

  const error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
  const title = h('h1', { id: 'review-title' }, t('admin.review_title_loading'));
  const meta = h('div', { class: 'review-meta', id: 'review-meta' });
  const container = h('div', { class: 'page review', 'data-testid': 'review', 'data-match-id': id });
  root.append(
    h('div', { class: 'page-head' }, h('a', { class: 'btn btn-ghost btn-small', href: '#/admin', id: 'review-back' }, t('admin.back_to_search')), title, meta, error),
    container,
  );

  function fail(err) {
    error.textContent =
      err?.status === 404 ? t('admin.review_not_found') : shell.errorText(err);
    error.hidden = false;
  }

  const seatName = (seat) => {
    const s = (r.record?.seats || []).find((x) => x.seat === seat);
    return s?.user?.name || seat;
  };

  // ---- controls ------------------------------------------------------------------------------
  const range = h('input', { type: 'range', id: 'review-step', min: '0', max: '0', step: '1', value: '0', 'aria-describedby': 'review-step-label' });
  const prev = h('button', { type: 'button', class: 'btn btn-small', id: 'review-prev', 'aria-label': t('admin.prev_step') }, '◀ ', t('admin.prev'));
  const next = h('button', { type: 'button', class: 'btn btn-small', id: 'review-next', 'aria-label': t('admin.next_step') }, t('admin.next'), ' ▶');
  const stepLabel = h('output', { id: 'review-step-label', for: 'review-step', 'aria-live': 'polite' });
  const viewerBox = h('div', { class: 'viewer-options' });
  const stepInfo = h('dl', { class: 'step-info', id: 'review-step-info' });
  const boardStatus = h('p', { class: 'muted small', id: 'review-board-status', role: 'status' });
  const boardHost = h('div', { id: 'review-board', class: 'review-board' });
  const boardTitle = h('h2', { id: 'review-board-title' }, t('admin.board'));
  const raw = h('pre', { id: 'review-step-json', class: 'json', 'data-testid': 'step-json', tabindex: '0' });
  const logBox = h('div', { id: 'review-log', class: 'log-scroll' });
  const modBox = h('div', { id: 'review-moderation' });
  const exportBox = h('div', { class: 'button-row', id: 'review-export' });

  prev.addEventListener('click', () => setStep(r.step - 1));
  next.addEventListener('click', () => setStep(r.step + 1));
  range.addEventListener('input', () => setStep(Number(range.value), { fromRange: true }));

  function onKey(ev) {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const el = ev.target;
    const tag = el?.tagName;
    if (el?.isContentEditable || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
    if (document.querySelector('dialog[open]')) return;
    if (ev.key === 'ArrowLeft') setStep(r.step - 1);
    else if (ev.key === 'ArrowRight') setStep(r.step + 1);
    else if (ev.key === 'Home' && el === document.body) setStep(0);
    else if (ev.key === 'End' && el === document.body) setStep(r.n);
    else return;
    ev.preventDefault();
  }
  document.addEventListener('keydown', onKey);

  function buildLayout() {
    container.replaceChildren(
      h(
        'div',
        { class: 'review-grid' },
        h(
          'div',
          { class: 'review-main' },
          h(
            'section',
            { class: 'panel review-controls', 'aria-labelledby': 'review-controls-title' },
            h('h2', { id: 'review-controls-title' }, t('admin.steps')),
            h('div', { class: 'scrubber' }, prev, h('label', { for: 'review-step', class: 'sr-only' }, t('admin.step_slider')), range, next),
            stepLabel,
            h('p', { class: 'help' }, t('admin.keys_help')),
            h('fieldset', { class: 'options viewer-switch', id: 'review-viewer' }, h('legend', {}, t('admin.show_as')), viewerBox),
            stepInfo,
          ),
          h(
            'section',
            { class: 'panel board-panel', 'aria-labelledby': 'review-board-title' },
            boardTitle,
            boardStatus,
            boardHost,
          ),
          h(
            'details',
            { class: 'panel raw-json', id: 'review-raw' },
            h('summary', {}, t('admin.raw_json')),
            raw,
          ),
        ),
        h(
          'aside',
          { class: 'review-side' },
          h('section', { class: 'panel', 'aria-labelledby': 'moderation-title' }, h('h2', { id: 'moderation-title' }, t('admin.moderation')), modBox),
          h('section', { class: 'panel', 'aria-labelledby': 'export-title' }, h('h2', { id: 'export-title' }, t('admin.export')), h('p', { class: 'help' }, t('admin.export_help')), exportBox),
        ),
      ),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'log-title' },
        h('h2', { id: 'log-title' }, t('admin.action_log')),
        h('p', { class: 'help' }, t('admin.log_help')),
        logBox,
      ),
    );
  }

  // ---- header --------------------------------------------------------------------------------
  function renderHead() {
    const rec = r.record;
    title.replaceChildren(t('admin.review_title', { game: shell.gameName(rec.game) }), h('span', { class: 'match-id' }, ` · ${rec.id}`));
    const duration = rec.started_at && rec.finished_at ? (Date.parse(rec.finished_at) - Date.parse(rec.started_at)) / 1000 : null;
    meta.replaceChildren(
      h(
        'p',
        {},
        h('span', { class: `status-pill status-${rec.status}` }, t(`status.${rec.status}`, null, { fallback: rec.status })),
        ' ',
        r.detail.flagged ? h('span', { class: 'tag tag-flag', id: 'review-flag-tag' }, t('admin.flagged')) : null,
        ' ',
        h('strong', {}, resultText(t, rec.result, seatName)),
      ),
      h(
        'p',
        { class: 'muted small' },
        t('admin.players_label'),
        ' ',
        ...(rec.seats || []).flatMap((s, i) => [
          i ? ' · ' : '',
          `${s.seat} `,
          s.user ? h('a', { href: `#/users/${enc(s.user.id)}` }, isBot(s.user) ? botName(t, s.user) : s.user.name) : '—',
          isBot(s.user) ? botBadge(h, t) : '',
        ]),
      ),
      h(
        'p',
        { class: 'muted small' },
        t('admin.times', {
          started: fmtDate(rec.started_at, lang),
          finished: fmtDate(rec.finished_at, lang),
          duration: fmtDuration(duration, lang),
        }),
      ),
    );
  }

  function renderViewers() {
    viewerBox.replaceChildren(
      ...r.viewers.map((v) => {
        const inputId = `view-as-${v}`;
        const label =
          v === 'omniscient'
            ? t('admin.as_omniscient')
            : v === 'spectator'
              ? t('admin.as_spectator')
              : t('admin.as_seat', { seat: v, name: seatName(v) });
        const radio = h('input', { type: 'radio', name: 'review-as', id: inputId, value: v, checked: v === r.as });
        radio.addEventListener('change', () => {
          if (radio.checked) setViewer(v);
        });
        return h('label', { class: 'viewer-option', for: inputId }, radio, h('span', {}, label));
      }),
    );
  }

  // ---- action log ----------------------------------------------------------------------------
  function renderLog() {
    const log = r.detail.log || { steps: [], seconds_per_seat: {} };
    const rows = log.steps.map((row) => {
      const jump = h(
        'button',
        { type: 'button', class: 'btn-link step-jump', 'data-step': row.step, 'aria-label': t('admin.go_to_step', { n: row.step }) },
        String(row.step),
      );
      jump.addEventListener('click', () => setStep(row.step));
      return h(
        'tr',
        { 'data-testid': 'log-row', 'data-step': row.step, 'data-seconds': row.seconds ?? '' },
        h('td', { class: 'num', 'data-label': t('admin.col_step') }, jump),
        h('td', { 'data-label': t('admin.col_time') }, h('time', { datetime: row.at }, fmtDate(row.at, lang, { timeStyle: 'medium' }))),
        h('td', { 'data-label': t('admin.col_seat') }, `${row.seat} · ${seatName(row.seat)}`),
        h('td', { 'data-label': t('admin.col_kind') }, t(`admin.kind_${row.kind}`, null, { fallback: row.kind })),
        h('td', { 'data-label': t('admin.col_action'), class: 'log-action', 'data-step': row.step }),
        h('td', { class: 'num', 'data-label': t('admin.col_seconds') }, row.seconds === null || row.seconds === undefined ? '—' : fmtNum(row.seconds, lang, 1)),
      );
    });
    const totals = Object.entries(log.seconds_per_seat || {}).map(([seat, secs]) =>
      h(
        'tr',
        { 'data-testid': 'log-total', 'data-seat': seat, 'data-seconds': secs },
        h('th', { scope: 'row', colspan: '5' }, t('admin.total_seat', { seat, name: seatName(seat) })),
        h('td', { class: 'num' }, fmtNum(secs, lang, 1)),
      ),
    );
    const table = dataTable(h, {
      id: 'action-log',
      caption: t('admin.action_log'),
      columns: [t('admin.col_step'), t('admin.col_time'), t('admin.col_seat'), t('admin.col_kind'), t('admin.col_action'), t('admin.col_seconds')],
      rows,
      cls: 'matches data-table log-table',
    });
    table.append(h('tfoot', {}, totals));
    logBox.replaceChildren(rows.length ? table : h('p', { class: 'empty' }, t('admin.no_steps')));
    logActions();
    markLogRow();
  }

  /** Action payloads may hold secrets (a locked plan): like the step API, only the omniscient
   *  view shows them. */
  function logActions() {
    const rows = new Map((r.detail.log?.steps || []).map((row) => [String(row.step), row]));
    const omniscient = r.as === 'omniscient';
    for (const td of logBox.querySelectorAll('td.log-action')) {
      const row = rows.get(td.dataset.step);
      if (!row || row.action === null || row.action === undefined) td.replaceChildren('—');
      else if (omniscient) td.replaceChildren(h('code', { class: 'action-json', title: compact(row.action) }, compact(row.action)));
      else td.replaceChildren(h('span', { class: 'muted small' }, t('admin.action_hidden')));
    }
  }

  function markLogRow() {
    for (const tr of logBox.querySelectorAll('tr[data-step]')) {
      const on = Number(tr.dataset.step) === r.step;
      tr.classList.toggle('current', on);
      if (on) tr.setAttribute('aria-current', 'step');
      else tr.removeAttribute('aria-current');
    }
    const cur = logBox.querySelector('tr.current');
    if (cur && logBox.scrollHeight > logBox.clientHeight) {
      const top = cur.offsetTop - logBox.clientHeight / 2;
      logBox.scrollTop = Math.max(0, top);
    }
  }

  // ---- moderation: flag, notes, reports ------------------------------------------------------
  async function renderModeration() {
    const d = r.detail;
    const flagNote = h('textarea', { id: 'flag-note', rows: '2', maxlength: '2000', 'aria-describedby': 'flag-note-help' });
    const flagBtn = h(
      'button',
      { type: 'submit', class: d.flagged ? 'btn btn-small' : 'btn btn-small btn-primary', id: 'flag-button' },
      d.flagged ? t('admin.unflag') : t('admin.flag'),
    );
    const flagForm = h(
      'form',
      { class: 'stack stack-tight', id: 'flag-form' },
      h(
        'p',
        { id: 'flag-status', 'data-flagged': String(!!d.flagged) },
        d.flagged ? h('span', { class: 'tag tag-flag' }, t('admin.flagged')) : h('span', { class: 'tag' }, t('admin.not_flagged')),
      ),
      h('div', { class: 'field' }, h('label', { for: 'flag-note' }, t('admin.flag_note')), flagNote, h('p', { class: 'help', id: 'flag-note-help' }, t('admin.flag_note_help'))),
      flagBtn,
    );
    flagForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      flagBtn.disabled = true;
      try {
        const note = flagNote.value.trim();
        await request('POST', `/api/admin/matches/${enc(id)}/flag`, { flagged: !d.flagged, note: note || null });
        shell.toast(!d.flagged ? t('admin.flagged_toast') : t('admin.unflagged_toast'));
        await refreshDetail('flag-button');
      } catch (err) {
        flagBtn.disabled = false;
        fail(err);
      }
    });

    const noteText = h('textarea', { id: 'note-text', rows: '3', maxlength: '2000', required: true });
    const noteBtn = h('button', { type: 'submit', class: 'btn btn-small', id: 'note-submit' }, t('admin.add_note'));
    const noteForm = h(
      'form',
      { class: 'stack stack-tight', id: 'note-form' },
      h('div', { class: 'field' }, h('label', { for: 'note-text' }, t('admin.note')), noteText),
      noteBtn,
    );
    noteForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const text = noteText.value.trim();
      if (!text) {
        noteText.focus();
        return;
      }
      noteBtn.disabled = true;
      try {
        await request('POST', `/api/admin/matches/${enc(id)}/notes`, { text });
        shell.toast(t('admin.note_added'));
        await refreshDetail('note-text');
      } catch (err) {
        noteBtn.disabled = false;
        fail(err);
      }
    });

    const notes = h(
      'ul',
      { class: 'notes', id: 'notes-list' },
      d.notes.length
        ? d.notes.map((n) => {
            const who = h('span', { class: 'note-author' }, n.author_id);
            nameOf(n.author_id).then((name) => (who.textContent = name));
            return h('li', { 'data-testid': 'note' }, h('p', { class: 'note-text' }, n.text), h('p', { class: 'muted small' }, who, ' · ', fmtDate(n.at, lang)));
          })
        : h('li', { class: 'empty' }, t('admin.no_notes')),
    );

    const reports = h(
      'ul',
      { class: 'notes', id: 'match-reports' },
      d.reports.length
        ? d.reports.map((rep) => {
            const who = h('span', {}, rep.user_id);
            nameOf(rep.user_id).then((name) => (who.textContent = name));
            const resolve =
              rep.status === 'open'
                ? h('button', { type: 'button', class: 'btn btn-small', 'data-report-id': rep.id }, t('admin.resolve'))
                : h('span', { class: 'tag' }, t('admin.resolved'));
            if (rep.status === 'open') {
              resolve.addEventListener('click', async () => {
                resolve.disabled = true;
                try {
                  await request('POST', `/api/admin/reports/${rep.id}/resolve`);
                  await refreshDetail();
                } catch (err) {
                  resolve.disabled = false;
                  fail(err);
                }
              });
            }
            return h('li', { 'data-testid': 'match-report' }, h('p', { class: 'note-text' }, rep.reason), h('p', { class: 'muted small' }, who, ' · ', fmtDate(rep.created_at, lang), ' '), resolve);
          })
        : h('li', { class: 'empty' }, t('admin.no_reports_match')),
    );

    modBox.replaceChildren(
      flagForm,
      h('h3', {}, t('admin.notes')),
      notes,
      noteForm,
      h('h3', {}, t('admin.match_reports')),
      reports,
    );
  }

  async function refreshDetail(focusId) {
    const d = await request('GET', `/api/admin/matches/${enc(id)}`);
    if (r.gone) return;
    r.detail = d;
    renderHead();
    await renderModeration();
    if (focusId) document.getElementById(focusId)?.focus();
  }

  function renderExport() {
    const link = (fmt, label) => {
      const href = `/api/admin/matches/${enc(id)}/export.${fmt}`;
      const a = h('a', { class: 'btn btn-small', id: `export-${fmt}`, href, download: `duelhall-${id}.${fmt}` }, label);
      a.addEventListener('click', async (ev) => {
        ev.preventDefault();
        a.setAttribute('aria-busy', 'true');
        try {
          await download(href, `duelhall-${id}.${fmt}`);
        } catch (err) {
          fail(err);
        } finally {
          a.removeAttribute('aria-busy');
        }
      });
      return a;
    };
    exportBox.replaceChildren(link('json', t('admin.export_json')), link('txt', t('admin.export_txt')));
  }

  // ---- steps ---------------------------------------------------------------------------------
  function fetchStep(as, k) {
    const key = `${as}|${k}`;
    if (!r.cache.has(key)) {
      const p = request('GET', `/api/admin/matches/${enc(id)}/steps/${k}?as=${enc(as)}`);
      p.catch(() => r.cache.delete(key));
      r.cache.set(key, p);
    }
    return r.cache.get(key);
  }

  /** Steps from..n as `as` saw them (fetched a few at a time; cached). */
  async function historyOf(as, from, n, isStale) {
    const total = Math.max(0, n - from + 1);
    const out = new Array(total);
    let nextK = from;
    let done = 0;
    async function worker() {
      while (nextK <= n && !isStale()) {
        const k = nextK++;
        out[k - from] = await fetchStep(as, k);
        done++;
        if (total > 12 && done % 6 === 0 && !isStale()) boardStatus.textContent = t('admin.loading_history', { done, total });
      }
    }
    await Promise.all(Array.from({ length: Math.min(STEP_FETCH_CONCURRENCY, total) }, worker));
    return out;
  }

  function labelStep() {
    range.value = String(r.step);
    range.setAttribute('aria-valuetext', t('admin.step_of', { n: r.step, total: r.n }));
    stepLabel.textContent = r.step === 0 ? t('admin.step_zero', { total: r.n }) : t('admin.step_of', { n: r.step, total: r.n });
    prev.disabled = r.step <= 0;
    next.disabled = r.step >= r.n;
    container.dataset.step = String(r.step);
    container.dataset.as = r.as;
    setHashQuery({ step: r.step, as: r.as });
    markLogRow();
  }

  function setStep(k, { fromRange = false } = {}) {
    k = Math.max(0, Math.min(r.n, Number.isFinite(k) ? Math.round(k) : 0));
    if (k === r.step && !fromRange) return;
    r.step = k;
    labelStep();
    scheduleShow();
  }

  function setViewer(v) {
    if (v === r.as) return;
    r.as = v;
    logActions();
    labelStep();
    scheduleShow();
  }

  function scheduleShow() {
    clearTimeout(r.timer);
    // Scrubbing through cached steps is immediate; otherwise wait for the slider to rest.
    const cached = r.cache.has(`${r.as}|${r.step}`);
    r.timer = setTimeout(show, cached ? 0 : 60);
  }

  function renderStepInfo(doc) {
    const items = [];
    const add = (term, value) => items.push(h('dt', {}, term), h('dd', {}, value));
    if (doc.action) {
      add(t('admin.info_step_action'), `${doc.action.seat} · ${seatName(doc.action.seat)} · ${t(`admin.kind_${doc.action.kind}`, null, { fallback: doc.action.kind })}`);
      add(t('admin.info_at'), fmtDate(doc.action.at, lang, { dateStyle: 'short', timeStyle: 'medium' }));
      add(
        t('admin.info_action'),
        doc.action.action === null || doc.action.action === undefined
          ? h('span', { class: 'muted' }, t('admin.action_hidden'))
          : h('code', { class: 'action-json' }, compact(doc.action.action)),
      );
    } else {
      add(t('admin.info_step_action'), t('admin.the_deal'));
    }
    add(t('admin.info_pending'), doc.pending.length ? doc.pending.map((s) => `${s} · ${seatName(s)}`).join(', ') : '—');
    add(t('admin.info_result'), resultText(t, doc.result, seatName));
    stepInfo.replaceChildren(...items);
  }

  async function show() {
    const token = ++r.showSeq;
    const as = r.as;
    const step = r.step;
    const stale = () => r.gone || token !== r.showSeq;
    container.setAttribute('aria-busy', 'true');
    delete container.dataset.loaded;
    try {
      const doc = await fetchStep(as, step);
      if (stale()) return;
      renderStepInfo(doc);
      raw.textContent = JSON.stringify(doc, null, 2);
      raw.dataset.step = String(step);
      raw.dataset.as = as;
      const from = Math.max(1, step - HISTORY_STEPS + 1);
      const steps = await historyOf(as, from, step, stale);
      if (stale()) return;
      const events = [];
      steps.forEach((d, i) => {
        const version = d.version ?? from + i;
        for (const e of d.events || []) events.push({ ...e, version });
      });
      await mountBoard(doc, events, as, stale);
      if (stale()) return;
      boardStatus.textContent = from > 1 ? t('admin.history_from', { from }) : '';
      container.removeAttribute('aria-busy');
      container.dataset.loaded = `${step}|${as}`;
    } catch (err) {
      if (stale()) return;
      container.removeAttribute('aria-busy');
      fail(err);
    }
  }

  async function mountBoard(doc, events, as, stale) {
    const rec = r.record;
    const seat = as !== 'omniscient' && as !== 'spectator' ? as : null;
    const viewDoc = {
      match: rec.id,
      game: rec.game,
      version: doc.version ?? 0,
      seq: doc.version ?? 0,
      seat,
      status: doc.result ? 'finished' : 'live',
      players: rec.seats,
      options: rec.options,
      pending: doc.pending,
      legal: [],
      state: doc.state,
      events,
      result: doc.result,
      deadline: null,
      deadlines: {},
      client_seq: 0,
      rematch: null,
    };
    const board = await loadBoard(rec.game);
    if (stale()) return;
    destroyBoard();
    const host = h('div', { class: 'board-host', 'data-game': rec.game, 'data-step': doc.step, 'data-as': as });
    boardHost.replaceChildren(host);
    boardTitle.textContent = t('admin.board_as', {
      viewer: as === 'omniscient' ? t('admin.as_omniscient') : as === 'spectator' ? t('admin.as_spectator') : t('admin.as_seat', { seat: as, name: seatName(as) }),
    });
    const ctx = {
      t: translatorFor(board.ns),
      // Read-only: nothing is ever sent from the review.
      act: () => Promise.reject({ code: 'read_only', message: t('admin.read_only') }),
      seat,
      // Not the live match: a board must not load anything of the match by itself here.
      matchId: null,
      review: true,
      lang: shell.lang(),
      game: rec.game,
    };
    try {
      r.board = board.mount(host, ctx);
      r.board.update(viewDoc);
    } catch (err) {
      console.error('review board failed', err);
      boardHost.replaceChildren(h('p', { class: 'error', role: 'alert' }, t('error.board')));
    }
  }

  function destroyBoard() {
    if (r.board) {
      try {
        r.board.destroy();
      } catch (err) {
        console.error(err);
      }
    }
    r.board = null;
  }

  // ---- start ---------------------------------------------------------------------------------
  (async () => {
    try {
      const [detail] = await Promise.all([request('GET', `/api/admin/matches/${enc(id)}`), shell.ensureGames()]);
      if (r.gone) return;
      r.detail = detail;
      r.record = detail.record;
      r.n = (detail.record.actions || []).length;
      r.viewers = ['omniscient', ...(detail.record.seats || []).map((s) => s.seat), 'spectator'];
      const q = hashQuery();
      const qStep = q.get('step');
      r.step = qStep !== null && qStep !== '' && Number.isFinite(Number(qStep)) ? Math.max(0, Math.min(r.n, Math.round(Number(qStep)))) : r.n;
      r.as = r.viewers.includes(q.get('as')) ? q.get('as') : 'omniscient';
      range.max = String(r.n);
      buildLayout();
      renderHead();
      renderViewers();
      renderLog();
      renderExport();
      renderModeration();
      labelStep();
      document.title = `${t('admin.review_title', { game: shell.gameName(r.record.game) })} · ${t('app.title')}`;
      show();
    } catch (err) {
      if (!r.gone) {
        title.textContent = t('admin.review_title_loading');
        fail(err);
      }
    }
  })();

  return {
    destroy() {
      r.gone = true;
      clearTimeout(r.timer);
      document.removeEventListener('keydown', onKey);
      destroyBoard();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Report queue
// ---------------------------------------------------------------------------------------------
function reportsPage(root, shell) {
  const { h, t } = shell;
  const lang = shell.lang();
  let gone = false;
  const status = hashQuery().get('status') === 'resolved' ? 'resolved' : 'open';
  const sel = h(
    'select',
    { id: 'reports-status' },
    ['open', 'resolved'].map((s) => h('option', { value: s, selected: s === status }, t(`admin.reports_${s}`))),
  );
  sel.addEventListener('change', () => {
    setHashQuery({ status: sel.value });
    load(sel.value);
  });
  const box = h('div', { id: 'reports', 'aria-live': 'polite', 'aria-busy': 'true' });
  const error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.reports_title')),
    error,
    h(
      'section',
      { class: 'panel', 'aria-labelledby': 'admin-title' },
      h('div', { class: 'field field-narrow' }, h('label', { for: 'reports-status' }, t('admin.f_status')), sel),
      box,
    ),
  );

  async function load(which) {
    box.setAttribute('aria-busy', 'true');
    try {
      const list = await request('GET', `/api/admin/reports?status=${enc(which)}`);
      if (gone) return;
      render(list || []);
    } catch (err) {
      if (gone) return;
      error.textContent = shell.errorText(err);
      error.hidden = false;
    }
  }

  function render(list) {
    box.removeAttribute('aria-busy');
    if (!list.length) {
      box.replaceChildren(h('p', { class: 'empty', id: 'reports-empty' }, t('admin.no_reports')));
      return;
    }
    const rows = list.map((rep) => {
      const who = h('a', { href: `#/users/${enc(rep.user_id)}` }, rep.user_id);
      nameOf(rep.user_id).then((n) => (who.textContent = n));
      let action;
      if (rep.status === 'open') {
        action = h('button', { type: 'button', class: 'btn btn-small btn-primary', 'data-testid': 'resolve', 'aria-label': t('admin.resolve_aria', { id: rep.id }) }, t('admin.resolve'));
        action.addEventListener('click', async () => {
          action.disabled = true;
          try {
            await request('POST', `/api/admin/reports/${rep.id}/resolve`);
            shell.toast(t('admin.resolved_toast'));
            await load(sel.value);
            box.querySelector('button')?.focus();
          } catch (err) {
            action.disabled = false;
            error.textContent = shell.errorText(err);
            error.hidden = false;
          }
        });
      } else {
        const by = h('span', {}, rep.resolved_by || '');
        if (rep.resolved_by) nameOf(rep.resolved_by).then((n) => (by.textContent = n));
        action = h('span', { class: 'muted small' }, t('admin.resolved_by'), ' ', by, ' · ', fmtDate(rep.resolved_at, lang));
      }
      return h(
        'tr',
        { 'data-testid': 'report-row', 'data-report-id': rep.id, 'data-match-id': rep.match_id },
        h('td', { class: 'num', 'data-label': '#' }, String(rep.id)),
        h('td', { 'data-label': t('admin.col_match') }, h('a', { href: `#/admin/match/${enc(rep.match_id)}` }, h('code', {}, rep.match_id))),
        h('td', { 'data-label': t('admin.col_reporter') }, who),
        h('td', { 'data-label': t('admin.col_reason') }, rep.reason),
        h('td', { 'data-label': t('admin.col_created') }, fmtDate(rep.created_at, lang)),
        h('td', { class: 'actions' }, action),
      );
    });
    box.replaceChildren(
      dataTable(h, {
        id: 'reports-table',
        caption: t('admin.reports_title'),
        columns: ['#', t('admin.col_match'), t('admin.col_reporter'), t('admin.col_reason'), t('admin.col_created'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))],
        rows,
      }),
    );
  }

  load(status);
  return {
    destroy() {
      gone = true;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Users: search, grant role, suspend, restore
// ---------------------------------------------------------------------------------------------
function usersPage(root, shell) {
  const { h, t } = shell;
  const lang = shell.lang();
  let gone = false;
  let query = hashQuery().get('q') || '';
  const input = h('input', { id: 'user-search-q', type: 'search', maxlength: '40', autocomplete: 'off' });
  input.value = query;
  const form = h(
    'form',
    { id: 'user-search', class: 'filters', role: 'search', 'aria-label': t('admin.users_title') },
    h('div', { class: 'field' }, h('label', { for: 'user-search-q' }, t('admin.user_query')), input, h('p', { class: 'help' }, t('admin.user_query_help'))),
    h('div', { class: 'filters-actions' }, h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'user-search-submit' }, t('admin.search'))),
  );
  const box = h('div', { id: 'users', 'aria-live': 'polite', 'aria-busy': 'true' });
  const error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.users_title')),
    error,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-title' }, form, box),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    query = input.value.trim();
    setHashQuery({ q: query });
    load();
  });

  const showError = (err) => {
    error.textContent = shell.errorText(err);
    error.hidden = false;
  };

  async function load(focusSel) {
    box.setAttribute('aria-busy', 'true');
    error.hidden = true;
    try {
      const list = await request('GET', `/api/admin/users${query ? `?q=${enc(query)}` : ''}`);
      if (gone) return;
      render(list || []);
      if (focusSel) box.querySelector(focusSel)?.focus();
    } catch (err) {
      if (!gone) showError(err);
    }
  }

  function render(list) {
    box.removeAttribute('aria-busy');
    if (!list.length) {
      box.replaceChildren(h('p', { class: 'empty', id: 'users-empty' }, t('admin.no_users')));
      return;
    }
    const me = shell.me();
    const rows = list.map((u) => {
      const roleSel = h(
        'select',
        { id: `role-${u.id}`, 'aria-label': t('admin.role_for', { name: u.name }), class: 'select-small' },
        ['player', 'organiser', 'admin'].map((role) => h('option', { value: role, selected: role === u.role }, t(`role.${role}`))),
      );
      const grant = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'grant' }, t('admin.grant'));
      grant.addEventListener('click', async () => {
        grant.disabled = true;
        try {
          await request('POST', `/api/admin/users/${enc(u.id)}/role`, { role: roleSel.value });
          shell.toast(t('admin.role_granted', { name: u.name, role: t(`role.${roleSel.value}`) }));
          await load(`#${CSS.escape(`role-${u.id}`)}`);
        } catch (err) {
          grant.disabled = false;
          showError(err);
        }
      });
      let toggle;
      if (u.suspended) {
        toggle = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'restore' }, t('admin.restore'));
        toggle.addEventListener('click', async () => {
          toggle.disabled = true;
          try {
            await request('POST', `/api/admin/users/${enc(u.id)}/restore`);
            shell.toast(t('admin.restored_toast', { name: u.name }));
            await load();
          } catch (err) {
            toggle.disabled = false;
            showError(err);
          }
        });
      } else {
        toggle = h('button', { type: 'button', class: 'btn btn-small btn-ghost', 'data-testid': 'suspend', disabled: me && me.id === u.id }, t('admin.suspend'));
        toggle.addEventListener('click', () => suspend(u, toggle));
      }
      const kind = u.bot ? t('profile.bot') : u.guest ? t('profile.guest') : t('admin.account');
      return h(
        'tr',
        { 'data-testid': 'user-row', 'data-user-id': u.id, 'data-suspended': String(!!u.suspended), 'data-role': u.role },
        h('td', { 'data-label': t('admin.col_name') }, h('a', { href: `#/users/${enc(u.id)}` }, u.name), h('br'), h('code', { class: 'small' }, u.id)),
        h('td', { 'data-label': t('admin.col_kind_user') }, kind),
        h('td', { 'data-label': t('admin.col_role') }, h('div', { class: 'input-row' }, roleSel, grant)),
        h('td', { 'data-label': t('admin.col_state') }, u.suspended ? h('span', { class: 'tag tag-flag' }, t('admin.suspended')) : t('admin.active')),
        h('td', { 'data-label': t('admin.col_created') }, fmtDate(u.created_at, lang)),
        h('td', { class: 'actions' }, toggle),
      );
    });
    box.replaceChildren(
      dataTable(h, {
        id: 'users-table',
        caption: t('admin.users_title'),
        columns: [t('admin.col_name'), t('admin.col_kind_user'), t('admin.col_role'), t('admin.col_state'), t('admin.col_created'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))],
        rows,
      }),
    );
  }

  function suspend(u, btn) {
    const reason = h('textarea', { id: 'suspend-reason', rows: '3', minlength: '3', maxlength: '500', required: true });
    modal(shell, {
      id: 'suspend-dialog',
      title: t('admin.suspend_title', { name: u.name }),
      body: [h('div', { class: 'field' }, h('label', { for: 'suspend-reason' }, t('admin.suspend_reason')), reason)],
      submitText: t('admin.suspend'),
      returnFocus: btn,
      async onSubmit() {
        const text = reason.value.trim();
        if (text.length < 3) return t('postmatch.report_too_short', { min: 3 });
        try {
          await request('POST', `/api/admin/users/${enc(u.id)}/suspend`, { reason: text });
        } catch (err) {
          return err?.message || shell.errorText(err);
        }
        shell.toast(t('admin.suspended_toast', { name: u.name }));
        load();
        return null;
      },
    });
  }

  load();
  return {
    destroy() {
      gone = true;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Audit trail
// ---------------------------------------------------------------------------------------------
function auditPage(root, shell) {
  const { h, t } = shell;
  const lang = shell.lang();
  let gone = false;
  const box = h('div', { id: 'audit', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  const error = h('p', { id: 'error-message', class: 'error', role: 'alert', hidden: true });
  root.append(
    h('h1', { id: 'admin-title' }, t('admin.audit_title')),
    h('p', { class: 'lead' }, t('admin.audit_intro')),
    error,
    h('section', { class: 'panel', 'aria-labelledby': 'admin-title' }, box),
  );

  function target(tg) {
    const [kind, rest] = String(tg).split(/:(.*)/s);
    if (kind === 'match' && rest) return h('a', { href: `#/admin/match/${enc(rest)}` }, tg);
    if (kind === 'user' && rest) {
      const a = h('a', { href: `#/users/${enc(rest)}` }, tg);
      nameOf(rest).then((n) => (a.textContent = n));
      return a;
    }
    return tg;
  }

  request('GET', '/api/admin/audit')
    .then((list) => {
      if (gone) return;
      box.removeAttribute('aria-busy');
      if (!list.length) {
        box.replaceChildren(h('p', { class: 'empty' }, t('admin.no_audit')));
        return;
      }
      const rows = list.map((a) => {
        const actor = h('a', { href: `#/users/${enc(a.actor_id)}` }, a.actor_id);
        nameOf(a.actor_id).then((n) => (actor.textContent = n));
        return h(
          'tr',
          { 'data-testid': 'audit-row', 'data-action': a.action, 'data-target': a.target },
          h('td', { 'data-label': t('admin.col_when') }, fmtDate(a.at, lang, { dateStyle: 'short', timeStyle: 'medium' })),
          h('td', { 'data-label': t('admin.col_actor') }, actor),
          h('td', { 'data-label': t('admin.col_audit_action') }, t(`admin.audit_${a.action}`, null, { fallback: a.action })),
          h('td', { 'data-label': t('admin.col_target') }, target(a.target)),
          h('td', { 'data-label': t('admin.col_details') }, a.details ? h('code', { class: 'action-json' }, compact(a.details)) : '—'),
        );
      });
      box.replaceChildren(
        dataTable(h, {
          id: 'audit-table',
          caption: t('admin.audit_title'),
          columns: [t('admin.col_when'), t('admin.col_actor'), t('admin.col_audit_action'), t('admin.col_target'), t('admin.col_details')],
          rows,
        }),
      );
    })
    .catch((err) => {
      if (gone) return;
      box.removeAttribute('aria-busy');
      box.replaceChildren();
      error.textContent = shell.errorText(err);
      error.hidden = false;
    });

  return {
    destroy() {
      gone = true;
    },
  };
}
