"""Names people could mistake for each other: confusable skeletons (Unicode UTS #39).

Two names are the same name here when their skeletons are equal. The skeleton is UTS #39's
(NFD, default-ignorable code points removed, every character replaced by its prototype from
Unicode's confusables.txt, NFD again) of the NFKC case fold of the name, folded and mapped
until it no longer changes (a prototype may be a capital: ``0`` maps to ``O``). So ``Root``,
``ROOT``, ``Rооt`` (Cyrillic о), ``Ｒｏｏｔ`` (full width) and ``R00T`` share one skeleton.

The data is ``app/unicode/confusables.txt`` (Unicode 17.0.0, licence beside it), read once.
Accounts store their skeleton (``users.name_skeleton``, unique: migration 0006); guests may
not take an account's skeleton nor a reserved one (app/api/auth.py).
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "unicode" / "confusables.txt"

# Names nobody may register or play under as a guest, compared by skeleton: they would pass
# for the site itself or its staff. (An admin made with `duelhall create-admin` may use one.)
RESERVED = ("admin", "administrator", "root", "superuser", "moderator", "mod", "system",
            "sysop", "staff", "support", "official", "server", "duelhall", "bot", "computer",
            "guest", "anonymous", "nobody", "null", "undefined")

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt): invisible, dropped from skeletons
# (a name with a Hangul filler on its end looks like the name without it).
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def _ignorable(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in DATA.read_text(encoding="utf-8-sig").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target = (field.strip() for field in line.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def _uts39_skeleton(text: str) -> str:
    table = _prototypes()
    text = unicodedata.normalize("NFD", text)
    text = "".join(table.get(ch, ch) for ch in text if not _ignorable(ch))
    return unicodedata.normalize("NFD", text)


@lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """The form under which look-alike names compare equal (see the module's docstring)."""
    text = unicodedata.normalize("NFKC", name).casefold()
    for _ in range(4):  # settles after one or two rounds; bounded all the same
        folded = _uts39_skeleton(text).casefold()
        if folded == text:
            break
        text = folded
    return text


RESERVED_SKELETONS = frozenset(skeleton(word) for word in RESERVED)


def is_reserved(name: str) -> bool:
    return skeleton(name) in RESERVED_SKELETONS
