"""One person's game on the play page: the game, its folder, and every request's checks.

    s = PlaySession.start(game, folder, analyse=...)    # or PlaySession.resume(folder, ...)
    s.state()                                           # what the page draws (sim.play.view)
    s.play({"game": id, "decision": n, "choice": i})    # a move; Refused (4xx, one line) if bad
    s.hint(id, n)                                       # the decision view of this decision

Several people at one screen (pass-and-play): a move, a hint, a take-back and a coach's setting
name the seat of the person they are for ("seat"), which must be the seat whose turn it is (the
person who moved last, for a take-back); each person has a coach of their own, and the state
holds the coach's words on the moves of the person deciding alone.

The page is a view: the game lives here, so a reload fetches it again, and the folder keeps
enough after every move (play.json: the settings and the person's choices) to continue the game
in a new server (`play --resume FOLDER`). A request names the game (its id, new for every
session) and the decision it answers (how many the person has taken): a request for another
game, or one that a second tab or a double click sent for a decision already taken, is refused
and changes nothing. Every check is made before anything changes, under the session's lock.

The session writes into its folder alone: play.json as the game goes, the finished game's
dataset (`summary`, `replay`, `analyse` read it) and the analysis of it (analysis.json).
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path

from ..errors import SettingError

#: What play.json holds; a folder without it is no game of `play`.
STATE_FILE = "play.json"
ANALYSIS_FILE = "analysis.json"
#: The largest request body the page sends is ~60 bytes; anything much larger is no move of it.
MAX_BODY = 4096


class Refused(Exception):
    """A request refused before it changed anything: an HTTP status and one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _int(body: dict, name: str, lo: int, hi: int) -> int:
    x = body.get(name)
    if isinstance(x, bool) or not isinstance(x, int):
        raise Refused(400, f"bad request: {name!r} must be an integer, got {json.dumps(x)[:40]}")
    if not lo <= x <= hi:
        raise Refused(422, f"{name} {x} is out of range {lo}..{hi}")
    return x


