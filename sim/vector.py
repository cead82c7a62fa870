"""Rows of stepped games: the one container of games played a decision at a time, and its kernels.

Every game stepped from outside is a row of a `Rows` (a StructRef: the kernels' one argument):
the vector environments' N games, a batched strategy's games in progress (sim.batched), one game
of the play page or the Gym env (sim.runs.game.GameInProgress, a Rows of one). A row is sim.step's
arrays with a leading row axis; its game waits at a decision of an external seat
(sim.players.PLAYER_EXTERNAL: the agent's, the person's, a batched strategy's; the other seats
are strategies played inside sim.step.advance, a user's watched as in `run`, sim.guard).

    reset_rows   begin game games[i] in each row i with which[i], up to its first external
                 decision, whose observation (sim.observe.observe_row) goes to row i of the obs
    step_rows    one action per row (sim.observe's encoding), checked first (check_actions:
                 nothing changes if one is illegal), applied (sim.step.commit), the built-in seats
                 played up to the row's next external decision; its observation, the reward,
                 whether the game ended; a finished game is followed by the row's next (autoreset)
    apply_moves  step_rows with the moves already in b.moves (colour die, number die, placement
                 row, '!'): a caller that checked them itself (GameInProgress)
    reset_range, step_range   the same over rows lo..hi-1, without the GIL (sim.batched's threads)

With `skip_forced` (config CF_SKIP_FORCED) a decision whose only legal action is pass is taken
inside the step and play goes on: the caller sees only real decisions, and the reward of the
skipped one (REWARD_SCORE: the change of the score since the seat's last decision) comes with the
next. The games and their scores are the same either way.

Game numbers: reset_rows says which game a row begins; autoreset begins the row's game + stride
(the vector environments: row i plays games first + i, first + i + n, ... for n rows, whatever
the other rows' games last or the agent chose). Game g has the dice of `run`'s game g of the same
root seed (sim.rng: dice are keyed by (root, game, roll)); with the built-in seats deciding as
there, a game whose outside seats choose as a strategy would is that strategy's game.

    Rows fields (FIELDS; arrays with a leading axis N unless said)
        adv, strats, kinds, params, tab, guest   sim.step.advance (its address), the line-up, the
                                                 tables and sim.guard's room for a user's strategy
        slots  int64 (N, MAX_SEATS)   each row's strategy slot of each seat
        table, ps, bb, pending, rngs, sp, gres   sim.step's arrays of each game (table: st; the
                                                 name st is taken in StructRef's constructor)
        dice_log, log                 each row's dice and move log (0 rows each: no log)
        last   int64 (N, MAX_SEATS)   each seat's score (sim.engine.score_now) at its last
                                      decision (at the start: the starting score)
        wait   int8 (N,)              1 when the row's game is over and its next game begins at
                                      the next step (AUTORESET_NEXT_STEP), or waits for a reset
        moves  int64 (N, 4)           the moves a step applies (check_actions writes them)
        obs, final_obs                sim.observe's batch arrays (OBS_KEYS order)
        reward float64, terminated, truncated, ended bool (N,); final_scores int64 (N, MAX_SEATS)
        config int64 (CF_SIZE,)       root seed, stride, players, roll cap, reward, autoreset,
                                      skip_forced

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
    AUTORESET_DISABLED   an ended row waits for reset_rows
"""
from collections import namedtuple

import numpy as np
from numba import njit, typeof, types
from numba.experimental import structref

from .engine import GR_CAPPED, GR_SIZE, LOG_SIZE, legal_choices, score_now
from .guard import GuestType, guest_of
from .nbinternals import JIT_DISABLED, borrow, uncounted
from .players import greedy_pick
from .observe import canonical_rows, new_obs, observe_row, uncounted_obs
from .rng import below
from .state import (
    BB_SIZE, CAND_SIZE, MAX_CANDS, MAX_SEATS, PS_SCORE, PS_SIZE, RNG_WORDS, ST_SIZE, StrategySet,
)
from .step import ADVANCE_SIG, FAILED, OVER, SP_GAME, SP_SEAT, SP_SIZE, SP_STATE, begin, commit, stepper
from .tables import TablesType

REWARD_SCORE = 0
REWARD_FINAL = 1
REWARD_MARGIN = 2
REWARDS = {"score": REWARD_SCORE, "final": REWARD_FINAL, "margin": REWARD_MARGIN}

