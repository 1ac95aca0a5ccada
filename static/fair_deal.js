// "Fair deal": the mark on a finished match's end screen (every game: it sits in the shell's
// result banner) and its details page #/match/<id>/fair. Both check the match's `fairness`
// block in this browser (static/fairness.js); the page lists every check with its values and
// lets the match's players download the record for `duelhall verify`, which also replays every
// move (the engines are Python; this page does not replay). See docs/fairness.md.

import { request, download } from './api.js';
import { checkFairness, remembered } from './fairness.js';

const enc = encodeURIComponent;
// Verdicts by match and revealed seed: the banner is redrawn often, the check runs once.
const verdicts = new Map();

function verdictFor(matchId, fairness, seat) {
  const key = `${matchId}:${fairness.server_seed}:${fairness.match_seed}:${seat ?? ''}`;
  if (!verdicts.has(key)) {
    const entry = { done: null };
    entry.promise = checkFairness(fairness, { mine: remembered(matchId), seat }).then(
      (v) => (entry.done = v),
      () => (entry.done = { ok: false, checks: [], derived: null }),
    );
    verdicts.set(key, entry);
  }
  return verdicts.get(key);
}

/**
 * The end screen's mark for a match that is over: "Fair deal: verified ✓" (or "check failed ✗")
 * once this browser has checked, and a link to the details. Null when there is nothing to check
 * (a match from before provably fair chance, or not over).
 */
export function fairMark({ h, t }, { matchId, fairness, seat }) {
  if (!fairness || !fairness.server_seed) return null;
  const entry = verdictFor(matchId, fairness, seat);
  const label = h('span', { class: 'fair-label' });
  const mark = h(
    'span',
    { class: 'fair-mark', id: 'fair-mark', 'data-testid': 'fair-mark', role: 'status' },
    label,
    ' ',
    h('a', { href: `#/match/${enc(matchId)}/fair`, id: 'fair-details' }, t('fair.details')),
  );
  const show = (v) => {
    mark.dataset.state = v ? (v.ok ? 'verified' : 'failed') : 'checking';
    label.textContent = v ? t(v.ok ? 'fair.verified' : 'fair.failed') : t('fair.checking');
  };
  show(entry.done);
  if (!entry.done) entry.promise.then(() => show(entry.done));
  return mark;
}

function seatOf(summary, me) {
  const s = (summary?.seats || []).find((x) => x.user && me && x.user.id === me.id);
  return s ? s.seat : null;
}

/** #/match/<id>/fair: every check with its values, the record to download, what is not done. */
export function fairScreen(main, shell, matchId) {
  const { h, t } = shell;
  let destroyed = false;
  const body = h('div', { id: 'fair-body', 'aria-busy': 'true' }, h('p', { class: 'muted' }, t('common.loading')));
  main.append(
    h(
      'section',
      { class: 'panel fair-page' },
      h('p', {}, h('a', { class: 'btn btn-ghost btn-small', href: `#/match/${enc(matchId)}`, id: 'fair-back' }, t('fair.back'))),
      h('h1', { id: 'fair-title' }, t('fair.title')),
      h('p', { class: 'lead' }, t('fair.intro')),
      body,
    ),
  );

  const code = (text) => h('code', { class: 'fair-value' }, text ?? '—');

  function values(fairness, derived) {
    const rows = [
      [t('fair.commitment'), code(fairness.server_seed_sha256)],
      [t('fair.server_seed'), code(fairness.server_seed)],
      ...Object.entries(fairness.player_seeds || {}).map(([seat, seed]) => [t('fair.player_seed', { seat }), code(seed)]),
      [t('fair.match_seed'), code(fairness.match_seed)],
      [t('fair.derived'), code(derived)],
    ];
    return h('dl', { class: 'fair-values', id: 'fair-values' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  }

  function checkList(verdict) {
    return h(
      'ul',
      { class: 'fair-checks', id: 'fair-checks' },
      verdict.checks.map((c) =>
        h(
          'li',
          { class: `fair-check fair-${c.status}`, 'data-check': c.id, 'data-status': c.status },
          h('span', { class: 'fair-icon', 'aria-hidden': 'true' }, c.status === 'ok' ? '✓' : c.status === 'failed' ? '✗' : '–'),
          ' ',
          t(`fair.check.${c.id}`),
          ': ',
          h('strong', {}, t(`fair.status.${c.status}`)),
          c.why ? h('span', { class: 'muted' }, ` (${t(`fair.why.${c.why}`)})`) : null,
        ),
      ),
    );
  }

  function recordBlock(summary) {
    const me = shell.me();
    const mayDownload = me && (seatOf(summary, me) || me.role === 'admin') && summary.status === 'finished';
    const file = `duelhall-${matchId}.json`;
    const error = h('p', { class: 'error', role: 'alert', id: 'fair-download-error', hidden: true });
    const button = h(
      'button',
      {
        type: 'button',
        class: 'btn',
        id: 'fair-download',
        onclick: async () => {
          error.hidden = true;
          try {
            await download(`/api/matches/${enc(matchId)}/record`, file);
          } catch (err) {
            error.textContent = shell.errorText(err);
            error.hidden = false;
          }
        },
      },
      t('fair.download'),
    );
    return h(
      'div',
      { class: 'fair-record' },
      h('p', {}, t('fair.replay_note')),
      h('pre', { class: 'fair-command' }, `duelhall verify ${file}`),
      mayDownload ? button : h('p', { class: 'muted' }, t('fair.record_players_only')),
      error,
    );
  }

  (async () => {
    let summary;
    try {
      summary = await request('GET', `/api/matches/${enc(matchId)}`);
    } catch (err) {
      if (!destroyed) body.replaceChildren(h('p', { class: 'error', role: 'alert' }, shell.errorText(err)));
      return;
    }
    if (destroyed) return;
    body.removeAttribute('aria-busy');
    const fairness = summary.fairness;
    if (!fairness) {
      body.replaceChildren(h('p', { id: 'fair-none' }, t('fair.none')));
      return;
    }
    if (!fairness.server_seed) {
      body.replaceChildren(h('p', { id: 'fair-not-over' }, t('fair.not_over')), values(fairness, null));
      return;
    }
    const seat = seatOf(summary, shell.me());
    const entry = verdictFor(matchId, fairness, seat);
    await entry.promise;
    if (destroyed) return;
    const verdict = entry.done;
    body.replaceChildren(
      h(
        'p',
        { class: `fair-verdict fair-${verdict.ok ? 'ok' : 'failed'}`, id: 'fair-verdict', 'data-state': verdict.ok ? 'verified' : 'failed' },
        h('strong', {}, t(verdict.ok ? 'fair.verified' : 'fair.failed')),
      ),
      checkList(verdict),
      values(fairness, verdict.derived),
      recordBlock(summary),
    );
  })();

  return {
    destroy() {
      destroyed = true;
    },
  };
}
