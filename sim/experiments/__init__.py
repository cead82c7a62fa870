"""Experiments on the runs: strategies compared on common random numbers (`compare`), rule sets
and sheets compared on the same dice (`rulescompare`), and a strategy's parameters tuned on
paired comparisons (`tune`)."""
