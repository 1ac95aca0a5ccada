// #/tournaments: the public list (filters: status, game); organisers also get the form for a
// new tournament (create.js).

import { request } from '../api.js';
import { h } from '../dom.js';
import { alertBox, dataTable, field, fmtDate, focusHeading, setAlert } from '../ui.js';
import { STATUSES, canOrganise, enc, errText, select, statusPill } from './common.js';
import { createPanel } from './create.js';

export function listPage(main, ctx) {
  const { t } = ctx;
  const lang = ctx.lang();
  let gone = false;
  const error = alertBox();
  const statusSel = select('filter-status', [['', t('list.any_status')], ...STATUSES.map((s) => [s, t(`state.${s}`)])], '');
  const gameSel = select('filter-game', [['', t('list.any_game')]], '');
  const results = h('div', { id: 'tournament-list', 'aria-live': 'polite', 'aria-busy': 'true' });
  const filters = h(
    'form',
    { class: 'filters', id: 'tournament-filters', role: 'search', 'aria-label': t('list.filters') },
    field('filter-status', t('list.status'), statusSel),
    field('filter-game', t('list.game'), gameSel),
    h('div', { class: 'filters-actions' }, h('button', { type: 'submit', class: 'btn btn-primary btn-small', id: 'filter-apply' }, t('list.apply'))),
  );
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    load();
  });
  const page = h(
    'div',
    { class: 'page tournaments', 'data-testid': 'tournament-list-page' },
    h('div', { class: 'page-head' }, h('h1', { id: 'tournaments-title' }, t('list.title')), h('p', { class: 'lead' }, t('list.intro')), error),
    h('section', { class: 'panel', 'aria-labelledby': 'list-title' }, h('h2', { id: 'list-title' }, t('list.events')), filters, results),
  );
  main.append(page);
  ctx.ensureGames().then((list) => {
    if (gone) return;
    const games = (list || []).filter((g) => g.min_players === 2 && g.max_players === 2);
    for (const g of games) gameSel.append(h('option', { value: g.id }, g.name || g.id));
    if (canOrganise(ctx.me())) page.append(createPanel(ctx, games, error));
  });

  function row(ev) {
    return h(
      'tr',
      { 'data-id': ev.id },
      h('td', {}, h('a', { href: `#/tournaments/${enc(ev.id)}` }, ev.name),
        ev.test ? h('span', { class: 'tag tag-test' }, t('event.test_tag')) : null),
      h('td', {}, ctx.gameName(ev.game)),
      h('td', {}, t(`format.${ev.format}`)),
      h('td', {}, statusPill(t, ev.status)),
      h('td', { class: 'num' }, ev.cap ? t('list.players_cap', { n: ev.players, cap: ev.cap }) : String(ev.players)),
      h('td', {}, fmtDate(ev.created_at, lang)),
    );
  }

  async function load() {
    results.setAttribute('aria-busy', 'true');
    const q = new URLSearchParams();
    if (statusSel.value) q.set('status', statusSel.value);
    if (gameSel.value) q.set('game', gameSel.value);
    try {
      const list = await request('GET', `/api/tournaments${q.toString() ? `?${q}` : ''}`);
      if (gone) return;
      setAlert(error, '');
      if (!list.length) {
        results.replaceChildren(h('p', { class: 'empty' }, t('list.none')));
      } else {
        results.replaceChildren(
          dataTable({
            id: 'tournaments-table',
            caption: t('list.events'),
            columns: [
              { label: t('list.col_name') },
              { label: t('list.col_game') },
              { label: t('list.col_format') },
              { label: t('list.col_status') },
              { label: t('list.col_players'), num: true },
              { label: t('list.col_created') },
            ],
            rows: list.map(row),
          }),
        );
      }
    } catch (err) {
      if (!gone) setAlert(error, errText(ctx, err));
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }
  load();
  focusHeading(main);
  return { destroy() { gone = true; } };
}
