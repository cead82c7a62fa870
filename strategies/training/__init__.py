"""Training `learned`'s weights by self-play (`encore-sim train`): `solo` (the 30-roll game),
`table` (2-6 players), and `run` (a whole training run: budget, progress, the weights file).
No player imports this package: `learned` reads the weights files it writes."""
