"""sim.runs.progress: the line on a terminal, tqdm's display in a notebook, nothing in a pipe."""
import io
import subprocess
import sys
import types
from pathlib import Path

import pytest
import tqdm.notebook
import tqdm.std

from sim.runs import progress
from sim.runs.progress import NOTEBOOK, TERMINAL, Progress, notebook_bar_class, where_shown

ROOT = Path(__file__).resolve().parents[3]


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def notebook(monkeypatch):
    """This process as a Jupyter kernel sees it: IPython's shell running with a kernel."""
    shell = types.SimpleNamespace(kernel=object())
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))


def test_a_terminal_gets_the_line():
    out = Terminal()
    p = Progress(1000, 200, stream=out, unit="training games")
    p.update(500, note="alpha 0.1")
    p.close()
    assert where_shown(out) == TERMINAL and p.enabled and p.bar is None
    text = out.getvalue()
    assert text.startswith("\r200/1,000 training games (20%)") and "\r500/1,000 training games (50%)" in text
    assert "games/s  ETA" in text and "alpha 0.1" in text and text.endswith("\n")


def test_a_pipe_gets_nothing_and_quiet_is_quiet():
    for stream, enabled in ((io.StringIO(), True), (Terminal(), False)):
        p = Progress(100, stream=stream, enabled=enabled)
        p.update(100)
        p.close()
        assert stream.getvalue() == "" and not p.enabled and p.bar is None


def test_an_ipython_shell_on_a_terminal_is_no_notebook(monkeypatch):
    shell = types.SimpleNamespace()   # a terminal's IPython shell has no kernel
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert not progress.in_notebook() and where_shown(Terminal()) == TERMINAL and where_shown(io.StringIO()) is None


def test_a_notebook_without_ipywidgets_gets_tqdms_text_bar(notebook, monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)   # `import ipywidgets` fails
    out = io.StringIO()   # a kernel's stderr is no terminal
    assert where_shown(out) == NOTEBOOK and notebook_bar_class() is tqdm.std.tqdm
    p = Progress(100, 10, stream=out)
    assert isinstance(p.bar, tqdm.std.tqdm) and not p.enabled
    p.update(40)
    p.total = 80   # an estimate that changes (compare --until-ci)
    p.update(80, note="widest 0.4")
    p.close()
    assert p.bar.n == 80 and p.bar.total == 80
    text = out.getvalue()
    assert "80/80" in text and "games/s" in text and "widest 0.4" in text
    assert "ETA" not in text   # tqdm's format, not the terminal's line


def test_a_notebook_with_ipywidgets_gets_tqdms_widget(notebook, monkeypatch):
    monkeypatch.setitem(sys.modules, "ipywidgets", types.ModuleType("ipywidgets"))
    assert notebook_bar_class() is tqdm.notebook.tqdm


def test_the_notebook_modules_progress_reaches_the_notebook(notebook, monkeypatch, capsys):
    """progress=True from the notebook module: in a kernel the bar is tqdm's, on the kernel's stderr."""
    import encore_sim as es
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    es.compare("greedy", "random", games=2000, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "2,000/2,000" not in err and "2000/2000" in err and "games/s" in err


def test_the_command_line_loads_no_tqdm():
    code = ("import sys\nfrom sim.runs.progress import Progress\nProgress(10, enabled=True).close()\n"
            "print('tqdm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


def test_progress_to_a_file_is_a_line_every_few_seconds(monkeypatch):
    import io
    from sim.runs import progress
    lines = []
    bar = progress.Progress(100, 0, stream=io.StringIO(), lines=lines.append, unit="training games")
    for done in (10, 20, 30):
        bar.update(done)
    assert len(lines) == 1 and lines[0].startswith("10/100 training games (10%)")   # then none for 5 s
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    bar.update(50, "mean score 30.00")
    assert lines[-1].startswith("50/100 training games (50%)") and lines[-1].endswith("mean score 30.00")
    quiet = progress.Progress(100, 0, stream=io.StringIO())
    quiet.update(50)          # no lines asked for: nothing, as before
