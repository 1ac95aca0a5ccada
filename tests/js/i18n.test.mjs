// static/i18n.js: lookup (flat and nested keys, namespaces), the fallback to English, {name}
// placeholders, plural forms, the language switch; catalogues come from a scripted fetch (and,
// in the last test, from the real files under static/i18n/).
import { beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const I18N_MODULE = new URL('../../static/i18n.js', import.meta.url);
const CATALOGUE_DIR = new URL('../../static/i18n/', import.meta.url);

const CATALOGUES = {
  'en/core.json': {
    'lobby.title': 'Lobby',
    menu: { play: 'Play', deep: { key: 'Deep' } },
    hello: 'Hello {name}, you have {missing}.',
    cards_one: '{count} card',
    cards_other: '{count} cards',
    moves: '{count} moves',
    only_english: 'Only in English',
    shared: 'core en',
  },
  'en/duell.json': { card: { fox: 'Fox' }, shared: 'duell en', mine: 'duell en mine' },
  'hu/core.json': {
    'lobby.title': 'Előcsarnok',
    cards_one: '{count} lap',
    cards_other: '{count} lapok',
    shared: 'core hu',
  },
  'hu/duell.json': { card: { fox: 'Róka' }, mine: 'duell hu mine' },
};

const fetched = [];
globalThis.fetch = async (url) => {
  const text = String(url);
  fetched.push(text);
  const name = Object.keys(CATALOGUES).find((k) => text === new URL(k, CATALOGUE_DIR).href);
  if (!name) return { ok: false, status: 404, json: async () => ({}) };
  return { ok: true, status: 200, json: async () => structuredClone(CATALOGUES[name]) };
};
const stored = new Map();
globalThis.localStorage = {
  getItem: (k) => (stored.has(k) ? stored.get(k) : null),
  setItem: (k, v) => stored.set(k, String(v)),
};

const i18n = await import(I18N_MODULE.href);
const { t, format, hasKey, translatorFor, ensureNamespace, setLanguage, getLanguage, onLanguageChange } = i18n;

describe('before any catalogue is loaded', () => {
  test('a missing key gives the key itself, or opts.fallback with its placeholders filled', () => {
    assert.equal(t('nothing.here'), 'nothing.here');
    assert.equal(t('nothing.here', { n: 2 }, { fallback: '{n} things' }), '2 things');
  });
});

describe('English', () => {
  beforeEach(async () => {
    await setLanguage('en');
    await ensureNamespace('core');
  });

  test('flat and nested keys are both found', () => {
    assert.equal(t('lobby.title'), 'Lobby');
    assert.equal(t('menu.play'), 'Play');
    assert.equal(t('menu.deep.key'), 'Deep');
    assert.equal(t('menu'), 'menu', 'an object is not a message');
  });

  test('placeholders: filled from params; a missing or null one is left as written', () => {
    assert.equal(t('hello', { name: 'Ann' }), 'Hello Ann, you have {missing}.');
    assert.equal(t('hello', { name: null, missing: 0 }), 'Hello {name}, you have 0.');
    assert.equal(format('{a}{a}{b}', { a: 1 }), '11{b}');
    assert.equal(format('no params {x}'), 'no params {x}');
  });

  test('plurals: <key>_<category> by Intl.PluralRules when params.count is a number', () => {
    assert.equal(t('cards', { count: 1 }), '1 card');
    assert.equal(t('cards', { count: 0 }), '0 cards');
    assert.equal(t('cards', { count: 7 }), '7 cards');
    assert.equal(t('moves', { count: 1 }), '1 moves', 'no plural forms: the bare key');
    assert.equal(t('cards', { count: '1' }), 'cards', 'a count that is not a number picks no form');
  });

  test('hasKey and translatorFor', async () => {
    await ensureNamespace('duell');
    assert.equal(hasKey('lobby.title'), true);
    assert.equal(hasKey('card.fox'), false, 'only in the duell namespace');
    assert.equal(hasKey('card.fox', { ns: 'duell' }), true);
    const td = translatorFor('duell');
    assert.equal(td('card.fox'), 'Fox');
    assert.equal(td('lobby.title'), 'Lobby', 'core is searched after the game namespace');
    assert.equal(td('nope', null, { fallback: 'x' }), 'x');
  });
});

describe('another language', () => {
  beforeEach(async () => {
    await ensureNamespace('duell');
    await setLanguage('hu');
  });

  test('setLanguage loads every namespace in use for the language, remembers it, tells listeners', async () => {
    const heard = [];
    const stop = onLanguageChange((lang) => heard.push(lang));
    fetched.length = 0;
    await setLanguage('en');
    await setLanguage('hu');
    stop();
    await setLanguage('en');
    await setLanguage('hu');
    assert.deepEqual(heard, ['en', 'hu']);
    assert.equal(getLanguage(), 'hu');
    assert.equal(stored.get('duelhall.lang'), 'hu');
    assert.deepEqual(fetched, [], 'catalogues are fetched once and kept');
  });

  test('the language first, then English; in each, the game namespace before core', () => {
    assert.equal(t('lobby.title'), 'Előcsarnok');
    assert.equal(t('only_english'), 'Only in English');
    assert.equal(t('card.fox', null, { ns: 'duell' }), 'Róka');
    assert.equal(t('mine', null, { ns: 'duell' }), 'duell hu mine');
    // core[hu] comes before duell[en]: a language's own text beats an English one
    assert.equal(t('shared', null, { ns: 'duell' }), 'core hu');
  });

  test('"ns:key" names its namespace; a dot before the colon does not', () => {
    assert.equal(t('duell:card.fox'), 'Róka');
    assert.equal(t('duell:lobby.title'), 'duell:lobby.title', 'only that namespace is searched');
    assert.equal(t('a.b:c'), 'a.b:c');
  });

  test('plural categories of the language itself', () => {
    assert.equal(t('cards', { count: 1 }), '1 lap');
    assert.equal(t('cards', { count: 3 }), '3 lapok');
  });

  test('an unknown language falls back to English', async () => {
    await setLanguage('xx');
    assert.equal(getLanguage(), 'en');
    assert.equal(t('lobby.title'), 'Lobby');
  });
});

describe('the starting language', () => {
  test('the stored choice, else the first supported browser language, else English', async () => {
    const browser = (languages) =>
      Object.defineProperty(globalThis, 'navigator', { value: { languages }, configurable: true });
    const fresh = async (tag) => (await import(`${I18N_MODULE.href}?${tag}`)).getLanguage();
    try {
      stored.set('duelhall.lang', 'it');
      browser(['pt-BR']);
      assert.equal(await fresh('stored'), 'it');
      stored.delete('duelhall.lang');
      assert.equal(await fresh('browser'), 'pt');
      browser(['de-DE', 'hu']);
      assert.equal(await fresh('second'), 'hu');
      browser(['de-DE']);
      assert.equal(await fresh('none'), 'en');
    } finally {
      delete globalThis.navigator;
    }
  });
});

describe('the real catalogues', () => {
  test('are fetched from static/i18n/<lang>/<ns>.json next to the module', async () => {
    const urls = [];
    const scripted = globalThis.fetch;
    globalThis.fetch = async (url) => {
      urls.push(String(url));
      try {
        const text = await readFile(fileURLToPath(url), 'utf8');
        return { ok: true, json: async () => JSON.parse(text) };
      } catch {
        return { ok: false, json: async () => ({}) };
      }
    };
    try {
      const real = await import(`${I18N_MODULE.href}?real`);
      await real.setLanguage('it');
      const it = JSON.parse(await readFile(new URL('it/core.json', CATALOGUE_DIR), 'utf8'));
      const en = JSON.parse(await readFile(new URL('en/core.json', CATALOGUE_DIR), 'utf8'));
      assert.deepEqual(urls.sort(), [
        pathToFileURL(fileURLToPath(new URL('en/core.json', CATALOGUE_DIR))).href,
        pathToFileURL(fileURLToPath(new URL('it/core.json', CATALOGUE_DIR))).href,
      ]);
      assert.equal(real.t('header.language'), it.header.language);
      assert.notEqual(it.header.language, en.header.language, 'the check needs a translated key');
    } finally {
      globalThis.fetch = scripted;
    }
  });
});
