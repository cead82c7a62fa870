"""Runs, files and the Python API behind the commands: settings, batch runs into Parquet
datasets, summaries, comparisons, tuning, reports and replays. Built on the kernels of `sim`
and the players of `strategies`; nothing below this layer imports it.

Its subpackages stand above its modules: `training` (learned's weights) and `research` (the
bound and the analysis, which uses training's solo game) are built on the runs, and of the
modules here only the commands (`commands`) import them."""
