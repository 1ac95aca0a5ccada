// The one message catalogue of the browser client.
//
//   t(key, params, opts)   -> string
//   setLanguage(lang)      -> Promise (loads every namespace already in use, then notifies)
//   ensureNamespace(ns)    -> Promise (loads static/i18n/<lang>/<ns>.json for lang and English)
//
// Catalogues live in static/i18n/<lang>/<namespace>.json: "core" for the shell and one
// namespace per game (e.g. "duell"). A catalogue is a JSON object; keys may be flat
// ("lobby.title": "...") or nested ({"lobby": {"title": "..."}}) — both are looked up.
// Values may hold {name} placeholders, filled from params; a placeholder with no value is
// left as it is. When params.count is a number, "<key>_<plural category>" (e.g. "_one",
// "_other", per Intl.PluralRules) is tried before "<key>".
//
// Lookup order for t("x", p, {ns: "duell"}): duell[lang], core[lang], duell[en], core[en];
// a key may also name its namespace explicitly: t("duell:card.fox"). A missing key returns
// opts.fallback when given, else the key itself.

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'it', name: 'Italiano' },
  { code: 'pt', name: 'Português' },
  { code: 'hu', name: 'Magyar' },
];
export const DEFAULT_LANGUAGE = 'en';
const STORAGE_KEY = 'duelhall.lang';
const BASE = new URL('./i18n/', import.meta.url);

const catalogues = new Map(); // "<lang>/<ns>" -> object ({} when missing)
const loading = new Map(); // "<lang>/<ns>" -> Promise
const namespaces = new Set(['core']);
const listeners = new Set();
let current = initialLanguage();

function supported(code) {
  return LANGUAGES.some((l) => l.code === code);
}

function initialLanguage() {
  let stored = null;
  try {
    stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  } catch {
    stored = null;
  }
  if (stored && supported(stored)) return stored;
  const nav = globalThis.navigator?.languages || [globalThis.navigator?.language];
  for (const tag of nav || []) {
    const code = String(tag || '').toLowerCase().split('-')[0];
    if (supported(code)) return code;
  }
  return DEFAULT_LANGUAGE;
}

export function getLanguage() {
  return current;
}

async function loadCatalogue(lang, ns) {
  const id = `${lang}/${ns}`;
  if (catalogues.has(id)) return catalogues.get(id);
  if (!loading.has(id)) {
    const p = (async () => {
      let data = {};
      try {
        const res = await fetch(new URL(`${lang}/${encodeURIComponent(ns)}.json`, BASE));
        if (res.ok) {
          const parsed = await res.json();
          if (parsed && typeof parsed === 'object') data = parsed;
        }
      } catch (err) {
        console.warn(`i18n: could not load ${id}`, err);
      }
      catalogues.set(id, data);
      loading.delete(id);
      return data;
    })();
    loading.set(id, p);
  }
  return loading.get(id);
}

/** Load a namespace for the current language and for English (the fallback). */
export async function ensureNamespace(ns) {
  namespaces.add(ns);
  const langs = current === DEFAULT_LANGUAGE ? [current] : [current, DEFAULT_LANGUAGE];
  await Promise.all(langs.map((lang) => loadCatalogue(lang, ns)));
}

/** Switch language: remember it, load every namespace in use, then tell the listeners. */
export async function setLanguage(lang) {
  if (!supported(lang)) lang = DEFAULT_LANGUAGE;
  current = lang;
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, lang);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  if (globalThis.document) document.documentElement.lang = lang;
  await Promise.all([...namespaces].map((ns) => ensureNamespace(ns)));
  for (const fn of [...listeners]) {
    try {
      fn(lang);
    } catch (err) {
      console.error(err);
    }
  }
}

/** Subscribe to language changes; returns an unsubscribe function. */
export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function lookup(cat, key) {
  if (!cat) return undefined;
  if (Object.prototype.hasOwnProperty.call(cat, key) && typeof cat[key] === 'string') {
    return cat[key];
  }
  let node = cat;
  for (const part of key.split('.')) {
    if (node && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, part)) {
      node = node[part];
    } else {
      return undefined;
    }
  }
  return typeof node === 'string' ? node : undefined;
}

function candidates(key, params, lang) {
  if (params && typeof params.count === 'number') {
    let cat = 'other';
    try {
      cat = new Intl.PluralRules(lang).select(params.count);
    } catch {
      /* keep "other" */
    }
    return [`${key}_${cat}`, key];
  }
  return [key];
}

function resolve(key, params, ns) {
  let spaces;
  let bare = key;
  const colon = key.indexOf(':');
  if (colon > 0 && !key.slice(0, colon).includes('.')) {
    spaces = [key.slice(0, colon)];
    bare = key.slice(colon + 1);
  } else {
    spaces = ns && ns !== 'core' ? [ns, 'core'] : ['core'];
  }
  const langs = current === DEFAULT_LANGUAGE ? [current] : [current, DEFAULT_LANGUAGE];
  for (const lang of langs) {
    for (const space of spaces) {
      const cat = catalogues.get(`${lang}/${space}`);
      for (const k of candidates(bare, params, lang)) {
        const hit = lookup(cat, k);
        if (hit !== undefined) return hit;
      }
    }
  }
  return undefined;
}

/** Fill {name} placeholders. */
export function format(template, params) {
  if (!params) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) && params[name] != null
      ? String(params[name])
      : whole,
  );
}

/** Translate `key`; opts: {ns: game namespace to search first, fallback: text if missing}. */
export function t(key, params, opts) {
  const found = resolve(String(key), params, opts?.ns);
  if (found === undefined) {
    const fb = opts && Object.prototype.hasOwnProperty.call(opts, 'fallback') ? opts.fallback : key;
    return format(String(fb), params);
  }
  return format(found, params);
}

/** Whether `key` exists in the catalogues (current language or English). */
export function hasKey(key, opts) {
  return resolve(String(key), undefined, opts?.ns) !== undefined;
}

/** A t() bound to a game namespace, as handed to board modules. */
export function translatorFor(ns) {
  return (key, params, opts) => t(key, params, { ...(opts || {}), ns });
}

if (globalThis.document) document.documentElement.lang = current;
