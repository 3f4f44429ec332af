"""Sample performance from posterior draws (Welinder et al. 2013, §3 and §3.1 steps 4–5).

For every weighted posterior draw m of a score model, the unknown labels are
drawn from p(y_i = 1 | s_i, θ_m) (eq. 7), joined with the known labels, and
the performance curves of *this* data set are computed from all N scores and
those labels. The draws are then combined with their weights into medians
and equal-tailed bands.

Items with equal scores share p(y = 1 | s), so the labels are drawn per
distinct score as binomial counts: the work and memory are O(M_block · K) for
K distinct scores, in blocks of draws, never O(M · N). Each draw has its own
random stream (``rng.spawn``), so results do not depend on the block size.

Curve conventions (they match ``sklearn.metrics`` on the same labels):

* thresholds are the distinct scores; an item is predicted positive when its
  score is ≥ the threshold;
* precision at recall r is the precision of the highest threshold whose
  recall is ≥ r (DESIGN.md);
* average precision is Σ_k (R_k − R_{k−1}) P_k (``average_precision_score``);
* ROC AUC is the trapezoid area under (FPR, TPR) (``roc_auc_score``), and the
  ROC curve at a false positive rate f is the linear interpolation of the
  ROC polyline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .models.base import FittedScoreModel
from .models.mixture import sorted_quantile
from .parallel import resolve_workers, thread_map

__all__ = [
    "ScoreGroups",
    "SamplePerformance",
    "sample_performance",
    "posterior_mean_probability",
    "weighted_positive_probability",
    "curves_from_counts",
    "pr_at_recall",
    "roc_at_fpr",
    "weighted_quantile",
    "equal_error_rate",
    "replay_true_positives",
    "LabelReplay",
    "groups_at",
    "expected_true_positives",
    "RECALL_GRID",
    "FPR_GRID",
]

#: Default recall grid G = 101 points on [0, 1].
RECALL_GRID = np.linspace(0.0, 1.0, 101)
#: Default false-positive-rate grid, 101 points on [0, 1].
FPR_GRID = np.linspace(0.0, 1.0, 101)

_BLOCK = 1 << 21


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
    def build(cls, scores, labeled_index, labeled_value, bins=None, sorted_scores=None, guide=None):
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
        asked for (:attr:`group_of_item`).
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
            counts = np.diff(np.append(first, ss.size))[::-1]
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


def curves_from_counts(positives, counts):
    """Cumulative confusion counts from per-group positive counts.

    Parameters
    ----------
    positives : array, shape (M, K)
        Positives per score group (groups in descending score order).
    counts : array, shape (K,)
        Items per group.

    Returns
    -------
    tp, fp : arrays, shape (M, K)
        True and false positives when the threshold is each group's score.
    """
    tp = np.cumsum(positives, axis=1, dtype=float)
    fp = np.cumsum(counts, dtype=float)[None, :] - tp
    return tp, fp


def _rowwise_searchsorted(a, v, side):
    """searchsorted of v (G,) in each row of a (M, K), rows ascending in [0, 1]."""
    m, k = a.shape
    offs = 2.0 * np.arange(m)[:, None]
    flat = (a + offs).ravel()
    idx = np.searchsorted(flat, (v[None, :] + offs).ravel(), side=side).reshape(m, -1)
    return idx - k * np.arange(m)[:, None]


def pr_at_recall(tp, fp, grid=RECALL_GRID):
    """Precision at each recall of ``grid`` for each row: (M, K) → (M, G).

    Precision at recall r is that of the highest threshold with recall ≥ r.
    Rows without positives give NaN.
    """
    total = tp[:, -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = tp / total
        precision = tp / (tp + fp)
    recall = np.where(np.isfinite(recall), recall, 0.0)
    idx = _rowwise_searchsorted(recall, np.asarray(grid, dtype=float) - 1e-12, side="left")
    idx = np.clip(idx, 0, tp.shape[1] - 1)
    out = np.take_along_axis(precision, idx, axis=1)
    out[(total[:, 0] <= 0)] = np.nan
    return out


def _roc_polyline(tp, fp):
    """(FPR, TPR) vertices per row, starting at (0, 0): (M, K) → two (M, K + 1) arrays (0 where undefined)."""
    m, k = tp.shape
    tpr = np.zeros((m, k + 1))
    fpr = np.zeros((m, k + 1))
    pos, neg = tp[:, -1:], fp[:, -1:]
    np.divide(tp, pos, out=tpr[:, 1:], where=pos > 0)
    np.divide(fp, neg, out=fpr[:, 1:], where=neg > 0)
    return fpr, tpr


def roc_at_fpr(tp, fp, grid=FPR_GRID, polyline=None):
    """TPR at each false positive rate of ``grid`` (linear interpolation): (M, K) → (M, G).

    Rows without positives or without negatives give NaN. ``polyline``:
    the rows' ROC vertices if already computed (:func:`_roc_polyline`).
    """
    fpr, tpr = _roc_polyline(tp, fp) if polyline is None else polyline
    g = np.asarray(grid, dtype=float)
    j = np.clip(_rowwise_searchsorted(fpr, g, side="right") - 1, 0, fpr.shape[1] - 2)
    f0 = np.take_along_axis(fpr, j, axis=1)
    f1 = np.take_along_axis(fpr, j + 1, axis=1)
    t0 = np.take_along_axis(tpr, j, axis=1)
    t1 = np.take_along_axis(tpr, j + 1, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(f1 > f0, (g[None, :] - f0) / (f1 - f0), 1.0)
    out = t0 + np.clip(frac, 0, 1) * (t1 - t0)
    bad = (tp[:, -1] <= 0) | (fp[:, -1] <= 0)
    out[bad] = np.nan
    return out


def average_precision(tp, fp, polyline=None):
    """Σ_k (R_k − R_{k−1}) P_k per row, as ``sklearn.metrics.average_precision_score``: (M, K) → (M,).

    Rows without positives give NaN. ``polyline``: as :func:`roc_at_fpr`
    (its TPR is the recall).
    """
    _, recall = _roc_polyline(tp, fp) if polyline is None else polyline
    predicted = tp + fp
    precision = np.zeros(tp.shape)
    np.divide(tp, predicted, out=precision, where=predicted > 0)
    return np.sum(np.diff(recall, axis=1) * precision, axis=1) + np.where(tp[:, -1] > 0, 0.0, np.nan)


def roc_auc(tp, fp, polyline=None):
    """Trapezoid area under the ROC polyline per row, as ``roc_auc_score``: (M, K) → (M,)."""
    fpr, tpr = _roc_polyline(tp, fp) if polyline is None else polyline
    auc = np.sum(np.diff(fpr, axis=1) * (tpr[:, 1:] + tpr[:, :-1]) / 2, axis=1)
    return np.where((tp[:, -1] > 0) & (fp[:, -1] > 0), auc, np.nan)


def weighted_quantile(values, weights, q):
    """Weighted quantiles along the draw axis, ignoring NaN draws.

    Parameters
    ----------
    values : array, shape (M,) or (M, G)
    weights : array, shape (M,)
        Non-negative, need not be normalised.
    q : float or array of float in [0, 1]

    Returns
    -------
    array, shape ``np.shape(q) + values.shape[1:]``
        Inverse-CDF weighted quantiles (``numpy.quantile(...,
        method="inverted_cdf", weights=...)``); NaN where every draw is NaN.
    """
    v = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    squeeze = v.ndim == 1
    if squeeze:
        v = v[:, None]
    qa = np.atleast_1d(q)
    out = np.full((qa.size, v.shape[1]), np.nan)
    nan = np.isnan(v)
    if not nan.any():
        out = np.quantile(v, qa, axis=0, weights=np.broadcast_to(w[:, None], v.shape), method="inverted_cdf")
    else:
        for g in range(v.shape[1]):
            ok = ~nan[:, g] & (w > 0)
            if ok.any():
                out[:, g] = np.quantile(v[ok, g], qa, weights=w[ok], method="inverted_cdf")
    out = out[:, 0] if squeeze else out
    return out.reshape(np.shape(q) + out.shape[1:]) if np.ndim(q) == 0 else out


def equal_error_rate(tp, fp, polyline=None):
    """Equal error rate per row: the false positive rate where it equals the false negative rate.

    On the ROC polyline (linear between thresholds, as :func:`roc_at_fpr`)
    FPR + TPR − 1 rises from −1 at (0, 0) to 1 at (1, 1); the EER is the FPR
    where it crosses 0 (there FPR = 1 − TPR = FNR). (M, K) → (M,); NaN for
    rows without positives or without negatives.
    """
    fpr, tpr = _roc_polyline(tp, fp) if polyline is None else polyline
    g = (fpr + tpr) / 2.0  # in [0, 1], non-decreasing; the EER is where it reaches 1/2
    j = np.clip(_rowwise_searchsorted(g, np.array([0.5]), side="left")[:, 0], 1, g.shape[1] - 1)
    rows = np.arange(g.shape[0])
    g0, g1 = g[rows, j - 1], g[rows, j]
    f0, f1 = fpr[rows, j - 1], fpr[rows, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(g1 > g0, (0.5 - g0) / (g1 - g0), 0.0)
    out = f0 + np.clip(frac, 0, 1) * (f1 - f0)
    return np.where((tp[:, -1] > 0) & (fp[:, -1] > 0), out, np.nan)


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


@dataclass(frozen=True)
class LabelReplay:
    """What recounts the label draws behind a :class:`SamplePerformance` at other thresholds.

    Attributes
    ----------
    model : FittedScoreModel
        The posterior draws the labels were drawn from.
    groups : ScoreGroups
        The score groups (distinct scores, or score bins at large N) the labels were drawn per.
    seeds : (bit generator class, list of seeds)
        The M label-draw streams, recreated from their seeds.
    labeled_groups : int array, shape (n,)
        The group of each labeled item.
    threshold_groups : int array
        The groups whose lower edges are the kept thresholds.
    """

    model: FittedScoreModel
    groups: ScoreGroups
    seeds: tuple
    labeled_groups: np.ndarray
    threshold_groups: np.ndarray

    def streams(self):
        """The M label-draw streams, recreated from their seeds (the same draws again)."""
        kind, seeds = self.seeds
        return [np.random.Generator(kind(s)) for s in seeds]


@dataclass
class SamplePerformance:
    """Per-draw performance of the classifier on the N items (M draws).

    Attributes
    ----------
    weights : array, shape (M,)
    prevalence : array, shape (M,)
        Fraction of positives among all N items.
    average_precision, roc_auc, equal_error_rate : arrays, shape (M,)
    recall_grid : array, shape (G,)
    precision_at_recall : array, shape (M, G)
    fpr_grid : array, shape (G2,)
    tpr_at_fpr : array, shape (M, G2)
    thresholds : array, shape (T,)
        Ascending thresholds (score units; distinct scores of the pool, see
        :func:`threshold_grid_groups`); an item is predicted positive when
        its score is ≥ the threshold.
    n_predicted : array, shape (T,)
        Items with score ≥ each threshold.
    true_positives : array, shape (M, T)
        Positives among them, per draw (counts; expected counts for
        population performance).
    n_positive : array, shape (M,)
        Positives among all N items.
    n_items : int
        N.
    labeled_recall, labeled_precision : arrays, shape (M, n)
        Recall and precision at each labeled item's score taken as the
        threshold (to place the labeled items on the curve).
    kind : {"sample", "population"}
        Sample performance (labels drawn, paper §3) or population
        performance (labels replaced by p(y = 1 | s, θ)).
    population : SamplePerformance or None
        The population performance of the same draws (on a sample
        performance object; computed on first use, so estimates that never
        ask for it do not pay for it).
    replay : LabelReplay or None
        What :attr:`population`, :func:`replay_true_positives` and
        :func:`expected_true_positives` recount from.
    workers : int
        Threads for those recounts (as :func:`sample_performance`'s).
    """

    weights: np.ndarray
    prevalence: np.ndarray
    average_precision: np.ndarray
    roc_auc: np.ndarray
    equal_error_rate: np.ndarray
    recall_grid: np.ndarray
    precision_at_recall: np.ndarray
    fpr_grid: np.ndarray
    tpr_at_fpr: np.ndarray
    thresholds: np.ndarray
    n_predicted: np.ndarray
    true_positives: np.ndarray
    n_positive: np.ndarray
    n_items: int
    labeled_recall: np.ndarray
    labeled_precision: np.ndarray
    kind: str = "sample"
    replay: LabelReplay | None = field(default=None, repr=False)
    workers: int = field(default=1, repr=False)
    _population: SamplePerformance | None = field(default=None, repr=False)

    @property
    def population(self) -> SamplePerformance | None:
        if self.kind != "sample":
            return None
        if self._population is None:
            r = self.replay
            acc = _Accumulator(self.recall_grid, self.fpr_grid, r.labeled_groups, r.threshold_groups, self.n_items)
            acc.fill(lambda rows: _expected_positives(r.model, r.groups, rows), r.model, r.groups, self.workers)
            self._population = acc.result(self.weights, r.groups, "population")
            self._population.replay = self.replay
            self._population.workers = self.workers
        return self._population


class _Accumulator:
    """Collects per-draw curves from blocks of cumulative counts."""

    def __init__(self, recall_grid, fpr_grid, lab_groups, grid_groups, n_items):
        self.recall_grid, self.fpr_grid = recall_grid, fpr_grid
        self.lab_groups, self.grid_groups, self.n = lab_groups, grid_groups, n_items
        self.parts = {key: [] for key in ("prev", "ap", "auc", "eer", "pr", "roc", "tp", "lrec", "lprec")}

    def block(self, tp, fp):
        """The per-draw results of one block of draws (a pure function, safe to run in threads)."""
        poly = _roc_polyline(tp, fp)
        with np.errstate(invalid="ignore", divide="ignore"):
            return {
                "prev": tp[:, -1] / self.n,
                "ap": average_precision(tp, fp, poly),
                "auc": roc_auc(tp, fp, poly),
                "eer": equal_error_rate(tp, fp, poly),
                "pr": pr_at_recall(tp, fp, self.recall_grid),
                "roc": roc_at_fpr(tp, fp, self.fpr_grid, poly),
                "tp": tp[:, self.grid_groups[::-1]],
                "lrec": tp[:, self.lab_groups] / tp[:, -1:],
                "lprec": tp[:, self.lab_groups] / (tp[:, self.lab_groups] + fp[:, self.lab_groups]),
            }

    def fill(self, counts, model, groups, workers):
        """Add the curves of every block of draws, from ``counts(rows)`` → positives per group (M_block, K)."""
        for part in _map_draw_blocks(lambda rows: self.block(*curves_from_counts(counts(rows), groups.counts)),
                                     model, groups, workers):
            for key, value in part.items():
                self.parts[key].append(value)

    def result(self, weights, groups, kind):
        cat = {key: np.concatenate(v) for key, v in self.parts.items()}
        order = self.grid_groups[::-1]
        return SamplePerformance(
            weights, cat["prev"], cat["ap"], cat["auc"], cat["eer"],
            np.asarray(self.recall_grid, dtype=float), cat["pr"],
            np.asarray(self.fpr_grid, dtype=float), cat["roc"],
            groups.scores[order].copy(), np.cumsum(groups.counts)[order], cat["tp"], cat["prev"] * self.n, self.n,
            cat["lrec"], cat["lprec"], kind,
        )


def _label_streams(rng, m):
    """M independent label-draw streams and the seeds that recreate them (:func:`replay_true_positives`)."""
    rng = np.random.default_rng(rng)
    seeds = rng.bit_generator.seed_seq.spawn(m)
    kind = type(rng.bit_generator)
    return [np.random.Generator(kind(s)) for s in seeds], (kind, seeds)


def _draw_blocks(n_draws, n_groups, workers=1):
    """Row slices of the M draws in blocks of at most ``_BLOCK`` (draw, group) cells; with several
    workers, at least 4 blocks per worker so that the threads share the work evenly."""
    step = max(1, _BLOCK // max(n_groups, 1))
    if workers > 1:
        step = min(step, max(1, -(-n_draws // (4 * workers))))
    return [slice(start, min(start + step, n_draws)) for start in range(0, n_draws, step)]


def _map_draw_blocks(fn, model, groups, workers):
    """``[fn(rows) for rows in the blocks of draws]`` in the order of the draws, over ``workers`` threads."""
    return thread_map(fn, _draw_blocks(model.n_draws, groups.n_groups, workers), workers)


def _cumulative_at(counts, model, groups, j, workers):
    """Per-draw cumulative ``counts(rows)`` over the score groups, read at group boundaries j (Q,): (M, Q)."""
    def block(rows):
        pos = counts(rows)
        return np.hstack([np.zeros((pos.shape[0], 1)), np.cumsum(pos, axis=1, dtype=float)])[:, j]

    return np.concatenate(_map_draw_blocks(block, model, groups, workers))


def _positive_counts(model, groups, streams, rows):
    """Drawn positives per score group under the draws ``rows``: (M_block, K) integers.

    Under each draw m the unlabeled items of a group with score s are
    Binomial(n_unlabeled, p(y = 1 | s, θ_m)) positives (eq. 7), drawn from
    stream m (so the counts do not depend on how the draws are blocked);
    the labeled positives are added as they are.
    """
    k = groups.n_groups
    unl = groups.n_unlabeled
    has_unl = unl > 0
    mb = rows.stop - rows.start
    pos = np.broadcast_to(groups.n_labeled_pos, (mb, k)).astype(np.int64)
    if has_unl.any():
        p = np.clip(model.positive_probability(groups.p_scores[has_unl], rows), 0.0, 1.0)
        drawn = np.empty((mb, int(has_unl.sum())), dtype=np.int64)
        for r in range(mb):
            drawn[r] = streams[rows.start + r].binomial(unl[has_unl], p[r])
        pos = pos.copy()
        pos[:, has_unl] += drawn
    return pos


def _expected_positives(model, groups, rows):
    """Expected positives per score group under the draws ``rows``: counts_k · p(y = 1 | s_k, θ_m), (M_block, K)."""
    p = np.clip(model.positive_probability(groups.p_scores, rows), 0.0, 1.0)
    return p * groups.counts.astype(float)[None, :]


#: Score quantiles at which the posterior mean of p(y = 1 | s) is evaluated to place the label-draw bins.
GUIDE_POINTS = 1025


def posterior_mean_probability(model, sorted_scores, points=GUIDE_POINTS):
    """The posterior mean of p(y = 1 | s) as a function of the score, for placing score bins.

    Evaluated under all M draws (weighted) at ``points`` quantiles of the
    scores and interpolated linearly between them; cost O(M · points).

    Parameters
    ----------
    model : FittedScoreModel
    sorted_scores : array, shape (N,)
        All scores, sorted ascending (score units).
    points : int

    Returns
    -------
    callable
        Scores s (K,) → Σ_m w_m p(y = 1 | s, θ_m), shape (K,), probabilities.
    """
    grid = np.unique(sorted_quantile(sorted_scores, np.linspace(0.0, 1.0, int(points))))
    mean = weighted_positive_probability(model, grid, model.weights)
    return lambda s: np.interp(s, grid, mean)


def weighted_positive_probability(model, scores, weights):
    """Σ_m w_m p(y = 1 | s, θ_m) at each score: (K,) → (K,), probabilities.

    The weighted average over the M draws, computed in blocks of draws so
    that no M × K array larger than the block is built.

    Parameters
    ----------
    model : FittedScoreModel
    scores : array, shape (K,)
        Score units.
    weights : array, shape (M,)
        Weights of the draws (normalised: the result is then a mean).
    """
    at = np.asarray(scores, dtype=float)
    weights = np.asarray(weights, dtype=float)
    out = np.zeros(at.size)
    for rows in _draw_blocks(weights.size, at.size):
        out += weights[rows] @ model.positive_probability(at, rows)
    return out


def sample_performance(model, scores, labeled_index, labeled_value, *, rng=None,
                       recall_grid=RECALL_GRID, fpr_grid=FPR_GRID, max_thresholds=MAX_THRESHOLDS, bins=None,
                       sorted_scores=None, workers=1):
    """Draw the unknown labels under each posterior draw and compute the curves (paper §3, §3.1).

    Sample performance: under draw m the unknown labels are drawn from
    p(y = 1 | s, θ_m) and joined with the known ones, and the curves of these
    N items are computed. Population performance (the ``population``
    attribute of the result): the labels of all N items are replaced by
    their probabilities p(y = 1 | s, θ_m), so the counts are expected counts
    — the performance on an unlimited population with this pool's score
    distribution whose labels follow the model, with no label-sampling noise
    (the paper's population performance from θ alone, with the fitted score
    density replaced by the pool's empirical one, which works for every
    score model, not only the mixture).

    Parameters
    ----------
    model : FittedScoreModel
        M weighted draws and p(y = 1 | s) (the seam of ``spe.models.base``).
    scores : array, shape (N,)
        All scores, score units.
    labeled_index : int array, shape (n,)
        Positions of the labeled items in ``scores``.
    labeled_value : 0/1 array, shape (n,)
    rng : numpy.random.Generator or int or None
    recall_grid : array, shape (G,)
    fpr_grid : array, shape (G2,)
    max_thresholds : int
        T, thresholds kept per draw for the threshold curves
        (:func:`threshold_grid_groups`).
    bins : int or None
        B: with more distinct scores than B, the items are grouped into at
        most B score bins and the unlabeled items of a bin are
        Binomial(n_unlabeled, p(y = 1 | mean score of the bin, θ_m))
        positives: cost O(M · B) instead of O(M · N), thresholds at bin
        boundaries. The bins are placed by the posterior mean of
        p(y = 1 | s) (:func:`posterior_mean_probability`): half of the
        boundaries at equal steps of expected positives, half at equal
        steps of expected negatives (:meth:`ScoreGroups.build` with
        ``guide``), so that recall and false positive rate are both
        resolved in steps of about 2/B. None: exact (every distinct score
        is its own group).
    sorted_scores : array, shape (N,), optional
        ``scores`` sorted ascending, if the caller has them (the groups are
        then formed in O(N); same result).
    workers : int or None
        Threads that draw the labels and compute the curves of blocks of
        draws, here and in the later recounts at other thresholds
        (:func:`spe.parallel.thread_map`; None: the usable cores).
        Every draw has its own random stream, so the result does not depend
        on it.

    Returns
    -------
    SamplePerformance
        With the seeds of the label draws kept, so that
        :func:`replay_true_positives` can recount them at any threshold,
        and ``population`` computed on first use.
    """
    labeled_index = np.asarray(labeled_index, dtype=int)
    def guide(s):  # called only if the scores are binned
        ss = np.sort(np.asarray(scores, dtype=float)) if sorted_scores is None else sorted_scores
        return posterior_mean_probability(model, ss)(s)

    groups = ScoreGroups.build(scores, labeled_index, labeled_value, bins=bins, sorted_scores=sorted_scores,
                               guide=guide)
    n = np.asarray(scores).size
    lab_groups = groups.groups_of(np.asarray(scores, dtype=float)[labeled_index])
    grid_groups = threshold_grid_groups(groups, max_thresholds)
    streams, seeds = _label_streams(rng, model.n_draws)
    weights = np.asarray(model.weights, dtype=float)
    sample = _Accumulator(recall_grid, fpr_grid, lab_groups, grid_groups, n)
    threads = resolve_workers(workers)
    sample.fill(lambda rows: _positive_counts(model, groups, streams, rows), model, groups, threads)
    perf = sample.result(weights, groups, "sample")
    perf.replay = LabelReplay(model, groups, seeds, lab_groups, grid_groups)
    perf.workers = threads
    return perf


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


def replay_true_positives(performance, thresholds):
    """Per-draw positives among the items scored ≥ each threshold, recounted from the same label draws.

    Parameters
    ----------
    performance : SamplePerformance
        From :func:`sample_performance` (sample or population kind).
    thresholds : array, shape (Q,)
        Score units.

    Returns
    -------
    true_positives : array, shape (M, Q)
        The very label draws behind ``performance`` (same seeds), so the
        counts agree with its curves; expected counts for population
        performance. Thresholds that select the same items as one of the
        kept thresholds (``performance.thresholds``) are read from the kept
        counts; the label draws are replayed only for the others.
    n_predicted : int array, shape (Q,)
        Items with score ≥ each threshold.
    """
    r = performance.replay
    j, n_pred = groups_at(r.groups, thresholds)
    # thresholds that select the same items as a kept threshold: the kept counts, no recount
    kept = {int(v): c for c, v in enumerate(performance.n_predicted)}
    if all(int(v) in kept for v in n_pred):
        return performance.true_positives[:, [kept[int(v)] for v in n_pred]], n_pred
    if performance.kind != "sample":
        return expected_true_positives(performance, thresholds)
    streams = r.streams()
    return _cumulative_at(lambda rows: _positive_counts(r.model, r.groups, streams, rows), r.model, r.groups, j,
                          performance.workers), n_pred


def expected_true_positives(performance, thresholds):
    """Per-draw expected positives among the items scored ≥ each threshold (population performance).

    Same shapes as :func:`replay_true_positives`.
    """
    r = performance.replay
    j, n_pred = groups_at(r.groups, thresholds)
    return _cumulative_at(lambda rows: _expected_positives(r.model, r.groups, rows), r.model, r.groups, j,
                          performance.workers), n_pred