AUTORESET_NEXT_STEP = 0
AUTORESET_SAME_STEP = 1
AUTORESET_DISABLED = 2

#: step_rows' return when every action was legal and every built-in seat decided legally.
OK = -1

# Arguments of the kernels' calls typed as int64 and bool: a literal 0, True or (-1, -1, -1, 0)
# compiles the callee once more for its literal type (apply_range twice: 12 s of a cold start).
ZERO = np.int64(0)
DECIDING, NOT_DECIDING = np.bool_(True), np.bool_(False)
FORCED_PASS = (np.int64(-1), np.int64(-1), np.int64(-1), np.int64(0))

#: sim.step.advance as the kernels call it: through its address, compiled apart (as sim.batch calls
#: sim.engine.play), so that these kernels do not carry another copy of the whole game.
AdvanceFn = types.FunctionType(ADVANCE_SIG)

#: The fields of a Rows, in four groups: what plays (PLAYS: advance, the strategies, their kinds and
#: parameters, the tables, the guest), the games (GAMES: each row's slots, sim.step's arrays, logs,
#: last scores, waits and moves), what a step writes (WRITES: observations, rewards, ends, final
#: observations and scores) and the settings (config: CF_*).
PLAYS = ("adv", "strats", "kinds", "params", "tab", "guest")
GAMES = ("slots", "table", "ps", "bb", "pending", "rngs", "sp", "gres", "dice_log", "log", "last", "wait", "moves")
WRITES = ("obs", "reward", "terminated", "truncated", "ended", "final_obs", "final_scores")
FIELDS = PLAYS + GAMES + WRITES + ("config",)
CF_ROOT = 0         # the root seed (the uint64's bits)
CF_STRIDE = 1       # a row's next game (autoreset) is its game + stride
CF_PLAYERS = 2
CF_MAX_ROLLS = 3
CF_REWARD = 4       # REWARD_*
CF_AUTORESET = 5    # AUTORESET_*
CF_SKIP_FORCED = 6  # 1: a decision whose only legal action is pass is taken inside the step
CF_SIZE = 7


@structref.register
class RowsType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Rows(structref.StructRefProxy):
    """Games stepped together, as the kernels take them: one argument, whatever the arrays. (A
    Numba call types each argument in Python: a tuple of arrays or of strategies costs hundreds
    of microseconds a call, a StructRef a few.)"""


structref.define_proxy(Rows, RowsType, list(FIELDS))
if JIT_DISABLED:
    Rows = namedtuple("Rows", FIELDS)  # noqa: F811   (plain Python: the kernels read its fields alike)


def _field_types():
    c1, c2, c3 = types.int64[::1], types.int64[:, ::1], types.int64[:, :, ::1]
    u3 = types.uint64[:, :, ::1]
    obs = typeof(tuple(new_obs(1, 1, 1).values()))
    plays = (AdvanceFn, StrategySet, c1, types.float64[:, ::1], TablesType, GuestType)
    games = (c2, c2, c3, u3, c3, u3, c2, c2, c3, c3, c2, types.int8[::1], c2)
    writes = (obs, types.float64[::1], types.boolean[::1], types.boolean[::1], types.boolean[::1], obs, c2)
    return plays, games, writes


def rows_type():
    """The one type of Rows the kernels are compiled for."""
    plays, games, writes = _field_types()
    return RowsType(list(zip(FIELDS, plays + games + writes + (types.int64[::1],))))


@njit(cache=True)
def _pack(adv, strats, plays, games, writes, config):
    kinds, params, tab, guest = plays
    slots, table, ps, bb, pending, rngs, sp, gres, dice_log, log, last, wait, moves = games
    obs, reward, terminated, truncated, ended, final_obs, final_scores = writes
    return Rows(adv, strats, kinds, params, tab, guest, slots, table, ps, bb, pending, rngs, sp, gres, dice_log, log,
                last, wait, moves, obs, reward, terminated, truncated, ended, final_obs, final_scores, config)


def _packer():
    """_pack compiled for the one Rows type (or loaded from the cache)."""
    if JIT_DISABLED:
        return _pack
    if not _pack.signatures:
        plays, games, writes = _field_types()
        _pack.compile(rows_type()(plays[0], plays[1], types.Tuple(plays[2:]), types.Tuple(games),
                                  types.Tuple(writes), types.int64[::1]))
        _pack.disable_compile()
    return _pack


