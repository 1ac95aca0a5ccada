// Párbaj deck builder: the page at #/decks (plain ES module, no build step).
//
//   import { mount } from "/static/parbaj_decks.js";
//   const page = mount(mainElement, { t });   // t = translatorFor("parbaj")
//   page.destroy();
//
// Three panels: my decks (and the starter decks to copy), the editor (name, cards, live
// validation in words, save, import/export as text) and the card browser (filters by element,
// level, kind and keyword; every card drawn from its data). Talks to app/api/decks.py.
//
// One screen in one file, though long: the three panels share one editor state (the deck being
// edited, its live problems, the filters) and redraw one another; split up, each part would need
// all of it passed around.

import { request } from "./api.js";
import { h } from "./dom.js";
import { loadBoardStyle } from "./games/index.js";
import {
  KEYWORDS,
  KINDS,
  MAX_DECK,
  ROMAN,
  TYPES,
  cardFace,
  cardTone,
  loadPool,
  loadStarters,
  typeName,
} from "./games/parbaj.js";
import { alertBox, setAlert } from "./ui.js";

const KIND_ORDER = { coach: 0, field: 1, creature: 2, ability: 3 };
const VALIDATE_MS = 150;

export function mount(main, ctx) {
  const tr = (key, params) => ctx.t(`parbaj.${key}`, params ?? {});
  const td = (key, params) => ctx.t(`parbaj.decks.${key}`, params ?? {});
  let destroyed = false;
  let pool = null;
  let starters = [];
  let mine = null; // my saved decks
  let results = null; // card browser results
  const filters = { element: "", level: "", kind: "", keyword: "", q: "" };
  let editor = blank();
  let problems = []; // live validation of the editor's cards
  let importProblems = []; // lines an import could not read (until the next edit)
  let checked = false; // problems are up to date
  let confirmDelete = null;
  let validateTimer = null;
  let validateSeq = 0;
  let browseSeq = 0;
  let qTimer = null;
  let notice = "";

  function blank() {
    return { id: null, name: "", cards: [], dirty: false };
  }

  // ---- skeleton -------------------------------------------------------------------------
  const errorBox = alertBox();
  const noticeBox = h("p", { class: "pj-notice", role: "status", "aria-live": "polite", "data-testid": "pj-notice" });
  const listPanel = h("section", { class: "panel", "data-testid": "pj-my-decks", "aria-labelledby": "pj-my-title" });
  const editorPanel = h("section", { class: "panel pj-editor", "data-testid": "pj-editor", "aria-labelledby": "pj-editor-title" });
  const browserPanel = h("section", { class: "panel", "data-testid": "pj-browser", "aria-labelledby": "pj-browser-title" });
  const page = h("div", { class: "pj-decks" }, [
    h("div", { class: "lobby-head" }, [
      h("h1", { id: "decks-title" }, td("title")),
      h("p", { class: "lead" }, td("intro")),
      h("p", {}, h("a", { href: "#/", class: "btn btn-ghost btn-small", id: "back-to-lobby" }, td("back"))),
      errorBox,
      noticeBox,
    ]),
    h("div", { class: "pj-decks-grid" }, [listPanel, editorPanel, browserPanel]),
  ]);
  main.append(page);

  // ---- helpers --------------------------------------------------------------------------
  const card = (cid) => (pool && pool[cid]) || null;
  const cname = (cid) => (card(cid) ? card(cid).name : cid);

  function showError(text) {
    setAlert(errorBox, text);
  }

  function say(text) {
    notice = text || "";
    noticeBox.textContent = notice;
  }

  function apiErrorText(err) {
    if (err && err.code === "deck_name_taken") return td("error.name_taken", { name: editor.name.trim() });
    if (err && err.code === "invalid_deck") return td("error.invalid_deck");
    if (err && err.code === "too_many_decks") return td("error.too_many_decks");
    if (err && err.code === "not_found") return td("error.not_found");
    if (err && err.code === "invalid_message" && /name/i.test(err.message || "")) return td("error.bad_name");
    return td("error.generic", { message: (err && (err.message || err.code)) || String(err) });
  }

  function sortKey(cid) {
    const c = card(cid);
    if (!c) return [9, 0, 0, cid];
    return [KIND_ORDER[c.kind], c.kind === "creature" ? TYPES.indexOf(c.type) : 0, c.level || 0, c.name];
  }

  function cmp(a, b) {
    const ka = sortKey(a);
    const kb = sortKey(b);
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] < kb[i]) return -1;
      if (ka[i] > kb[i]) return 1;
    }
    return 0;
  }

  function counts(cards) {
    const m = new Map();
    for (const c of cards) m.set(c, (m.get(c) || 0) + 1);
    return m;
  }

  /** The same text as the server's deck_to_text: one "N× Card Name" line per card. */
  function deckText(cards) {
    const m = counts(cards);
    return [...m.keys()].sort(cmp).map((c) => `${m.get(c)}× ${cname(c)}\n`).join("");
  }

  function problemText(p, size) {
    const names = (ids) => (ids || []).map(cname).join(", ");
    switch (p.code) {
      case "unknown_card":
        return p.line ? td("problem.line_unknown", { line: p.line, name: (p.cards || [])[0] || "" }) : td("problem.unknown_card", { id: (p.cards || [])[0] || "" });
      case "bad_line":
        return td("problem.bad_line", { line: p.line || "?" });
      case "too_many_cards":
        return td("problem.too_many_cards", { n: size, max: MAX_DECK, extra: size - MAX_DECK });
      case "too_many_fields":
        return td("problem.too_many_fields", { n: p.cards.length, names: names(p.cards) });
      case "too_many_coaches":
        return td("problem.too_many_coaches", { n: p.cards.length, names: names(p.cards) });
      case "missing_base": {
        const c = card(p.cards[0]);
        if (!c) return p.message;
        return td("problem.missing_base", { card: c.name, level: ROMAN[c.level], base: cname(c.evolves_from) });
      }
      case "field_without_creature": {
        const f = card(p.cards[0]);
        if (!f) return p.message;
        return td("problem.field_without_creature", { field: f.name, a: typeName(tr, f.types[0]), b: typeName(tr, f.types[1]) });
      }
      case "no_level_one":
        return td("problem.no_level_one");
      case "not_a_list":
        return td("problem.not_a_list");
      default:
        return p.message;
    }
  }

  function keepFocus(box, fn) {
    const active = document.activeElement;
    const key = active && box.contains(active) ? active.getAttribute("data-focus") : null;
    const caret = key && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
    fn();
    if (key) {
      const again = box.querySelector(`[data-focus="${CSS.escape(key)}"]`);
      if (again) {
        again.focus();
        if (caret && typeof again.setSelectionRange === "function") {
          try {
            again.setSelectionRange(caret[0], caret[1]);
          } catch {
            /* not a text field */
          }
        }
      }
    }
  }

  // ---- data -----------------------------------------------------------------------------
  async function refreshMine() {
    try {
      mine = await request("GET", "/api/decks");
    } catch (err) {
      if (!destroyed) showError(apiErrorText(err));
      mine = mine || [];
    }
    if (!destroyed) renderList();
  }

  async function browse() {
    const seq = ++browseSeq;
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v !== "") qs.set(k, v);
    try {
      const list = await request("GET", `/api/parbaj/cards${qs.toString() ? `?${qs}` : ""}`);
      if (destroyed || seq !== browseSeq) return;
      results = list;
    } catch (err) {
      if (destroyed || seq !== browseSeq) return;
      results = [];
      showError(apiErrorText(err));
    }
    renderResults();
  }

  function validateSoon() {
    checked = false;
    clearTimeout(validateTimer);
    validateTimer = setTimeout(validateNow, VALIDATE_MS);
  }

  async function validateNow() {
    const seq = ++validateSeq;
    const cards = editor.cards.slice();
    try {
      const res = await request("POST", "/api/decks/validate", { cards });
      if (destroyed || seq !== validateSeq) return;
      problems = res.problems || [];
      checked = true;
    } catch (err) {
      if (destroyed || seq !== validateSeq) return;
      showError(apiErrorText(err));
    }
    renderEditor();
  }

  function change(cards) {
    editor.cards = cards.slice().sort(cmp);
    editor.dirty = true;
    importProblems = [];
    say("");
    showError("");
    renderEditor();
    renderResults();
    validateSoon();
  }

  function add(cid) {
    change([...editor.cards, cid]);
  }

  function removeOne(cid) {
    const i = editor.cards.indexOf(cid);
    if (i < 0) return;
    const next = editor.cards.slice();
    next.splice(i, 1);
    change(next);
  }

  function open(deck) {
    editor = { id: deck.id, name: deck.name, cards: deck.cards.slice().sort(cmp), dirty: false };
    importProblems = [];
    confirmDelete = null;
    showError("");
    renderAll();
    validateSoon();
  }

  async function save() {
    const name = editor.name.trim();
    if (!name) {
      showError(td("error.need_name"));
      editorPanel.querySelector("#pj-deck-name")?.focus();
      return;
    }
    showError("");
    try {
      const body = { name, cards: editor.cards };
      const d = editor.id
        ? await request("PUT", `/api/decks/${encodeURIComponent(editor.id)}`, body)
        : await request("POST", "/api/decks", body);
      if (destroyed) return;
      editor = { id: d.id, name: d.name, cards: d.cards.slice().sort(cmp), dirty: false };
      problems = d.problems || [];
      checked = true;
      say(td("saved", { name: d.name }));
      await refreshMine();
      renderEditor();
    } catch (err) {
      if (destroyed) return;
      showError(apiErrorText(err));
      if (err && err.code === "invalid_deck") validateNow();
    }
  }

  async function copyStarter(s) {
    showError("");
    try {
      const d = await request("POST", "/api/decks/copy-starter", { starter: s.id });
      if (destroyed) return;
      await refreshMine();
      open(d);
      say(td("copied", { starter: s.name, name: d.name }));
      editorPanel.querySelector("#pj-deck-name")?.focus();
    } catch (err) {
      if (!destroyed) showError(apiErrorText(err));
    }
  }

  async function remove(d) {
    showError("");
    try {
      await request("DELETE", `/api/decks/${encodeURIComponent(d.id)}`);
      if (destroyed) return;
      confirmDelete = null;
      if (editor.id === d.id) {
        editor = blank();
        problems = [];
        validateSoon();
      }
      say(td("deleted", { name: d.name }));
      await refreshMine();
      renderEditor();
    } catch (err) {
      if (!destroyed) showError(apiErrorText(err));
    }
  }

  async function importText() {
    const text = editorPanel.querySelector("#pj-deck-text").value;
    showError("");
    try {
      const res = await request("POST", "/api/decks/import", { text });
      if (destroyed) return;
      editor.cards = (res.cards || []).slice().sort(cmp);
      editor.dirty = true;
      importProblems = (res.problems || []).filter((p) => p.line);
      problems = (res.problems || []).filter((p) => !p.line);
      checked = true;
      say(td("imported", { n: res.size }));
      renderEditor();
      renderResults();
    } catch (err) {
      if (!destroyed) showError(apiErrorText(err));
    }
  }

  async function exportText() {
    let text;
    if (editor.id && !editor.dirty) {
      try {
        text = (await request("GET", `/api/decks/${encodeURIComponent(editor.id)}/export`)).text;
      } catch (err) {
        if (!destroyed) showError(apiErrorText(err));
        return;
      }
    } else {
      text = deckText(editor.cards);
    }
    if (destroyed) return;
    const area = editorPanel.querySelector("#pj-deck-text");
    area.value = text;
    area.focus();
    area.select();
    say(td("exported"));
  }

  // ---- rendering: my decks and starter decks -----------------------------------------------
  function renderList() {
    keepFocus(listPanel, () => {
      listPanel.replaceChildren(
        h("h2", { id: "pj-my-title" }, td("my_decks")),
        h("div", { class: "pj-btn-row" }, h("button", {
          type: "button", class: "pj-btn strong", "data-testid": "pj-new-deck", "data-focus": "new",
          onclick: () => {
            editor = blank();
            problems = [];
            importProblems = [];
            say("");
            renderAll();
            validateSoon();
            editorPanel.querySelector("#pj-deck-name")?.focus();
          },
        }, td("new_deck"))),
      );
      if (mine === null) listPanel.append(h("p", { class: "pj-muted" }, tr("loading")));
      else if (!mine.length) listPanel.append(h("p", { class: "pj-muted" }, td("no_decks")));
      else {
        const ul = h("ul", { class: "pj-plain" });
        for (const d of mine) {
          const buttons = h("div", { class: "pj-btn-row" });
          if (confirmDelete === d.id) {
            buttons.append(
              h("button", { type: "button", class: "pj-btn danger", "data-testid": "pj-confirm-delete", "data-focus": `cdel-${d.id}`, onclick: () => remove(d) }, td("confirm_delete")),
              h("button", { type: "button", class: "pj-btn quiet", "data-focus": `ndel-${d.id}`, onclick: () => { confirmDelete = null; renderList(); } }, tr("cancel")),
            );
          } else {
            buttons.append(
              h("button", { type: "button", class: "pj-btn", "data-testid": "pj-edit-deck", "data-focus": `edit-${d.id}`, "aria-label": td("edit_aria", { name: d.name }), onclick: () => open(d) }, td("edit")),
              h("button", { type: "button", class: "pj-btn quiet", "data-testid": "pj-delete-deck", "data-focus": `del-${d.id}`, "aria-label": td("delete_aria", { name: d.name }), onclick: () => { confirmDelete = d.id; renderList(); listPanel.querySelector("[data-testid=pj-confirm-delete]")?.focus(); } }, td("delete")),
            );
          }
          ul.append(h("li", { class: `pj-deck-row${editor.id === d.id ? " current" : ""}`, "data-testid": "pj-deck-row", "data-deck": d.id, "data-name": d.name }, [
            h("span", { class: "pj-deck-row-name" }, d.name),
            h("span", { class: d.ok ? "pj-muted" : "pj-in-deck" }, d.ok ? td("deck_summary", { n: d.size }) : td("deck_summary_bad", { n: d.size })),
            buttons,
          ]));
        }
        listPanel.append(ul);
      }
      listPanel.append(h("h2", {}, td("starters")), h("p", { class: "pj-muted" }, td("starters_help")));
      const su = h("ul", { class: "pj-plain" });
      for (const s of starters) {
        su.append(h("li", { class: "pj-deck-row", "data-starter": s.id }, [
          h("span", { class: "pj-deck-row-name" }, s.name),
          h("span", { class: "pj-muted" }, s.idea),
          h("div", { class: "pj-btn-row" }, h("button", {
            type: "button", class: "pj-btn", "data-testid": "pj-copy-starter", "data-starter": s.id,
            "data-focus": `copy-${s.id}`, "aria-label": td("copy_aria", { name: s.name }), onclick: () => copyStarter(s),
          }, td("copy"))),
        ]));
      }
      listPanel.append(su);
    });
  }

  // ---- rendering: the editor ----------------------------------------------------------------
  function renderEditor() {
    keepFocus(editorPanel, () => {
      const oldText = editorPanel.querySelector("#pj-deck-text");
      const textValue = oldText ? oldText.value : "";
      const nameInput = h("input", {
        id: "pj-deck-name", type: "text", maxlength: "40", autocomplete: "off", "data-focus": "name",
        placeholder: td("name_placeholder"),
      });
      nameInput.value = editor.name;
      nameInput.addEventListener("input", () => {
        editor.name = nameInput.value;
        editor.dirty = true;
        dirtyMark.hidden = false;
      });
      nameInput.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") {
          ev.preventDefault();
          save();
        }
      });
      const m = counts(editor.cards);
      const kinds = { creature: 0, field: 0, coach: 0, ability: 0 };
      let levelOne = 0;
      for (const c of editor.cards) {
        const k = card(c);
        if (!k) continue;
        kinds[k.kind] += 1;
        if (k.kind === "creature" && k.level === 1) levelOne += 1;
      }
      const countRow = h("p", { class: "pj-counts", "data-testid": "pj-counts" }, [
        h("span", { class: editor.cards.length > MAX_DECK ? "over" : "" }, td("count_cards", { n: editor.cards.length, max: MAX_DECK })),
        h("span", { class: kinds.field > 2 ? "over" : "" }, td("count_fields", { n: kinds.field })),
        h("span", { class: kinds.coach > 1 ? "over" : "" }, td("count_coach", { n: kinds.coach })),
        h("span", { class: levelOne || !editor.cards.length ? "" : "over" }, td("count_level_one", { n: levelOne })),
      ]);
      const all = [...importProblems, ...problems];
      const bad = new Set(all.flatMap((p) => p.cards || []));
      const verdict = h("div", { class: "pj-verdict", "aria-live": "polite", "data-testid": "pj-validation" });
      if (!editor.cards.length && !all.length) verdict.append(h("p", { class: "pj-muted" }, td("empty_deck")));
      else if (!all.length && checked) verdict.append(h("p", { class: "pj-valid", "data-testid": "pj-valid" }, td("valid")));
      else if (!all.length) verdict.append(h("p", { class: "pj-muted" }, td("checking")));
      else verdict.append(h("ul", { class: "pj-problems", "data-testid": "pj-problems" }, all.map((p) => h("li", { "data-code": p.code }, problemText(p, editor.cards.length)))));

      const list = h("ul", { class: "pj-deck-cards", "data-testid": "pj-deck-cards", "aria-label": td("deck_cards") });
      let group = null;
      for (const cid of [...m.keys()].sort(cmp)) {
        const c = card(cid);
        const g = c ? c.kind : "unknown";
        if (g !== group) {
          group = g;
          list.append(h("li", { class: "pj-deck-group" }, c ? td(`group.${g}`) : td("group.unknown")));
        }
        const detail = c && c.kind === "creature" ? ` · ${typeName(tr, c.type)} ${ROMAN[c.level]}` : c && c.kind === "field" ? ` · ${c.types.map((x) => typeName(tr, x)).join("/")}` : "";
        list.append(h("li", { class: `pj-deck-card pj-el-${cardTone(c)}${bad.has(cid) ? " problem" : ""}`, "data-card": cid, title: c ? c.text : null }, [
          h("span", { class: "pj-qty" }, `${m.get(cid)}×`),
          h("span", {}, [h("strong", {}, cname(cid)), h("span", { class: "pj-muted" }, detail)]),
          h("span", { class: "pj-btn-row" }, [
            h("button", { type: "button", class: "pj-btn", "data-testid": "pj-remove", "data-card": cid, "data-focus": `rm-${cid}`, "aria-label": td("remove_aria", { name: cname(cid) }), onclick: () => removeOne(cid) }, "−"),
            h("button", { type: "button", class: "pj-btn", "data-testid": "pj-add-one", "data-card": cid, "data-focus": `add1-${cid}`, "aria-label": td("add_aria", { name: cname(cid) }), disabled: !c, onclick: () => add(cid) }, "+"),
          ]),
        ]));
      }
      if (!m.size) list.append(h("li", { class: "pj-muted" }, td("add_hint")));

      const dirtyMark = h("span", { class: "pj-muted", "data-testid": "pj-dirty", hidden: !editor.dirty }, td("unsaved"));
      const text = h("textarea", { id: "pj-deck-text", rows: "8", spellcheck: "false", "data-focus": "text", placeholder: td("text_placeholder") });
      text.value = textValue;
      editorPanel.replaceChildren(
        h("h2", { id: "pj-editor-title" }, editor.id ? td("editing", { name: editor.name || "…" }) : td("new_deck_title")),
        h("label", { for: "pj-deck-name" }, [td("name"), nameInput]),
        countRow,
        verdict,
        list,
        h("div", { class: "pj-btn-row" }, [
          h("button", { type: "button", class: "pj-btn strong", "data-testid": "pj-save", "data-focus": "save", onclick: save }, editor.id ? td("save") : td("save_new")),
          dirtyMark,
        ]),
        h("details", { class: "pj-io", open: true }, [
          h("summary", {}, td("import_export")),
          h("label", { for: "pj-deck-text" }, [td("text_label"), text]),
          h("div", { class: "pj-btn-row" }, [
            h("button", { type: "button", class: "pj-btn", "data-testid": "pj-import", "data-focus": "import", onclick: importText }, td("import")),
            h("button", { type: "button", class: "pj-btn", "data-testid": "pj-export", "data-focus": "export", onclick: exportText }, td("export")),
          ]),
        ]),
      );
    });
  }

  // ---- rendering: the card browser ---------------------------------------------------------
  function renderBrowser() {
    const sel = (id, key, values, label) => {
      const s = h("select", { id, "data-focus": id }, [
        h("option", { value: "" }, td("filter_all")),
        ...values.map(([v, text]) => h("option", { value: String(v) }, text)),
      ]);
      s.value = filters[key];
      s.addEventListener("change", () => {
        filters[key] = s.value;
        browse();
      });
      return h("label", { for: id }, [label, s]);
    };
    const q = h("input", { id: "pj-f-q", type: "search", "data-focus": "q", placeholder: td("search_placeholder") });
    q.value = filters.q;
    q.addEventListener("input", () => {
      filters.q = q.value.trim().slice(0, 40);
      clearTimeout(qTimer);
      qTimer = setTimeout(browse, 200);
    });
    const resultsBox = h("div", { class: "pj-results", "data-testid": "pj-results" });
    browserPanel.replaceChildren(
      h("h2", { id: "pj-browser-title" }, td("pool")),
      h("div", { class: "pj-filters", role: "search" }, [
        sel("pj-f-element", "element", TYPES.map((x) => [x, typeName(tr, x)]), td("filter_element")),
        sel("pj-f-level", "level", [1, 2, 3].map((n) => [n, tr("level", { n: ROMAN[n] })]), td("filter_level")),
        sel("pj-f-kind", "kind", KINDS.map((k) => [k, tr(`kind.${k}`)]), td("filter_kind")),
        sel("pj-f-keyword", "keyword", KEYWORDS.map((k) => [k, td(`keyword.${k}`)]), td("filter_keyword")),
        h("label", { for: "pj-f-q" }, [td("filter_search"), q]),
      ]),
      resultsBox,
    );
    renderResults();
  }

  function renderResults() {
    const box = browserPanel.querySelector("[data-testid=pj-results]");
    if (!box) return;
    keepFocus(box, () => {
      box.replaceChildren();
      if (results === null || !pool) {
        box.append(h("p", { class: "pj-muted" }, tr("loading")));
        return;
      }
      box.append(h("p", { class: "pj-muted", "aria-live": "polite" }, td("found", { n: results.length })));
      const m = counts(editor.cards);
      const grid = h("div", { class: "pj-browser-list" });
      for (const c of results) {
        grid.append(h("div", { class: "pj-browser-card", "data-card": c.id }, [
          cardFace(tr, c, { names: cname }),
          h("div", { class: "pj-btn-row" }, [
            h("button", {
              type: "button", class: "pj-btn", "data-testid": "pj-add", "data-card": c.id, "data-focus": `add-${c.id}`,
              "aria-label": td("add_aria", { name: c.name }), onclick: () => add(c.id),
            }, td("add")),
            m.get(c.id) ? h("span", { class: "pj-in-deck" }, td("in_deck", { n: m.get(c.id) })) : null,
          ]),
        ]));
      }
      box.append(grid);
    });
  }

  function renderAll() {
    renderList();
    renderEditor();
    renderResults();
  }

  // ---- start ------------------------------------------------------------------------------
  renderAll();
  renderBrowser();
  loadBoardStyle("parbaj");
  Promise.all([loadPool(), loadStarters().catch(() => [])])
    .then(([p, s]) => {
      if (destroyed) return;
      pool = p;
      starters = s || [];
      renderAll();
    })
    .catch((err) => {
      if (!destroyed) showError(apiErrorText(err));
    });
  refreshMine();
  browse();
  // A small handle for tests and the console (read only).
  window.duelhallDecks = { editor: () => ({ ...editor, cards: editor.cards.slice() }), problems: () => problems.slice() };

  return {
    destroy() {
      destroyed = true;
      clearTimeout(validateTimer);
      clearTimeout(qTimer);
      if (window.duelhallDecks) delete window.duelhallDecks;
      page.remove();
    },
  };
}
