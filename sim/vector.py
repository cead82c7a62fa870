"""Many games stepped in one compiled call: the kernels of the vector environments.

A batch is N games, each a row of sim.step's arrays with a leading game axis, held with what
plays them and what a step writes in one `Batch` (a StructRef: the kernels' one argument). Each
row's game waits at a decision of an external seat (sim.players.PLAYER_EXTERNAL: the agent's,
or any seat decided outside; the other seats are built-in strategies, played inside
sim.step.advance). `step_batch` takes one action per row (sim.observe's encoding), applies it
(sim.step.commit), plays the built-in seats up to the row's next external decision, writes the
decider's observation and mask into the batch arrays (sim.observe.observe_row), the reward, and
whether the game ended; a finished game is followed by the row's next one (autoreset).
`reset_batch` begins games; `check_actions` finds an illegal action without stepping.

Game numbers: row i plays games first + i, first + i + stride, first + i + 2 * stride, ... (stride:
the number of rows, as the environments use it), so a row's games do not depend on how long any
other row's games last or on what the agent chose, and game g has the dice of `run`'s game g of
the same root seed (sim.rng: dice are keyed by (root, game, roll)); with the built-in seats
deciding as there, a game whose agent chooses as a strategy would is that strategy's game.

    Batch fields (FIELDS; arrays with a leading axis N unless said)
        adv, strats, kinds, params, slots, tab   sim.step.advance (its address) and its line-up
        table, ps, bb, pending, rngs, sp, gres   sim.step's arrays of each game (table: st; the
                                                 name st is taken in StructRef's constructor)
        last   int64 (N, MAX_SEATS)   each seat's score (sim.engine.score_now) at its last
                                      decision (at the start: the starting score)
        wait   int8 (N,)              1 when the row's game is over and its next game begins at
                                      the next step (AUTORESET_NEXT_STEP), or waits for a reset
        cands                         advance's candidate table: one for all rows
        moves  int64 (N, 4)           scratch: the moves the actions stand for (check_actions)
        obs, final_obs                sim.observe's batch arrays (OBS_KEYS order)
        reward float64, terminated, truncated, ended bool (N,); final_scores int64 (N, MAX_SEATS)
        config int64 (CF_SIZE,)       root seed, stride, players, roll cap, reward, autoreset

Rewards (to the seat that decided, in the game its action was applied to):
    REWARD_SCORE   its score's change since its last decision (sim.engine.score_now; at the end
                   the final score): over a game they add up to the final score minus the
                   starting score
    REWARD_FINAL   the final score at the game's end, else 0
    REWARD_MARGIN  at the end, its final score minus the best other seat's (solo: the final score)

Autoreset (Gymnasium's modes, gymnasium.vector.AutoresetMode):
    AUTORESET_NEXT_STEP  the step after the one that ended a game begins the row's next game,
                         ignores that row's action and returns its first observation, reward 0
    AUTORESET_SAME_STEP  the step that ends a game begins the next one at once: obs is the new
                         game's first; the ended game's last observation goes into final_obs
    AUTORESET_DISABLED   an ended row waits for reset_batch
"""
from collections import namedtuple

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

from .engine import GR_CAPPED, GR_SIZE, score_now
from .nbinternals import JIT_DISABLED, borrow, uncounted
from .players import greedy_pick
from .observe import canonical_rows, observe_row, uncounted_obs
from .rng import below
from .state import (
    BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SCORE, PS_SIZE, RNG_WORDS, ST_SIZE, StrategySet,
)
from .step import ADVANCE_SIG, FAILED, OVER, SP_GAME, SP_SEAT, SP_SIZE, SP_STATE, begin, commit, stepper

REWARD_SCORE = 0
REWARD_FINAL = 1
REWARD_MARGIN = 2
REWARDS = {"score": REWARD_SCORE, "final": REWARD_FINAL, "margin": REWARD_MARGIN}

AUTORESET_NEXT_STEP = 0
AUTORESET_SAME_STEP = 1
AUTORESET_DISABLED = 2

#: step_batch's return when every action was legal and every built-in seat decided legally.
OK = -1

#: sim.step.advance as the kernels call it: through its address, compiled apart (as sim.batch calls
#: sim.engine.play), so that these kernels do not carry another copy of the whole game.
AdvanceFn = types.FunctionType(ADVANCE_SIG)