def new_rows(n, fns, kinds, params, tab, k, players, max_rolls, root=0, slots=None, reward="score",
             autoreset=AUTORESET_NEXT_STEP, stride=None, logged_rolls=0, skip_forced=False, outside=False,
             watched=True):
    """A Rows of n games (begun by reset_rows) and its arrays by name (NumPy arrays the kernels
    write in place; "obs" and "final_obs": sim.observe's batch arrays by name): fns, kinds, params
    as a sim.runs.api.Lineup's, kinds with PLAYER_EXTERNAL for the seats decided outside; tab the
    KernelTables, k its placement rows (sim.observe.n_actions less the pass); `slots` (n, MAX_SEATS)
    each row's strategy slots [seat s: slot s]; `stride` [n] as in the module doc; `logged_rolls`:
    room in each row for the dice and moves of that many rolls (0: no log); `skip_forced`: as in
    the module doc; `outside`: every seat of every row is decided outside, played by
    sim.step.advance_outside, which compiles none of the built-in decisions; `watched` False: no
    slot is a user's strategy (sim.step.advance_unwatched)."""
    a = dict(
        slots=np.tile(np.arange(MAX_SEATS, dtype=np.int64), (n, 1)) if slots is None else np.array(slots, np.int64),
        table=np.zeros((n, ST_SIZE), np.int64), ps=np.zeros((n, MAX_SEATS, PS_SIZE), np.int64),
        bb=np.zeros((n, MAX_SEATS, BB_SIZE), np.uint64), pending=np.zeros((n, MAX_SEATS, 4), np.int64),
        rngs=np.zeros((n, MAX_SEATS, RNG_WORDS), np.uint64), sp=np.full((n, SP_SIZE), -1, np.int64),
        gres=np.zeros((n, GR_SIZE), np.int64), dice_log=np.zeros((n, logged_rolls, 6), np.int64),
        log=np.zeros((n, logged_rolls * players, LOG_SIZE), np.int64), last=np.zeros((n, MAX_SEATS), np.int64),
        wait=np.zeros(n, np.int8), moves=np.zeros((n, 4), np.int64),
        obs=new_obs(n, players, k), reward=np.zeros(n), terminated=np.zeros(n, np.bool_),
        truncated=np.zeros(n, np.bool_), ended=np.zeros(n, np.bool_), final_obs=new_obs(n, players, k),
        final_scores=np.zeros((n, MAX_SEATS), np.int64), config=np.zeros(CF_SIZE, np.int64))
    config = a["config"]
    config[CF_ROOT] = np.uint64(root).astype(np.int64)
    config[CF_STRIDE] = n if stride is None else stride
    config[CF_PLAYERS] = players
    config[CF_MAX_ROLLS] = max_rolls
    config[CF_REWARD] = REWARDS[reward] if isinstance(reward, str) else reward
    config[CF_AUTORESET] = autoreset
    config[CF_SKIP_FORCED] = int(bool(skip_forced))
    kinds = np.ascontiguousarray(kinds, np.int64)
    params = np.ascontiguousarray(params, np.float64)
    guest = guest_of(kinds, params, tab)
    games = tuple(tuple(a[f].values()) if f in ("obs", "final_obs") else a[f] for f in GAMES)
    writes = tuple(tuple(a[f].values()) if f in ("obs", "final_obs") else a[f] for f in WRITES)
    return _packer()(advance_fn(outside, watched), tuple(fns), (kinds, params, tab, guest), games, writes, config), a


def advance_fn(outside: bool = False, watched: bool = True):
    """sim.step.advance (or its variant: sim.step.stepper), compiled for ADVANCE_SIG (or loaded from
    the cache), as the kernels here take it: sim.step.stepper's, which also stops it compiling for
    other types."""
    return stepper(outside, watched)


# --- one row -----------------------------------------------------------------------------------

@njit(cache=True)
def count_choices(st, ps, bb, tab, cands):
    """The seat's legal choices (sim.engine.legal_choices), compiled once for the kernels here and
    GameInProgress.choices."""
    return legal_choices(st, ps, bb, tab, cands)


