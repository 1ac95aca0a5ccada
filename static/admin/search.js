// #/admin: match search (game, player, dates, status, result, duration, reported, flagged) with
// a results table. The filters live in the hash's query, so a search can be linked.

import { request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, field, fmtDate, fmtDuration, hashQuery, setHashQuery } from '../ui.js';
import { enc, localToIso, playersText, resultText } from './common.js';

export function searchPage(root, shell) {
  const { t } = shell;
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
  const error = alertBox();
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
      dataTable({
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
