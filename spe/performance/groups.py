"""Items grouped by distinct score, or by score bin: what the label draws and the thresholds are counted over."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ScoreGroups", "threshold_grid_groups", "groups_at", "MAX_THRESHOLDS"]


@dataclass
class ScoreGroups:
    """Items grouped by distinct score, or by score bin, highest score first.

    Attributes
    ----------
    scores : array, shape (K,)
        Each group's threshold, descending (score units): every item of
        the group has a score ≥ it (its distinct score, or the lowest score
        of its bin).
    n_unlabeled : array, shape (K,)
        Unlabeled items in the group.
    n_labeled_pos, n_labeled_neg : array, shape (K,)
        Labeled positives and negatives in the group.
    group_of_item : int array, shape (N,)
        Group index of each item.
    p_scores : array, shape (K,)
        Where p(y = 1 | s) is evaluated for the group's unlabeled items:
        the distinct score, or the mean score of the bin.
    binned : bool
        Whether groups are score bins (:meth:`build` with ``bins``).
    """

    scores: np.ndarray
    n_unlabeled: np.ndarray
    n_labeled_pos: np.ndarray
    n_labeled_neg: np.ndarray
    _group_of_item: np.ndarray | None = field(repr=False)
    p_scores: np.ndarray = None
    binned: bool = False
    _item_scores: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.p_scores is None:
            self.p_scores = self.scores

    @property
    def group_of_item(self):
        """Group index of each item, int (N,) (found on first use when built from sorted scores)."""
        if self._group_of_item is None:
            self._group_of_item = self.groups_of(self._item_scores)
        return self._group_of_item

    def groups_of(self, item_scores):
        """Group index of items with these scores (score units), int array of the same shape."""
        # groups are descending by their lowest score: the group of s is the first one whose threshold is ≤ s
        return np.searchsorted(-self.scores, -np.asarray(item_scores, dtype=float), side="left")

    @classmethod
    def build(cls, scores, labeled_index, labeled_value, bins=None, sorted_scores=None, guide=None, counts=None):
        """Group N scores (N,) with n labels; ``bins`` (int): merge distinct scores into at most that many bins.

        With ``bins`` and more distinct scores than that, consecutive
        distinct scores are merged into at most ``bins`` groups (a tie is
        never split), so the label draws cost O(M · bins) instead of
        O(M · distinct scores). Without ``guide`` the bins hold about
        N / bins items each. With ``guide`` — a function giving an estimate
        of p(y = 1 | s) at scores s (K,) → (K,), e.g. the posterior mean —
        half of the bin boundaries are at equal steps of the expected
        positives counted from the top score and half at equal steps of the
        expected negatives: every bin then holds at most 2/bins of the
        positives and at most 2/bins of the negatives, so both the recall
        and the false positive rate are resolved in steps of 2/bins. Equal
        item counts would put most bins among the negatives at a low
        prevalence and resolve the recall only in steps of 1/(π · bins).
        Cost O(N log N), or O(N) given ``sorted_scores`` (the scores sorted
        ascending), with the groups of all N items then found only when
        asked for (:attr:`group_of_item`). ``counts`` (N,): the scores are a
        :class:`spe.pool.ScorePool`'s ascending values (give them as ``sorted_scores`` too), each standing for
        that many items.
        """
        s = np.asarray(scores, dtype=float)
        labeled_index = np.asarray(labeled_index, dtype=int)
        yv = np.asarray(labeled_value)
        if sorted_scores is None:
            uniq, inv = np.unique(-s, return_inverse=True)  # descending distinct scores
            counts = np.bincount(inv, minlength=uniq.size)
            lab_distinct = inv[labeled_index]
        else:
            ss = np.asarray(sorted_scores, dtype=float)
            first = np.concatenate([[0], np.flatnonzero(ss[1:] != ss[:-1]) + 1])  # ascending distinct starts
            counts = (np.diff(np.append(first, ss.size)) if counts is None
                      else np.add.reduceat(np.asarray(counts, dtype=np.int64), first))[::-1]
            uniq = -ss[first][::-1]
            inv = None
            lab_distinct = np.searchsorted(uniq, -s[labeled_index], side="left")
        k = uniq.size
        lab_pos, lab_neg = lab_distinct[yv == 1], lab_distinct[yv == 0]
        if bins is None or k <= bins:
            n_pos = np.bincount(lab_pos, minlength=k)
            n_neg = np.bincount(lab_neg, minlength=k)
            return cls(-uniq, counts - n_pos - n_neg, n_pos, n_neg, inv, _item_scores=s)
        if guide is None:
            mass = [counts.astype(float)]
        else:  # expected positives and expected negatives per distinct score
            p = np.clip(np.nan_to_num(np.asarray(guide(-uniq), dtype=float), nan=0.5), 0.0, 1.0)
            mass = [counts * p, counts * (1.0 - p)]
        per = max(int(bins) // len(mass), 1)
        cuts = [[0]]
        for m in mass:
            cum = np.cumsum(m)
            if cum[-1] > 0:
                cuts.append(np.searchsorted(cum, cum[-1] * np.arange(1, per) / per, side="right"))
        starts = np.unique(np.concatenate(cuts))
        starts = starts[starts < k]
        bin_of_distinct = np.searchsorted(starts, np.arange(k), side="right") - 1
        b = starts.size
        ends = np.append(starts[1:], k) - 1  # last (lowest) distinct score of each bin
        weight = np.bincount(bin_of_distinct, weights=counts, minlength=b)
        mean = np.bincount(bin_of_distinct, weights=counts * -uniq, minlength=b) / weight
        n_pos = np.bincount(bin_of_distinct[lab_pos], minlength=b)
        n_neg = np.bincount(bin_of_distinct[lab_neg], minlength=b)
        return cls(-uniq[ends], weight.astype(np.int64) - n_pos - n_neg, n_pos, n_neg,
                   None if inv is None else bin_of_distinct[inv], mean, True, _item_scores=s)

    @property
    def n_groups(self) -> int:
        return self.scores.size

    @property
    def counts(self):
        """All items per group, shape (K,)."""
        return self.n_unlabeled + self.n_labeled_pos + self.n_labeled_neg


#: At most this many thresholds are kept per draw for the threshold curves (all distinct scores when fewer).
MAX_THRESHOLDS = 1000


def threshold_grid_groups(groups, max_thresholds=MAX_THRESHOLDS):
    """Which score groups serve as the thresholds of the threshold curves.

    All K distinct scores when K ≤ ``max_thresholds``; otherwise the
    distinct scores at ``max_thresholds`` evenly spaced fractions of the
    items (so the thresholds follow the score quantiles), always including
    the lowest score (every item predicted positive).

    Returns
    -------
    int array, shape (T,)
        Group indices (groups are in descending score order), ascending.
    """
    k = groups.n_groups
    if k <= max_thresholds:
        return np.arange(k)
    cum = np.cumsum(groups.counts)
    targets = np.linspace(0, cum[-1], max_thresholds + 1)[1:]
    idx = np.searchsorted(cum, targets - 1e-9, side="left")
    return np.unique(np.append(np.clip(idx, 0, k - 1), k - 1))


def groups_at(groups, thresholds):
    """How many leading score groups, and how many items, are scored ≥ each threshold.

    Parameters
    ----------
    groups : ScoreGroups
        The score groups, descending.
    thresholds : array, shape (Q,)
        Score units.

    Returns
    -------
    j : int array, shape (Q,)
        Groups scored ≥ each threshold.
    n_predicted : int array, shape (Q,)
        Items in them (predicted positive at that threshold).
    """
    tau = np.atleast_1d(np.asarray(thresholds, dtype=float))
    j = np.searchsorted(-groups.scores, -tau, side="right")
    return j, np.concatenate([[0], np.cumsum(groups.counts)])[j]