@njit(cache=True, inline="always")
def _plays(b):
    """What plays, read once a kernel call: advance, and the line-up as it takes it (strategies,
    kinds, parameters, tables, guest), the arrays as uncounted views (sim.nbinternals). Built once
    here, not per row: each build counts a reference to the tables and the guest's (measured: the
    solo env 3 % faster)."""
    ints, bits, gparams, gtab = b.guest
    guest = (uncounted(ints), uncounted(bits), uncounted(gparams), gtab)
    return b.adv, (b.strats, borrow(b, "kinds"), borrow(b, "params"), b.tab, guest)


# _advance and _begin inlined: compiled apart, each call would count a reference to the rows and
# the tables it is handed, per row and step. advance itself is a function pointer, so each copy is
# small.
@njit(cache=True, inline="always")
def _advance(b, i, adv, line, cands, skip):
    """Row i's game played by its built-in seats up to its next external decision (sim.step.advance);
    with skip_forced, a decision whose only legal action is pass is taken here and play goes on.
    Returns the deciding seat, or -1 (the game is over, or failed: sp[SP_STATE])."""
    tab = line[3]
    st, ps, bb, pending = borrow(b, "table")[i], borrow(b, "ps")[i], borrow(b, "bb")[i], borrow(b, "pending")[i]
    sp, gres, log = borrow(b, "sp")[i], borrow(b, "gres")[i], borrow(b, "log")[i]
    game = (st, ps, bb, cands, pending, borrow(b, "rngs")[i], sp, gres)
    while True:
        seat = adv(line, borrow(b, "slots")[i], game, (borrow(b, "dice_log")[i], log))
        if seat < 0 or not skip or count_choices(st, ps, bb, tab, cands) > 0:
            return seat
        commit((st, ps, bb, pending, sp, gres), tab, log, ZERO, FORCED_PASS)


@njit(cache=True, inline="always")
def _begin(b, i, game, adv, line, cands, skip):
    """Begin game `game` in row i and play its built-in seats up to the first external decision
    (returned, or -1); every seat's last score is the starting score."""
    config, tab = borrow(b, "config"), line[3]
    st, ps, bb = borrow(b, "table")[i], borrow(b, "ps")[i], borrow(b, "bb")[i]
    begin(st, ps, bb, borrow(b, "rngs")[i], borrow(b, "sp")[i], borrow(b, "gres")[i], tab, np.uint64(config[CF_ROOT]),
          game, config[CF_PLAYERS], config[CF_MAX_ROLLS], borrow(b, "dice_log")[i])
    start = score_now(ps, bb, tab, 0)
    last = borrow(b, "last")[i]
    for s in range(MAX_SEATS):
        last[s] = start
    borrow(b, "wait")[i] = 0
    return _advance(b, i, adv, line, cands, skip)


# Compiled once, not inlined: inlined at its five places, observe_row's code would be compiled
# five times over in apply_range, and the observations would not be pruned from the kernels
# without them (play's first dice: 3 s more). The price: a call per row and step, which makes the
# solo env about 10 % slower than inlined (docs/performance.md).
@njit(cache=True)
def _observe(st, ps, bb, tab, seat, deciding, i, obs):
    observe_row(st, ps, bb, tab, seat, deciding, i, obs)


@njit(cache=True, inline="always")
def _next_game(b, i, stride, adv, line, cands, skip, observed, obs, failed):
    """Row i begins its next game (its game's number plus the stride), with its first decision's
    observation where `observed`; returns `failed`, or -2 - i where it is OK and this row's
    built-in seat failed."""
    seat = _begin(b, i, borrow(b, "sp")[i, SP_GAME] + stride, adv, line, cands, skip)
    if seat >= 0:
        if observed:
            _observe(borrow(b, "table")[i], borrow(b, "ps")[i], borrow(b, "bb")[i], line[3], seat, DECIDING, i, obs)
    elif failed == OK:
        failed = -2 - i
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


# --- the kernels -------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def reset_range(lo, hi, b, which, games):
    """Begin game games[i] in every row i of lo..hi-1 with which[i], up to its first external
    decision, and write that decision's observation into row i of b.obs. Returns the first row
    whose built-in seat failed (sp[SP_STATE] FAILED, gres[GR_ERROR] says how), or OK."""
    return _reset(lo, hi, b, which, games, True)


