"""The clairvoyant bound of the 30-roll solo game: the best score found with all 30 rolls known
(under rule variants: the rules' solo game, star and pass penalties, all read from the tables).

    python -m sim.research.clairvoyant --games 1000 --seed 1 --beam 512     (= encore-sim bound)

Game g of root seed S has the dice `learned` sees in game g (sim.rng.game_key,
sim.engine.set_dice). Knowing them all in advance, a beam search keeps the B
best player states after each roll. Every state of the beam is expanded into
every distinct placement the dice allow, at its fewest '!', and passing
(strategies.learned.rank_placements), and the children are ranked by

    points gained so far + guide value of the afterstate

where the points gained are the column and colour points completed, +2 per
star crossed and -1 per '!' used (they add up to the score + 22 at the end),
and the guide value is `learned`'s value V(sheet, rolls to come, '!' left)
reweighted. Children that are the same state (same crossed boxes, same '!'
left, hence the same points so far) are kept once.

One guide alone biases the bound low (it prunes what it undervalues), so the
bound of a game is the best final score over several guides (GUIDES): V as
learned, V x 1.4 (a player who knows the dice cashes a sheet's potential better
than the average future V was trained on) and V x 1.2 with '!' worth a quarter
(a clairvoyant knows when a '!' pays). The three were picked on 200 games of
seed 7 from factors 0.6..2 and '!' factors 0.25..1.5.

Every state carries the engine's own arrays (a bb row and a ps row), moved by
sim.engine.cross and settle_awards and scored by finish: the bound is the exact
score of a legal line of play, which is returned move by move. A beam search
finds a lower bound of the clairvoyant optimum, which grows with the beam.
Games run in parallel (sim.threads.over_threads), each searched by one thread: the results
do not depend on the thread count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine import SOLO_DICE, end_of_game, reset, solo_move, start_roll
from sim.rng import game_key, mix64
from sim.runs.defaults import BOUND_BEAM
from sim.state import (
    BB_CROSSED, BB_SIZE, MAX_SEATS, PS_JOKERS, PS_SCORE, PS_SIZE, ST_AVAIL, ST_IS_ACTIVE, ST_SEAT, ST_SIZE, copy_into,
)
from sim.threads import over_threads

from strategies.learned import F_JOKER, N_FEAT, new_scratch, rank_placements, solo_rolls

#: The guides: (factor of V, further factor of its '!' entries). A game's bound is the best over them.
GUIDES = ((1.0, 1.0), (1.4, 1.0), (1.2, 0.25))
#: About 2.5 minutes per 1,000 games on 2 cores (see docs/strategies.md).
DEFAULT_BEAM = BOUND_BEAM
MAX_BEAM = 65536
#: The fields of a line of play: per roll, the placement (subset row, -1 = pass) and its '!'.
LINE_SUB = 0
LINE_COST = 1
# Columns of the children arrays: cf (float64) and ci (int64).
C_KEY = 0            # points gained so far + guide value of the afterstate
C_GAINED = 1         # points gained so far
C_PARENT = 0         # the beam state it grows from
C_SUB = 1            # its placement (subset row), -1 = pass
C_COST = 2           # '!' the placement uses


@njit(cache=True, inline="always")
def _before(keys, a, b):
    """Heap order: child a ranks below child b (lower key; on a tie the later child)."""
    return keys[a] < keys[b] or (keys[a] == keys[b] and a > b)


@njit(cache=True)
def _sift_down(heap, n, keys, i):
    while True:
        low = i
        left = 2 * i + 1
        if left < n and _before(keys, heap[left], heap[low]):
            low = left
        if left + 1 < n and _before(keys, heap[left + 1], heap[low]):
            low = left + 1
        if low == i:
            return
        heap[i], heap[low] = heap[low], heap[i]
        i = low


@njit(cache=True)
def _top(keys, cand, n_cand, beam, heap):
    """The (at most) `beam` best of children cand[:n_cand] by key, best first, into heap; their count.

    A min-heap of the best so far: a child enters only if it beats the worst kept one. Hand-written
    rather than heapq or a sort: it works in place on preallocated arrays, with no list or tuple
    per child (a roll of a wide beam has tens of thousands), and most children are rejected by
    one comparison with the worst kept."""
    n = 0
    for q in range(n_cand):
        c = cand[q]
        if n < beam:
            heap[n] = c
            n += 1
            i = n - 1
            while i > 0:                         # sift up
                p = (i - 1) // 2
                if not _before(keys, heap[i], heap[p]):
                    break
                heap[i], heap[p] = heap[p], heap[i]
                i = p
        elif _before(keys, heap[0], c):
            heap[0] = c
            _sift_down(heap, n, keys, 0)
    for end in range(n - 1, 0, -1):             # heap sort: the worst goes last
        heap[0], heap[end] = heap[end], heap[0]
        _sift_down(heap, end, keys, 0)
    return n


@njit(cache=True)
def _grown(a, rows):
    """a with room for `rows` rows (the first rows of a kept)."""
    b = np.empty((rows, a.shape[1]), a.dtype)
    for r in range(a.shape[0]):
        copy_into(a[r], b[r])
    return b


@njit(cache=True)
def _unique(cur_bb, cur_ps, mask, ci, n, slot, stamp, gen, cand):
    """Children 0..n-1 (rows of ci: parent, placement, '!') less repeats of a state (same crossed
    boxes, same '!' left) met earlier in the list, into cand; their count. An open-addressing
    table: slot[h] the child, in use this roll if stamp[h] == gen. Hand-written rather than a
    numba.typed.Dict: no key tuple to box per child, and the table is cleared by the stamp, not
    rebuilt, every roll."""
    size = slot.shape[0]
    while size >= 4 * n and size > 64:        # a table about 2-4 times the children: cache friendly
        size //= 2
    h_mask = size - 1
    u = 0
    for c in range(n):
        lo, hi, jk = _child_state(cur_bb, cur_ps, mask, ci, c)
        h = np.int64(mix64(lo ^ mix64(hi + np.uint64(jk))) >> np.uint64(1)) & h_mask
        while True:
            if stamp[h] != gen:
                stamp[h] = gen
                slot[h] = c
                cand[u] = c
                u += 1
                break
            lo2, hi2, jk2 = _child_state(cur_bb, cur_ps, mask, ci, slot[h])
            if lo2 == lo and hi2 == hi and jk2 == jk:
                break
            h = (h + 1) & h_mask
    return u


@njit(cache=True, inline="always")
def _child_state(cur_bb, cur_ps, mask, ci, c):
    """Crossed boxes (two words) and '!' left of child c."""
    p = ci[c, C_PARENT]
    sub = ci[c, C_SUB]
    lo = cur_bb[p, BB_CROSSED]
    hi = cur_bb[p, BB_CROSSED + 1]
    if sub >= 0:
        lo |= mask[sub, 0]
        hi |= mask[sub, 1]
    return lo, hi, cur_ps[p, PS_JOKERS] - ci[c, C_COST]


@njit(cache=True)
def search(W, tab, key, beam, line):
    """Beam search (width `beam`, guide weights W for rank_placements) over the solo game with
    dice key `key`. The best line found goes into line[30, 2] (LINE_SUB, LINE_COST per roll; 30:
    the solo rolls of the rules of `tab`); returns the engine's ps row of its end (score, points,
    '!', star penalty)."""
    rolls = solo_rolls(tab)
    st = np.zeros(ST_SIZE, np.int64)
    ps1 = np.zeros((MAX_SEATS, PS_SIZE), np.int64)
    bb1 = np.zeros((MAX_SEATS, BB_SIZE), np.uint64)
    reset(st, ps1, bb1, tab, 1, rolls)
    st[ST_SEAT] = 0
    st[ST_AVAIL] = SOLO_DICE
    st[ST_IS_ACTIVE] = 1
    scratch = new_scratch(tab)
    _, _, _, subs, costs, rewards, qs = scratch
    most = subs.shape[0]            # rows rank_placements may fill: passing and every placement
    # The beam: the engine's arrays, one row per state, and the points gained so far.
    cur_bb = np.empty((beam, BB_SIZE), np.uint64)
    cur_ps = np.empty((beam, PS_SIZE), np.int64)
    cur_g = np.empty(beam)
    nxt_bb = np.empty((beam, BB_SIZE), np.uint64)
    nxt_ps = np.empty((beam, PS_SIZE), np.int64)
    nxt_g = np.empty(beam)
    copy_into(bb1[0], cur_bb[0])
    copy_into(ps1[0], cur_ps[0])
    cur_g[0] = 0.0
    n = 1
    # back[roll, i]: the state of the roll before that state i came from, its placement and '!'.
    back = np.empty((rolls + 1, beam, 3), np.int64)
    # The children of a roll: cf (key, points so far), ci (parent, placement, '!'). A state has
    # a few dozen children, rarely more; the arrays grow when one more could overflow them.
    cf = np.empty((64 * beam, 2))
    ci = np.empty((64 * beam, 3), np.int64)
    cand = np.empty(64 * beam, np.int64)
    slot = np.empty(64, np.int64)
    stamp = np.zeros(64, np.int64)
    heap = np.empty(beam, np.int64)
    mask = tab.mask
    for roll in range(1, rolls + 1):
        start_roll(st, key, roll, 1)
        m = 0
        for p in range(n):
            if m + most > cf.shape[0]:
                cf = _grown(cf, 2 * cf.shape[0])
                ci = _grown(ci, 2 * ci.shape[0])
                cand = np.empty(cf.shape[0], np.int64)
            rows = rank_placements(W, 0, st, cur_bb, p, cur_ps[p, PS_JOKERS], tab, scratch)
            for r in range(rows):
                cf[m, C_KEY] = cur_g[p] + qs[r]
                cf[m, C_GAINED] = cur_g[p] + rewards[r] - costs[r]
                ci[m, C_PARENT] = p
                ci[m, C_SUB] = subs[r]
                ci[m, C_COST] = costs[r]
                m += 1
        if slot.shape[0] < 2 * m:
            size = slot.shape[0]
            while size < 2 * m:
                size *= 2
            slot = np.empty(size, np.int64)
            stamp = np.zeros(size, np.int64)
        u = _unique(cur_bb, cur_ps, mask, ci, m, slot, stamp, roll, cand)
        n = _top(cf[:, C_KEY], cand, u, beam, heap)
        for i in range(n):
            c = heap[i]
            p = ci[c, C_PARENT]
            copy_into(cur_ps[p], ps1[0])
            copy_into(cur_bb[p], bb1[0])
            solo_move(st, ps1, bb1, tab, ci[c, C_SUB], ci[c, C_COST], roll)
            copy_into(ps1[0], nxt_ps[i])
            copy_into(bb1[0], nxt_bb[i])
            nxt_g[i] = cf[c, C_GAINED]
            back[roll, i, 0] = p
            back[roll, i, 1] = ci[c, C_SUB]
            back[roll, i, 2] = ci[c, C_COST]
        cur_bb, nxt_bb = nxt_bb, cur_bb
        cur_ps, nxt_ps = nxt_ps, cur_ps
        cur_g, nxt_g = nxt_g, cur_g
    # The best end by the engine's score (on a tie, the more '!' left, as the engine ranks).
    best = -1
    best_ps = np.zeros(PS_SIZE, np.int64)
    for i in range(n):
        copy_into(cur_ps[i], ps1[0])
        copy_into(cur_bb[i], bb1[0])
        end_of_game(ps1, bb1, tab, 1)
        if best < 0 or ps1[0, PS_SCORE] > best_ps[PS_SCORE] or (
                ps1[0, PS_SCORE] == best_ps[PS_SCORE] and ps1[0, PS_JOKERS] > best_ps[PS_JOKERS]):
            best = i
            copy_into(ps1[0], best_ps)
    i = best
    for roll in range(rolls, 0, -1):
        line[roll - 1, LINE_SUB] = back[roll, i, 1]
        line[roll - 1, LINE_COST] = back[roll, i, 2]
        i = back[roll, i, 0]
    return best_ps


@njit(cache=True, nogil=True)
def _bound_games(lo, hi, Ws, tab, seed, first, beam, ends, lines, guide_scores):
    """Games first+lo..first+hi-1 of `seed`, one beam search per guide (rows of Ws) each:
    ends[i] the ps row of the best end over the guides, lines[i] its line, guide_scores[i, g]
    each guide's best score. Each game is searched alone: results independent of threads."""
    for i in range(lo, hi):
        key = game_key(np.uint64(seed), first + i)
        line = np.empty((solo_rolls(tab), 2), np.int64)
        for g in range(Ws.shape[0]):
            end = search(Ws[g], tab, key, beam, line)
            guide_scores[i, g] = end[PS_SCORE]
            if g == 0 or end[PS_SCORE] > ends[i, PS_SCORE] or (
                    end[PS_SCORE] == ends[i, PS_SCORE] and end[PS_JOKERS] > ends[i, PS_JOKERS]):
                copy_into(end, ends[i])
                for roll in range(line.shape[0]):
                    copy_into(line[roll], lines[i, roll])


