// #/tournaments/<id>: the public page of one event. The bracket (SVG, bracket.js), the pairings
// and standings of every round with each tie-breaker, live-match links, the players, exports;
// the organiser's controls above them (organiser.js).
//
// It updates without reload: on a notice from the tournament socket (live.js) with a revision
// newer than the one shown it reloads GET /api/tournaments/<id>; while the socket is down it
// polls instead.

import { download, getToken, request } from '../api.js';
import { botBadge, botName, isBot } from '../bots.js';
import { h } from '../dom.js';
import { alertBox, dataTable, fmtDate, fmtPercent, focusHeading, setAlert } from '../ui.js';
import { bracketSvg } from './bracket.js';
import { enc, errText, howText, resultText, statusPill } from './common.js';
import { liveUpdates } from './live.js';
import { organiserControls } from './organiser.js';

export function eventPage(main, ctx, id) {
  const { t } = ctx;
  const lang = ctx.lang();
  let gone = false;
  let ev = null;
  let shownRound = null; // null: follow the current round
  let loading = null;
  let again = false;
  const error = alertBox();
  const title = h('h1', { id: 'tournament-title' }, t('common.loading'));
  const meta = h('div', { class: 'tournament-meta', id: 'tournament-meta' });
  const live = h('p', { class: 'muted small live-state', id: 'live-state', 'aria-live': 'polite' });
  const controls = h('div', { id: 'organiser-controls' });
  const bracketBox = h('div', { id: 'bracket', class: 'bracket-scroll' });
  const roundBox = h('div', { id: 'round-view', 'aria-live': 'polite' });
  const entrantsBox = h('div', { id: 'entrants' });
  const page = h(
    'div',
    { class: 'page tournament', 'data-testid': 'tournament-page', 'data-id': id },
    h(
      'div',
      { class: 'page-head' },
      h('a', { class: 'btn btn-ghost btn-small', href: '#/tournaments' }, t('event.back')),
      title,
      meta,
      live,
      error,
    ),
    controls,
    h('section', { class: 'panel', 'aria-labelledby': 'bracket-title', id: 'bracket-panel', hidden: true },
      h('h2', { id: 'bracket-title' }, t('event.bracket')), bracketBox),
    h('section', { class: 'panel', 'aria-labelledby': 'rounds-title' }, h('h2', { id: 'rounds-title' }, t('event.rounds')), roundBox),
    h('section', { class: 'panel', 'aria-labelledby': 'entrants-title' }, h('h2', { id: 'entrants-title' }, t('event.entrants')), entrantsBox),
  );
  main.append(page);

  const updates = liveUpdates(id, {
    token: getToken(),
    onRevision: (rev) => reload(rev),
    onStatus: (state) => {
      live.textContent = state === 'live' ? t('event.live') : t('event.polling');
      page.dataset.live = state;
    },
  });

  const nameOf = (uid) => (uid === null || uid === undefined ? '—' : ev?.names?.[uid] || String(uid));

  async function reload(revision) {
    if (revision !== null && revision !== undefined && ev && revision <= ev.revision) return;
    if (loading) {
      again = true;
      return;
    }
    loading = (async () => {
      try {
        const fresh = await request('GET', `/api/tournaments/${enc(id)}`);
        if (gone) return;
        if (!ev || fresh.revision !== ev.revision) {
          ev = fresh;
          await renderAll();
        }
        setAlert(error, '');
      } catch (err) {
        if (!gone) setAlert(error, errText(ctx, err));
      } finally {
        loading = null;
        if (again && !gone) {
          again = false;
          reload(null);
        }
      }
    })();
  }

  async function renderAll() {
    title.textContent = ev.name;
    page.dataset.revision = String(ev.revision);
    page.dataset.status = ev.status;
    renderMeta();
    renderControls();
    renderBracket();
    await renderRound();
    renderEntrants();
    // A draft's socket is refused for good: open one once the event is public.
    if (ev.status !== 'draft') updates.wake();
  }

  function renderControls() {
    const apply = async (fresh) => {
      ev = fresh;
      await renderAll();
    };
    const box = organiserControls(ctx, id, ev, { nameOf, findPairing, apply });
    controls.replaceChildren(...(box ? [box] : []));
  }

  function renderMeta() {
    const s = ev.settings;
    const parts = [
      statusPill(t, ev.status),
      h('span', {}, ctx.gameName(ev.game)),
      h('span', {}, t(`format.${ev.format}`)),
      h('span', {}, t('create.best_of_n', { n: s.best_of })),
    ];
    if (ev.format === 'swiss' && s.top_cut) parts.push(h('span', {}, t('create.top_n', { n: s.top_cut })));
    // Computer players take part: say so, their results say little about people.
    if (ev.test) parts.push(h('span', { class: 'tag tag-test', id: 'test-event', title: t('event.test_help') }, t('event.test_tag')));
    const timers = [];
    if (ev.timers.round_ends_at) timers.push(t('event.round_ends', { time: fmtDate(ev.timers.round_ends_at, lang) }));
    if (ev.timers.next_round_at) timers.push(t('event.next_round_at', { time: fmtDate(ev.timers.next_round_at, lang) }));
    const champ = ev.champion ? h('p', { class: 'champion', id: 'champion' }, t('event.champion', { name: nameOf(ev.champion) })) : null;
    const links = h(
      'div',
      { class: 'button-row' },
      h('a', { class: 'btn btn-small', href: `#/tournaments/${enc(id)}/me`, id: 'my-page-link' }, t('event.my_page')),
      exportButton('json'),
      exportButton('csv'),
    );
    const children = [
      h('p', { class: 'tournament-facts' }, ...parts.flatMap((p, i) => (i ? [' · ', p] : [p]))),
      h('p', { class: 'muted' }, t('event.organised_by', { name: ev.organiser.name }),
        ' · ', t('event.players', { n: ev.players }), ev.waitlisted ? ` · ${t('event.waitlisted', { n: ev.waitlisted })}` : ''),
      ev.description ? h('p', { class: 'description' }, ev.description) : null,
      timers.length ? h('p', { class: 'timers', id: 'timers' }, timers.join(' · ')) : null,
      ...(ev.notes || []).map((n) => h('p', { class: 'warn' }, t(`note.${n.code}`, n))),
      champ,
      links,
    ];
    meta.replaceChildren(...children.filter(Boolean));
  }

  function exportButton(kind) {
    return h('button', {
      type: 'button', class: 'btn btn-ghost btn-small', id: `export-${kind}`,
      onclick: () => download(`/api/tournaments/${enc(id)}/export.${kind}`, `${id}.${kind}`).catch((err) => setAlert(error, errText(ctx, err))),
    }, t(`event.export_${kind}`));
  }

  function renderBracket() {
    const panel = page.querySelector('#bracket-panel');
    const which = ev.brackets?.cut ? 'cut' : ev.brackets?.main ? 'main' : null;
    panel.hidden = !which;
    page.querySelector('#bracket-title').textContent = which === 'cut' ? t('event.top_cut') : t('event.bracket');
    if (!which) {
      bracketBox.replaceChildren();
      return;
    }
    const svg = bracketSvg(ev.brackets[which], {
      t,
      names: ev.names,
      matchHref: (m) => {
        if (m.status !== 'pending') return null;
        const pv = findPairing(m.id);
        const mid = pv?.matches?.[pv.matches.length - 1]?.id;
        return mid ? `#/match/${enc(mid)}` : null;
      },
    });
    bracketBox.replaceChildren(svg);
  }

  function findPairing(pid) {
    return (ev.current_round?.pairings || []).find((p) => p.id === pid) || null;
  }

  async function renderRound() {
    const current = ev.rounds || 0;
    if (!current) {
      roundBox.replaceChildren(h('p', { class: 'empty' }, t('event.no_rounds')));
      return;
    }
    const n = shownRound && shownRound <= current ? shownRound : current;
    let view = ev.current_round;
    if (n !== current) {
      try {
        view = await request('GET', `/api/tournaments/${enc(id)}/rounds/${n}`);
      } catch (err) {
        setAlert(error, errText(ctx, err));
        return;
      }
      if (gone) return;
    }
    const nav = h(
      'nav',
      { class: 'round-nav', 'aria-label': t('event.rounds') },
      Array.from({ length: current }, (_, i) => i + 1).map((r) =>
        h('button', {
          type: 'button', class: 'btn btn-small', id: `round-${r}`, 'aria-pressed': String(r === n),
          onclick: () => {
            shownRound = r === current ? null : r;
            renderRound();
          },
        }, t('event.round_n', { n: r })),
      ),
    );
    roundBox.replaceChildren(nav, h('h3', { id: 'round-heading' }, t('event.round_n', { n })), pairingsTable(view), standingsTable(view));
  }

  function pairingsTable(view) {
    const rows = (view.pairings || []).map((p) => {
      const last = p.matches?.[p.matches.length - 1];
      const watch = p.status === 'pending' && last
        ? h('a', { class: 'btn btn-small', href: `#/match/${enc(last.id)}`, 'aria-label': t('event.watch_aria', { a: nameOf(p.players[0]), b: nameOf(p.players[1]) }) }, t('event.watch'))
        : null;
      return h(
        'tr',
        { 'data-pairing': p.id, 'data-status': p.status },
        h('td', {}, p.table ?? '—'),
        h('td', {}, nameOf(p.players[0])),
        h('td', {}, p.players[1] === null ? t('pairing.bye') : nameOf(p.players[1])),
        h('td', { class: 'pairing-result' }, resultText(t, p, nameOf), p.how && p.how !== 'played' ? h('span', { class: 'tag' }, howText(t, p.how)) : null),
        h('td', { class: 'actions' }, watch),
      );
    });
    return dataTable({
      id: 'pairings-table',
      caption: t('event.pairings'),
      columns: [{ label: t('event.col_table') }, { label: t('event.col_player_a') }, { label: t('event.col_player_b') },
        { label: t('event.col_result') }, { label: t('event.col_watch') }],
      rows,
    });
  }

  function standingsTable(view) {
    const rows = view.standings || [];
    if (!rows.length) return h('p', { class: 'empty' }, t('event.no_standings'));
    const swiss = ev.format === 'swiss';
    const rr = ev.format === 'round_robin';
    const cols = [{ label: t('standings.rank'), num: true }, { label: t('standings.player') }];
    if (swiss || rr) cols.push({ label: t('standings.points'), num: true }, { label: t('standings.record') });
    if (swiss) cols.push({ label: t('standings.omw'), num: true }, { label: t('standings.gw'), num: true }, { label: t('standings.ogw'), num: true });
    if (rr) cols.push({ label: t('standings.h2h'), num: true }, { label: t('standings.game_wins'), num: true });
    if (!rr && rows.some((r) => 'place' in r)) cols.push({ label: t('standings.place'), num: true });
    const body = rows.map((r) => {
      const cells = [h('td', { class: 'num' }, r.rank), h('td', {}, nameOf(r.player), r.dropped ? h('span', { class: 'tag' }, t('standings.dropped')) : null)];
      if (swiss || rr) cells.push(h('td', { class: 'num' }, r.points), h('td', {}, `${r.wins}–${r.losses}–${r.draws ?? 0}`));
      if (swiss) cells.push(h('td', { class: 'num' }, fmtPercent(r.omw, lang)), h('td', { class: 'num' }, fmtPercent(r.gw, lang)), h('td', { class: 'num' }, fmtPercent(r.ogw, lang)));
      if (rr) cells.push(h('td', { class: 'num' }, r.h2h), h('td', { class: 'num' }, r.game_wins));
      if (!rr && rows.some((x) => 'place' in x)) {
        cells.push(h('td', { class: 'num' }, r.place === null || r.place === undefined ? '—' : r.place_to && r.place_to !== r.place ? `${r.place}–${r.place_to}` : r.place));
      }
      return h('tr', { 'data-player': r.player }, cells);
    });
    return h(
      'div',
      { class: 'standings' },
      h('h3', {}, view.final ? t('event.standings_after', { n: view.round }) : t('event.standings_now')),
      swiss ? h('p', { class: 'help' }, t('standings.swiss_help')) : rr ? h('p', { class: 'help' }, t('standings.rr_help')) : null,
      dataTable({ id: 'standings-table', caption: t('event.standings_now'), columns: cols, rows: body }),
    );
  }

  function renderEntrants() {
    const rows = ev.entrants.map((e) =>
      h(
        'tr',
        { 'data-user': e.user.id },
        h('td', { class: 'num' }, e.seed ?? '—'),
        h('td', {}, isBot(e.user) ? [botName(t, e.user), ' ', botBadge(h, t)] : e.user.name,
          e.late ? h('span', { class: 'tag' }, t('entrant.late')) : null),
        h('td', {}, t(`entrant.${e.status}`, null, { fallback: e.status }),
          e.waitlist_position ? ` (${e.waitlist_position})` : '', e.dropped ? h('span', { class: 'tag' }, t('standings.dropped')) : null),
        h('td', {}, e.checked_in ? t('entrant.yes') : t('entrant.no')),
        ev.game === 'parbaj' ? h('td', {}, e.has_deck ? t('entrant.yes') : t('entrant.no')) : null,
      ),
    );
    if (!rows.length) {
      entrantsBox.replaceChildren(h('p', { class: 'empty' }, t('event.no_entrants')));
      return;
    }
    const cols = [{ label: t('entrant.seed'), num: true }, { label: t('entrant.name') }, { label: t('entrant.status') }, { label: t('entrant.checked_in') }];
    if (ev.game === 'parbaj') cols.push({ label: t('entrant.deck') });
    entrantsBox.replaceChildren(dataTable({ id: 'entrants-table', caption: t('event.entrants'), columns: cols, rows }));
  }

  // Game names come with the games list; load it before the first render.
  ctx.ensureGames().then(() => reload(null)).then(() => focusHeading(main));
  window.duelhallTournament = { reload: () => reload(null), revision: () => ev?.revision };
  return {
    destroy() {
      gone = true;
      updates.close();
      if (window.duelhallTournament) delete window.duelhallTournament;
    },
  };
}
