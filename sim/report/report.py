"""Reports: a dataset's settings, summary and figures in one self-contained HTML file.

    report(dataset, out=None, fmt="html", figures_dir=None, progress=False) -> Report
    compare_report(result, out, fmt="html", figures_dir=None) -> Report
    rules_report(result, out, fmt="html", figures_dir=None) -> Report

A report is made in three steps, a module each: sim.report.aggregate gathers a dataset's numbers
(collect), sim.report.figures draws them, sim.report.page lays out the HTML page and writes the
files. Every file is written atomically, and only after the whole dataset was read: a damaged
dataset raises DatasetError and leaves no report behind.
"""
from __future__ import annotations

from pathlib import Path

from ..runs.summary import BATCH_ROWS
from .aggregate import collect
from .figures import (
    Figure, dataset_figures, fig_forest, fig_loss_by_stage, fig_score_luck, fig_scores, palette, rule_figures,
)
from .page import (
    FORMATS, Report, analysis_table, check_output, dataset_settings, default_output,
    escape, html_table, mistakes_table, pairs_table, render_page, write_files,
)

__all__ = ["FORMATS", "Report", "check_output", "collect", "compare_report", "default_output", "measures_sections",
           "report", "rules_report"]


def report(dataset, out=None, fmt: str = "html", figures_dir=None, progress: bool = False,
           batch_size: int = BATCH_ROWS, analysis: dict | None = None) -> Report:
    """Write the HTML report of a dataset to `out` (default DATASET.html); fmt="png" also writes
    each figure as a PNG into figures_dir. `analysis`: the dataset's analysis as plain data
    (sim.research.analyse.Analysis.to_dict(), which `report --analyse` makes), shown too.
    Raises DatasetError (a ValueError) for a damaged or missing dataset, before writing anything."""
    out = Path(out) if out is not None else default_output(dataset)
    figures_dir = check_output(out, fmt, figures_dir)
    data = collect(dataset, batch_size=batch_size, progress=progress)
    figs = dataset_figures(data)
    from .chances import trace_figures    # a traced dataset's chances, roll by roll
    figs += [Figure(*f) for f in trace_figures(dataset)]
    sections = [("Summary", html_table(data["table"]))]
    if analysis is not None:
        data["analysis"] = analysis
        colours = palette([r["strategy"] for r in data["summary"]])
        figs.append(fig_loss_by_stage(analysis, colours))
        if analysis["players"] == 1:
            figs.append(fig_score_luck(analysis, colours))
        how = f"{analysis['rollouts']:,} rollouts" if analysis["rollouts"] else f"{analysis['judge']}'s value"
        sections.append((f"Analysis: loss against {analysis['judge']}'s choice (by {how}) and luck",
                         html_table(analysis_table(analysis))))
        if analysis["mistakes"]:
            sections.append(("Largest mistakes", html_table(mistakes_table(analysis))))
    sections += measures_sections(dataset)
    if data["band_table"] is not None:
        rated = "" if data.get("rules", "rulebook") == "rulebook" else "; made for the rulebook's scores"
        sections.append((f"Solo rating bands (docs/rules.md, section 8{rated})",
                         html_table(data["band_table"], left=("rating",))))
    page = render_page(f"encore-sim report: {data['dataset']}", data["headline"], sections, figs,
                 pairs_table(dataset_settings(data)), data)
    pngs = write_files(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)


def measures_sections(dataset) -> list[tuple[str, str]]:
    """(title, HTML) of the dataset's designer's measures with their 95% intervals and its completion
    table (sim.runs.measures: the trace's among them where the dataset has one; those that need the
    move log or the trace, and the dataset lacks, named in one line)."""
    from ..runs.measures import aggregate, dataset_frame, display, missing, missing_line
    frame = dataset_frame(dataset)
    table = aggregate(frame)
    shown, done = display(table), display(table, completion=True)
    lacking = missing_line(missing(frame))
    out = [("The designer's measures (95% CI; docs/design.md)",
            html_table({c: list(shown[c]) for c in shown.columns}, left=("metric", "who"))
            + (f"<p>{escape(lacking)}</p>" if lacking else ""))]
    if len(done):
        out.append(("Completion: how often each colour and column is completed, and first",
                    html_table({c: list(done[c]) for c in done.columns}, left=("colour or column",))))
    return out


