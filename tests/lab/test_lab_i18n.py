"""The lab page's catalogue: every key static/lab.js asks for exists in English, and Italian,
Portuguese and Hungarian have exactly the English keys (each translated: not a copy of the
English sentence, apart from names)."""
from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("it", "pt", "hu")
# Proper names and symbols that read the same in every language.
SAME = re.compile(r"^lab\.(lineup\.|col_ci$|row_bot$|unit\.rounds$|level\.|lineups_|seat$)")


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def _catalogue(lang: str) -> dict:
    return _flat(json.loads((ROOT / "static" / "i18n" / lang / "lab.json").read_text("utf-8")))


def test_every_key_the_page_uses_is_in_english():
    js = (ROOT / "static" / "lab.js").read_text("utf-8")
    en = _catalogue("en")
    literal = set(re.findall(r"tl\('(lab\.[a-z_.]*[a-z_])'", js))
    assert len(literal) > 40
    assert sorted(k for k in literal if k not in en) == []
    # Keys built at run time: every value they can take.
    for prefix, values in (("lab.status.", ("queued", "running", "done", "failed")),
                           ("lab.level.", ("random", "strong")),
                           ("lab.flag.", ("never", "rare", "dominant")),
                           ("lab.unit.", ("slots", "duels", "battles", "rounds")),
                           ("lab.moves_", ("duel", "duell", "combat", "parbaj")),
                           ("lab.lineups_", ("duellist", "deck")),
                           ("lab.error.", ("invalid_lab_run", "lab_busy", "lab_not_finished"))):
        for v in values:
            assert prefix + v in en, prefix + v


def test_other_languages_have_every_key_translated():
    en = _catalogue("en")
    for lang in LANGS:
        cat = _catalogue(lang)
        assert set(cat) == set(en), lang
        placeholders = lambda s: sorted(re.findall(r"\{(\w+)\}", s))  # noqa: E731
        for k, v in cat.items():
            assert placeholders(v) == placeholders(en[k]), (lang, k)
        copies = [k for k, v in cat.items() if v == en[k] and not SAME.match(k) and len(v) > 3]
        assert copies == [], (lang, copies)