#: The fields of a Batch: what plays (advance, the strategies, their kinds, parameters and slots,
#: the tables), the games (sim.step's arrays with a leading game axis, each seat's last score,
#: the rows waiting for their next game, the candidate scratch), what a step writes (the
#: observations, rewards, ends, final observations and scores) and the settings (config: CF_*).
FIELDS = ("adv", "strats", "kinds", "params", "slots", "tab", "table", "ps", "bb", "pending", "rngs", "sp", "gres",
          "last", "wait", "cands", "moves", "obs", "reward", "terminated", "truncated", "ended", "final_obs",
          "final_scores", "config")
CF_ROOT = 0         # the root seed (the uint64's bits)
CF_STRIDE = 1       # a row's next game is its game + stride
CF_PLAYERS = 2
CF_MAX_ROLLS = 3
CF_REWARD = 4       # REWARD_*
CF_AUTORESET = 5    # AUTORESET_*
CF_SIZE = 6


@structref.register
class BatchType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Batch(structref.StructRefProxy):
    """A batch of games stepped together, as the kernels take it: one argument, whatever the
    arrays. (A Numba call types each argument in Python: a tuple of arrays or of strategies
    costs hundreds of microseconds a call, a StructRef a few.)"""


structref.define_proxy(Batch, BatchType, list(FIELDS))
if JIT_DISABLED:
    Batch = namedtuple("Batch", FIELDS)  # noqa: F811   (plain Python: the kernels read its fields alike)


def _obs_type():
    from .observe import new_obs
    return typeof(tuple(new_obs(1, 1, 1).values()))


def _field_types():
    from .tables import TablesType
    c1, c2, c3 = types.int64[::1], types.int64[:, ::1], types.int64[:, :, ::1]
    obs = _obs_type()
    return (AdvanceFn, StrategySet, c1, types.float64[:, ::1], c1, TablesType, c2, c3, types.uint64[:, :, ::1], c3,
            types.uint64[:, :, ::1], c2, c2, c2, types.int8[::1], c2, c2, obs, types.float64[::1], types.boolean[::1],
            types.boolean[::1], types.boolean[::1], obs, c2, c1)


@njit(cache=True)
def _pack(adv, strats, kinds, params, slots, tab, table, ps, bb, pending, rngs, sp, gres, last, wait, cands, moves,
          obs, reward, terminated, truncated, ended, final_obs, final_scores, config):
    return Batch(adv, strats, kinds, params, slots, tab, table, ps, bb, pending, rngs, sp, gres, last, wait, cands,
                 moves, obs, reward, terminated, truncated, ended, final_obs, final_scores, config)


def new_batch(n, fns, kinds, params, slots, tab, obs, final_obs, root, players, max_rolls, reward="score",
              autoreset=AUTORESET_NEXT_STEP, stride=None):
    """A Batch of n games (begun by reset_batch) and its arrays by name (NumPy arrays the kernels
    write in place): fns, kinds, params as a sim.runs.api.Lineup's, kinds with PLAYER_EXTERNAL for
    the agent's seat; tab the KernelTables; obs, final_obs the tuples of sim.observe's batch arrays
    (sim.observe.new_obs); `stride` [n] as in the module doc."""
    arrays = dict(
        table=np.zeros((n, ST_SIZE), np.int64), ps=np.zeros((n, MAX_SEATS, PS_SIZE), np.int64),
        bb=np.zeros((n, MAX_SEATS, BB_SIZE), np.uint64), pending=np.zeros((n, MAX_SEATS, 4), np.int64),
        rngs=np.zeros((n, MAX_SEATS, RNG_WORDS), np.uint64), sp=np.zeros((n, SP_SIZE), np.int64),
        gres=np.zeros((n, GR_SIZE), np.int64), last=np.zeros((n, MAX_SEATS), np.int64), wait=np.zeros(n, np.int8),
        cands=np.zeros((MAX_CANDS, CAND_SIZE), np.int64), moves=np.zeros((n, 4), np.int64), reward=np.zeros(n),
        terminated=np.zeros(n, np.bool_), truncated=np.zeros(n, np.bool_), ended=np.zeros(n, np.bool_),
        final_scores=np.zeros((n, MAX_SEATS), np.int64), config=np.zeros(CF_SIZE, np.int64))
    config = arrays["config"]
    config[CF_ROOT] = np.uint64(root).astype(np.int64)
    config[CF_STRIDE] = n if stride is None else stride
    config[CF_PLAYERS] = players
    config[CF_MAX_ROLLS] = max_rolls
    config[CF_REWARD] = REWARDS[reward] if isinstance(reward, str) else reward
    config[CF_AUTORESET] = autoreset
    kinds = np.ascontiguousarray(kinds, np.int64)
    params = np.ascontiguousarray(params, np.float64)
    slots = np.ascontiguousarray(slots, np.int64)
    a = arrays
    values = (advance_fn(), tuple(fns), kinds, params, slots, tab, a["table"], a["ps"], a["bb"], a["pending"],
              a["rngs"], a["sp"], a["gres"], a["last"], a["wait"], a["cands"], a["moves"], tuple(obs), a["reward"],
              a["terminated"], a["truncated"], a["ended"], tuple(final_obs), a["final_scores"], config)
    packer = _packer()
    return packer(*values), arrays


