"""A tiny Duell bot: a uniformly random legal action, never resigning when anything else is
possible. Works on the ``legal`` list of a view document as is."""
from __future__ import annotations

import random


def random_action(view_doc_legal: list, rnd: random.Random) -> dict:
    choices = [a for a in view_doc_legal if a.get("type") != "resign"] or list(view_doc_legal)
    if not choices:
        raise ValueError("No legal action to choose from.")
    return rnd.choice(choices)
