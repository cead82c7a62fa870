"""The benchmark's plumbing (its figures are never asserted: machines are noisy)."""
import pytest

from sim import numba_cache
from bench.bench import seed_cache
from bench.playab import main, rates


def test_seed_cache_copies_only_what_the_cache_lacks(tmp_path):
    src, dst = tmp_path / "first-run", tmp_path / "project"
    (src / "sim_x").mkdir(parents=True)
    (src / "sim_x" / "engine.play.nbi").write_bytes(b"new index")
    (src / "sim_x" / "engine.play.1.nbc").write_bytes(b"code")
    (dst / "sim_x").mkdir(parents=True)
    (dst / "sim_x" / "engine.play.nbi").write_bytes(b"kept index")
    seed_cache(src, dst)
    assert (dst / "sim_x" / "engine.play.nbi").read_bytes() == b"kept index"
    assert (dst / "sim_x" / "engine.play.1.nbc").read_bytes() == b"code"
    assert sorted(p.name for p in dst.rglob("*")) == ["engine.play.1.nbc", "engine.play.nbi", "sim_x"]


def test_a_file_strategy_is_loaded_once_and_only_play_is_timed(tmp_path, monkeypatch):
    """play_chunk called with a file spec loads and compiles the file each time (0.1-0.2 s);
    the benchmark resolves it once, so its rate is the strategy's, not the loader's."""
    import strategies.registry as registry
    from bench.bench import CALLED_GREEDY, games_per_second
    path = tmp_path / "called_greedy.py"
    path.write_text(CALLED_GREEDY)
    loads = []
    real = registry._load_user
    monkeypatch.setattr(registry, "_load_user", lambda *a, **k: loads.append(a) or real(*a, **k))
    calls = []
    import sim.runs.api
    real_play = sim.runs.api.play_chunk
    monkeypatch.setattr(sim.runs.api, "play_chunk", lambda *a, **k: calls.append(a[2]) or real_play(*a, **k))
    assert games_per_second(f"{path}:choose", 1, 2, seconds=0.02) > 0
    assert len(loads) == 1 and len(calls) >= 4   # a warm-up, the sizing trials, two timed runs
    assert calls[-1] >= calls[-3]                # the timed runs are as long as the last trial or longer


def test_the_compile_profile_counts_each_function_s_own_time_and_signatures():
    """encore-sim --profile-compile's rows: a function compiled for two signatures is one row of two
    compiles, and the time of the compile it started is its callee's, not its own."""
    import numba
    from sim.runs.compileprofile import CompileProfile

    @numba.njit
    def callee(x):
        return x + 1

    @numba.njit
    def caller(x):
        return callee(x) * 2

    profile = CompileProfile()
    try:
        caller(1)
        caller(1.5)
    finally:
        profile.close()
    rows = {name.rpartition(".")[2]: row for name, row in profile.rows.items()}
    assert rows["caller"][0] == 2 and len(rows["caller"][1]) == 2
    assert rows["callee"][0] == 2 and len(rows["callee"][1]) == 2
    assert all(row[2] > 0 for row in (rows["caller"], rows["callee"]))
    caller(2)          # compiled already: nothing more is counted once closed, nor now
    assert rows["caller"][0] == 2
    assert "compiling: " in profile.report()


def test_a_chunk_digest_follows_every_array_it_holds():
    """bench.digests: the same games give the same digest, another game or another dice row
    another one."""
    from sim.runs.api import play_chunk
    from bench.digests import chunk_digest
    a = play_chunk(4242, 0, 20, ["greedy"], players=1, log_turns=True)
    assert chunk_digest(a) == chunk_digest(play_chunk(4242, 0, 20, ["greedy"], players=1, log_turns=True))
    assert chunk_digest(a) != chunk_digest(play_chunk(4242, 1, 20, ["greedy"], players=1, log_turns=True))
    a.dice[3, 0] += 1
    assert chunk_digest(a) != chunk_digest(play_chunk(4242, 0, 20, ["greedy"], players=1, log_turns=True))


def test_the_play_comparison_measures_a_tree_in_a_process_of_its_own():
    """python -m bench.playab's measurement: the child process plays the tree's code and hands
    back one rate per row (the figures themselves are never asserted)."""
    got = rates(numba_cache.ROOT, None, [["greedy", 1], ["random", 2]], seconds=0.02)
    assert len(got) == 2 and all(rate > 0 for rate in got)


def test_the_play_comparison_says_when_the_reference_cannot_be_checked_out(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--rounds", "1", "--reference", "no-such-revision-0123"])
    assert "cannot make a git worktree of no-such-revision-0123" in str(exit.value)
    with pytest.raises(SystemExit) as exit:
        main(["--rounds", "0"])
    assert exit.value.code == 2 and "--rounds must be at least 1" in capsys.readouterr().err
