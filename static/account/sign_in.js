// "Log in / Register" under the guest name form of the first screen.

import { getDeviceToken, setDeviceToken } from '../api.js';
import { h } from '../dom.js';
import { setAlert } from '../ui.js';
import { PASSWORD_MAX, PASSWORD_MIN, accountErrorText, checkName, checkPassword, foldName, send } from './common.js';

export function signInPanel(main, shell) {
  const { t } = shell;
  let mode = 'login';
  let busy = false;

  const name = h('input', {
    id: 'account-name',
    name: 'username',
    type: 'text',
    autocomplete: 'username',
    maxlength: '24',
    required: true,
    spellcheck: 'false',
  });
  const pw = h('input', {
    id: 'account-password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    maxlength: String(PASSWORD_MAX),
    required: true,
    'aria-describedby': 'account-password-help',
  });
  const pw2 = h('input', {
    id: 'account-password2',
    name: 'password2',
    type: 'password',
    autocomplete: 'new-password',
    maxlength: String(PASSWORD_MAX),
  });
  const pwHelp = h('p', { id: 'account-password-help', class: 'help' });
  const confirmField = h(
    'div',
    { class: 'field', id: 'account-confirm-field' },
    h('label', { for: 'account-password2' }, t('account.password_confirm')),
    pw2,
  );
  const error = h('p', { id: 'account-error', class: 'error', role: 'alert', hidden: true });
  const submit = h('button', { id: 'account-submit', type: 'submit', class: 'btn btn-primary' });
  const modeLogin = h('button', { type: 'button', id: 'account-mode-login', class: 'seg-btn' }, t('account.login_tab'));
  const modeRegister = h(
    'button',
    { type: 'button', id: 'account-mode-register', class: 'seg-btn' },
    t('account.register_tab'),
  );
  const intro = h('p', { class: 'muted small', id: 'account-intro' });

  function setMode(next) {
    mode = next;
    modeLogin.setAttribute('aria-pressed', String(mode === 'login'));
    modeRegister.setAttribute('aria-pressed', String(mode === 'register'));
    confirmField.hidden = mode !== 'register';
    pw2.required = mode === 'register';
    pw.setAttribute('autocomplete', mode === 'register' ? 'new-password' : 'current-password');
    submit.textContent = mode === 'register' ? t('account.register_submit') : t('account.login_submit');
    intro.textContent = mode === 'register' ? t('account.register_intro') : t('account.login_intro');
    pwHelp.textContent = mode === 'register' ? t('account.password_help', { min: PASSWORD_MIN }) : '';
    pwHelp.hidden = mode !== 'register';
    setAlert(error, '');
  }
  modeLogin.addEventListener('click', () => setMode('login'));
  modeRegister.addEventListener('click', () => setMode('register'));

  const form = h(
    'form',
    { id: 'account-form', class: 'stack', novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'account-name' }, t('account.name')),
      name,
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'account-password' }, t('account.password')),
      pw,
      pwHelp,
    ),
    confirmField,
    submit,
  );

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (busy) return;
    const n = foldName(name.value);
    const problem = checkName(shell, n) || (mode === 'register' || pw.value ? checkPassword(shell, pw.value) : t('account.password_required'));
    if (problem) {
      setAlert(error, problem);
      (checkName(shell, n) ? name : pw).focus();
      return;
    }
    if (mode === 'register' && pw.value !== pw2.value) {
      setAlert(error, t('account.password_mismatch'));
      pw2.focus();
      return;
    }
    busy = true;
    submit.disabled = true;
    setAlert(error, '');
    try {
      const path = mode === 'register' ? '/api/auth/register' : '/api/auth/login';
      const body = { name: n, password: pw.value };
      const device = mode === 'login' ? getDeviceToken(n) : null;
      if (device) body.device_token = device;
      const res = await send(path, body);
      setDeviceToken(res.user?.name || n, res.device_token);
      shell.signIn(res.token, { ...res.user, guest: false });
    } catch (err) {
      busy = false;
      submit.disabled = false;
      setAlert(error, accountErrorText(shell, err, mode));
      (err?.code === 'name_taken' ? name : pw).focus();
    }
  });

  main.append(
    h(
      'section',
      { class: 'panel panel-account', 'aria-labelledby': 'account-title', 'data-testid': 'account-panel' },
      h('h2', { id: 'account-title' }, t('account.title')),
      h('div', { class: 'seg', role: 'group', 'aria-label': t('account.mode_label') }, modeLogin, modeRegister),
      intro,
      form,
      error,
    ),
  );
  setMode('login');
  return {
    destroy() {},
  };
}
