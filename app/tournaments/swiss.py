"""Swiss pairing for one round: maximum-weight matching (networkx) over a weighted graph.

Input is the active players in rank order (best first), their match points, their past
opponents and their bye counts; output is the pairs (in table order, higher-ranked player
first) and the bye. The rules, strongest first:

1. **No second bye while another active player has none.** Only players with the fewest byes
   can receive it (a hard rule: other players have no edge to the bye).
2. **No rematches while avoidable.** A rematch edge is worth less than any combination of
   the weights below, so the matching has the fewest rematches possible (zero whenever a
   rematch-free pairing exists).
3. **The bye goes to the lowest-ranked eligible player** (unless that forces a rematch).
4. **Equal scores.** Every pair costs the square of its match-point difference, so the
   pairing floats as few players, as short a way, as possible.
5. **Fold within a score group** (Dutch style): the group's top half meets its bottom half,
   1st vs (h+1)th, 2nd vs (h+2)th, ...; an odd group floats its lowest-ranked player down to
   the top of the next group. Deviating from that ideal costs the distance from it.

Weights are integers in lexicographic tiers, so a higher rule always dominates the lower
ones and the result is deterministic (integer node labels, fixed insertion order).

**Speed.** networkx's blossom algorithm is pure Python and superquadratic with tiered
weights like these (CPU for a dense graph: 0.01 s at 34 nodes, 0.28 s at 128, 0.64 s at
256, 24 s at 1,024). So the matching only runs where it has something to decide:

* If every active player has met fewer than half of the others (Dirac's condition: then a
  rematch-free perfect matching exists whoever of the eligible players takes the bye, the
  normal case with ceil(log2 n) rounds), the lowest-ranked eligible player takes the bye and
  the rest is split into blocks of ``BLOCK_PAIRS`` consecutive ideal pairs, each grown until
  Dirac's condition holds inside it. A block whose ideal pairs contain no rematch is already
  optimal (fold cost 0, and floats only between adjacent score groups are the minimum sum of
  squared differences) and is kept; a block with a rematch conflict is matched on its own,
  rematch edges left out.
* Otherwise (tiny fields, or far more rounds than log2 n) one dense matching over everybody
  plus a bye node decides, rematch edges included at a prohibitive cost.

Either way rules 1-3 hold exactly; rules 4-5 are optimised within each block.
"""
from __future__ import annotations

from collections.abc import Hashable

import networkx as nx

BLOCK_PAIRS = 8  # ideal pairs per block in the split path (16 players)

Player = Hashable


def pair_round(
    ranked: list[Player],
    score: dict[Player, int],
    opponents: dict[Player, set],
    byes: dict[Player, int],
    *,
    block_pairs: int = BLOCK_PAIRS,
) -> tuple[list[tuple[Player, Player]], Player | None]:
    """Pair one round. ``ranked``: the active players best first, sorted by ``score``
    (descending) first; ``opponents``: everybody each player has met (byes excluded);
    ``byes``: byes received so far. Returns the pairs in table order (higher-ranked player
    first in each) and the player with the bye (``None`` for an even count)."""
    n = len(ranked)
    if n == 0:
        return [], None
    if n == 1:
        return [], ranked[0]
    eligible: list[Player] = []
    if n % 2:
        least = min(byes.get(p, 0) for p in ranked)
        eligible = [p for p in ranked if byes.get(p, 0) == least]
    if n > 2:
        active = set(ranked)
        m = n - n % 2
        worst = max(len(opponents.get(p, ()) & active) for p in ranked)
        if worst <= m // 2 - 1:  # Dirac: a rematch-free perfect matching exists
            bye = eligible[-1] if eligible else None
            rest = [p for p in ranked if p != bye] if bye is not None else list(ranked)
            pairs = _pair_blocks(rest, score, opponents, block_pairs)
            if pairs is not None:
                return _table_order(pairs, ranked), bye
    pairs, bye = _pair_global(ranked, score, opponents, eligible)
    return _table_order(pairs, ranked), bye


def ideal_pairs(ranked: list[Player], score: dict[Player, int]) -> list[tuple[Player, Player]]:
    """The pairing with no conflicts: score groups top-down, downfloaters joining the top of
    the next group, each bracket folded (top half vs bottom half). ``ranked`` must be of even
    length and sorted by score (descending)."""
    pairs = []
    carry: list[Player] = []
    i = 0
    n = len(ranked)
    while i < n:
        j = i
        while j < n and score[ranked[j]] == score[ranked[i]]:
            j += 1
        bracket = carry + ranked[i:j]
        if len(bracket) % 2:
            carry = [bracket[-1]]
            bracket = bracket[:-1]
        else:
            carry = []
        h = len(bracket) // 2
        pairs.extend((bracket[k], bracket[k + h]) for k in range(h))
        i = j
    if carry:  # only when ranked has odd length: callers never do that
        raise ValueError("odd number of players")
    return pairs


def _fold_cost(a, b, pos, partner_pos) -> int:
    return abs(pos[b] - partner_pos[a]) + abs(pos[a] - partner_pos[b])


