"""Training `learned`'s weights by self-play (`encore-sim train`): `solo` (the 30-roll game),
`table` (2-6 players), `run` (a whole training run: budget, progress, the weights file) and
`ondemand` (the weights a command lacks, trained into the store). `learned` reads the weights
files it writes; research uses its solo game."""
