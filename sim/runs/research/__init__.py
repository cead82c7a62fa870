"""Research and analysis built on the runs and the players: the clairvoyant bound
(`clairvoyant`, `headroom`: `encore-sim bound`) and rollouts of `learned`'s own play (`rollouts`,
`improvement`, `analyse`, `decisions`: `encore-sim analyse`). Only the commands import this
package."""