# The range kernels without the observations (b.obs and b.final_obs left as they are), for a
# caller that reads none (play's game, GameInProgress(observed=False)): they compile no
# observation code (sim.observe.observe_row, a tenth of play's first dice). Each kernel's body is
# written once, `observed` a constant of each caller that prunes the observations before typing.
@njit(cache=True, nogil=True)
def reset_range_unobserved(lo, hi, b, which, games):
    """reset_range without the observation."""
    return _reset(lo, hi, b, which, games, False)


@njit(cache=True, nogil=True)
def apply_range_unobserved(lo, hi, b):
    """apply_range without the observations."""
    return _apply(lo, hi, b, False)


@njit(cache=True, inline="always")
def _reset(lo, hi, b, which, games, observed):
    obs, (adv, line) = uncounted_obs(b.obs), _plays(b)
    tab, skip = line[3], borrow(b, "config")[CF_SKIP_FORCED] != 0
    st, ps, bb = borrow(b, "table"), borrow(b, "ps"), borrow(b, "bb")
    cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)   # the call's own: slices run on several threads
    failed = OK
    for i in range(lo, hi):
        if not which[i]:
            continue
        seat = _begin(b, i, games[i], adv, line, cands, skip)
        if seat < 0:
            if failed == OK:
                failed = i
            continue
        if observed:
            _observe(st[i], ps[i], bb[i], tab, seat, DECIDING, i, obs)
    return failed


@njit(cache=True)
def reset_rows(b, which, games):
    """reset_range over every row."""
    return reset_range(ZERO, borrow(b, "table").shape[0], b, which, games)


@njit(cache=True)
def check_range(lo, hi, b, actions):
    """The first row of lo..hi-1 whose action is none of its deciding seat's legal actions
    (sim.observe), or OK; rows without a decision (a game over: sp[SP_SEAT] -1, waiting or not) take
    no action. The moves the actions stand for go to b.moves, which apply_range applies."""
    st, ps, bb, sp, moves = borrow(b, "table"), borrow(b, "ps"), borrow(b, "bb"), borrow(b, "sp"), borrow(b, "moves")
    bad = canonical_rows(st[lo:hi], ps[lo:hi], bb[lo:hi], sp[lo:hi, SP_SEAT], b.tab, actions[lo:hi], moves[lo:hi])
    return OK if bad < 0 else lo + bad


@njit(cache=True)
def check_actions(b, actions):
    """check_range over every row."""
    return check_range(ZERO, borrow(b, "table").shape[0], b, actions)


@njit(cache=True, nogil=True)
def apply_range(lo, hi, b):
    """Rows lo..hi-1 take the moves of b.moves (checked: check_range); see the module doc. Returns
    OK, or -2 - i for the first row i whose built-in seat failed (its game stops there). Written
    per row: b.obs (the next decision's observation), b.reward, b.terminated (the game ended by
    the rules), b.truncated (stopped by the roll cap), b.ended (either: the game's final scores are
    in b.final_scores[i], and with AUTORESET_SAME_STEP its last observation, from the seat that
    decided, in b.final_obs). Rows waiting (b.wait) take no move: with AUTORESET_NEXT_STEP they
    begin their next game, reward 0; else they are left as they are."""
    return _apply(lo, hi, b, True)


