"""Research and analysis built on the players: the clairvoyant bound (`clairvoyant`,
`headroom`: `encore-sim bound`) and rollouts of `learned`'s own play (`rollouts`,
`improvement`, `analyse`: `encore-sim analyse`). No player imports this package."""
