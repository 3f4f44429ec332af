"""Label draws and every multiclass metric per draw — the seam's other side for K classes.

Under each posterior draw θ_m the unlabeled items' classes are drawn from p(y | s_i, θ_m) (categorical; the
labeled items keep their labels), and this pool's metrics are counted from the drawn labels (the *sample*
performance, as Welinder et al. 2013, §3, for one score). The *population* performance takes the expected
counts under θ_m instead (no label draw).

One pass over the draws keeps, per draw: the K × K confusion counts at the argmax decision (row = true class,
column = predicted), the top-k hits, each class's one-vs-rest average precision and ROC AUC and its precision
on a recall grid (the classifier's own probability of the class ranks the items; ties as
``sklearn.metrics``), and the top-label and class-wise expected calibration errors of the classifier's stated
probabilities. Memory is O(M·K² + M·K·G + N·K), never O(M·N·K): the draws' probabilities are formed
``block`` draws at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics.curves import FPR_GRID, RECALL_GRID, probability_bins
from ..parallel import one_blas_thread, resolve_workers, thread_map

__all__ = ["ClassPerformance", "Rankings", "sample_class_performance", "sample_joint_class_performance",
           "mean_probabilities", "count_labels",
           "ranking_metrics", "expected_confusion", "TOP_K",
           "CALIBRATION_BINS", "draws_per_block"]

#: The k of top-k accuracy reported (those below K).
TOP_K = (2, 5)
#: Equal-width bins of the expected calibration errors (Guo et al. 2017 use 15).
CALIBRATION_BINS = 15


@dataclass
class ClassPerformance:
    """Per-draw multiclass metrics.

    Attributes
    ----------
    confusion : array, shape (M, K, K)
        Counts (sample) of items with true class j (row) and predicted class k (column).
    expected_confusion : array, shape (M, K, K)
        The same, expected under θ_m (population).
    top_k : dict k → array (M,)
        Top-k accuracy of the drawn labels.
    average_precision, roc_auc : arrays, shape (M, K)
        One-vs-rest, NaN for a class with no item (or, for ROC AUC, every item) in a draw.
    precision_at_recall : array, shape (M, K, G)
        Precision at :data:`~spe.metrics.curves.RECALL_GRID`.
    tpr_at_fpr : array, shape (M, K, G)
        True positive rate at :data:`~spe.metrics.curves.FPR_GRID`.
    calibration_error, classwise_calibration_error : arrays, shape (M,)
        Top-label and class-wise expected calibration error of the classifier's probabilities.
    correct_by_confidence : array, shape (M, CALIBRATION_BINS)
        Items whose drawn class is their predicted class, per bin of the stated confidence (the top-label
        reliability diagram's numerators).
    confidence_items, confidence_sum : arrays, shape (CALIBRATION_BINS,)
        Each confidence bin's items and their summed stated confidence.
    threshold_hits : array, shape (M, K)
        Items of each class (drawn) whose probability of it is at least the class's threshold (true positives of
        the one-vs-rest decision at the thresholds given; 0 for a class without one).
    expected_threshold_hits : array, shape (M, K)
        The same, expected under θ_m (population).
    threshold_predicted : array, shape (K,)
        Items whose probability of each class is at least its threshold (predicted positive).
    """

    confusion: np.ndarray
    expected_confusion: np.ndarray
    top_k: dict
    average_precision: np.ndarray
    roc_auc: np.ndarray
    precision_at_recall: np.ndarray
    tpr_at_fpr: np.ndarray
    calibration_error: np.ndarray
    classwise_calibration_error: np.ndarray
    correct_by_confidence: np.ndarray
    confidence_items: np.ndarray
    confidence_sum: np.ndarray
    threshold_hits: np.ndarray = None
    expected_threshold_hits: np.ndarray = None
    threshold_predicted: np.ndarray = None


class Rankings:
    """What the labels of a draw are counted against, computed once from the log-probabilities (N, K).

    For class k: each item's tie group in the descending order of ``L[:, k]`` (``group``) and its ascending
    mid-rank (``midrank``); every class's groups in one table (the groups of class k from ``group_offset[k]``),
    each group's size and the number of items scored at or above it (``group_sizes``, ``group_depths``; the top
    group's size ``top_group_size`` (K,)); each item's rank of every class (``class_rank``, 0 = its top class);
    its calibration bin of every class's probability (``bin``) and their sums (``bin_mass``); the predicted
    class's bin (``top_bin``), each bin's items and summed confidence (``top_items``, ``top_mass``); which items'
    probability of each class is at least its threshold (``above``, (N, K) bool; ``thresholds`` (K,)
    probabilities, NaN for a class without one)."""

    def __init__(self, log_probs, predicted, thresholds=None):
        n, k = log_probs.shape
        probs = np.exp(log_probs)
        with np.errstate(invalid="ignore"):  # no threshold (NaN): no item is above it
            # compared as probabilities, as spe.multiclass.threshold chooses them: a threshold taken from an
            # item's own probability keeps that item
            self.above = probs >= (np.full(k, np.nan) if thresholds is None else thresholds)[None, :]
        self.above_counts = self.above.sum(axis=0)
        self.has_thresholds = bool(self.above_counts.any())
        self.n_items, self.n_classes = n, k
        self.predicted = predicted
        self.group = np.empty((n, k), dtype=np.int64)
        self.midrank = np.empty((n, k))
        sizes = []
        for c in range(k):
            self.group[:, c], self.midrank[:, c], counts = _ranking_of(log_probs[:, c])
            sizes.append(counts)
        # every class's tie groups in one table, class by class: a group's index is its class's offset + its own
        self.group_offset = np.cumsum([0] + [c.size for c in sizes[:-1]])
        self.group_sizes = np.concatenate(sizes)
        self.group_depths = np.concatenate([np.cumsum(c) for c in sizes]).astype(float)
        self.top_group_size = self.group_sizes[self.group_offset]
        self.class_rank = np.argsort(np.argsort(-log_probs, axis=1, kind="stable"), axis=1).astype(np.int32)
        self.bin = probability_bins(probs, CALIBRATION_BINS)
        self.bin_mass = np.stack([np.bincount(self.bin[:, c], probs[:, c], CALIBRATION_BINS) for c in range(k)])
        confidence = probs[np.arange(n), predicted]
        self.top_bin = self.bin[np.arange(n), predicted]
        self.top_items = np.bincount(self.top_bin, minlength=CALIBRATION_BINS)
        self.top_mass = np.bincount(self.top_bin, confidence, CALIBRATION_BINS)
        self.by_prediction = np.argsort(predicted, kind="stable")
        self.sorted_by_prediction = bool(np.all(np.diff(predicted) >= 0))
        self.prediction_counts = np.bincount(predicted, minlength=k)
        self.prediction_starts = np.cumsum(self.prediction_counts) - self.prediction_counts


def _ranking_of(score):
    """Tie group (0 = the highest score) and ascending mid-rank (1-based) of each item for one score column (N,),
    and every group's size (G,)."""
    values, inverse, counts = np.unique(-score, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    ends = np.cumsum(counts)
    n = score.size
    midrank = n - (ends - (counts - 1) / 2.0)[inverse] + 1  # ascending rank of the group's middle
    return inverse, midrank, counts


#: Up to this many classes the draws' cumulative sums are a matrix product (O(K²) per item, but vectorised);
#: above it numpy's ``cumsum`` (O(K)) is the faster (one thread, 10⁴ items: K = 10 3.0 against 9.3 ms per
#: draw, K = 100 5.5 against 6.8, K = 300 14 against 6.7).
PRODUCT_CUMSUM_CLASSES = 128


def _draw_labels(probs, rng):
    """One class per item per draw from probabilities (B, N, K) → (B, N): the first class whose cumulative
    probability reaches a uniform draw (``argmax``). Up to :data:`PRODUCT_CUMSUM_CLASSES` classes the cumulative
    sums are a product with a triangular matrix of ones: on a short last axis numpy's ``cumsum`` is slow."""
    k = probs.shape[-1]
    if k <= PRODUCT_CUMSUM_CLASSES:
        cdf = probs @ np.triu(np.ones((k, k), dtype=probs.dtype))
    else:
        cdf = np.cumsum(probs, axis=-1)
    u = rng.random(probs.shape[:2], dtype=np.float32)[..., None] * cdf[..., -1:]
    return np.minimum(np.argmax(cdf >= u, axis=-1), k - 1)


#: The positives' tie groups are counted (one ``bincount`` over every class's groups, O(N·K)) rather than sorted
#: (O(N log N)) while every class's groups together number at most this many times N·log₂N (per draw: 10⁶ items ×
#: 10 classes 97 against 152 ms, groups 0.5 N·log₂N; 10⁶ × 20 143 against 157 ms at 1.0; 10⁵ × 30 15.6 against
#: 12.8 ms at 1.8; 10⁴ × 100 3.4 against 1.4 ms at 7.5).
COUNT_GROUPS_FACTOR = 1


def ranking_metrics(y, r: Rankings, grid, fpr_grid=FPR_GRID):
    """(AP (K,), ROC AUC (K,), precision at the recall grid (K, G), true positive rate at the false positive rate
    grid (K, G')) of one draw's labels y (N,); one-vs-rest, scikit-learn's conventions (the ROC curve the
    linear interpolation of its polyline, ties a diagonal).

    Every quantity is read per *run*: a tie group of a class's score holding positives of that class, the runs in
    order of class and then of score (highest first). They are found by counting the positives of every group
    or by sorting the positives (:data:`COUNT_GROUPS_FACTOR`); both give the same runs."""
    n, k = r.n_items, r.n_classes
    flat = _flat_index(y, k)
    pos = np.bincount(y, minlength=k).astype(float)
    g = np.take(r.group, flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        ranks = np.bincount(y, weights=np.take(r.midrank, flat), minlength=k)
        auc = (ranks - pos * (pos + 1) / 2) / (pos * (n - pos))
        counted = r.group_sizes.size <= COUNT_GROUPS_FACTOR * n * np.log2(max(n, 2))
        cls, count, depth, size = (_counted_runs if counted else _sorted_runs)(y, r.group_offset[y] + g, r)
        tp_end = np.cumsum(count) - (np.cumsum(pos) - pos)[cls]
        tp_before = tp_end - count
        precision = tp_end / depth
        ap = np.bincount(cls, weights=count * precision, minlength=k) / pos
        recall = tp_end / pos[cls]
        at = np.searchsorted(cls + 0.5 * recall, (np.arange(k)[:, None] + 0.5 * (grid[None, :] - 1e-12)).ravel())
        curve = precision[np.minimum(at, cls.size - 1).reshape(k, -1)]
        roc = _tpr_at(cls, tp_before, tp_end, depth, size, pos, n, fpr_grid)
    curve[:, grid <= 0] = (np.bincount(y[g == 0], minlength=k) / r.top_group_size)[:, None]  # the top group's
    curve[pos == 0] = np.nan
    defined = (pos > 0) & (pos < n)
    roc[~defined] = np.nan
    return ap, np.where(defined, auc, np.nan), curve, roc


def _counted_runs(y, groups, r: Rankings):
    """The runs (class, positives, depth, group size), each (R,), from each item's group in the table of every
    class's groups (``groups`` (N,)), counted."""
    counts = np.bincount(groups, minlength=r.group_sizes.size)
    held = np.flatnonzero(counts)
    cls = np.searchsorted(r.group_offset, held, side="right") - 1
    return cls, counts[held].astype(float), r.group_depths[held], r.group_sizes[held]


def _sorted_runs(y, groups, r: Rankings):
    """The runs (class, positives, depth, group size), each (R,), from each item's group in the table of every
    class's groups (``groups`` (N,)), sorted: the table is in order of class, then group."""
    order = np.argsort(groups)  # not stable: a run's items are read alike
    ordered = groups[order]
    first = np.r_[0, np.flatnonzero(ordered[1:] != ordered[:-1]) + 1]
    held = ordered[first]
    return (y[order[first]], np.diff(np.r_[first, ordered.size]).astype(float), r.group_depths[held],
            r.group_sizes[held])


def _flat_index(y, k):
    """Each item's (item, y_i) cell of an (N, K) table as a flat index, (N,) int64."""
    return np.arange(y.size, dtype=np.int64) * k + y


def _tpr_at(ys, tp_before, tp_end, depth, size, pos, n, fpr_grid):
    """TPR at each false positive rate (K, G') from the runs (a tie group's positives, by class and group): before
    a group holding positives the ROC polyline runs flat, across it diagonally from (FP before, TP before) to (FP
    after, TP after)."""
    k = pos.size
    neg = n - pos
    fp_before = (depth - size) - tp_before
    fp_after = depth - tp_end
    with np.errstate(invalid="ignore", divide="ignore"):
        key = ys + 0.5 * fp_before / neg[ys]
        at = np.searchsorted(key, (np.arange(k)[:, None] + 0.5 * fpr_grid[None, :] + 1e-12).ravel(),
                             side="right").reshape(k, -1) - 1
        first = np.searchsorted(ys, np.arange(k))
        none = at < first[:, None]
        j = np.clip(at, 0, ys.size - 1)
        target = fpr_grid[None, :] * neg[:, None]
        span = fp_after[j] - fp_before[j]
        frac = np.where(span > 0, np.clip((target - fp_before[j]) / np.where(span > 0, span, 1), 0, 1), 1.0)
        tpr = (tp_before[j] + frac * (tp_end[j] - tp_before[j])) / pos[:, None]
    return np.where(none, 0.0, tpr)


def _calibration_errors(y, flat, correct_by_bin, r: Rankings):
    """(top-label ECE, class-wise ECE) of the classifier's probabilities against labels y (N), given each item's
    (item, y_i) flat index and the items whose label is their predicted class per confidence bin."""
    n, k = r.n_items, r.n_classes
    top = np.abs(correct_by_bin - r.top_mass).sum() / n
    hits = np.bincount(y * CALIBRATION_BINS + np.take(r.bin, flat), minlength=k * CALIBRATION_BINS)
    classwise = np.abs(hits.reshape(k, CALIBRATION_BINS) - r.bin_mass).sum() / (n * k)
    return top, classwise


def expected_confusion(probs, r: Rankings):
    """Expected counts (K, K) under one draw's probabilities (N, K): row = true class, column = predicted."""
    k = r.n_classes
    out = np.zeros((k, k))
    present = np.flatnonzero(r.prediction_counts)
    rows = probs if r.sorted_by_prediction else probs[r.by_prediction]
    out[:, present] = np.add.reduceat(rows, r.prediction_starts[present], axis=0, dtype=np.float64).T
    return out


#: Most probabilities (B·N·K) a worker holds at once.
BLOCK_CELLS = 1 << 24


def draws_per_block(n_items, n_classes):
    """B, the posterior draws whose probabilities (B, N, K) are formed at once: at most 8, and at most
    :data:`BLOCK_CELLS` cells (at least one draw)."""
    return int(np.clip(BLOCK_CELLS // (n_items * n_classes), 1, 8))


def sample_class_performance(model, log_probs, predicted, labeled_index, labeled_class, *, rng, block=None,
                             grid=RECALL_GRID, workers=None, thresholds=None) -> ClassPerformance:
    """Draw the labels under each of the model's M draws and count every metric.

    Parameters
    ----------
    model : AveragedClassModel
    log_probs : array, shape (N, K)
    predicted : int array, shape (N,)
        The classifier's decision (argmax).
    labeled_index, labeled_class : int arrays, shape (n,)
    rng : numpy.random.Generator
        Each block of draws gets its own stream from it: the same seed gives the same draws whatever the workers.
    block : int, optional
        Draws whose probabilities are held at once (B·N·K float32 per worker); default: at most 8, and at most
        :data:`BLOCK_CELLS` cells.
    workers : int or None
        Threads (:func:`spe.parallel.thread_map`; numpy releases the GIL): None, the usable cores.
    thresholds : array (K,) or None
        Per-class probability thresholds of a one-vs-rest decision (NaN: none), counted besides the argmax's.

    Returns
    -------
    ClassPerformance
    """
    order = np.argsort(predicted, kind="stable")  # items by predicted class: the population's sums are contiguous
    log_probs, predicted = log_probs[order], predicted[order]
    labeled_index = np.argsort(order)[labeled_index]
    r = Rankings(log_probs, predicted, thresholds)  # from the scores as given (float64: ties as scikit-learn's)
    return _draw_and_count(model, log_probs.astype(np.float32), [r], labeled_index, labeled_class, rng=rng,
                           block=block, grid=grid, workers=workers)[0]


def sample_joint_class_performance(model, inputs, rankings, labeled_index, labeled_class, *, rng, block=None,
                                   grid=RECALL_GRID, workers=None) -> list:
    """Several classifiers' metrics counted from the same label draws (``spe compare`` on K-class scores).

    Parameters
    ----------
    model : AveragedClassModel
        Its draws' probabilities read ``inputs``.
    inputs : float32 array, shape (N, K, C)
        Every classifier's log-probabilities.
    rankings : list of Rankings, length C
        Each classifier's, in the items' order.
    labeled_index, labeled_class, rng, block, grid, workers
        As :func:`sample_class_performance`.

    Returns
    -------
    list of ClassPerformance, one per classifier: under draw m every classifier is scored against the same labels.
    """
    return _draw_and_count(model, inputs, rankings, labeled_index, labeled_class, rng=rng, block=block, grid=grid,
                           workers=workers)


def _draw_and_count(model, inputs, rankings, labeled_index, labeled_class, *, rng, block, grid, workers):
    """The label draws of every block of the model's draws, each counted against every ranking."""
    first = rankings[0]
    k = first.n_classes
    top_ks = [t for t in TOP_K if t < k]
    outs = [_empty(model.n_draws, k, len(grid), top_ks, r) for r in rankings]
    onehot = np.eye(k, dtype=np.float32)[labeled_class]
    if block is None:
        block = draws_per_block(first.n_items, k)
    blocks = model.blocks(block)
    streams = rng.spawn(len(blocks))

    def run(task):
        (start, fitted, theta), stream = task
        probs = fitted.probabilities(theta, inputs)
        for b in range(probs.shape[0]):  # the population's counts from θ alone, labeled items included
            for out, r in zip(outs, rankings):
                out.expected_confusion[start + b] = expected_confusion(probs[b], r)
                if r.has_thresholds:
                    out.expected_threshold_hits[start + b] = np.where(r.above, probs[b], 0).sum(0, dtype=np.float64)
        probs[:, labeled_index] = onehot
        labels = _draw_labels(probs, stream)
        for b in range(probs.shape[0]):
            for out, r in zip(outs, rankings):
                _count(out, start + b, labels[b], r, grid, top_ks)

    with one_blas_thread():  # the threads are the parallelism: a BLAS pool in each only oversubscribes
        thread_map(run, zip(blocks, streams), resolve_workers(workers))
    return outs


def count_labels(log_probs, predicted, y, *, thresholds=None, grid=RECALL_GRID) -> ClassPerformance:
    """Every metric of labels y (N,) known for all N items, as one draw (M = 1): the truth's values, counted as the
    label draws are (the population's counts are the sample's)."""
    r = Rankings(log_probs, predicted, thresholds)
    k = log_probs.shape[1]
    top_ks = [t for t in TOP_K if t < k]
    out = _empty(1, k, len(grid), top_ks, r)
    _count(out, 0, np.asarray(y, dtype=np.int64), r, grid, top_ks)
    out.expected_confusion[0] = out.confusion[0]
    out.expected_threshold_hits[0] = out.threshold_hits[0]
    return out


def _empty(m, k, g, top_ks, r):
    return ClassPerformance(
        confusion=np.zeros((m, k, k), dtype=np.int64), expected_confusion=np.zeros((m, k, k)),
        top_k={t: np.zeros(m) for t in top_ks}, average_precision=np.zeros((m, k)), roc_auc=np.zeros((m, k)),
        precision_at_recall=np.zeros((m, k, g), dtype=np.float32),
        tpr_at_fpr=np.zeros((m, k, len(FPR_GRID)), dtype=np.float32), calibration_error=np.zeros(m),
        classwise_calibration_error=np.zeros(m), correct_by_confidence=np.zeros((m, CALIBRATION_BINS)),
        confidence_items=r.top_items, confidence_sum=r.top_mass, threshold_hits=np.zeros((m, k), dtype=np.int64),
        expected_threshold_hits=np.zeros((m, k)), threshold_predicted=r.above_counts)


def _count(out, i, y, r, grid, top_ks):
    k = r.n_classes
    flat = _flat_index(y, k)
    out.confusion[i] = np.bincount(y * k + r.predicted, minlength=k * k).reshape(k, k)
    if r.has_thresholds:
        out.threshold_hits[i] = np.bincount(y, weights=np.take(r.above, flat), minlength=k)
    rank = np.take(r.class_rank, flat)
    for t in top_ks:
        out.top_k[t][i] = np.mean(rank < t)
    (out.average_precision[i], out.roc_auc[i], out.precision_at_recall[i],
     out.tpr_at_fpr[i]) = ranking_metrics(y, r, grid)
    out.correct_by_confidence[i] = np.bincount(r.top_bin, weights=(y == r.predicted), minlength=CALIBRATION_BINS)
    out.calibration_error[i], out.classwise_calibration_error[i] = _calibration_errors(
        y, flat, out.correct_by_confidence[i], r)


def mean_probabilities(model, inputs, labeled_index, labeled_class, *, workers=None):
    """Each item's posterior class probabilities p(y_i = k | every score, the labels), averaged over the model's
    M draws, (N, K) float64; labeled items one-hot at their label.

    ``inputs`` are what the model's draws read: the log-probabilities (N, K), or every classifier's (N, K, C) in
    a comparison. Memory: a block of draws' probabilities at a time (:data:`BLOCK_CELLS`)."""
    n, k = inputs.shape[:2]
    inputs = np.asarray(inputs, dtype=np.float32)
    block = draws_per_block(n, k)
    blocks = model.blocks(block)

    def run(task):
        _, fitted, theta = task
        return fitted.probabilities(theta, inputs).sum(axis=0, dtype=np.float64)

    total = np.zeros((n, k))
    workers = resolve_workers(workers)
    with one_blas_thread():
        for start in range(0, len(blocks), workers):  # a sum per worker held at a time, never one per block
            for part in thread_map(run, blocks[start:start + workers], workers):
                total += part
    total /= model.n_draws
    total[labeled_index] = np.eye(k)[labeled_class]
    return total
