"""The learning environments over the compiled stepped games of `sim.vector`: Gymnasium's
single and vector environments (`envs`) and PettingZoo's AEC environment (`aec`). Built on the
runs' settings and line-ups; imported only by those who use them (the `rl` extra), never by a
plain run."""
