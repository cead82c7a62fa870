"""sim.rng: the dice are fair."""
import numpy as np

from sim.rng import die, game_key


def test_dice_faces_are_uniform_and_independent():
    counts = np.zeros((6, 6), np.int64)
    pairs = np.zeros((6, 6), np.int64)
    for g in range(4000):
        key = np.uint64(game_key(np.uint64(123), g))
        for roll in range(1, 6):
            faces = [die(key, roll, i) for i in range(6)]
            for i, f in enumerate(faces):
                counts[i, f] += 1
            pairs[faces[0], faces[1]] += 1
    n = counts.sum(axis=1)[0]
    # Chi-square with 5 degrees of freedom per die; 30 is far beyond the 0.9999 quantile (25.7).
    for i in range(6):
        chi2 = ((counts[i] - n / 6) ** 2 / (n / 6)).sum()
        assert chi2 < 30, (i, counts[i])
    chi2_pairs = ((pairs - n / 36) ** 2 / (n / 36)).sum()
    assert chi2_pairs < 90  # 35 degrees of freedom; 0.9999 quantile is about 73