def compare_report(result, out, fmt: str = "html", figures_dir=None) -> Report:
    """Write the HTML report of a sim.experiments.compare.Comparison: its table, the paired differences
    as a forest plot and the candidates' score distributions."""
    from ..experiments.compare import display_table, headline, stop_message
    out = Path(out)
    figures_dir = check_output(out, fmt, figures_dir)
    t = result.table
    names = list(t["strategy"])
    colours = palette(names)
    figs = [fig_forest(t, result.players)]
    if result.hists:
        figs.append(fig_scores(names, dict(zip(names, result.hists)), dict(zip(names, t["mean"])), colours))
        figs[1].caption = ("Share of games ending on each score, per candidate, all on the same dice; dashed "
                           "lines mark the means.")
    shown = display_table(result)
    message = stop_message(result)
    settings = [("strategies", ", ".join(names)), ("games per strategy", f"{result.games:,}"),
                *((k.replace("_", " "), str(v)) for k, v in result.settings.items() if v is not None)]
    sections = [("Comparison", html_table({c: list(shown[c]) for c in shown.columns})
                 + (f"<p>{escape(message)}</p>" if message else ""))]
    data = {"games": result.games, "settings": result.settings, "stop": result.stop,
            "table": result.table.to_dict(orient="records"), "display": {c: list(shown[c]) for c in shown.columns},
            "hists": dict(zip(names, result.hists))}
    page = render_page("encore-sim comparison", headline(result), sections, figs, pairs_table(settings), data)
    pngs = write_files(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)


def rules_report(result, out, fmt: str = "html", figures_dir=None) -> Report:
    """Write the HTML report of a sim.experiments.rulescompare.RulesComparison: its table (a section per
    rule set B), the paired differences drawn, where the score's difference comes from, the win
    rate by seat (tables), the game length and the score distributions under each rule set."""
    from ..experiments.rulescompare import display_table, headline, stop_message
    out = Path(out)
    figures_dir = check_output(out, fmt, figures_dir)
    figs = rule_figures(result)
    shown = display_table(result)
    a = result.labels[0]
    sections = []
    for b in result.labels[1:]:
        block = shown[shown["rules B"] == b].drop(columns="rules B").rename(columns={"A": a, "B": b})
        sections.append((f"A = {a}, B = {b}", html_table({c: list(block[c]) for c in block.columns},
                                                          left=("who", "metric"))))
    message = stop_message(result)
    if message:
        sections[-1] = (sections[-1][0], sections[-1][1] + f"<p>{escape(message)}</p>")
    from .pareto import measure_sections
    sections += measure_sections(result, html_table)
    st = result.settings
    settings = [("rule sets", ", ".join(f"{x} ({'A' if i == 0 else 'B'})" for i, x in enumerate(result.labels))),
                ("strategies", ", ".join(result.strategies)), ("players", "solo" if result.players == 1 else result.players),
                ("games per rule set", f"{result.games:,}"),
                *((k.replace("_", " "), str(v)) for k, v in st.items()
                  if v is not None and k not in ("strategies", "players", "rules"))]
    data = {"games": result.games, "settings": st, "stop": result.stop, "rules": result.labels,
            "table": result.table.to_dict(orient="records"), "display": {c: list(shown[c]) for c in shown.columns},
            "hists": result.hists}
    page = render_page("encore-sim rule sets compared", headline(result), sections, figs, pairs_table(settings),
                       data)
    pngs = write_files(out, page, figs, figures_dir)
    return Report(out, [f.title for f in figs], pngs)