def _pair_blocks(rest, score, opponents, block_pairs):
    """The split path (see the module docstring). Returns None if a block could not be
    matched perfectly without rematches (not expected: Dirac's condition holds per block)."""
    ideal = ideal_pairs(rest, score)
    n_pairs = len(ideal)

    def dirac(i: int, j: int) -> bool:
        members = {p for pair in ideal[i:j] for p in pair}
        worst = max(len(opponents.get(p, ()) & members) for p in members)
        return worst <= len(members) // 2 - 1

    bounds: list[list[int]] = []
    i = 0
    while i < n_pairs:
        j = min(n_pairs, i + block_pairs)
        if n_pairs - j < block_pairs // 2:  # no stub block at the end
            j = n_pairs
        while not dirac(i, j) and j < n_pairs:
            j = min(n_pairs, j + block_pairs)
        bounds.append([i, j])
        i = j
    # The last block may still fail; merge it backwards (the whole field passes).
    while len(bounds) > 1 and not dirac(*bounds[-1]):
        last = bounds.pop()
        bounds[-1][1] = last[1]
    pos = partner_pos = None
    out = []
    for i, j in bounds:
        block = ideal[i:j]
        if not any(b in opponents.get(a, ()) for a, b in block):
            # Optimal as it stands: no rematch, every player with their ideal partner (fold
            # cost 0), and floats only between adjacent score groups, which is the minimum
            # sum of squared score differences (sorted consecutive pairs).
            out.extend(block)
            continue
        if pos is None:
            pos, partner_pos = _bracket_positions(rest, score)
        members = [p for pair in block for p in pair]
        got = _match(members, score, opponents, pos, partner_pos, eligible=(), allow_rematch=False)
        if 2 * len(got) != len(members):
            return None
        out.extend(got)
    return out


def _bracket_positions(rest, score) -> tuple[dict, dict]:
    """Position of each player in the bracket-by-bracket listing of the ideal pairing and the
    position of their ideal partner (see ``ideal_pairs``)."""
    pos: dict = {}
    partner_pos: dict = {}
    carry: list = []
    i = 0
    k = 0
    n = len(rest)
    while i < n:
        j = i
        while j < n and score[rest[j]] == score[rest[i]]:
            j += 1
        bracket = carry + rest[i:j]
        if len(bracket) % 2:
            carry = [bracket[-1]]
            bracket = bracket[:-1]
        else:
            carry = []
        h = len(bracket) // 2
        for t, p in enumerate(bracket):
            pos[p] = k + t
            partner_pos[p] = k + (t + h if t < h else t - h)
        k += len(bracket)
        i = j
    for p in carry:  # the odd one out (global path only): after everybody
        pos[p] = partner_pos[p] = k
    return pos, partner_pos


def _match(members, score, opponents, pos, partner_pos, eligible, allow_rematch):
    """Maximum-weight perfect matching over ``members`` (plus a bye node connected to
    ``eligible``, ranked best first, when given). Returns the pairs, and the bye player
    as a pair ``(p, None)`` when there is one.

    Tiers, each worth more than the largest possible total of all tiers below it over a
    matching of ``n`` players: rematch (K1) > bye position (KB) > score (K2) > fold."""
    n = len(members)
    edges = []
    for i in range(n):
        a = members[i]
        opp_a = opponents.get(a, ())
        sa = score[a]
        for j in range(i + 1, n):
            b = members[j]
            rematch = b in opp_a
            if rematch and not allow_rematch:
                continue
            edges.append((i, j, rematch, (sa - score[b]) ** 2, _fold_cost(a, b, pos, partner_pos)))
    max_d2 = max((e[3] for e in edges), default=0)
    max_fold = max((e[4] for e in edges), default=0)
    half = n // 2 + 1  # at most this many edges in a matching
    K2 = half * (max_fold + 1) + 1
    KB = half * (max_d2 + 1) * K2 + 1
    K1 = (n + 2) * KB if allow_rematch else 0
    g = nx.Graph()
    g.add_nodes_from(range(n + (1 if eligible else 0)))
    for i, j, rematch, d2, fold in edges:
        g.add_edge(i, j, weight=(0 if rematch else K1) + K2 * (max_d2 - d2) + (max_fold - fold))
    if eligible:
        bye_node = n
        idx = {p: i for i, p in enumerate(members)}
        for p in eligible:
            # lower-ranked (later in ``members``) is preferred
            g.add_edge(idx[p], bye_node, weight=K1 + KB * (1 + idx[p]))
    matching = nx.max_weight_matching(g, maxcardinality=True)
    out = []
    for u, v in matching:
        if eligible and (u == n or v == n):
            out.append((members[v if u == n else u], None))
        else:
            out.append((members[u], members[v]))
    return out


def _pair_global(ranked, score, opponents, eligible):
    presumed = eligible[-1] if eligible else None
    rest = [p for p in ranked if p != presumed]
    pos, partner_pos = _bracket_positions(rest, score)
    if presumed is not None:
        pos[presumed] = partner_pos[presumed] = len(rest)
    res = _match(list(ranked), score, opponents, pos, partner_pos, eligible, allow_rematch=True)
    bye = None
    pairs = []
    for a, b in res:
        if b is None:
            bye = a
        else:
            pairs.append((a, b))
    return pairs, bye


def _table_order(pairs, ranked):
    rank = {p: i for i, p in enumerate(ranked)}
    ordered = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    ordered.sort(key=lambda ab: rank[ab[0]])
    return ordered
