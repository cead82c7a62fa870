"""Research and analysis built on the runs, the players and training's solo game: the
clairvoyant bound (`clairvoyant`, `headroom`: `encore-sim bound`) and rollouts of `learned`'s own
play (`rollouts`, `improvement`, `analyse`, `decisions`: `encore-sim analyse`)."""