def advance_fn():
    """sim.step.advance, compiled for ADVANCE_SIG (or loaded from the cache), as the kernels here take
    it: sim.step.stepper's, which also stops it compiling for other types (Numba 0.60 would
    otherwise compile it anew for a tuple of strategies called from Python, sim.runs.game, and
    fail)."""
    return stepper()


@njit(cache=True, inline="always")
def _start(adv, strats, kinds, params, slots, tab, st, ps, bb, cands, pending, rngs, sp, gres, last, root, game,
           players, max_rolls, nolog):
    """Begin game `game` in one row and play its built-in seats up to the first external decision;
    every seat's last score is the starting score."""
    begin(st, ps, bb, rngs, sp, gres, tab, root, game, players, max_rolls, nolog)
    start = score_now(ps, bb, tab, 0)
    for s in range(MAX_SEATS):
        last[s] = start
    adv(strats, kinds, params, slots, tab, st, ps, bb, cands, pending, rngs, sp, gres, nolog, nolog, None)


@njit(cache=True)
def reset_batch(b, which, games):
    """Begin game games[i] in every row i with which[i], up to its first external decision, and write
    that decision's observation into row i of b.obs. Returns the first row whose built-in seat failed
    (sp[SP_STATE] FAILED, gres[GR_ERROR] says how), or OK."""
    adv, strats, kinds, params, slots, tab = b.adv, b.strats, b.kinds, b.params, b.slots, b.tab
    st, ps, bb, pending, rngs, sp = uncounted(b.table), uncounted(b.ps), uncounted(b.bb), uncounted(b.pending), \
        uncounted(b.rngs), uncounted(b.sp)
    gres, last, wait, cands, obs = uncounted(b.gres), uncounted(b.last), uncounted(b.wait), uncounted(b.cands), \
        uncounted_obs(b.obs)
    config = b.config
    root, players, max_rolls = np.uint64(config[CF_ROOT]), config[CF_PLAYERS], config[CF_MAX_ROLLS]
    nolog = np.zeros((0, 0), np.int64)      # no dice log, no move log (writable: advance's type)
    failed = OK
    for i in range(st.shape[0]):
        if not which[i]:
            continue
        _start(adv, strats, kinds, params, slots, tab, st[i], ps[i], bb[i], cands, pending[i], rngs[i], sp[i],
               gres[i], last[i], root, games[i], players, max_rolls, nolog)
        wait[i] = 0
        seat = sp[i, SP_SEAT]
        if seat < 0:
            if failed == OK:
                failed = i
            continue
        observe_row(st[i], ps[i], bb[i], tab, seat, True, i, obs)
    return failed


@njit(cache=True, inline="always")
def _final_reward(ps, seat, players, mode):
    own = ps[seat, PS_SCORE]
    if mode != REWARD_MARGIN or players == 1:
        return own
    best = -(1 << 40)
    for s in range(players):
        if s != seat and ps[s, PS_SCORE] > best:
            best = ps[s, PS_SCORE]
    return own - best


