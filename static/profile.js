// A player's page (#/users/<id>): per-game ratings and the match history with filters.
//
// Data: GET /api/users/{id}, GET /api/users/{id}/matches?game=&result=&opponent=. Filters live
// in the hash's query (#/users/<id>?game=duel), so a filtered list can be linked; they are
// written with history.replaceState (no re-render). The leaderboards are leaderboard.js
// (re-exported here, where app.js finds them), the shared formats static/ui.js.

import { request } from './api.js';
import { isBot, botName, botBadge } from './bots.js';
import { h } from './dom.js';
import {
  alertBox,
  dataTable as uiDataTable,
  fmtDate,
  fmtNum,
  focusHeading,
  hashQuery,
  setHashQuery,
} from './ui.js';

export { leaderboardScreen } from './leaderboard.js';
// These helpers lived here once; other modules may still import them from this place.
export { fmtDate, fmtNum, hashQuery, setHashQuery };

/** The table helper's old form, dataTable(h, opts); static/ui.js has dataTable(opts). */
export function dataTable(_h, opts) {
  return uiDataTable(opts);
}

const enc = encodeURIComponent;

/** How a seat came out of a match summary: win | loss | draw | <status>. */
export function outcomeOf(summary, seat, place) {
  if (summary.status !== 'finished') return summary.status || 'other';
  const r = summary.result || {};
  if (r.draw) return 'draw';
  if (place === 1) return 'win';
  if (typeof place === 'number' && place > 1) return 'loss';
  if (r.winner) return r.winner === seat ? 'win' : 'loss';
  const places = r.places || {};
  if (places[seat] === 1) return 'win';
  if (places[seat] > 1) return 'loss';
  return 'other';
}

function gameOptions(games, selected, anyLabel) {
  const list = [h('option', { value: '' }, anyLabel)];
  for (const g of games) list.push(h('option', { value: g.id, selected: g.id === selected }, g.name || g.id));
  return list;
}

