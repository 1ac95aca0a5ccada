"""The Párbaj board and deck builder catalogues (static/i18n/<lang>/parbaj.json): every
language has every English key, with the same {placeholders}."""
import json
import re
from pathlib import Path

import pytest

I18N = Path(__file__).resolve().parents[3] / "static" / "i18n"


def flat(d, pre=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{pre}{k}."))
        else:
            out[pre + k] = v
    return out


def catalogue(lang):
    return flat(json.loads((I18N / lang / "parbaj.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("lang", ["it", "pt", "hu"])
def test_same_keys_and_placeholders_as_english(lang):
    en, other = catalogue("en"), catalogue(lang)
    assert sorted(set(en) - set(other)) == [], "missing translations"
    assert sorted(set(other) - set(en)) == [], "keys English does not have"
    for key, text in en.items():
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", other[key])), key
        assert other[key].strip(), key


def test_every_key_the_modules_use_exists():
    en = catalogue("en")
    static = I18N.parent
    for module, prefix, fn in (("games/parbaj.js", "parbaj.", "tr"), ("parbaj_decks.js", "parbaj.decks.", "td")):
        src = (static / module).read_text(encoding="utf-8")
        for key in re.findall(rf'\b{fn}\("([a-z_.]+)"', src):
            assert prefix + key in en, f"{module}: {prefix + key}"
