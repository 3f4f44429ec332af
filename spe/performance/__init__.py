"""Performance from posterior draws: the label draws of the sample performance (paper §3), and their replay.

:mod:`~spe.performance.groups` groups the items by distinct score (or score
bin at large N); :mod:`~spe.performance.sampling` draws the unknown labels
under each posterior draw of a score model and computes every registered
metric (:mod:`spe.metrics`) per draw.
"""

from .groups import MAX_THRESHOLDS, ScoreGroups, groups_at, threshold_grid_groups
from .sampling import (LabelReplay, SamplePerformance, expected_true_positives, posterior_mean_probability,
                       replay_true_positives, sample_performance, weighted_positive_probability)

__all__ = ["ScoreGroups", "groups_at", "threshold_grid_groups", "MAX_THRESHOLDS", "LabelReplay", "SamplePerformance",
           "sample_performance", "replay_true_positives", "expected_true_positives", "posterior_mean_probability",
           "weighted_positive_probability"]