export function profileScreen(main, shell, userId) {
  const { t } = shell;
  const lang = shell.lang();
  let gone = false;
  let seq = 0;
  const q = hashQuery();
  const filters = { game: q.get('game') || '', result: q.get('result') || '', opponent: q.get('opponent') || '' };

  const title = h('h1', { id: 'profile-title' }, t('common.loading'));
  const meta = h('p', { class: 'muted', id: 'profile-meta' });
  const error = alertBox();
  const ratingsBox = h('div', { id: 'profile-ratings', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  const historyBox = h('div', { id: 'profile-history', 'aria-live': 'polite', 'aria-busy': 'true' });

  const gameSel = h('select', { id: 'history-game', name: 'game' });
  const resultSel = h(
    'select',
    { id: 'history-result', name: 'result' },
    ['', 'win', 'loss', 'draw'].map((v) =>
      h('option', { value: v, selected: v === filters.result }, v ? t(`profile.result_${v}`) : t('profile.any_result')),
    ),
  );
  const opponent = h('input', { id: 'history-opponent', name: 'opponent', type: 'text', maxlength: '24', autocomplete: 'off' });
  opponent.value = filters.opponent;
  const form = h(
    'form',
    { id: 'history-filters', class: 'filters', role: 'search', 'aria-label': t('profile.filters') },
    h('div', { class: 'field' }, h('label', { for: 'history-game' }, t('profile.filter_game')), gameSel),
    h('div', { class: 'field' }, h('label', { for: 'history-result' }, t('profile.filter_result')), resultSel),
    h('div', { class: 'field' }, h('label', { for: 'history-opponent' }, t('profile.filter_opponent')), opponent),
    h(
      'div',
      { class: 'filters-actions' },
      h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'history-apply' }, t('profile.apply')),
      h('button', { type: 'button', class: 'btn btn-ghost btn-small', id: 'history-clear', onclick: clear }, t('profile.clear')),
    ),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    filters.game = gameSel.value;
    filters.result = resultSel.value;
    filters.opponent = opponent.value.trim();
    setHashQuery(filters);
    loadHistory();
  });
  function clear() {
    gameSel.value = '';
    resultSel.value = '';
    opponent.value = '';
    form.requestSubmit();
  }

  main.append(
    h(
      'div',
      { class: 'page profile', 'data-testid': 'profile', 'data-user-id': userId },
      h('div', { class: 'page-head' }, h('a', { class: 'btn btn-ghost btn-small', href: '#/' }, t('match.back')), title, meta, error),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'ratings-title' },
        h('h2', { id: 'ratings-title' }, t('profile.ratings')),
        h('p', { class: 'help' }, t('profile.ratings_help')),
        ratingsBox,
      ),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'history-title' },
        h('h2', { id: 'history-title' }, t('profile.history')),
        form,
        historyBox,
      ),
    ),
  );

  shell.ensureGames().then((games) => {
    if (gone) return;
    gameSel.replaceChildren(...gameOptions(games, filters.game, t('profile.any_game')));
  });

  async function loadProfile() {
    try {
      const p = await request('GET', `/api/users/${enc(userId)}`);
      if (gone) return;
      const u = p.user;
      title.textContent = u.bot ? botName(t, u) : u.name;
      document.title = `${u.name} · ${t('app.title')}`;
      const tags = [];
      if (u.role && u.role !== 'player') tags.push(t(`role.${u.role}`, null, { fallback: u.role }));
      if (u.guest && !u.bot) tags.push(t('profile.guest')); // bots have no account either
      if (u.bot) tags.push(t('profile.bot'));
      meta.replaceChildren(
        ...tags.map((x) => h('span', { class: 'tag' }, x)),
        u.created_at ? ` ${t('profile.since', { date: fmtDate(u.created_at, lang, { dateStyle: 'medium' }) })}` : '',
      );
      renderRatings(p.ratings || []);
    } catch (err) {
      if (gone) return;
      ratingsBox.removeAttribute('aria-busy');
      if (err?.status === 404) {
        const self = shell.me() && shell.me().id === userId;
        title.textContent = self ? shell.me().name : t('profile.not_found_title');
        ratingsBox.replaceChildren(h('p', { class: 'empty' }, self ? t('profile.no_games_yet') : t('profile.not_found')));
      } else {
        error.textContent = shell.errorText(err);
        error.hidden = false;
        ratingsBox.replaceChildren();
      }
    }
  }

  function renderRatings(list) {
    ratingsBox.removeAttribute('aria-busy');
    if (!list.length) {
      ratingsBox.replaceChildren(h('p', { class: 'empty' }, t('profile.no_ratings')));
      return;
    }
    const rows = list.map((r) =>
      h(
        'tr',
        { 'data-testid': 'rating', 'data-game': r.game },
        h('td', { 'data-label': t('profile.col_game') }, h('a', { href: `#/leaderboard/${enc(r.game)}`, class: 'game-name' }, shell.gameName(r.game))),
        h('td', { class: 'num', 'data-label': t('rating.ordinal') }, h('strong', {}, fmtNum(r.ordinal, lang))),
        h('td', { class: 'num', 'data-label': t('rating.mu') }, fmtNum(r.mu, lang)),
        h('td', { class: 'num', 'data-label': t('rating.sigma') }, fmtNum(r.sigma, lang)),
        h('td', { class: 'num', 'data-label': t('rating.matches') }, fmtNum(r.matches, lang, 0)),
        h('td', { class: 'num', 'data-label': t('rating.wins') }, fmtNum(r.wins, lang, 0)),
      ),
    );
    ratingsBox.replaceChildren(
      uiDataTable({
        id: 'ratings-table',
        caption: t('profile.ratings'),
        columns: [t('profile.col_game'), t('rating.ordinal'), t('rating.mu'), t('rating.sigma'), t('rating.matches'), t('rating.wins')],
        rows,
      }),
    );
  }

  async function loadHistory() {
    const mine = ++seq;
    historyBox.setAttribute('aria-busy', 'true');
    const qs = new URLSearchParams({ limit: '100' });
    for (const k of ['game', 'result', 'opponent']) if (filters[k]) qs.set(k, filters[k]);
    try {
      const list = await request('GET', `/api/users/${enc(userId)}/matches?${qs}`);
      if (gone || mine !== seq) return;
      renderHistory(Array.isArray(list) ? list : []);
    } catch (err) {
      if (gone || mine !== seq) return;
      historyBox.removeAttribute('aria-busy');
      historyBox.replaceChildren(h('p', { class: 'error', role: 'alert' }, shell.errorText(err)));
    }
  }

  function renderHistory(list) {
    historyBox.removeAttribute('aria-busy');
    const filtered = filters.game || filters.result || filters.opponent;
    if (!list.length) {
      historyBox.replaceChildren(h('p', { class: 'empty', id: 'history-empty' }, filtered ? t('profile.no_matches_filtered') : t('profile.no_matches')));
      return;
    }
    const rows = list.map((m) => {
      const others = (m.seats || []).filter((s) => s.seat !== m.my_seat && s.user);
      const outcome = outcomeOf(m, m.my_seat, m.my_place);
      return h(
        'tr',
        { 'data-testid': 'history-row', 'data-match-id': m.id, 'data-outcome': outcome },
        h('td', { 'data-label': t('profile.col_date') }, fmtDate(m.finished_at || m.created_at, lang)),
        h('td', { 'data-label': t('profile.col_game') }, h('span', { class: 'game-name' }, shell.gameName(m.game))),
        h(
          'td',
          { 'data-label': t('profile.col_opponents') },
          others.length
            ? others.flatMap((s, i) => [
                i ? ', ' : '',
                h('a', { href: `#/users/${enc(s.user.id)}` }, isBot(s.user) ? botName(t, s.user) : s.user.name),
                isBot(s.user) ? botBadge(h, t) : '',
              ])
            : '—',
        ),
        h('td', { 'data-label': t('profile.col_result') }, h('span', { class: `outcome outcome-${outcome}` }, t(`profile.result_${outcome}`, null, { fallback: t(`status.${outcome}`, null, { fallback: outcome }) }))),
        h(
          'td',
          { class: 'actions' },
          h('a', { class: 'btn btn-small', href: `#/match/${enc(m.id)}`, 'aria-label': t('profile.open_match_aria', { game: shell.gameName(m.game), date: fmtDate(m.created_at, lang) }) }, t('profile.open_match')),
        ),
      );
    });
    historyBox.replaceChildren(
      uiDataTable({
        id: 'history-table',
        caption: t('profile.history'),
        columns: [t('profile.col_date'), t('profile.col_game'), t('profile.col_opponents'), t('profile.col_result'), h('span', { class: 'sr-only' }, t('lobby.col_actions'))],
        rows,
      }),
    );
  }

  loadProfile().then(() => !gone && focusHeading(main));
  loadHistory();
  return {
    destroy() {
      gone = true;
    },
  };
}
