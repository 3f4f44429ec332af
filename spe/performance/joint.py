"""One set of label draws for several classifiers that scored the same items (``spe.compare``).

A joint score model gives p(y_i = 1 | everything known about item i) under
each posterior draw (the seam of :mod:`spe.models.base`, with a row of
features per item instead of one score). Under draw m the unknown label of
every item is drawn once (eq. 7 of Welinder et al. 2013, per item), and the
curves of *each* classifier are counted from those same labels, ranked by
its own scores: so every classifier's figures, and every difference between
two classifiers, come from the same label draws, and a difference's band is
that of the difference, not of two independent estimates.

The labels are drawn per item (the items of one score of one classifier
differ in what the others say), in blocks of draws: memory O(M_block · N),
never O(M · N). Each classifier's items are grouped by its distinct scores,
or by score bin at large N (:class:`~spe.performance.groups.ScoreGroups`,
guided by the posterior mean), and the positives per group are one sparse
product per block.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..metrics.curves import FPR_GRID, RECALL_GRID
from ..parallel import resolve_workers
from ..progress import stage
from .groups import MAX_THRESHOLDS, ScoreGroups, threshold_grid_groups
from .sampling import Accumulator, map_draw_blocks, weighted_positive_probability

__all__ = ["ItemLabelDraws", "JointLabelReplay", "sample_joint_performance"]


@dataclass(frozen=True)
class ItemLabelDraws:
    """The label of every item under every posterior draw of a joint score model, redrawn on demand.

    Attributes
    ----------
    model : FittedScoreModel
        M weighted draws; ``probability(draws, features)`` maps (M', ·) draws and features (B, V) to (M', B).
    features : array, shape (N, V)
        What the model reads of each item (e.g. every classifier's score).
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    seeds : list of numpy.random.SeedSequence, length M
        Draw m's labels come from its own stream (the same labels whatever the blocks).
    bit_generator : type
    """

    model: object
    features: np.ndarray
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    seeds: list
    bit_generator: type = np.random.PCG64

    @property
    def n_items(self) -> int:
        """N."""
        return self.features.shape[0]

    @property
    def n_draws(self) -> int:
        """M."""
        return self.model.n_draws

    def probabilities(self, rows):
        """p(y_i = 1) of every item under the draws ``rows`` (a slice): (M_block, N); labeled items 0 or 1."""
        p = np.clip(self.model.positive_probability(self.features, rows), 0.0, 1.0)
        p[:, self.labeled_index] = self.labeled_value
        return p

    def labels(self, rows):
        """The drawn labels of every item under the draws ``rows``: (M_block, N) float32 0/1 (labeled items
        keep their label)."""
        p = self.probabilities(rows)
        out = np.empty(p.shape, dtype=np.float32)
        for r in range(p.shape[0]):
            stream = np.random.Generator(self.bit_generator(self.seeds[rows.start + r]))
            out[r] = stream.random(p.shape[1]) < p[r]
        return out

    def mean_probabilities(self, weights):
        """Σ_m w_m p(y_i = 1 | θ_m) per item: (N,) probabilities (labeled items: their label)."""
        out = weighted_positive_probability(self.model, self.features, weights)
        out[self.labeled_index] = self.labeled_value
        return out


class JointLabelReplay:
    """What recounts one classifier's positives from the shared label draws (the replay protocol of
    :class:`~spe.performance.sampling.LabelReplay`: ``groups``, ``n_draws``, ``cells``, ``positive_counts``,
    ``expected_positives``, ``item_probabilities``).

    Parameters
    ----------
    draws : ItemLabelDraws
    groups : ScoreGroups
        This classifier's score groups.
    labeled_groups, threshold_groups : int arrays
        The group of each labeled item; the groups whose lower edges are the kept thresholds.
    """

    def __init__(self, draws, groups, labeled_groups, threshold_groups):
        self.draws, self.groups = draws, groups
        self.labeled_groups, self.threshold_groups = labeled_groups, threshold_groups
        n = draws.n_items
        # (K, N): row k sums the items of group k
        self.membership = sparse.csr_matrix((np.ones(n, dtype=np.float32), (groups.group_of_item, np.arange(n))),
                                            shape=(groups.n_groups, n))

    @property
    def model(self):
        """The joint score model the labels are drawn from."""
        return self.draws.model

    @property
    def n_draws(self) -> int:
        """M."""
        return self.draws.n_draws

    @property
    def cells(self) -> int:
        """The work per draw of one count: every item (N)."""
        return self.draws.n_items

    def count(self, per_item):
        """Per-group sums of per-item values (M_block, N) → (M_block, K)."""
        return np.asarray((self.membership @ per_item.T).T, dtype=float)

    def positive_counts(self, rows, streams=None):
        """Drawn positives per score group under the draws ``rows``: (M_block, K) (``streams`` is ignored: each
        draw's labels come from its seed)."""
        return self.count(self.draws.labels(rows))

    def expected_positives(self, rows):
        """Expected positives per score group under the draws ``rows``: (M_block, K)."""
        return self.count(self.draws.probabilities(rows))

    #: The labels depend on every classifier's score, not on this classifier's alone.
    per_score = False

    def item_probability_draws(self, scores, items):
        """p(y_i = 1 | θ_m) of the items ``items`` (B,) under every draw: (M, B) probabilities; ``scores`` is not
        needed (the model reads the features)."""
        return np.clip(self.draws.model.positive_probability(self.draws.features[items]), 0.0, 1.0)

    def item_probabilities(self, scores, weights):
        """Σ_m w_m p(y_i = 1 | θ_m) per item (N,); ``scores`` is not needed (the model reads the features)."""
        return self.draws.mean_probabilities(np.asarray(weights, dtype=float))


def _guided_groups(scores, labeled_index, labeled_value, bins, mean_probability):
    """One classifier's score groups; above ``bins`` distinct scores, bins placed by the posterior mean
    probability of its items (``mean_probability()`` (N,), asked for only then: the mean over the items of
    each distinct score)."""
    def guide(s):
        at, inv = np.unique(scores, return_inverse=True)
        mean = np.bincount(inv, weights=mean_probability(), minlength=at.size) / np.bincount(inv, minlength=at.size)
        return np.interp(s, at, mean)

    return ScoreGroups.build(scores, labeled_index, labeled_value, bins=bins, guide=guide)


def sample_joint_performance(model, features, classifier_scores, labeled_index, labeled_value, *, rng=None,
                             recall_grid=RECALL_GRID, fpr_grid=FPR_GRID, max_thresholds=MAX_THRESHOLDS, bins=None,
                             workers=1):
    """Draw every unknown label once per posterior draw, and compute each classifier's curves from them.

    Parameters
    ----------
    model : FittedScoreModel
        The joint score model: M weighted draws, ``probability(draws, features)`` → (M', B).
    features : array, shape (N, V)
        What the model reads of each item.
    classifier_scores : list of arrays, shape (N,) each
        The K classifiers' scores (score units), the items in the same order.
    labeled_index : int array, shape (n,)
    labeled_value : 0/1 array, shape (n,)
    rng : numpy.random.Generator, int or None
    recall_grid, fpr_grid, max_thresholds : as :func:`~spe.performance.sampling.sample_performance`
    bins : int or None
        A classifier with more distinct scores than this has its items grouped into at most this many score
        bins (its thresholds at bin boundaries), placed by the posterior mean probability of the items.
    workers : int or None
        Threads over blocks of draws; the result does not depend on it.

    Returns
    -------
    list of SamplePerformance, length K
        One per classifier, all from the same label draws; each with a :class:`JointLabelReplay` (its
        ``population`` and recounts at other thresholds use the same draws).
    """
    labeled_index = np.asarray(labeled_index, dtype=int)
    labeled_value = np.asarray(labeled_value, dtype=int)
    rng = np.random.default_rng(rng)
    seeds = rng.bit_generator.seed_seq.spawn(model.n_draws)
    draws = ItemLabelDraws(model, np.asarray(features, dtype=float), labeled_index, labeled_value, seeds,
                           type(rng.bit_generator))
    weights = np.asarray(model.weights, dtype=float)
    mean = functools.cache(lambda: draws.mean_probabilities(weights))  # one pass over the draws, if binning
    n = draws.n_items
    replays, accumulators = [], []
    for s in classifier_scores:
        s = np.asarray(s, dtype=float)
        groups = _guided_groups(s, labeled_index, labeled_value, bins, mean)
        replay = JointLabelReplay(draws, groups, groups.groups_of(s[labeled_index]),
                                  threshold_grid_groups(groups, max_thresholds))
        replays.append(replay)
        accumulators.append(Accumulator(recall_grid, fpr_grid, replay.labeled_groups, replay.threshold_groups, n))

    def block(rows):
        labels = draws.labels(rows)
        return [acc.counted(r.count(labels), r.groups.counts) for acc, r in zip(accumulators, replays)]

    threads = resolve_workers(workers)
    with stage("drawing the unknown labels", draws.n_draws, "draw") as progress:
        for parts in map_draw_blocks(block, draws.n_draws, n, threads, progress):
            for acc, part in zip(accumulators, parts):
                acc.add(part)
    return [acc.result(weights, replay, "sample", threads) for acc, replay in zip(accumulators, replays)]
