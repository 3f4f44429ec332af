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

The curves and metrics of each draw are those of :mod:`spe.metrics` (its
registry says which; :mod:`spe.metrics.curves` gives the conventions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..metrics import Curves, ranking_metric_values
from ..metrics.curves import FPR_GRID, RECALL_GRID, curves_from_counts, pr_at_recall, roc_at_fpr
from ..models.base import FittedScoreModel
from ..parallel import resolve_workers, thread_map
from ..progress import NO_PROGRESS, stage
from ..quantiles import sorted_quantile
from .groups import MAX_THRESHOLDS, ScoreGroups, groups_at, threshold_grid_groups

__all__ = ["SamplePerformance", "sample_performance", "posterior_mean_probability", "weighted_positive_probability",
           "replay_true_positives", "LabelReplay", "expected_true_positives", "Accumulator", "draw_blocks",
           "map_draw_blocks"]

_BLOCK = 1 << 21


@dataclass(frozen=True)
class LabelReplay:
    """What recounts the label draws behind a :class:`SamplePerformance` at other thresholds.

    Attributes
    ----------
    model : FittedScoreModel
        The posterior draws the labels were drawn from.
    groups : ScoreGroups
        The score groups (distinct scores, or score bins at large N) the labels were drawn per.
    seeds : list of numpy.random.SeedSequence, length M
        The seeds of the M label-draw streams.
    bit_generator : type
        The bit generator of those streams (that of the ``rng`` given).
    labeled_groups : int array, shape (n,)
        The group of each labeled item.
    threshold_groups : int array
        The groups whose lower edges are the kept thresholds.
    """

    model: FittedScoreModel
    groups: ScoreGroups
    seeds: list
    labeled_groups: np.ndarray
    threshold_groups: np.ndarray
    bit_generator: type = np.random.PCG64

    def streams(self):
        """The M label-draw streams, recreated from their seeds (the same draws again)."""
        return [np.random.Generator(self.bit_generator(s)) for s in self.seeds]

    @property
    def n_draws(self) -> int:
        """M."""
        return self.model.n_draws

    @property
    def cells(self) -> int:
        """The work per draw of one count: the score groups (K)."""
        return self.groups.n_groups

    def positive_counts(self, rows, streams=None):
        """Drawn positives per score group under the draws ``rows`` (a slice of the M): (M_block, K) integers,
        from the streams given (recreated from the seeds when None)."""
        return _positive_counts(self.model, self.groups, self.streams() if streams is None else streams, rows)

    def expected_positives(self, rows):
        """Expected positives per score group under the draws ``rows``: (M_block, K)."""
        return _expected_positives(self.model, self.groups, rows)

    #: The labels depend on each item's score alone (items with equal scores are exchangeable).
    per_score = True

    def item_probability_draws(self, scores, items):
        """p(y_i = 1 | s_i, θ_m) of the items ``items`` (B,) (positions in ``scores`` (N,)) under every draw:
        (M, B) probabilities."""
        return np.clip(self.model.positive_probability(np.asarray(scores, dtype=float)[items]), 0.0, 1.0)

    def item_probabilities(self, scores, weights):
        """Σ_m w_m p(y = 1 | s_i, θ_m) for the N items of ``scores`` (N,): (N,) probabilities.

        At each distinct score; when the label draws were binned, at each bin's mean score and at the lowest
        and highest scores, interpolated linearly in the score between them (O(M · B) instead of O(M · N))."""
        if self.groups.binned:
            return np.interp(scores, *self.probability_grid(scores.min(), scores.max(), weights))
        at, inv = np.unique(scores, return_inverse=True)
        return weighted_positive_probability(self.model, at, weights)[inv]

    def probability_grid(self, lo, hi, weights):
        """Where item probabilities are interpolated: the groups' scores (the bins' mean scores, or every
        distinct score) and the end scores ``lo``, ``hi`` (beyond the end bins' means), ascending (G,), score
        units; and Σ_m w_m p(y = 1 | s, θ_m) there (G,), probabilities."""
        at = np.unique(np.concatenate([self.groups.p_scores, [lo, hi]]))
        return at, weighted_positive_probability(self.model, at, weights)


@dataclass
class SamplePerformance:
    """Per-draw performance of the classifier on the N items (M draws).

    Attributes
    ----------
    weights : array, shape (M,)
    ranking_metrics : dict of str → array, shape (M,)
        Every metric of the whole ranking registered in :mod:`spe.metrics`
        (prevalence: the fraction of positives among all N items; average
        precision; ROC AUC; …), per draw.
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
    ranking_metrics: dict
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
    def prevalence(self):
        """Fraction of positives among all N items per draw, shape (M,)."""
        return self.ranking_metrics["prevalence"]

    @property
    def population(self) -> SamplePerformance | None:
        """The population performance of the same draws (None on a population performance object)."""
        if self.kind != "sample":
            return None
        if self._population is None:
            r = self.replay
            acc = Accumulator(self.recall_grid, self.fpr_grid, r.labeled_groups, r.threshold_groups, self.n_items)
            acc.fill(r.expected_positives, r, self.workers)
            self._population = acc.result(self.weights, r, "population", self.workers)
        return self._population


class Accumulator:
    """Collects per-draw curves and metrics from blocks of positives per score group.

    Parameters
    ----------
    recall_grid : array, shape (G,)
    fpr_grid : array, shape (G2,)
    lab_groups : int array, shape (n,)
        The score group of each labeled item.
    grid_groups : int array, shape (T,)
        The groups whose lower edges are the kept thresholds (:func:`threshold_grid_groups`).
    n_items : int
        N.
    """

    def __init__(self, recall_grid, fpr_grid, lab_groups, grid_groups, n_items):
        self.recall_grid, self.fpr_grid = recall_grid, fpr_grid
        self.lab_groups, self.grid_groups, self.n = lab_groups, grid_groups, n_items
        self.parts = {key: [] for key in ("ranking", "pr", "roc", "tp", "lrec", "lprec")}

    def block(self, tp, fp):
        """The per-draw results of one block of draws (a pure function, safe to run in threads)."""
        curves = Curves(tp, fp, self.n)
        lab_tp = tp[:, self.lab_groups]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {
                "ranking": ranking_metric_values(curves),
                "pr": pr_at_recall(tp, fp, self.recall_grid),
                "roc": roc_at_fpr(tp, fp, self.fpr_grid, curves.polyline),
                "tp": tp[:, self.grid_groups[::-1]],
                "lrec": lab_tp / tp[:, -1:],
                "lprec": lab_tp / (lab_tp + fp[:, self.lab_groups]),
            }

    def counted(self, positives, counts):
        """:meth:`block` from positives per group (M_block, K) and the items per group (K,)."""
        return self.block(*curves_from_counts(positives, counts))

    def add(self, part):
        """Keep one block's results (blocks are added in the order of the draws)."""
        for key, value in part.items():
            self.parts[key].append(value)

    def fill(self, counts, replay, workers, progress=NO_PROGRESS):
        """Add the curves of every block of draws, from ``counts(rows)`` → positives per group (M_block, K);
        ``progress`` (a :class:`spe.progress.Stage`) advances by each block's draws."""
        for part in map_draw_blocks(lambda rows: self.counted(counts(rows), replay.groups.counts), replay.n_draws,
                                    replay.cells, workers, progress):
            self.add(part)

    def result(self, weights, replay, kind, workers):
        """The :class:`SamplePerformance` of the blocks added, ``kind`` "sample" or "population", carrying the
        ``replay`` that recounts it (its score groups give the thresholds) and the ``workers`` it used."""
        groups = replay.groups
        cat = {key: np.concatenate(v) for key, v in self.parts.items() if key != "ranking"}
        ranking = {name: np.concatenate([part[name] for part in self.parts["ranking"]])
                   for name in self.parts["ranking"][0]}
        order = self.grid_groups[::-1]
        return SamplePerformance(
            weights=weights, ranking_metrics=ranking, recall_grid=np.asarray(self.recall_grid, dtype=float),
            precision_at_recall=cat["pr"], fpr_grid=np.asarray(self.fpr_grid, dtype=float), tpr_at_fpr=cat["roc"],
            thresholds=groups.scores[order].copy(), n_predicted=np.cumsum(groups.counts)[order],
            true_positives=cat["tp"], n_positive=ranking["prevalence"] * self.n, n_items=self.n,
            labeled_recall=cat["lrec"], labeled_precision=cat["lprec"], kind=kind, replay=replay, workers=workers,
        )


def _label_streams(rng, m):
    """M independent label-draw streams, their seeds and their bit generator class (what recreates them for
    :func:`replay_true_positives`)."""
    rng = np.random.default_rng(rng)
    seeds = rng.bit_generator.seed_seq.spawn(m)
    kind = type(rng.bit_generator)
    return [np.random.Generator(kind(s)) for s in seeds], seeds, kind


def draw_blocks(n_draws, n_groups, workers=1):
    """Row slices of the M draws in blocks of at most ``_BLOCK`` (draw, group) cells; with several
    workers, at least 4 blocks per worker so that the threads share the work evenly."""
    step = max(1, _BLOCK // max(n_groups, 1))
    if workers > 1:
        step = min(step, max(1, -(-n_draws // (4 * workers))))
    return [slice(start, min(start + step, n_draws)) for start in range(0, n_draws, step)]


def map_draw_blocks(fn, n_draws, cells, workers, progress=NO_PROGRESS):
    """``[fn(rows) for rows in the blocks of the M = n_draws draws]`` (blocks of at most ``_BLOCK`` cells, ``cells``
    per draw) in the order of the draws, over ``workers`` threads; ``progress`` (a :class:`spe.progress.Stage`)
    advances by each block's draws as it is done."""
    def counted(rows):
        out = fn(rows)
        progress.advance(rows.stop - rows.start)
        return out

    return thread_map(counted, draw_blocks(n_draws, cells, workers), workers)


def _cumulative_at(counts, replay, j, workers):
    """Per-draw cumulative ``counts(rows)`` over the score groups, read at group boundaries j (Q,): (M, Q)."""
    def block(rows):
        pos = counts(rows)
        return np.hstack([np.zeros((pos.shape[0], 1)), np.cumsum(pos, axis=1, dtype=float)])[:, j]

    return np.concatenate(map_draw_blocks(block, replay.n_draws, replay.cells, workers))


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
    pos = np.broadcast_to(groups.n_labeled_pos, (mb, k)).astype(np.int64)  # a new array: astype copies
    if has_unl.any():
        p = np.clip(model.positive_probability(groups.p_scores[has_unl], rows), 0.0, 1.0)
        drawn = np.empty((mb, int(has_unl.sum())), dtype=np.int64)
        for r in range(mb):
            drawn[r] = streams[rows.start + r].binomial(unl[has_unl], p[r])
        pos[:, has_unl] += drawn
    return pos


def _expected_positives(model, groups, rows):
    """Expected positives per score group under the draws ``rows``: counts_k · p(y = 1 | s_k, θ_m), (M_block, K)."""
    p = np.clip(model.positive_probability(groups.p_scores, rows), 0.0, 1.0)
    return p * groups.counts.astype(float)[None, :]


#: Score quantiles at which the posterior mean of p(y = 1 | s) is evaluated to place the label-draw bins.
GUIDE_POINTS = 1025


def posterior_mean_probability(model, sorted_scores, points=GUIDE_POINTS, counts=None):
    """The posterior mean of p(y = 1 | s) as a function of the score, for placing score bins.

    Evaluated under all M draws (weighted) at ``points`` quantiles of the
    scores and interpolated linearly between them; cost O(M · points).

    Parameters
    ----------
    model : FittedScoreModel
    sorted_scores : array, shape (N,)
        All scores, sorted ascending (score units).
    points : int
    counts : int array, shape (N,), optional
        Items each sorted score stands for (a :class:`spe.pool.ScorePool`).

    Returns
    -------
    callable
        Scores s (K,) → Σ_m w_m p(y = 1 | s, θ_m), shape (K,), probabilities.
    """
    grid = np.unique(sorted_quantile(sorted_scores, np.linspace(0.0, 1.0, int(points)), counts))
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
        Score units (or K rows of the features a joint model reads, (K, V): :mod:`spe.performance.joint`).
    weights : array, shape (M,)
        Weights of the draws (normalised: the result is then a mean).
    """
    at = np.asarray(scores, dtype=float)
    weights = np.asarray(weights, dtype=float)
    out = np.zeros(at.shape[0])
    for rows in draw_blocks(weights.size, at.shape[0]):
        out += weights[rows] @ model.positive_probability(at, rows)
    return out


def sample_performance(model, scores, labeled_index, labeled_value, *, rng=None,
                       recall_grid=RECALL_GRID, fpr_grid=FPR_GRID, max_thresholds=MAX_THRESHOLDS, bins=None,
                       sorted_scores=None, workers=1, counts=None):
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
    counts : int array, shape (N,), optional
        ``scores`` are a :class:`spe.pool.ScorePool`'s ascending values, each standing for this many items
        (N is then ``counts.sum()``).

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
        return posterior_mean_probability(model, ss, counts=counts)(s)

    if counts is not None:
        sorted_scores = np.asarray(scores, dtype=float)
    groups = ScoreGroups.build(scores, labeled_index, labeled_value, bins=bins, sorted_scores=sorted_scores,
                               guide=guide, counts=counts)
    n = np.asarray(scores).size if counts is None else int(np.sum(counts))
    lab_groups = groups.groups_of(np.asarray(scores, dtype=float)[labeled_index])
    grid_groups = threshold_grid_groups(groups, max_thresholds)
    streams, seeds, bit_generator = _label_streams(rng, model.n_draws)
    weights = np.asarray(model.weights, dtype=float)
    sample = Accumulator(recall_grid, fpr_grid, lab_groups, grid_groups, n)
    threads = resolve_workers(workers)
    replay = LabelReplay(model, groups, seeds, lab_groups, grid_groups, bit_generator)
    with stage("drawing the unknown labels", model.n_draws, "draw") as progress:
        sample.fill(lambda rows: replay.positive_counts(rows, streams), replay, threads, progress)
    return sample.result(weights, replay, "sample", threads)


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
    return _cumulative_at(lambda rows: r.positive_counts(rows, streams), r, j, performance.workers), n_pred


def expected_true_positives(performance, thresholds):
    """Per-draw expected positives among the items scored ≥ each threshold (population performance).

    Same shapes as :func:`replay_true_positives`.
    """
    r = performance.replay
    j, n_pred = groups_at(r.groups, thresholds)
    return _cumulative_at(r.expected_positives, r, j, performance.workers), n_pred
