"""play's levels: bots from a beginner to `learned`, each a strategy spec.

    level_of(2)          # Level(number=2, name="casual", spec="tempered:temp=...")
    level_of("learned")  # the last level: learned itself

Levels below the last are `tempered` (learned's values, the choice drawn at a temperature): the
solo temperatures were set by bisection on solo means spaced between a beginner's and learned's,
the table temperatures on win rates against three `learned` at a table of 4 spaced likewise; each
level's solo mean and its 4-player win rate against three `learned` were then measured on other
seeds (bench/levels.py; the table is in docs/levels.md). A test checks that they are strictly
ordered (tests/strategies/test_levels.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.suggest import did_you_mean


@dataclass(frozen=True)
class Level:
    number: int
    name: str
    spec: str           # the strategy spec every bot of the level plays
    target: float | None = None     # the solo mean its solo temperature was set for (None: learned itself)
    table_target: float | None = None   # the win rate against three learned its table temperature was set for


#: Temperatures: bench/levels.py's bisection (docs/levels.md says how they were measured).
LEVELS = (
    Level(1, "beginner", "tempered:temp=1.03,table_temp=0.374", 5.0, 0.03),
    Level(2, "casual", "tempered:temp=0.805,table_temp=0.278", 11.0, 0.08),
    Level(3, "club", "tempered:temp=0.617,table_temp=0.213", 17.0, 0.13),
    Level(4, "strong", "tempered:temp=0.424,table_temp=0.151", 23.0, 0.19),
    Level(5, "learned", "learned"),
)


def level_of(level) -> Level:
    """The level of a number (1..len(LEVELS)) or a name; ValueError (one line) for any other."""
    names = {lv.name: lv for lv in LEVELS}
    if isinstance(level, str) and level.strip().lower() in names:
        return names[level.strip().lower()]
    if isinstance(level, str) and level.strip().isdigit():
        level = int(level.strip())
    if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= len(LEVELS):
        return LEVELS[level - 1]
    hint = did_you_mean(level, names) if isinstance(level, str) else ""
    raise ValueError(f"unknown level {level!r}" + (hint or f": levels are 1..{len(LEVELS)} or "
                                                          f"{', '.join(names)}"))


#: Each level's mean loss per decision against `learned` (analyse's loss), solo and at a table of 4
#: against three `learned`: bench/levelloss.py, 1,000 games each (docs/levels.md). A person's own
#: loss per decision is placed on this scale (rating).
LEVEL_LOSS = {
    1: (0.884, 0.230),
    2: (0.635, 0.132),
    3: (0.408, 0.077),
    4: (0.195, 0.038),
    5: (0.0, 0.014),
}


def level_of_loss(loss: float, players: int) -> Level:
    """The level whose loss per decision (solo, or at a table) is nearest `loss`: the cut between
    two levels is halfway between theirs; a loss above the first level's is the first level."""
    k = 0 if players == 1 else 1
    for lv in reversed(LEVELS):
        below = LEVELS[lv.number - 2] if lv.number > 1 else None
        if below is None or loss <= (LEVEL_LOSS[lv.number][k] + LEVEL_LOSS[below.number][k]) / 2:
            return lv
    return LEVELS[0]


def rating(loss: float, half: float | None, players: int) -> dict:
    """Where a loss per decision `loss` (with its 95% half-width `half`, None or nan: unknown) places
    a player: {level, name, low, high (the levels of the interval's ends), words}."""
    lv = level_of_loss(loss, players)
    known = half is not None and half == half
    low = level_of_loss(loss + half, players) if known else lv
    high = level_of_loss(max(0.0, loss - half), players) if known else lv
    span = f"levels {low.number} to {high.number}" if low != high else f"level {lv.number}"
    return {"level": lv.number, "name": lv.name, "low": low.number, "high": high.number, "loss_per_decision": loss,
            "words": f"you played like level {lv.number}, {lv.name} ({span} within the 95% interval): "
                     f"{loss:.3f} points lost per decision against learned"}