@njit(cache=True, inline="always")
def _apply(lo, hi, b, observed):
    adv, line = _plays(b)
    tab = line[3]
    st, ps, bb, pending, sp = borrow(b, "table"), borrow(b, "ps"), borrow(b, "bb"), borrow(b, "pending"), \
        borrow(b, "sp")
    gres, log, last, wait, moves = borrow(b, "gres"), borrow(b, "log"), borrow(b, "last"), borrow(b, "wait"), \
        borrow(b, "moves")
    reward, terminated, truncated, ended = borrow(b, "reward"), borrow(b, "terminated"), borrow(b, "truncated"), \
        borrow(b, "ended")
    obs, final_obs, final_scores, config = uncounted_obs(b.obs), uncounted_obs(b.final_obs), \
        borrow(b, "final_scores"), borrow(b, "config")
    stride, players, reward_mode, autoreset = config[CF_STRIDE], config[CF_PLAYERS], config[CF_REWARD], \
        config[CF_AUTORESET]
    skip = config[CF_SKIP_FORCED] != 0
    cands = np.empty((MAX_CANDS, CAND_SIZE), np.int64)   # the call's own: slices run on several threads
    failed = OK
    for i in range(lo, hi):
        reward[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        ended[i] = False
        if wait[i]:
            if autoreset == AUTORESET_NEXT_STEP:
                failed = _next_game(b, i, stride, adv, line, cands, skip, observed, obs, failed)
            continue
        seat = sp[i, SP_SEAT]
        if seat < 0:      # a failed game: it stays so
            continue
        # The log counts the seat's legal choices as the game loop does (every dice pair).
        n = count_choices(st[i], ps[i], bb[i], tab, cands) if log.shape[1] > 0 else 0
        commit((st[i], ps[i], bb[i], pending[i], sp[i], gres[i]), tab, log[i], n,
               (moves[i, 0], moves[i, 1], moves[i, 2], moves[i, 3]))
        after = _advance(b, i, adv, line, cands, skip)
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
                if observed:
                    _observe(st[i], ps[i], bb[i], tab, seat, NOT_DECIDING, i, final_obs)
                failed = _next_game(b, i, stride, adv, line, cands, skip, observed, obs, failed)
            else:
                if observed:
                    _observe(st[i], ps[i], bb[i], tab, seat, NOT_DECIDING, i, obs)
                wait[i] = 1
        elif state == FAILED:
            if failed == OK:
                failed = -2 - i
        else:
            now = score_now(ps[i], bb[i], tab, after)
            if reward_mode == REWARD_SCORE:
                reward[i] = now - last[i, after]
            last[i, after] = now
            if observed:
                _observe(st[i], ps[i], bb[i], tab, after, DECIDING, i, obs)
    return failed


@njit(cache=True)
def apply_moves(b):
    """apply_range over every row."""
    return apply_range(ZERO, borrow(b, "table").shape[0], b)


@njit(cache=True, nogil=True)
def step_range(lo, hi, b, actions):
    """One action per row of lo..hi-1 (sim.observe's encoding, for the row's deciding seat): every
    action is checked before anything changes, and the first row whose action is illegal is
    returned (nothing changed); else apply_range's return."""
    bad = check_range(lo, hi, b, actions)
    if bad != OK:
        return bad
    return apply_range(lo, hi, b)


@njit(cache=True)
def step_rows(b, actions):
    """step_range over every row; see the module doc."""
    return step_range(ZERO, borrow(b, "table").shape[0], b, actions)


def compiled(*kernels):
    """(reset_rows, step_rows, check_actions), with `kernels` (default: every kernel here) compiled
    for the one Rows type on first use (or loaded from the cache), and for no other: the strategies
    typed as function values (sim.state.StrategySet) and advance by its address (AdvanceFn), so
    that one compiled kernel steps any line-up. A caller that needs only some asks for them: play's
    one game compiles no environment's kernels (observe_seat, greedy_actions, the checks)."""
    if not JIT_DISABLED:
        rows = rows_type()
        c1, i64 = types.int64[::1], types.int64
        # Each range kernel before the kernels that call it.
        sigs = {reset_range: i64(i64, i64, rows, types.int8[::1], c1), check_range: i64(i64, i64, rows, c1),
                apply_range: i64(i64, i64, rows), step_range: i64(i64, i64, rows, c1),
                reset_range_unobserved: i64(i64, i64, rows, types.int8[::1], c1),
                apply_range_unobserved: i64(i64, i64, rows), reset_rows: i64(rows, types.int8[::1], c1),
                check_actions: i64(rows, c1), step_rows: i64(rows, c1), apply_moves: i64(rows),
                greedy_actions: types.void(rows, c1), observe_seat: types.void(rows, i64, i64)}
        calls = {reset_rows: (reset_range,), check_actions: (check_range,), apply_moves: (apply_range,),
                 step_rows: (step_range, check_range, apply_range), step_range: (check_range, apply_range)}
        unobserved = (reset_range_unobserved, apply_range_unobserved)   # for their callers alone
        wanted = set(kernels or (k for k in sigs if k not in unobserved))
        wanted.update(*(calls.get(k, ()) for k in list(wanted)))
        for kernel, sig in sigs.items():
            if kernel in wanted:
                if sig.args not in kernel.overloads:
                    kernel.compile(sig)
                kernel.disable_compile()
    return reset_rows, step_rows, check_actions


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
