// #/admin/match/<id>: the review of one match. A step scrubber over steps 0..N; the match as a
// chosen viewer saw it (omniscient / as A / as B / ... / spectator) drawn by the game's own board
// module, read-only; the action log with times; flag, notes and reports (moderation.js); JSON
// and text exports.
//
// The review shows exactly what GET /api/admin/matches/{id}/steps/{n}?as=<viewer> returns: the
// raw JSON is printed under the board, and the board gets a view document built from it (its
// events are the viewer's events of the steps up to n, at most HISTORY_STEPS of them, so the
// board's log covers the match up to that step and nothing after it). The position lives in the
// hash's query (#/admin/match/<id>?step=12&as=A), written with history.replaceState.

import { download, request } from '../api.js';
import { botBadge, botName, isBot } from '../bots.js';
import { h } from '../dom.js';
import { loadBoard } from '../games/index.js';
import { translatorFor } from '../i18n.js';
import { alertBox, dataTable, fmtDate, fmtDuration, fmtNum, hashQuery, setHashQuery } from '../ui.js';
import { compact, enc, resultText } from './common.js';
import { moderationPanel } from './moderation.js';

const STEP_FETCH_CONCURRENCY = 6;
// The board gets the viewer's events of at most this many steps up to the one shown (each step
// is one request, and the server replays the match for each): enough for the exchanges around
// it; a long match's earlier log is left out rather than costing hundreds of requests.
const HISTORY_STEPS = 64;

export function reviewPage(root, shell, route) {
  const { t } = shell;
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

  const error = alertBox();
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
    const table = dataTable({
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
  function renderModeration() {
    modBox.replaceChildren(...moderationPanel(shell, id, r.detail, { refresh: refreshDetail, fail }));
  }

  async function refreshDetail(focusId) {
    const d = await request('GET', `/api/admin/matches/${enc(id)}`);
    if (r.gone) return;
    r.detail = d;
    renderHead();
    renderModeration();
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