class PlaySession:
    """A game of the person against the line-up, behind a lock (the server answers from threads)."""

    def __init__(self, game, folder: Path, analyse=None, coach: float | None = None):
        """game: a sim.play.game.PageGame; folder: where it is kept; analyse(folder) -> dict:
        the finished game's analysis (run in the background once the game ends); coach: the loss
        above which the page's coach speaks (None: the coach starts off)."""
        self.game = game
        self.folder = Path(folder)
        self.id = secrets.token_hex(8)
        self.lock = threading.Lock()
        self.coaches = {seat: {"on": coach is not None, "threshold": 1.0 if coach is None else float(coach)}
                        for seat in self._seats()}
        self.last_moves = {}            # seat -> the coach's word on that person's last move
        self._analyse = analyse
        self._analysis = None           # {"status": "running" | "done" | "failed", ...}
        self._thread = None
        self._trace, self._trace_lock = None, threading.Lock()     # the finished game's trace, for the review
        self._saved = {}                # another saved game being reviewed from the home page: its session
        if game.over:
            self._finish()

    # --- the people ----------------------------------------------------------------------

    def _seats(self) -> list[int]:
        return list(getattr(self.game, "seats", [0]))

    @property
    def several(self) -> bool:
        """Whether several people play at this screen (pass-and-play)."""
        return len(getattr(self.game, "people", ())) > 1

    def _now(self) -> int:
        """The seat of the person deciding now (the first person's once the game is over)."""
        seat = getattr(self.game, "seat", None)
        return self._seats()[0] if seat is None else seat

    @property
    def coach(self) -> dict:
        """The coach of the person deciding now."""
        return self.coaches[self._now()]

    @coach.setter
    def coach(self, value: dict) -> None:
        self.coaches[self._now()] = value

    @property
    def last_move(self):
        """The coach's word on the last move of the person deciding now."""
        return self.last_moves.get(self._now())

    def _seat(self, body: dict, whose: int | None, what: str) -> None:
        """Refused unless the request's "seat" is `whose` (the seat the server says it must be for):
        required at one screen of several people, where the page shows one person's sheet at a time;
        the server, not the page, decides whose turn it is."""
        seat = body.get("seat")
        if seat is None and not self.several:
            return
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise Refused(400, f"bad request: 'seat' must name the seat of the person {what}")
        if seat != whose:
            names = getattr(self.game, "names", None) or []
            who = f"{names[whose]} (seat {whose})" if whose is not None and whose < len(names) else f"seat {whose}"
            raise Refused(409, f"not seat {seat}'s turn: {what} is {who}'s; hand the screen over and reload the page")

    # --- the folder ----------------------------------------------------------------------

    @staticmethod
    def check_new(folder: Path) -> None:
        """SettingError unless `folder` may hold a new game: missing or empty."""
        folder = Path(folder)
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise SettingError(f"{folder} is not an empty folder: a new game needs a folder of its own "
                               "(or {resume} the game in it)")

    @classmethod
    def start(cls, game, folder: Path, analyse=None, coach=None) -> "PlaySession":
        folder = Path(folder)
        cls.check_new(folder)
        folder.mkdir(parents=True, exist_ok=True)
        s = cls(game, folder, analyse, coach)
        s._keep()
        return s

    @classmethod
    def resume(cls, folder: Path, load, analyse=None, coach=None) -> "PlaySession":
        """The game kept in `folder` (its play.json), rebuilt by load(folder), with the coach it
        had unless `coach` is given."""
        folder = Path(folder)
        kept = folder / STATE_FILE
        if not kept.is_file():
            raise SettingError(f"{folder} holds no game of `play` to {{resume}} (no {STATE_FILE} in it)")
        try:
            data = json.loads(kept.read_text())
        except ValueError:
            raise SettingError(f"{kept} is damaged: not JSON") from None
        was, each = data.get("coach"), data.get("coaches")
        s = cls(load(folder), folder, analyse, coach)
        if coach is None:
            if not isinstance(each, dict):
                each = {str(s._seats()[0]): was}
            for seat in s._seats():
                c = each.get(str(seat))
                if isinstance(c, dict) and isinstance(c.get("on"), bool):
                    s.coaches[seat] = {"on": c["on"], "threshold": float(c.get("threshold", 1.0))}
        return s

    def _keep(self) -> None:
        """play.json, written whole and then renamed over the old one (a crash leaves one of the two)."""
        tmp = self.folder / (STATE_FILE + ".tmp")
        coaches = {"coaches": {str(k): v for k, v in self.coaches.items()}} if self.several else {}
        tmp.write_text(json.dumps({**self.game.record(), "coach": self.coaches[self._seats()[0]], **coaches},
                                  indent=1) + "\n")
        tmp.replace(self.folder / STATE_FILE)

    # --- what the page reads -----------------------------------------------------------------

    def state(self) -> dict:
        with self.lock:
            return self._state()

    def _state(self) -> dict:
        g = self.game
        return {
            **g.view(),
            "game": self.id,
            "decision": g.decisions,
            "folder": str(self.folder),
            "coach": self.coach,
            "last_move": self.last_move,
            "person": self._now(),          # whose coach and words these are
            "analysis": self._analysis if self._analysis is None or "started" not in self._analysis else
            {"status": self._analysis["status"], "seconds": round(time.monotonic() - self._analysis["started"], 1)},
            "settings": g.settings(),
        }

    def hint(self, game: str, decision: int, seat: int | None = None) -> dict:
        with self.lock:
            self._check(game, decision)
            self._seat({"seat": seat}, self._now(), "whose hint it is")
            return {"game": self.id, "decision": self.game.decisions, "choices": self.game.hint_view()}

    # --- what the page changes ---------------------------------------------------------------

    def play(self, body) -> dict:
        """The person's move {"game", "decision", "choice"} (choice -1: pass; "seat" too at one
        screen of several people): checked, played, kept. Returns the new state, its `last_move`
        the coach's word on the last move of the person deciding next."""
        if not isinstance(body, dict) or set(body) - {"seat"} != {"game", "decision", "choice"}:
            raise Refused(400, 'bad request: the body must be {"game": ID, "decision": N, "choice": I}')
        with self.lock:
            self._check(body.get("game"), body.get("decision"))
            seat = self._now()
            self._seat(body, seat, "this decision")
            n = self.game.count()
            i = _int(body, "choice", -1, 10 ** 9)
            if i >= n:
                raise Refused(422, f"choice {i} is not a legal choice: decision {self.game.decisions} has "
                                   f"{n} choices (0..{n - 1}) and passing (-1)")
            self.last_moves[seat] = self.game.play(i)
            self._keep()
            if self.game.over:
                self._finish()
            return self._state()

    def take_back(self, body) -> dict:
        """Your last move taken back {"game", "decision"}: in practice mode alone (Refused 403 else),
        checked here and not on the page: without it no move is changed once its next dice are seen.
        At one screen of several people ("seat" too): the last move taken, by the person who took it."""
        if not isinstance(body, dict) or set(body) - {"seat"} != {"game", "decision"}:
            raise Refused(400, 'bad request: the body must be {"game": ID, "decision": N}')
        with self.lock:
            if not self.game.practice:
                raise Refused(403, "take-backs are for practice games: switch practice on first (the game "
                                   "is then marked practice)")
            self._check(body.get("game"), body.get("decision"), over_ok=True)
            if self._analysis is not None:
                raise Refused(409, "the game is over and saved: a finished game's moves stay as played")
            if not self.game.moves:
                raise Refused(409, "no move of yours to take back")
            last = getattr(self.game, "last_seat", None)
            if self.several:
                self._seat(body, last, "the last move")
            self.game.take_back()
            self.last_moves.pop(self._seats()[0] if last is None else last, None)
            self._keep()
            return self._state()

    def set_practice(self, body) -> dict:
        """Practice mode switched {"game", "on": true|false}: take-backs allowed while it is on; a game
        with a take-back is marked practice in its dataset and analysis for good."""
        if not isinstance(body, dict) or set(body) != {"game", "on"} or not isinstance(body["on"], bool):
            raise Refused(400, 'bad request: the body must be {"game": ID, "on": true|false}')
        with self.lock:
            if body["game"] != self.id:
                raise Refused(409, "another game: this server plays game " + self.id + "; reload the page")
            if self.game.over:
                raise Refused(409, "the game is over: there is no move to take back")
            self.game.practice = body["on"]
            self._keep()
            return self._state()

    def set_people(self, body) -> dict:
        """Who plays at this screen {"game", "names": [NAME, ...]}, chosen on the page before the first
        move: the people at seats 0.. by their names (one name or none: you alone), bots at the rest
        of the table's seats, the same dice. Refused once a move was made (409)."""
        if not isinstance(body, dict) or set(body) != {"game", "names"} or not isinstance(body["names"], list):
            raise Refused(400, 'bad request: the body must be {"game": ID, "names": [NAME, ...]}')
        with self.lock:
            if body["game"] != self.id:
                raise Refused(409, "another game: this server plays game " + self.id + "; reload the page")
            g = self.game
            if g.decisions or g.over:
                raise Refused(409, "the game has begun: who plays is chosen before the first move")
            names = body["names"] if len(body["names"]) > 1 else None
            old = max(1, len(g.people))
            n = len(names) if names else 1
            bots = list(g.opponents)
            if g.level is None and len(set(bots)) > 1:      # each bot seat's own spec, the people's dropped
                bots = (bots[:1] * (old - n) + bots)[-(g.players - n):] if g.players > n else []
            try:
                new = type(g)(players=g.players, opponents=None if g.level is not None else (bots[:1] if len(set(bots)) == 1
                              else bots) or None, level=g.level, seed=g.seed, game=g.game, sheet=g.sheet,
                              rules=g.rules.text, max_rolls=g.max_rolls, practice=g.practice, names=names)
            except ValueError as e:
                raise Refused(422, str(e).splitlines()[0]) from None
            self.game = new
            first = self.coaches[self._seats()[0]] if self._seats()[0] in self.coaches else next(iter(self.coaches.values()))
            self.coaches = {seat: dict(first) for seat in self._seats()}
            self.last_moves = {}
            self._keep()
            return self._state()

    def review(self, decision, seat=None) -> dict:
        """The finished game at your decision `decision` (0-based), as it was: every sheet, the dice,
        the rolls so far (the game played again from its record up to there), your move and
        learned's with the loss and the luck of that roll from the analysis. `seat`: whose decisions
        (at one screen of several people; default the first person's)."""
        with self.lock:
            if not self.game.over or self._analysis is None or self._analysis.get("status") != "done":
                raise Refused(409, "a game is reviewed once it is over and analysed")
            seats = self._seats()
            seat = seats[0] if seat is None else seat
            if isinstance(seat, bool) or not isinstance(seat, int) or seat not in seats:
                raise Refused(422, f"seat {seat!r} is no person's: {seats}")
            # The person's decisions among everybody's, in the order taken.
            order = [i for i, s in enumerate(getattr(self.game, "move_seats", None) or [seat] * len(self.game.moves))
                     if s == seat]
            n = len(order)
            if isinstance(decision, bool) or not isinstance(decision, int) or not 0 <= decision < n:
                raise Refused(422, f"decision {decision!r} is out of range 0..{n - 1}")
            record = self.game.record()
            analysis = self._analysis
        record["moves"] = record["moves"][:order[decision]]
        then = type(self.game).from_record(record)
        view = then.view()
        each = analysis.get("people") or [analysis]
        mine = next((a for a in each if a.get("seat", seats[0]) == seat), {})
        rolls = mine.get("rolls") or []
        judged = rolls[decision] if decision < len(rolls) else {}
        word = self.game.losses[order[decision]]
        roll = word["roll"]
        return {**view, "you": seat, "review": {
                                   "decision": decision, "decisions": n, "seat": seat, "yours": word["choice"],
                                   "learned": word["best"], "loss": judged.get("loss"),
                                   "luck": judged.get("luck"), "chances": self._chances_at(roll)}}

    def _chances_at(self, roll: int) -> dict | None:
        """Each seat's chance of winning (solo: its expected final score) before roll `roll`, with
        the sheets as the review draws them: the trace's row after the roll before (sim.runs.trace);
        None without a win model for the game (_game_trace). The game's trace is made once, outside the session's lock (seconds: the game played again)."""
        with self._trace_lock:
            if self._trace is None:
                self._trace = _game_trace(self.game)
        if self._trace is False:
            return None
        rows = self._trace[self._trace["roll"] == roll - 1].sort_values("seat")
        solo = self.game.players == 1
        return {"roll": roll - 1, "solo": solo,
                "seats": [{"seat": int(r.seat), "name": self.game.names[int(r.seat)],
                           "win_prob": None if solo else float(r.win_prob),
                           "expected_score": float(r.expected_score)} for r in rows.itertuples()]}

    def games(self) -> list[dict]:
        """The games of `play` kept beside this one (saved_games)."""
        return saved_games(self.folder.parent)

    def saved_review(self, name, decision, seat=None) -> dict:
        """review(decision) of the finished, analysed game kept beside this one in the folder `name`
        (one of games()' folders: no other path is read), with its analysis's summary."""
        if isinstance(decision, bool) or not isinstance(decision, int):
            raise Refused(400, "bad request: saved?folder=NAME&decision=N")
        if name == self.folder.name:
            other = self
        else:
            if not any(g["folder"] == name and g["over"] for g in self.games()):
                raise Refused(404, f"no finished game of yours is kept in {str(name)[:60]!r}")
            with self.lock:
                other = self._saved.get(name)
            if other is None:
                from .game import resume
                other = PlaySession.resume(self.folder.parent / name, resume)
                with self.lock:
                    self._saved = {name: other}       # one at a time: each holds a game's arrays
        a = other._analysis or {}
        return {**other.review(decision, seat), "saved": {
            "folder": name, "score": a.get("score"), "you_won": a.get("you_won"), "players": a.get("players"),
            "loss_per_decision": a.get("loss_per_decision"), "rating": a.get("rating")}}

    def set_coach(self, body) -> dict:
        if not isinstance(body, dict) or set(body) - {"seat"} != {"game", "on", "threshold"} \
                or not isinstance(body["on"], bool):
            raise Refused(400, 'bad request: the body must be {"game": ID, "on": true|false, "threshold": LOSS}')
        t = body["threshold"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 100:
            raise Refused(422, "the coach's threshold must be a number of points 0..100")
        with self.lock:
            if body["game"] != self.id:
                raise Refused(409, "another game: this server plays game " + self.id + "; reload the page")
            self._seat(body, self._now(), "the coach on show")
            self.coach = {"on": body["on"], "threshold": float(t)}
            self._keep()
            return self._state()

    def _check(self, game, decision, over_ok: bool = False) -> None:
        if not isinstance(game, str) or not secrets.compare_digest(game.encode(), self.id.encode()):
            raise Refused(409, f"another game: this server plays game {self.id}; reload the page")
        if isinstance(decision, bool) or not isinstance(decision, int):
            raise Refused(400, "bad request: 'decision' must be an integer")
        if self.game.over and not over_ok:
            raise Refused(409, "the game is over: there is no decision to take")
        if decision != self.game.decisions:
            raise Refused(409, f"stale request: it answers decision {decision}, the game is at decision "
                               f"{self.game.decisions}; reload the page")

    # --- the end of the game -------------------------------------------------------------

    def _finish(self) -> None:
        """Save the finished game as a dataset and analyse it in the background (the page polls)."""
        if self._analysis is not None:
            return
        done = self.folder / ANALYSIS_FILE
        if done.is_file():
            self._analysis = {"status": "done", **json.loads(done.read_text())}
            return
        self.game.save(self.folder)
        if self._analyse is None:
            self._analysis = {"status": "off"}
            return
        self._analysis = {"status": "running", "started": time.monotonic()}
        self._thread = threading.Thread(target=self._analyse_now, name="analyse-your-game", daemon=True)
        self._thread.start()

    def _analyse_now(self) -> None:
        try:
            result = self._analyse(self.folder)
        except Exception as e:      # shown on the page: the game itself is saved whatever happens here
            with self.lock:
                self._analysis = {"status": "failed", "error": str(e).splitlines()[0] if str(e) else type(e).__name__}
            return
        tmp = self.folder / (ANALYSIS_FILE + ".tmp")
        tmp.write_text(json.dumps(result, indent=1) + "\n")
        tmp.replace(self.folder / ANALYSIS_FILE)
        with self.lock:
            self._analysis = {"status": "done", **result}
        try:                # the review's chances ready before the page asks (kernels loaded once a process)
            self._chances_at(1)
        except Exception:   # the review then says why, when it is asked for
            pass

    def warm(self) -> None:
        """learned's judge compiled before the first hint or move needs it (Game.warm), outside the
        lock: the page goes on answering meanwhile."""
        self.game.warm(self.lock)

    def wait(self, timeout: float | None = None) -> None:
        """Until the analysis in the background is done (tests, and a server stopping)."""
        if self._thread is not None:
            self._thread.join(timeout)


def _game_trace(g):
    """The finished game `g`'s trace (sim.runs.trace.game_trace), or False where learned has no
    weights or no win model is kept for its sheet, players and rules (fitting one takes minutes:
    `run --trace` does it, not the page)."""
    from sim.runs.trace import game_trace, model_for
    from sim.state import PS_SCORE, PS_WINNER
    from strategies.learned import MissingWeights
    c = g.gip.chunk()
    try:
        model = model_for(g.sheet, g.players, g.rules, fit_missing=False)
        if model is None and g.players > 1:
            return False
        return game_trace(g.seed, g.game, g.players, c.log, g.sheet, g.rules, scores=c.seats[0, :, PS_SCORE],
                          winners=c.seats[0, :, PS_WINNER], model=model)
    except MissingWeights:
        return False


# --- the games played before ---------------------------------------------------------------------

def saved_games(root: Path) -> list[dict]:
    """The games of `play` in the folders of `root` (where games are kept: results/), oldest first,
    from what each folder holds: its play.json (settings, moves, practice), its manifest (when it
    ended, the names) and its analysis.json (score, level). Unreadable folders are left out."""
    games = []
    for folder in sorted(Path(root).glob("*/" + STATE_FILE)):
        folder = folder.parent
        try:
            record = json.loads((folder / STATE_FILE).read_text())
            analysis = json.loads((folder / ANALYSIS_FILE).read_text()) if (folder / ANALYSIS_FILE).is_file() else {}
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or not isinstance(analysis, dict):
            continue
        rating = analysis.get("rating") or {}
        games.append({
            "folder": folder.name, "date": time.strftime("%Y-%m-%d %H:%M", time.localtime((folder / STATE_FILE).stat().st_mtime)),
            "players": record.get("players"), "level": record.get("level"), "moves": len(record.get("moves") or []),
            "over": bool(analysis), "score": analysis.get("score"), "won": analysis.get("you_won"),
            "rated": rating.get("level"), "rated_name": rating.get("name"),
            "practice": bool(record.get("takebacks")),
            # Several people at one screen: the game once, with each person's name, score and level.
            "people": [{"seat": p.get("seat"), "name": p.get("name"), "score": p.get("score"),
                        "won": p.get("you_won"), "rated": (p.get("rating") or {}).get("level"),
                        "rated_name": (p.get("rating") or {}).get("name"), "moves": p.get("decisions")}
                       for p in analysis.get("people") or []]
            or [{"seat": k, "name": n, "score": None, "won": None, "rated": None, "rated_name": None,
                "moves": None}
                for k, n in enumerate(record.get("people") or [])],
        })
    games.sort(key=lambda g: g["date"])
    return games


# --- the game prepared in the background ------------------------------------------------------

#: What is prepared before and after the game can be played, in order: (key, what the page says,
#: its cost with an empty compile cache in seconds of CPU, measured: bench/coldstart.py's rows, a
#: solo game; against three learned bots about 19 and 4, docs/performance.md).
STAGES = (("game", "compiling the dice and the bots' kernels", 11),
          ("hints", "compiling learned's judge, for the hints and the coach", 5))


class Starting:
    """The page's session while the game is being prepared in a background thread, so that the
    server answers at once: state() says what is being prepared and for how long (the page shows
    it), the other requests are refused (503) until the game is ready, then everything is the
    PlaySession's. build(stage) makes the PlaySession, calling stage(key) as it reaches each of
    STAGES, and returns it with a function that waits until learned's judge is compiled (and
    any more to call once the game is ready)."""

    def __init__(self, build, failed=None, root=None):
        self.session = None
        self.root = None if root is None else Path(root)      # where the saved games are
        self.error = None
        self._build, self._failed = build, failed
        self._stages = []           # [key, started, finished or None]
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="prepare-the-game", daemon=True)

    def start(self) -> "Starting":
        self.thread.start()
        return self

    def stage(self, key: str | None) -> None:
        now = time.monotonic()
        with self._lock:
            if self._stages and self._stages[-1][2] is None:
                self._stages[-1][2] = now
            if key is not None:
                self._stages.append([key, now, None])

    def _run(self) -> None:
        try:
            session, judged, *rest = self._build(self.stage)
        except Exception as e:      # shown on the page, and the command ends with it (`failed`)
            self.error = str(e).splitlines()[0] if str(e) else type(e).__name__
            self.stage(None)
            if self._failed is not None:
                self._failed(e)
            return
        self.stage("hints")
        self.session = session
        try:
            judged()
            session.warm()
        except Exception:           # the game plays on: learned's judge then compiles at the first hint
            pass
        self.stage(None)
        for finish in rest:         # the compile-ahead process, kept (it ends with the thread that made it)
            try:
                finish()
            except Exception:
                pass

    def preparing(self) -> dict | None:
        """What is being prepared now: {stages: [{key, text, seconds, estimate, done}], error}; None
        once everything is."""
        now = time.monotonic()
        with self._lock:
            seen = {k: (t0, t1) for k, t0, t1 in self._stages}
            ended = bool(self._stages) and self._stages[-1][0] == STAGES[-1][0] and self._stages[-1][2] is not None
        if ended and self.error is None:
            return None
        stages = []
        for key, text, estimate in STAGES:
            t0, t1 = seen.get(key, (None, None))
            stages.append({"key": key, "text": text, "estimate": estimate, "done": t1 is not None,
                           "seconds": None if t0 is None else round((t1 or now) - t0, 1)})
        return {"stages": stages, "error": self.error}

    def _ready(self):
        if self.session is None:
            raise Refused(503, self.error or "the game is still being prepared: see the page")
        return self.session

    def state(self) -> dict:
        if self.session is None:
            return {"preparing": self.preparing()}
        return {**self.session.state(), "preparing": self.preparing()}

    def hint(self, game, decision, seat=None):
        return self._ready().hint(game, decision, seat)

    def games(self):
        # the home page lists the saved games while the game is still being prepared
        if self.session is None and self.root is not None:
            return saved_games(self.root)
        return self._ready().games()

    def saved_review(self, name, decision, seat=None):
        return self._ready().saved_review(name, decision, seat)

    def review(self, decision, seat=None):
        return self._ready().review(decision, seat)

    def play(self, body):
        return {**self._ready().play(body), "preparing": self.preparing()}

    def take_back(self, body):
        return {**self._ready().take_back(body), "preparing": self.preparing()}

    def set_practice(self, body):
        return {**self._ready().set_practice(body), "preparing": self.preparing()}

    def set_coach(self, body):
        return {**self._ready().set_coach(body), "preparing": self.preparing()}

    def set_people(self, body):
        return {**self._ready().set_people(body), "preparing": self.preparing()}


