// The leaderboards (#/leaderboard/<game>): one game's rated players by ordinal; without a game
// in the route, the last one looked at (or the first game).
//
// Data: GET /api/leaderboard/{game}.

import { request } from './api.js';
import { h } from './dom.js';
import { dataTable, fmtNum, focusHeading } from './ui.js';

const enc = encodeURIComponent;
const LAST_BOARD_KEY = 'duelhall.lastLeaderboard';

export function leaderboardScreen(main, shell, gameId) {
  const { t } = shell;
  const lang = shell.lang();
  let gone = false;
  const title = h('h1', { id: 'leaderboard-title' }, t('leaderboard.title'));
  const select = h('select', { id: 'leaderboard-game' });
  const box = h('div', { id: 'leaderboard', 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  select.addEventListener('change', () => {
    if (select.value) location.hash = `#/leaderboard/${enc(select.value)}`;
  });
  main.append(
    h(
      'div',
      { class: 'page leaderboard', 'data-testid': 'leaderboard' },
      h(
        'div',
        { class: 'page-head' },
        h('a', { class: 'btn btn-ghost btn-small', href: '#/' }, t('match.back')),
        title,
        h('p', { class: 'lead' }, t('leaderboard.intro')),
      ),
      h(
        'section',
        { class: 'panel', 'aria-labelledby': 'leaderboard-title' },
        h('div', { class: 'field field-narrow' }, h('label', { for: 'leaderboard-game' }, t('leaderboard.game')), select),
        box,
      ),
    ),
  );

  shell.ensureGames().then(async (games) => {
    if (gone) return;
    let id = gameId;
    if (!id) {
      let last = null;
      try {
        last = localStorage.getItem(LAST_BOARD_KEY);
      } catch {
        last = null;
      }
      id = (games.find((g) => g.id === last) || games[0] || {}).id;
      if (id) history.replaceState(history.state, '', `#/leaderboard/${enc(id)}`);
    }
    select.replaceChildren(...games.map((g) => h('option', { value: g.id, selected: g.id === id }, g.name || g.id)));
    if (!id) {
      box.replaceChildren(h('p', { class: 'empty' }, t('create.no_games')));
      return;
    }
    try {
      localStorage.setItem(LAST_BOARD_KEY, id);
    } catch {
      /* fine */
    }
    title.textContent = t('leaderboard.title_game', { game: shell.gameName(id) });
    document.title = `${title.textContent} · ${t('app.title')}`;
    try {
      const list = await request('GET', `/api/leaderboard/${enc(id)}?limit=100`);
      if (gone) return;
      render(Array.isArray(list) ? list : []);
    } catch (err) {
      if (gone) return;
      box.removeAttribute('aria-busy');
      box.replaceChildren(h('p', { class: 'error', role: 'alert' }, shell.errorText(err)));
    }
    focusHeading(main);
  });

  function render(list) {
    box.removeAttribute('aria-busy');
    if (!list.length) {
      box.replaceChildren(h('p', { class: 'empty' }, t('leaderboard.empty')));
      return;
    }
    const me = shell.me();
    const rows = list.map((r) =>
      h(
        'tr',
        { 'data-testid': 'leader', 'data-user-id': r.user.id, class: me && r.user.id === me.id ? 'mine' : null },
        h('td', { class: 'num', 'data-label': t('leaderboard.rank') }, String(r.rank)),
        h(
          'td',
          { 'data-label': t('leaderboard.player') },
          h('a', { href: `#/users/${enc(r.user.id)}` }, r.user.name),
          r.user.bot ? h('span', { class: 'tag' }, t('profile.bot')) : null,
        ),
        h('td', { class: 'num', 'data-label': t('rating.ordinal') }, h('strong', {}, fmtNum(r.ordinal, lang))),
        h('td', { class: 'num', 'data-label': t('rating.mu') }, fmtNum(r.mu, lang)),
        h('td', { class: 'num', 'data-label': t('rating.sigma') }, fmtNum(r.sigma, lang)),
        h('td', { class: 'num', 'data-label': t('rating.matches') }, fmtNum(r.matches, lang, 0)),
        h('td', { class: 'num', 'data-label': t('rating.wins') }, fmtNum(r.wins, lang, 0)),
      ),
    );
    box.replaceChildren(
      dataTable({
        id: 'leaderboard-table',
        caption: title.textContent,
        columns: [t('leaderboard.rank'), t('leaderboard.player'), t('rating.ordinal'), t('rating.mu'), t('rating.sigma'), t('rating.matches'), t('rating.wins')],
        rows,
      }),
    );
  }

  return {
    destroy() {
      gone = true;
    },
  };
}