@njit(cache=True)
def check_actions(b, actions):
    """The first row whose action is none of its deciding seat's legal actions (sim.observe), or OK;
    rows without a decision (a game over: sp[SP_SEAT] -1, waiting or not) take no action. The moves
    the actions stand for go to b.moves (scratch), which step_batch applies."""
    return canonical_rows(b.table, b.ps, b.bb, b.sp[:, SP_SEAT], b.tab, actions, b.moves)


@njit(cache=True)
def step_batch(b, actions):
    """One action per row (sim.observe's encoding, for the row's deciding seat); see the module doc.

    Every action is checked before anything changes: the first row whose action is illegal is
    returned (nothing changed), else OK, or -2 - i for the first row i whose built-in seat failed
    (its game stops there). Written per row: b.obs (the next decision's observation), b.reward,
    b.terminated (the game ended by the rules), b.truncated (stopped by the roll cap), b.ended
    (either: the game's final scores are in b.final_scores[i], and with AUTORESET_SAME_STEP its last
    observation, from the seat that decided, in b.final_obs). Rows waiting (b.wait) take no
    action: with AUTORESET_NEXT_STEP they begin their next game, reward 0; disabled, they are
    left as they are."""
    bad = check_actions(b, actions)
    if bad != OK:
        return bad
    adv, strats, kinds, params, slots, tab = b.adv, b.strats, b.kinds, b.params, b.slots, b.tab
    st, ps, bb, pending, rngs, sp = uncounted(b.table), uncounted(b.ps), uncounted(b.bb), uncounted(b.pending), \
        uncounted(b.rngs), uncounted(b.sp)
    gres, last, wait, cands, obs = uncounted(b.gres), uncounted(b.last), uncounted(b.wait), uncounted(b.cands), \
        uncounted_obs(b.obs)
    reward, terminated, truncated, ended = uncounted(b.reward), uncounted(b.terminated), uncounted(b.truncated), \
        uncounted(b.ended)
    final_obs, final_scores, config, moves = uncounted_obs(b.final_obs), uncounted(b.final_scores), b.config, \
        uncounted(b.moves)
    root, stride, players, max_rolls = np.uint64(config[CF_ROOT]), config[CF_STRIDE], config[CF_PLAYERS], \
        config[CF_MAX_ROLLS]
    reward_mode, autoreset = config[CF_REWARD], config[CF_AUTORESET]
    nolog = np.zeros((0, 0), np.int64)      # no dice log, no move log (writable: advance's type)
    failed = OK
    for i in range(st.shape[0]):
        reward[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        ended[i] = False
        if wait[i]:
            if autoreset == AUTORESET_NEXT_STEP:
                _start(adv, strats, kinds, params, slots, tab, st[i], ps[i], bb[i], cands, pending[i], rngs[i],
                       sp[i], gres[i], last[i], root, sp[i, SP_GAME] + stride, players, max_rolls, nolog)
                wait[i] = 0
                if sp[i, SP_SEAT] >= 0:
                    observe_row(st[i], ps[i], bb[i], tab, sp[i, SP_SEAT], True, i, obs)
                elif failed == OK:
                    failed = -2 - i
            continue
        seat = sp[i, SP_SEAT]
        if seat < 0:      # a failed game: it stays so
            continue
        commit(st[i], ps[i], bb[i], tab, pending[i], sp[i], gres[i], nolog, 0, moves[i, 0], moves[i, 1], moves[i, 2],
               moves[i, 3])
        adv(strats, kinds, params, slots, tab, st[i], ps[i], bb[i], cands, pending[i], rngs[i], sp[i], gres[i],
            nolog, nolog, None)
        state = sp[i, SP_STATE]
        if state == OVER:
            if reward_mode == REWARD_SCORE:
                reward[i] = ps[i, seat, PS_SCORE] - last[i, seat]
            else:
                reward[i] = _final_reward(ps[i], seat, players, reward_mode)
            capped = gres[i, GR_CAPPED] != 0
            terminated[i] = not capped
            truncated[i] = capped
            ended[i] = True
            for s in range(players):
                final_scores[i, s] = ps[i, s, PS_SCORE]
            if autoreset == AUTORESET_SAME_STEP:
                observe_row(st[i], ps[i], bb[i], tab, seat, False, i, final_obs)
                _start(adv, strats, kinds, params, slots, tab, st[i], ps[i], bb[i], cands, pending[i], rngs[i],
                       sp[i], gres[i], last[i], root, sp[i, SP_GAME] + stride, players, max_rolls, nolog)
                if sp[i, SP_SEAT] >= 0:
                    observe_row(st[i], ps[i], bb[i], tab, sp[i, SP_SEAT], True, i, obs)
                elif failed == OK:
                    failed = -2 - i
            else:
                observe_row(st[i], ps[i], bb[i], tab, seat, False, i, obs)
                wait[i] = 1
        elif state == FAILED:
            if failed == OK:
                failed = -2 - i
        else:
            seat = sp[i, SP_SEAT]
            now = score_now(ps[i], bb[i], tab, seat)
            if reward_mode == REWARD_SCORE:
                reward[i] = now - last[i, seat]
            last[i, seat] = now
            observe_row(st[i], ps[i], bb[i], tab, seat, True, i, obs)
    return failed


def _packer():
    """_pack compiled for the one Batch type (or loaded from the cache)."""
    if JIT_DISABLED:
        return Batch
    if not _pack.signatures:
        fields = _field_types()
        _pack.compile(BatchType(list(zip(FIELDS, fields)))(*fields))
        _pack.disable_compile()
    return _pack


def compiled():
    """(reset_batch, step_batch, check_actions), compiled for the one Batch type on first use (or
    loaded from the cache), with greedy_actions and observe_seat: the strategies typed as function
    values (sim.state.StrategySet) and advance by its address (AdvanceFn), so that one compiled
    kernel steps any line-up."""
    if not JIT_DISABLED and not step_batch.signatures:
        batch = BatchType(list(zip(FIELDS, _field_types())))
        c1 = types.int64[::1]
        check_actions.compile(types.int64(batch, c1))
        reset_batch.compile(types.int64(batch, types.int8[::1], c1))
        step_batch.compile(types.int64(batch, c1))
        greedy_actions.compile(types.void(batch, c1))
        observe_seat.compile(types.void(batch, types.int64, types.int64))
        for kernel in (reset_batch, step_batch, check_actions, greedy_actions, observe_seat):
            kernel.disable_compile()
    return reset_batch, step_batch, check_actions


@njit(cache=True)
def observe_seat(b, i, seat):
    """Seat's observation of row i's game, into row i of b.final_obs: the decision's (its mask)
    if the seat decides now, else with nothing to decide (the PettingZoo env's look of an agent
    that is not the one to act)."""
    st, ps, bb, sp = uncounted(b.table), uncounted(b.ps), uncounted(b.bb), uncounted(b.sp)
    deciding = sp[i, SP_SEAT] == seat
    observe_row(st[i], ps[i], bb[i], b.tab, seat, deciding, i, uncounted_obs(b.final_obs))


@njit(cache=True)
def greedy_actions(b, actions):
    """actions[i]: sim.players.greedy's choice for row i's deciding seat, as an action (greedy_pick's
    placement row, whose canonical move is greedy's own: its group at its fewest '!', the first dice
    pair and row of it), K to pass; rows without a decision get K. The reference player through
    the environments' encoding, for tests and baselines."""
    st, ps, bb, sp, wait = uncounted(b.table), uncounted(b.ps), uncounted(b.bb), uncounted(b.sp), uncounted(b.wait)
    tab = b.tab
    k = borrow(tab, "size").shape[0]
    for i in range(st.shape[0]):
        actions[i] = k
        if not wait[i] and sp[i, SP_SEAT] >= 0:
            n, pick, cd, nd, sub, cost = greedy_pick(st[i], ps[i], bb[i], tab)
            if pick >= 0:
                actions[i] = sub


@njit(cache=True)
def random_actions(mask, state, actions):
    """actions[i]: uniform over the legal actions of mask[i] (an action mask per row), drawn from
    the SplitMix64 stream state[0] (sim.rng): random masked play, for benchmarks and baselines."""
    mask = uncounted(mask)
    for i in range(mask.shape[0]):
        row = mask[i]
        legal = 0
        for a in range(row.shape[0]):
            legal += np.int64(row[a])
        # The (pick + 1)-th legal action: a running count whose loop test is the one branch, taken
        # until the end (a test of each legal action mispredicted, and took twice as long).
        target = below(state, legal) + 1
        seen = 0
        a = -1
        while seen < target:
            a += 1
            seen += np.int64(row[a])
        actions[i] = a