# Numba's compiler holds the interpreter's lock for seconds at a time (LLVM), which would stop the
# server answering: the kernels are compiled ahead in a process of their own, which fills the
# compile cache; the server's process then loads them from it in a fraction of a second.

def compile_ahead(what: dict):
    """A child process (a Popen) that makes the game `what` describes ({"game": Game's settings} or
    {"resume": folder}) and compiles learned's judge for it, printing "game" and then "hints" as
    each is in the compile cache; an error is its stderr's last line. None where the settings
    cannot be handed over (they are then compiled in this process)."""
    import os
    import subprocess
    import sys
    try:
        text = json.dumps(what)
    except (TypeError, ValueError):
        return None
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.Popen([sys.executable, "-c", "from sim.play.session import _compile_child; _compile_child()"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    proc.stdin.write(text)
    proc.stdin.close()
    return proc


def _compile_child() -> None:
    import sys
    _end_with_parent()
    from .game import Game, resume
    what = json.loads(sys.stdin.read())
    try:
        g = resume(what["resume"]) if "resume" in what else Game(**what["game"])
    except (ValueError, OSError) as e:
        print(str(e).splitlines()[0] if str(e) else type(e).__name__, file=sys.stderr)
        sys.exit(2)
    g.folder = None
    g.view()    # what the page's first view compiles (the scores now), off the server's interpreter
    print("game", flush=True)
    g.warm()
    print("hints", flush=True)
    if not g.over:
        _warm_analysis(g)


def _end_with_parent() -> None:
    """This process ended when the server's ends (Linux: prctl's parent-death signal); elsewhere it
    ends by itself once compiled."""
    import ctypes
    import ctypes.util
    import signal
    try:
        ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True).prctl(1, int(signal.SIGTERM))   # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):
        pass


def _warm_analysis(g) -> None:
    """The end-of-game analysis's kernels compiled ahead too, by analysing a game of passes of the
    same settings in a scratch folder: the page then analyses the person's game in seconds."""
    import shutil
    import tempfile
    from .analysis import game_analysis
    scratch = Path(tempfile.mkdtemp(prefix="encore-sim-warm-"))
    try:
        q = type(g).from_record({**g.record(), "moves": [], "practice": False, "takebacks": 0})
        while not q.over:
            q.play(-1)
        q.save(scratch / "game")
        game_analysis(scratch / "game")
    except Exception:       # compiling ahead is a convenience: the analysis compiles when needed otherwise
        pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def wait_for(proc, word: str) -> None:
    """Until the compile_ahead child says `word` (or ends: then ValueError with its error, if it
    had one)."""
    for line in proc.stdout:
        if line.strip() == word:
            return
    proc.wait()
    if proc.returncode == 2:
        lines = proc.stderr.read().strip().splitlines()
        raise ValueError(lines[-1] if lines else "the game cannot be made")
