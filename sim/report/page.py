"""A report's page: one self-contained HTML file of tables, figures and settings, and the files
written for it.

The figures are embedded as SVG data URIs in <img> tags: vector graphics, no script, nothing loaded
from the network, and each SVG in its own document, so the ids matplotlib gives clip paths and
glyphs in one figure cannot capture another's. fmt="png" also writes every figure as a PNG into
figures_dir, for slides. The data behind the tables and figures is embedded as JSON
(<script type="application/json" id="report-data">), for scripts and tests. Every file is written
atomically.
"""
from __future__ import annotations

import base64
import html
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SettingError
from ..runs.dataset import atomic_write_bytes, is_url, json_safe
from ..runs.gamelog import describe
from .figures import Figure


FORMATS = ("html", "png")


@dataclass
class Report:
    html: Path
    figures: list[str]                               # figure titles, in order
    pngs: list[Path] = field(default_factory=list)   # with fmt="png"


def analysis_table(analysis: dict) -> dict[str, list]:
    # Without rollouts the loss is by the value: a column "by the value" would repeat it.
    by_value = "by the value" if analysis["rollouts"] else None
    cols = {"strategy": [], "seat": [], "games": [], "loss per game (95% CI)": [], by_value: [],
            "loss per decision": [], "differs from learned": [], "luck per game (sd)": []}
    cols.pop(None, None)
    for r in analysis["rows"]:
        cols["strategy"].append(r["strategy"])
        cols["seat"].append("all" if r["seat"] is None else r["seat"])
        cols["games"].append(f"{r['games']:,}")
        cols["loss per game (95% CI)"].append(f"{r['loss_per_game']:.2f} ± {r['loss_ci'] or 0:.2f}")
        if by_value:
            cols[by_value].append(f"{r['value_loss_per_game']:.2f}")
        cols["loss per decision"].append(f"{r['loss_per_decision']:.3f}")
        cols["differs from learned"].append(f"{r['differ_share']:.1%}")
        cols["luck per game (sd)"].append("" if r["luck_per_game"] is None else
                                          f"{r['luck_per_game']:+.2f} ({r['luck_sd']:.1f})")
    return cols


def mistakes_table(analysis: dict) -> dict[str, list]:
    """The largest mistakes, each with the command that shows every choice of that decision."""
    cols = {"game": [], "roll": [], "seat": [], "strategy": [], "loss": [], "played": [], "learned": [],
            "every choice ranked": []}
    for m in analysis["mistakes"]:
        for k in ("game", "roll", "seat", "strategy"):
            cols[k].append(m[k])
        cols["loss"].append(f"{m['loss']:.2f}")
        cols["played"].append(describe(m["chosen"]))
        cols["learned"].append(describe(m["best"]))
        seat = f" --seat {m['seat']}" if analysis["players"] > 1 else ""
        cols["every choice ranked"].append(
            f"encore-sim analyse {analysis['dataset']} --game {m['game']} --roll {m['roll']}{seat}")
    return cols


CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1500px; padding: 0 1.5em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.88em; margin: 0.5em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; } td.l, th.l { text-align: left; white-space: normal; }
tbody th { font-weight: 600; vertical-align: top; } summary { cursor: pointer; color: #555; }
.scroll { overflow-x: auto; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 1.5em; }
figure { margin: 0; } figure img { width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85em; color: #444; } figcaption b { color: #222; }
code { font-size: 0.9em; }
"""


def escape(x) -> str:
    """x as HTML text."""
    return html.escape(str(x))


def html_table(columns: dict[str, list], left=("strategy",)) -> str:
    heads = "".join(f'<th class="{"l" if c in left else ""}">{escape(c)}</th>' for c in columns)
    rows = []
    for cells in zip(*columns.values()):
        rows.append("<tr>" + "".join(f'<td class="{"l" if c in left else ""}">{escape(v)}</td>'
                                     for c, v in zip(columns, cells)) + "</tr>")
    return f'<div class="scroll"><table><thead><tr>{heads}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def pairs_table(pairs) -> str:
    """A two-column table of (name, value); a value given as _Html is not escaped."""
    rows = "".join(f'<tr><th class="l">{escape(k)}</th>'
                   f'<td class="l">{v if isinstance(v, _Html) else escape(v)}</td></tr>' for k, v in pairs)
    return f'<div class="scroll"><table><tbody>{rows}</tbody></table></div>'


class _Html(str):
    """Markup made here, from escaped parts."""


def _svg_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=150, metadata={"Software": None})
    return buf.getvalue()


def render_page(title: str, subtitle: str, tables: list[tuple[str, str]], figs: list[Figure], settings: str,
                data: dict) -> bytes:
    """The page: tables, figures, then the settings (a reference, read last)."""
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": "encore-sim"}):   # the same file for the same data
        images = [_svg_uri(f.fig) for f in figs]
    body = [f"<h1>{escape(title)}</h1>", f'<p class="sub">{escape(subtitle)}</p>']
    for heading, content in tables:
        body.append(f"<h2>{escape(heading)}</h2>{content}")
    if figs:
        body.append('<h2>Figures</h2><div class="figures">')
        for f, uri in zip(figs, images):
            body.append(f'<figure id="fig-{f.slug}"><img src="{uri}" alt="{escape(f.title)}">'
                        f"<figcaption><b>{escape(f.title)}.</b> {_code(escape(f.caption))}</figcaption></figure>")
        body.append("</div>")
    body.append(f"<h2>Settings</h2>{settings}")
    # "</" would end the script element early
    blob = json.dumps(json_safe(data), allow_nan=False).replace("</", "<\\/")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body)
            + f'\n<script type="application/json" id="report-data">{blob}</script>\n</body></html>\n').encode()


def _code(html: str) -> str:
    """Markdown's `code` spans of a caption (commands, options) as <code>: not as backticks."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html)


def dataset_settings(data: dict) -> list[tuple[str, str]]:
    """The settings table of a dataset's report (sim.report.aggregate.collect's data), from its
    manifest: (name, value) pairs, a strategy's parameters folded."""
    m = data["manifest"]
    st = m.get("settings") or {}
    pairs = [("dataset", data["dataset"]), ("status", m.get("status")),
             ("games", f"{data['games']:,} summarised of {st.get('games', 0):,}"),
             ("players", "solo" if st.get("players") == 1 else st.get("players")),
             ("strategies", ", ".join(st.get("strategies") or [])),
             ("seats rotated", "yes" if st.get("rotate") else "no"), ("seed", st.get("seed")),
             ("sheet", st.get("sheet")), ("rules", data.get("rules", "rulebook")),
             *([("roll cap", st.get("max_rolls"))] if st.get("players") != 1 else []),   # solo: always 30 rolls
             ("turns logged", "yes" if st.get("log_turns") else "no"), ("chunk size", f"{st.get('chunk_size', 0):,}")]
    for info in m.get("strategies") or []:
        if isinstance(info, dict):
            value = escape(info.get("description") or "")
            if info.get("file"):
                value += f"<br>file {escape(info['file'])} (sha256 {escape(info.get('sha256'))})"
            params = info.get("params") or {}
            if params:   # dozens for the built-ins: folded (<details> needs no script)
                value += (f"<details><summary>{len(params)} parameters</summary>"
                          + escape(", ".join(f"{k}={v:g}" for k, v in params.items())) + "</details>")
            pairs.append((f"strategy {info.get('spec')}", _Html(value)))
    for key in ("command", "started", "finished", "threads", "git_revision"):
        if m.get(key) is not None:
            pairs.append((key.replace("_", " "), m[key]))
    versions = m.get("versions") or {}
    if versions:
        pairs.append(("versions", ", ".join(f"{k} {v}" for k, v in versions.items())))
    return [(k, v if isinstance(v, _Html) else str(v)) for k, v in pairs]


def check_output(out, fmt: str = "html", figures_dir=None) -> Path | None:
    """Refuse bad output paths before any work is done (returns figures_dir as a Path)."""
    out = Path(out)
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if out.is_dir():
        raise ValueError(f"{out} is a folder: give the report's file name (e.g. {out / 'report.html'})")
    if not out.parent.is_dir():
        raise ValueError(f"cannot write {out}: folder {out.parent} does not exist")
    if fmt == "png":
        if figures_dir is None:
            raise SettingError("{format} png needs {out}, the folder for the PNG files")
        figures_dir = Path(figures_dir)
        if figures_dir.exists() and not figures_dir.is_dir():
            raise ValueError(f"{figures_dir} is not a folder")
    elif figures_dir is not None:
        raise SettingError("{out} is the folder of {format} png's figures: give {format} png too")
    return figures_dir


def write_files(out: Path, content: bytes, figs: list[Figure], figures_dir: Path | None) -> list[Path]:
    """The page `content` to `out`, and with `figures_dir` every figure as a PNG in it; returns the PNGs."""
    pngs = []
    if figures_dir is not None:
        images = [(figures_dir / f"{i + 1:02d}-{f.slug}.png", _png(f.fig)) for i, f in enumerate(figs)]
        figures_dir.mkdir(parents=True, exist_ok=True)
        for path, data in images:
            atomic_write_bytes(path, data)
            pngs.append(path)
    atomic_write_bytes(out, content)
    return pngs


def default_output(dataset) -> Path:
    """DATASET.html beside the dataset folder (a report inside it would be a file `run --force` refuses)."""
    if is_url(dataset):
        raise SettingError("give the report's file ({out}) for a dataset at a URL")
    path = Path(dataset)
    if path.name in ("", ".", ".."):   # `report .` from inside the dataset: beside it all the same
        path = path.resolve()
    return path.parent / f"{path.name}.html"
