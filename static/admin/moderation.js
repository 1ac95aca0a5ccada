// The review's moderation panel (#/admin/match/<id>): flag or unflag the match with a note,
// the admins' notes (add one), the players' reports of this match (resolve one).

import { request } from '../api.js';
import { h } from '../dom.js';
import { fmtDate } from '../ui.js';
import { enc, nameOf } from './common.js';

/**
 * The panel's nodes for match `id` with its admin detail `d` (GET /api/admin/matches/<id>).
 * After a change `refresh(focusId)` reloads the detail and redraws (then focuses `focusId`);
 * `fail(err)` shows an error.
 */
export function moderationPanel(shell, id, d, { refresh, fail }) {
  const { t } = shell;
  const lang = shell.lang();
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
      await refresh('flag-button');
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
      await refresh('note-text');
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
                await refresh();
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

  return [flagForm, h('h3', {}, t('admin.notes')), notes, noteForm, h('h3', {}, t('admin.match_reports')), reports];
}
