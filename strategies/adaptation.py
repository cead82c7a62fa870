"""Who plays a rule set, and whether they play the rules they are given (compare-rules' account).

A rule question is answered by the players who play it: a player that decides under a variant as
it decides under the rulebook answers for a player who ignores the rule. A strategy adapts to a
variant in one of two ways:

- by its code: a hand-written strategy reads some of the rules' numbers when it decides
  (Strategy.reads_rules, declared beside its code; tests check the declaration against it);
- by its weights: `learned` plays weights trained under the rules it plays (shipped, stored by
  `encore-sim train`, or trained on demand), and `unadapted` gives the same player with the
  weights of other rules, so that what the variant's own weights gain can be measured on the
  same dice.

Some variants change what every strategy is offered rather than what it is worth (SEEN: the '!'
a sheet starts with, the dice a passive seat may take, a number joker's 6): no strategy ignores those.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from sim.rules import RULEBOOK, VARIANTS, Rules, parse_rules

from . import learned as _learned
from . import store
from .registry import REGISTRY, Resolved, resolve

#: Rules fields that change what a strategy is offered, seen by every strategy.
SEEN = frozenset({"jokers", "free_rolls", "joker_six"})


def changed(a: Rules, b: Rules) -> list[str]:
    """The Rules fields in which b differs from a, in the order of the variants."""
    return [v.field for v in VARIANTS if getattr(a, v.field) != getattr(b, v.field)]


def variant_name(field: str) -> str:
    return next(v.name for v in VARIANTS if v.field == field)


def plays_weights(r: Resolved) -> bool:
    """Whether r is `learned` (its data are weights trained per rules)."""
    return r.strategy.data is _learned.weights_data


def ignored(r: Resolved, a, b) -> list[str] | None:
    """The variants by which rules b differ from a that strategy r does not read when it decides
    (their --rules names); None where the strategy declares nothing (a user's, undeclared)."""
    reads = r.strategy.reads_rules
    if reads is None:
        return None
    return [variant_name(f) for f in changed(parse_rules(a), parse_rules(b)) if f not in reads and f not in SEEN]


def for_rules(r: Resolved, rules, players: int) -> Resolved:
    """r as it plays `rules` when several rule sets are compared: learned:weights=FILE plays FILE
    under the rules it was trained for, and its own weights (shipped or stored) under the others."""
    if not plays_weights(r) or r.file is None:
        return r
    if weights_rules_of(r.file, players) == _learned.weights_rules(rules, players):
        return r
    return dataclasses.replace(r, file=None)


def weights_rules_of(file, players: int) -> Rules | None:
    """The rules a weights file records (weights_rules for its players), or None if unreadable."""
    e = store.read_entry(Path(file))
    if e.problem:
        return None
    try:
        return _learned.weights_rules(e.rules_text, players)
    except ValueError:
        return None


def unadapted(r: Resolved, trained_under) -> Resolved | None:
    """r with the weights of rules `trained_under` under whatever rules it plays (the same sheet
    layout as the played rules'), labelled as r: the player who did not learn the variant. None
    for a strategy that plays no weights."""
    if not plays_weights(r):
        return None
    base = parse_rules(trained_under)

    def data(sheet, file, players, rules=RULEBOOK):
        return np.concatenate((_learned.layout_words(sheet, rules),
                               _learned.pack(_learned.weights_array(sheet, None, players, base))))

    return dataclasses.replace(r, strategy=dataclasses.replace(r.strategy, data=data), file=None)


def describe(r: Resolved, sheet, players: int, rules) -> str:
    """One line: what plays r's seats under `rules`, e.g. `learned: weights for joker-six,
    4 players, trained 2026-12-06 15:10, 150,000 games from learned-standard-4p.npz, yours (PATH)`."""
    name = r.spec
    if plays_weights(r):
        rules = _learned.weights_rules(rules, players)
        game = "the solo game" if players == 1 else f"{players} players"
        if r.file is not None:
            where, source = Path(r.file), "given"
        else:
            found = _learned.weights_file(sheet, players, rules)
            if found is None:
                return f"{name}: no weights for {rules.label}, {game}"
            where, source = found
        e = store.read_entry(where, source)
        parts = [f"{'shipped ' if source == 'shipped' else ''}weights for "
                 f"{'the rulebook' if rules.is_rulebook else rules.label}", game]
        if e.trained:
            parts.append(f"trained {e.trained}")
        if e.games:
            parts.append(f"{e.games:,} games" + (f" from {e.start}" if e.start else ""))
        text = ", ".join(parts)
        if source == "yours":
            text += f", yours ({where})"
        elif source == "given":
            text += f", file {where}"
        return f"{name}: {text}"
    if r.spec.partition(":")[0] in REGISTRY:
        reads = sorted(variant_name(f) for f in (r.strategy.reads_rules or ()) if f not in SEEN)
        return f"{name}: hand-written; " + (f"reads {', '.join(reads)}" if reads else
                                             "reads no rule's points")
    return f"{name}: a user's strategy" + ("" if r.strategy.reads_rules is None else
                                          f"; reads {', '.join(sorted(variant_name(f) for f in r.strategy.reads_rules if f not in SEEN)) or 'no rule'}")


def trained_games(r: Resolved, sheet, players: int, rules) -> int | None:
    """The games r's weights were trained on under `rules` (None: r plays no weights, or none are
    found, or the file does not say)."""
    if not plays_weights(r):
        return None
    if r.file is not None:
        where, source = Path(r.file), "given"
    else:
        found = _learned.weights_file(sheet, players, _learned.weights_rules(rules, players))
        if found is None:
            return None
        where, source = found
    return store.read_entry(where, source).games or None


def warning(r: Resolved, a, b) -> str | None:
    """The one line of warning for a strategy that plays rules b as it plays a (None if it reads
    what changed, or declares nothing)."""
    missed = ignored(r, a, b)
    if not missed:
        return None
    a, b = parse_rules(a), parse_rules(b)
    return (f"Warning: {r.spec} does not read {', '.join(missed)}: under {b.label} it decides as under "
            f"{a.label}, so its figures are those of a player who ignores the change")


def players_lines(specs, sheet, players: int, rules) -> list[str]:
    """describe() of each distinct strategy of a line-up (specs or Resolved) under `rules`."""
    seen, lines = set(), []
    for s in specs:
        r = resolve(s)
        r = for_rules(r, rules, players)
        key = (r.spec, r.file)
        if key not in seen:
            seen.add(key)
            lines.append(describe(r, sheet, players, rules))
    return lines


def players_block(specs, sheet, players: int, rules) -> list[str]:
    """What `run` and `compare` print under a variant: a heading, players_lines(), and a warning
    for each strategy that ignores the change from the rulebook."""
    rules = parse_rules(rules)
    lines = [f"Players under {rules.label}:"] + [f"  {line}" for line in players_lines(specs, sheet, players, rules)]
    return lines + [w for w in dict.fromkeys(warning(resolve(x), RULEBOOK, rules) for x in specs) if w]
