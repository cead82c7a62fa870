"""The commands that read a dataset: summary, analyse, report. A dataset's games are read under its
own rules; a `rules` given with it must be those."""
from __future__ import annotations

from ..errors import SettingError
from ..runs import defaults as D
from .base import check_file, rules_of, trained

#: summary's `by`: a row per strategy, or per strategy and seat.
BY = ("strategy", "seat")
#: report's `format`: the HTML file alone, or its figures as PNG files too.
REPORT_FORMATS = ("html", "png")


def summary(path, *, by: str | None = D.SUMMARY_BY, rules=None, measures: bool = False):
    """The summary of the dataset at `path` (sim.runs.summary.Summary): a row per strategy, or with
    `by="seat"` per strategy and seat [default: per seat where one strategy holds every seat].
    `measures`: the designer's measures of its games too (Summary.measures, .not_measured)."""
    from ..runs.dataset import read_manifest
    from ..runs.manifest import dataset_rules
    from ..runs.summary import default_by_seat, summarise
    if by not in (None, *BY):
        raise SettingError(f"{{by}} must be 'strategy' or 'seat', got {by!r}")
    manifest = read_manifest(path)
    dataset_rules(manifest, rules)
    s = summarise(path, by_seat=default_by_seat(manifest) if by is None else by == "seat")
    if measures:
        from ..runs.measures import aggregate, dataset_frame, missing
        frame = dataset_frame(path)
        s.measures, s.not_measured = aggregate(frame), missing(frame)
    return s


def analyse(dataset, *, strategy: str | None = None, rollouts: int = D.ANALYSE_ROLLOUTS, top: int = D.ANALYSE_TOP,
            games: int | None = None, mistakes: int = D.ANALYSE_MISTAKES, weights=None, threads: int | None = None,
            game: int | None = None, roll: int | None = None, seat: int | None = None, decisions_out=None,
            progress: bool = False, unchecked: bool = False, rules=None, train: bool = False, say=None):
    """Every decision of the dataset judged against learned's choice, every roll's luck
    (sim.research.analyse's Analysis); with `game` (and `roll`, `seat`), that game's
    decisions one by one instead (sim.research.decisions' DecisionView). `decisions_out`:
    a Parquet file to write with a row per decision. `train`: train the judge's weights first
    where learned has none for the dataset."""
    if game is None and (roll is not None or seat is not None):
        raise SettingError("{roll} and {seat} pick decisions of the game given by {game} N")
    if game is not None and decisions_out is not None:
        raise SettingError("{game} shows one game's decisions: its rows per decision are not written to a file")
    if decisions_out is not None:
        check_file(decisions_out)
    rules = rules_of(dataset, rules)

    def call():
        if game is None:
            from sim.research.analyse import analyse as judge
            return judge(dataset, strategy=strategy, rollouts=rollouts, games=games, weights=weights, threads=threads,
                         mistakes=mistakes, progress=progress, top=top, decisions_out=decisions_out,
                         checked=not unchecked, rules=rules)
        from sim.research.decisions import decisions
        return decisions(dataset, game, roll=roll, seat=seat, rollouts=rollouts, weights=weights,
                         checked=not unchecked, rules=rules)

    return trained(call, train, threads, progress, say)


def report(dataset, *, out=None, figures=None, format: str | None = None, analyse: bool = False,
           progress: bool = False, rules=None):
    """Write the HTML report of the dataset to `out` [default: DATASET.html beside it], with
    `figures` (a folder) each figure as a PNG file too; `analyse`: with the analysis of its
    decisions. sim.report.report's Report: the file, the figures' titles, the PNG files."""
    from ..report.report import report as write
    if format not in (None, *REPORT_FORMATS):
        raise SettingError(f"{{format}} must be one of {', '.join(REPORT_FORMATS)}, got {format!r}")
    if format == "png" and figures is None:
        raise SettingError("{format} png needs {figures}, the folder for the PNG files")
    if format == "html" and figures is not None:
        raise SettingError("{figures} writes PNG files: it cannot be combined with {format} html")
    rules = rules_of(dataset, rules)
    analysis = None
    if analyse:
        from sim.research.analyse import analyse as judge
        analysis = judge(dataset, progress=progress, rules=rules).to_dict()
    return write(dataset, out, "png" if figures is not None else "html", figures, progress=progress,
                 analysis=analysis)
