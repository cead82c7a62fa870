"""The benchmark's plumbing (its figures are never asserted: machines are noisy)."""
from sim.bench import _seed_cache


def test_seed_cache_copies_only_what_the_cache_lacks(tmp_path):
    src, dst = tmp_path / "first-run", tmp_path / "project"
    (src / "sim_x").mkdir(parents=True)
    (src / "sim_x" / "engine.play.nbi").write_bytes(b"new index")
    (src / "sim_x" / "engine.play.1.nbc").write_bytes(b"code")
    (dst / "sim_x").mkdir(parents=True)
    (dst / "sim_x" / "engine.play.nbi").write_bytes(b"kept index")
    _seed_cache(src, dst)
    assert (dst / "sim_x" / "engine.play.nbi").read_bytes() == b"kept index"
    assert (dst / "sim_x" / "engine.play.1.nbc").read_bytes() == b"code"
    assert sorted(p.name for p in dst.rglob("*")) == ["engine.play.1.nbc", "engine.play.nbi", "sim_x"]
