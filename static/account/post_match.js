// Under a finished match: Rematch (and the opponent's offer), Play again, Report this match.

import { request, withSeed } from '../api.js';
import { h } from '../dom.js';
import { modal } from '../ui.js';
import { accountErrorText } from './common.js';

const enc = encodeURIComponent;
const OFFER_POLL_MS = 5000; // a rematch offer also arrives by polling, should the socket be gone

export function postMatch(shell, matchId) {
  const { t } = shell;
  const box = h('div', { class: 'post-match', id: 'post-match', 'data-testid': 'post-match' });
  const s = {
    view: null,
    summary: null,
    seat: null,
    busy: false,
    reported: false,
    offerId: null,
    offer: null, // summary of the offered rematch
    error: '',
    destroyed: false,
    poll: null,
  };

  const me = () => shell.me();
  const go = (id) => {
    location.hash = `#/match/${enc(id)}`;
  };
  const seatedIn = (summary) => !!(summary && me() && (summary.seats || []).some((x) => x.user && x.user.id === me().id));

  function game() {
    return s.view?.game || s.summary?.game || null;
  }
  function options() {
    return s.view?.options || s.summary?.options || {};
  }
  function finished() {
    const st = s.view?.status || s.summary?.status;
    return st === 'finished' || !!(s.view?.result || s.summary?.result);
  }

  function setOffer(offerId) {
    if (!offerId || offerId === s.offerId) return;
    s.offerId = offerId;
    s.offer = null;
    loadOffer(offerId);
  }

  /** The match's summary names the rematch too: look now and then while none is known. */
  function watchForOffer() {
    const want = finished() && s.seat && !s.offerId && !s.destroyed;
    if (want && !s.poll) {
      s.poll = setInterval(async () => {
        if (document.hidden || s.busy) return;
        try {
          const sm = await request('GET', `/api/matches/${enc(matchId)}`);
          if (!s.destroyed && sm?.rematch) {
            setOffer(sm.rematch);
            render();
            watchForOffer();
          }
        } catch {
          /* try again later */
        }
      }, OFFER_POLL_MS);
    } else if (!want && s.poll) {
      clearInterval(s.poll);
      s.poll = null;
    }
  }

  async function loadOffer(id) {
    try {
      const sm = await request('GET', `/api/matches/${enc(id)}`);
      if (s.destroyed || s.offerId !== id) return;
      s.offer = sm;
      render();
    } catch {
      /* the offer link still works */
    }
  }

  async function run(fn) {
    if (s.busy) return;
    s.busy = true;
    s.error = '';
    render();
    try {
      await fn();
    } catch (err) {
      s.error = shell.errorText(err);
    } finally {
      s.busy = false;
      if (!s.destroyed) render();
    }
  }

  const rematch = () =>
    run(async () => {
      const sm = await withSeed((seed) => request('POST', `/api/matches/${enc(matchId)}/rematch`, { seed }));
      // Someone else's offer may have won the race: then take a seat in theirs.
      if (!seatedIn(sm) && sm.status === 'open') {
        await withSeed((seed) => request('POST', `/api/matches/${enc(sm.id)}/join`, { seed }));
      }
      go(sm.id);
    });

  const joinOffer = () =>
    run(async () => {
      try {
        await withSeed((seed) => request('POST', `/api/matches/${enc(s.offerId)}/join`, { seed }));
      } catch (err) {
        if (err?.code !== 'already_seated') throw err;
      }
      go(s.offerId);
    });

  const playAgain = () =>
    run(async () => {
      const sm = await withSeed((seed) => request('POST', '/api/matches', { game: game(), options: options(), seed }));
      go(sm.id);
    });

  function report(btn) {
    const reason = h('textarea', {
      id: 'report-reason',
      rows: '4',
      minlength: '3',
      maxlength: '500',
      required: true,
      'aria-describedby': 'report-help',
    });
    modal(shell, {
      id: 'report-dialog',
      title: t('postmatch.report_title'),
      body: [
        h('p', { class: 'muted', id: 'report-help' }, t('postmatch.report_help')),
        h('div', { class: 'field' }, h('label', { for: 'report-reason' }, t('postmatch.report_reason')), reason),
      ],
      submitText: t('postmatch.report_submit'),
      returnFocus: btn,
      async onSubmit() {
        const text = reason.value.trim();
        if (text.length < 3) return t('postmatch.report_too_short', { min: 3 });
        try {
          await request('POST', `/api/matches/${enc(matchId)}/report`, { reason: text });
        } catch (err) {
          return accountErrorText(shell, err, 'report');
        }
        s.reported = true;
        render();
        shell.toast(t('postmatch.reported_toast'));
        return null;
      },
    });
  }

  function offerBlock() {
    if (!s.offerId) return null;
    const offer = s.offer;
    const host = offer ? (offer.seats || []).find((x) => x.user && x.user.id === (offer.host?.id || offer.host)) : null;
    const hostName = host?.user?.name || (offer?.seats || []).find((x) => x.user)?.user?.name || '?';
    const mine = !!(offer && me() && host && host.user.id === me().id);
    const seated = seatedIn(offer);
    let text;
    let control;
    if (mine) {
      text = t('postmatch.you_offered');
      control = h('a', { class: 'btn btn-small', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.open_rematch'));
    } else if (seated) {
      text = t('postmatch.rematch_ready');
      control = h('a', { class: 'btn btn-small btn-primary', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.open_rematch'));
    } else if (!s.seat) {
      text = t('postmatch.rematch_offered_watch', { name: hostName });
      control = h('a', { class: 'btn btn-small', id: 'rematch-open', href: `#/match/${enc(s.offerId)}` }, t('postmatch.watch_rematch'));
    } else {
      text = t('postmatch.offers_rematch', { name: hostName });
      control = h(
        'button',
        { type: 'button', class: 'btn btn-small btn-primary', id: 'rematch-join', disabled: s.busy, onclick: joinOffer },
        t('postmatch.join_rematch'),
      );
    }
    return h('p', { class: 'rematch-offer', id: 'rematch-offer', 'data-testid': 'rematch-offer', role: 'status' }, h('span', {}, text), ' ', control);
  }

  function render() {
    if (s.destroyed) return;
    const focusId = box.contains(document.activeElement) ? document.activeElement.id : null;
    box.replaceChildren();
    if (!finished() || !me()) return;
    const items = [];
    const offer = offerBlock();
    if (offer) items.push(offer);
    const buttons = [];
    if (s.seat && !s.offerId) {
      buttons.push(
        h('button', { type: 'button', id: 'rematch-button', class: 'btn btn-small btn-primary', disabled: s.busy, onclick: rematch }, t('postmatch.rematch')),
      );
    }
    if (game()) {
      buttons.push(
        h('button', { type: 'button', id: 'play-again-button', class: 'btn btn-small', disabled: s.busy, onclick: playAgain }, t('postmatch.play_again')),
      );
    }
    if (s.seat) {
      const rep = h(
        'button',
        { type: 'button', id: 'report-button', class: 'btn btn-small btn-ghost', disabled: s.reported || s.busy },
        s.reported ? t('postmatch.reported') : t('postmatch.report'),
      );
      rep.addEventListener('click', () => report(rep));
      buttons.push(rep);
    }
    if (buttons.length) items.push(h('div', { class: 'button-row' }, buttons));
    if (s.error) items.push(h('p', { class: 'error', role: 'alert', id: 'post-match-error' }, s.error));
    box.append(...items);
    if (focusId) document.getElementById(focusId)?.focus();
  }

  return {
    el: box,
    update({ view, summary, seat }) {
      s.view = view || null;
      s.summary = summary || null;
      s.seat = seat || null;
      setOffer(view?.rematch || summary?.rematch || null);
      render();
      watchForOffer();
    },
    destroy() {
      s.destroyed = true;
      clearInterval(s.poll);
      document.getElementById('report-dialog')?.close();
    },
  };
}
