"""Developer tools, run from a checkout and not installed: `make bench` (bench.bench), its cold-start
rows (bench.coldstart), play speed beside another revision (bench.playab), the games' digests
(bench.digests)."""
