"""Runs, files and the Python API: settings, batch runs into Parquet datasets, summaries and
replays, and one game stepped from Python. Built on the kernels of `sim` and the players of
`strategies`; the folders beside it (experiments, training, agents, research, report, play,
commands) are built on it, and it imports none of them."""