def guide_weights(W, guides=GUIDES) -> np.ndarray:
    """One row of weights per guide (factor, '!' factor) from `learned`'s flat weights W."""
    W = np.asarray(W, np.float64)
    rows = np.empty((len(guides), W.size))
    for g, (factor, joker_factor) in enumerate(guides):
        w = W.reshape(-1, N_FEAT) * factor
        w[:, F_JOKER:N_FEAT] *= joker_factor        # every '!' entry: 0..8 left (more share the last)
        rows[g] = w.ravel()
    return rows


def search_games(W, tab, seed: int, first: int, count: int, beam: int = DEFAULT_BEAM, guides=GUIDES):
    """The clairvoyant search of solo games first..first+count-1 of `seed` on the sheet of kernel
    tables `tab`, guided by `learned`'s flat weights W: (ends, lines, guide_scores) with
    ends int64 (count, PS_SIZE) the engine's ps row at the end of each game's best line,
    lines int64 (count, 30, 2) that line (30: the solo rolls of the tables' rules; LINE_SUB,
    LINE_COST per roll) and guide_scores
    int64 (count, len(guides)) the best score of each guide."""
    ends = np.zeros((count, PS_SIZE), np.int64)
    lines = np.zeros((count, solo_rolls(tab), 2), np.int64)
    guide_scores = np.zeros((count, len(guides)), np.int64)
    over_threads(_bound_games, count, guide_weights(W, guides), tab, np.uint64(seed), first, beam, ends, lines,
                 guide_scores)
    return ends, lines, guide_scores

