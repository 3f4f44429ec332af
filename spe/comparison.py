"""``spe.compare``: several classifiers that scored the same items, one set of labels, one joint estimate.

The classifiers' scores are read together (:mod:`spe.models.joint`). The
candidate models of p(y | every classifier's score), averaged by their
evidence on the labeled items (those failing the label check left out):

* the joint log-odds z of a Gaussian mixture over all of them (no labels),
  calibrated on the labeled items by the score models of
  :func:`spe.fit_scores`;
* a Bayesian logistic recalibration on z and every classifier's log-odds
  (:class:`~spe.models.joint.JointLink`);
* each classifier's own score models (:func:`spe.fit_scores` on its scores,
  what :func:`spe.evaluate` fits): the fallbacks when the joint pieces rank
  the items worse than one classifier alone (issue 23's "single-classifier
  models as fallbacks").
 The unknown labels are drawn once per
posterior draw from that joint model, and every classifier's curves and
metrics are counted from the same labels (:mod:`spe.performance.joint`), so
a difference between two classifiers has the band of the difference, and
P(A better than B) is the posterior probability over the label draws.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from .api import fit_scores, resolve_score_bins
from .display import classifiers_frame, comparison_html, comparison_repr
from .evaluation import Evaluation, Interval, summarise_draws
from .exceptions import Notice, SpeInputError, SpeWarning, plain
from .inputs import as_scores, check_level, item_ids, normalize_labels, seed_of
from .metrics import REGISTRY as METRICS
from .metrics import ranking_metric_names
from .models.average import average_models
from .models.criticism import P_VALUE_THRESHOLD, label_check
from .models.features import log_odds_feature
from .models.joint import fit_joint_link, joint_log_odds, view_model
from .models.mixture import resolve_score_reading, resolve_score_type
from .output import jsonable, save_json
from .parallel import TaskPool, one_blas_thread
from .progress import NO_PROGRESS, shown, stage
from .performance.joint import sample_joint_performance

__all__ = ["compare", "Comparison", "compared_metric_names", "differences_frame", "JOINT_VIEW"]

#: The name of the joint log-odds in the tables of models.
JOINT_VIEW = "joint"

#: Said with every joint estimate until the joint model meets issue 23's targets (measured by
#: benchmarks/compare.py at 20 labels, 10 seeds: benchmarks/results/compare_10_20_50.txt; CHANGELOG).
UNVALIDATED = ("the joint model of several classifiers meets only part of its targets: on the shared pools at 20 "
               "labels its bands covered the true PR curves on 93% of the recall grid and its error was on average "
               "0.68 times each classifier's alone, but the strongest classifier of a pool can be estimated worse "
               "than by spe estimate alone (a gradient-boosting classifier: PR-curve error 0.053 against 0.036); "
               "check the strongest classifier's own curve with spe estimate")


#: Default recall of the "precision at recall" comparison and precision of the "recall at precision" one.
AT_RECALL = 0.5
AT_PRECISION = 0.9


def compared_metric_names():
    """The registered metrics of the ranking that say which classifier is better (``better`` declared)."""
    return tuple(n for n in ranking_metric_names() if METRICS[n].better is not None)


def _classifier_matrix(scores, names):
    """(names (K,), scores (N, K), the items' ids (N,) or None) from a mapping, a DataFrame, a 2-D array or a list
    of 1-D arrays; pandas Series that carry ids are aligned by id on the first one's order."""
    if hasattr(scores, "columns") and hasattr(scores, "to_numpy"):  # a DataFrame; its 'id' column names the items
        if "id" in [str(c) for c in scores.columns]:
            scores = scores.set_index(scores.columns[[str(c) for c in scores.columns].index("id")])
        keys, columns = [str(c) for c in scores.columns], [scores[c] for c in scores.columns]
    elif isinstance(scores, Mapping):
        keys, columns = [str(k) for k in scores], list(scores.values())
    else:
        arr = scores if isinstance(scores, (list, tuple)) else np.asarray(scores)
        _refuse_items_by_row(arr)
        columns = list(arr) if isinstance(arr, (list, tuple)) else list(np.atleast_2d(arr.T))
        keys = [f"classifier {k + 1}" for k in range(len(columns))]
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(columns):
            raise SpeInputError(f"{len(names)} names for {len(columns)} classifiers", argument="names")
        keys = names
    if not columns:
        raise SpeInputError("no classifier's scores", argument="scores")
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise SpeInputError(f"two classifiers are named {dup[0]!r}: give each its own name", argument="names")
    columns, ids = _aligned_by_id(keys, columns)
    cols = [as_scores(c, argument=f"scores[{k!r}]") for k, c in zip(keys, columns)]
    sizes = {c.size for c in cols}
    if len(sizes) > 1:
        first = cols[0].size
        other = next(k for k, c in zip(keys, cols) if c.size != first)
        raise SpeInputError(f"the classifiers scored different numbers of items: {keys[0]!r} {first}, {other!r} "
                            f"{cols[keys.index(other)].size}; they must score the same items", argument="scores")
    return keys, np.column_stack(cols), ids


def _refuse_items_by_row(arr):
    """An array (K, N) with fewer rows than columns: one row per classifier, where one column per classifier is
    read; say to transpose it."""
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[0] < arr.shape[1]:
        k, n = arr.shape
        raise SpeInputError(f"an array of shape {arr.shape} reads as {n} classifiers (one per column) of {k} items "
                            f"each; for {k} classifiers of {n} items pass its transpose (scores.T), or a list or "
                            "dict of 1-D arrays", argument="scores")


def _aligned_by_id(keys, columns):
    """The classifiers' columns in one order of the items, and their ids (N,) or None: pandas Series (or
    DataFrame columns) whose index is not 0..N-1 carry ids, and each is reordered to the first one's ids.

    Raises SpeInputError when some carry ids and others do not, an index repeats an id, or the ids differ."""
    ids = [item_ids(c) for c in columns]
    if all(i is None for i in ids):
        return [c.to_numpy() if hasattr(c, "to_numpy") else c for c in columns], None
    if any(i is None for i in ids):
        k = next(k for k, i in zip(keys, ids) if i is None)
        raise SpeInputError(f"classifier {k!r} has no ids (a pandas index) while others do: give every classifier "
                            "its scores indexed by the same ids, or none", argument="scores")
    first = columns[0]
    out = []
    for k, c in zip(keys, columns):
        if not c.index.is_unique:
            twice = plain(c.index[c.index.duplicated()][0])
            raise SpeInputError(f"classifier {k!r} scores the id {twice!r} twice", argument="scores")
        if len(c) != len(first) or not c.index.isin(first.index).all():
            missing = c.index[~c.index.isin(first.index)]
            said = (f"id {plain(missing[0])!r} is not among {keys[0]!r}'s" if len(missing)
                    else f"it scores {len(c)} items, {keys[0]!r} {len(first)}")
            raise SpeInputError(f"classifier {k!r} did not score the same items as {keys[0]!r}: {said}",
                                argument="scores")
        out.append(c.loc[first.index].to_numpy())
    return out, ids[0]


def compare(scores, labels=None, *, names=None, draws=1000, level=0.9, rng=None, score_bins="auto",
            workers=None, **options):
    """Evaluate several classifiers that scored the same items, from all their scores and one set of labels.

    All the classifiers' scores are modelled together (:mod:`spe.models.joint`): the joint log-odds z of a
    Gaussian mixture over all of them, calibrated by SPE's score models (:func:`spe.fit_scores`: the mixture of
    Welinder et al. 2013 and the recalibrations, averaged by evidence), a Bayesian logistic recalibration on z
    and every classifier's log-odds, and each classifier's own score models (as :func:`spe.evaluate` fits them),
    all averaged by their evidence on the labeled items. The unknown
    labels are drawn once per posterior draw from that average and every classifier's performance is counted
    from the same labels (:mod:`spe.performance.joint`): a weak classifier's unknown labels are drawn from what
    the strong ones say, and differences between classifiers get the bands of differences. One classifier:
    its own score models, as :func:`spe.evaluate`.

    On the shared benchmark pools at 20 labels the error is on average 0.68 times each classifier's alone and
    the bands cover 93% of the true curves, but the strongest classifier of a pool can be estimated worse than
    alone (docs/usage.md).

    Parameters
    ----------
    scores : mapping name → array (N,), DataFrame (one column per classifier), array (N, K) or list of arrays
        The K classifiers' scores of the same N items in the same order (score units, finite). Never modified.
        pandas Series (or a DataFrame) indexed by the items' ids are matched by id (in the first one's order),
        and labels may then be keyed by id. A mapping or list of multiclass score matrices (each an (N, K)
        array or a DataFrame of class columns) compares multiclass classifiers:
        :func:`spe.multiclass.comparison.compare_classes` (a
        :class:`~spe.multiclass.comparison.MulticlassComparison` for three or more classes).
    labels : as :func:`spe.evaluate`'s
        The known labels of items (positions 0..N-1), shared by every classifier.
    names : list of str, optional
        The classifiers' names (default: the mapping's keys, the DataFrame's columns, else "classifier 1", …).
    draws : int
        M, posterior draws (≥ 100) of each model and of their average.
    level : float
        Credible level, in (0, 1).
    rng : numpy.random.Generator, int or None
        Same seed, same result.
    score_bins : "auto", int or None
        As :func:`spe.evaluate`'s, for each classifier's thresholds (the labels are drawn per item).
    workers : int or None
        As :func:`spe.evaluate`'s.
    **options
        The model options of :func:`spe.evaluate` (``score_model``, ``inference``, ``temper``, …) for each
        classifier's own score models (its scores as given) and for those of the joint log-odds (read as
        log-odds, families ``"auto"``); ``score_type`` also says how each classifier's scores become log-odds.
        ``reference`` is not supported here.

    Returns
    -------
    Comparison

    Raises
    ------
    SpeInputError
        As :func:`spe.evaluate`, and: no classifier, classifiers of different lengths, duplicate names, a
        ``reference``.

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(3000) < 0.2
    >>> good = np.where(y, rng.normal(2.5, 1, 3000), rng.normal(0, 1, 3000))
    >>> weak = np.where(y, rng.normal(1, 1, 3000), rng.normal(0, 1, 3000))
    >>> known = {int(i): int(y[i]) for i in rng.choice(3000, 30, replace=False)}
    >>> cmp = spe.compare({"good": good, "weak": weak}, known, draws=300, rng=1)
    >>> cmp.probability_better("good", "weak") > 0.9
    True
    """
    from .multiclass.comparison import all_multiclass, compare_classes

    if all_multiclass(scores):  # every classifier's (N, K) class scores
        binary = {**options, **({} if score_bins == "auto" else {"score_bins": score_bins})}
        return compare_classes(scores, labels, names=names, draws=draws, level=level, rng=rng, workers=workers,
                               **binary)
    with shown(options.pop("progressbar", None)), one_blas_thread():
        return _compare(scores, labels, names, draws, level, rng, score_bins, workers, options)


def _compare(scores, labels, names, draws, level, rng, score_bins, workers, options):
    """:func:`compare`, with the progress bars set."""
    level = check_level(level)
    if options.get("reference") is not None:
        raise SpeInputError("a reference set belongs to one classifier; spe.compare does not take one",
                            argument="reference")
    options.pop("reference", None)
    keys, matrix, ids = _classifier_matrix(scores, names)
    index, value = normalize_labels(labels, matrix.shape[0], ids, options.pop("pos_label", None))
    seed = seed_of(rng)
    k = matrix.shape[1]
    view_rng, link_rng, avg_rng, check_rng, label_rng, *alone_rngs = np.random.default_rng(seed).spawn(5 + k)
    features = _features(matrix, options.get("score_type", "auto"))
    view, *alone_fits = _fit_classifiers(features[:, 0], matrix, (index, value), [view_rng, *alone_rngs], draws,
                                         workers, options)
    candidates = [(view_model(view.model, 0, features[:, 0], JOINT_VIEW if k > 1 else keys[0]), _check_of(view))]
    messages = [_named(JOINT_VIEW, m) if k > 1 else m if isinstance(m, Notice) else Notice(str(m))
                for m in view.messages]
    alone = {}
    if k > 1:
        link = fit_joint_link(features[:, :1 + k], index, value, draws=view.model.n_draws, rng=link_rng)
        candidates.append((link, label_check(link, features[index], value, rng=check_rng) if index.size else np.nan))
        for j, name in enumerate(keys):
            alone[name] = alone_fits[j]
            candidates.append((view_model(alone[name].model, 1 + k + j, matrix[:, j], name), _check_of(alone[name])))
            messages += [_named(name, m) for m in alone[name].messages]
    model, table = _average(candidates, avg_rng)
    n_distinct = max(fit.n_distinct for fit in (alone.values() if alone else [view]))
    perfs = sample_joint_performance(model, features, list(matrix.T), index, value, rng=label_rng,
                                     bins=resolve_score_bins(score_bins, n_distinct), workers=workers)
    diagnostics = {"seed": seed, "draws": int(model.n_draws), "models": table, "view": view.diagnostics,
                   "alone": {name: fit.diagnostics for name, fit in alone.items()},
                   "score_types": _score_types(keys, matrix, options.get("score_type", "auto"))}
    evaluations = {name: _classifier_evaluation(matrix[:, j], index, value, level, model, perfs[j], diagnostics, ids)
                   for j, name in enumerate(keys)}
    if k > 1:
        messages.append(Notice(UNVALIDATED, SpeWarning, "compare"))
    for msg in messages:
        msg.emit(stacklevel=2)
    return Comparison(names=keys, evaluations=evaluations, model=model, level=level, labeled_index=index,
                      labeled_value=value, diagnostics=diagnostics, warnings=[str(m) for m in messages])


def _features(matrix, score_type):
    """What the joint models read of each item: (N, 1 + 2K) for K > 1 classifiers — the joint log-odds
    (:func:`joint_log_odds`), each classifier's scores read as log-odds, then each classifier's scores as given
    (what its own score models read); for one classifier its scores (N, 1)."""
    if matrix.shape[1] == 1:
        return matrix.copy()
    kinds = [resolve_score_type(c, score_type) for c in matrix.T]
    logits = np.column_stack([log_odds_feature(c, t)(c) for c, t in zip(matrix.T, kinds)])
    return np.column_stack([joint_log_odds(matrix), logits, matrix])


def _score_types(names, matrix, score_type):
    """How each classifier's scores (N, K) are read: {name: "probability", "log-odds" or "decision"}."""
    return {n: resolve_score_reading(c, score_type)[0] for n, c in zip(names, matrix.T)}


def _view_options(options, joint):
    """The options of the view's fit: the joint log-odds are read as log-odds, families chosen automatically; one
    classifier's scores as the user said."""
    return dict(options, score_type="log-odds", families="auto", score_space="linear") if joint else options


def _fit_classifiers(view_values, matrix, labels, rngs, draws, workers, options):
    """:func:`spe.fit_scores` of the view (the joint log-odds, or the one classifier's scores) and, for K > 1
    classifiers, of each classifier's own scores: [view fit, fit of classifier 1, …, of classifier K].

    The fits are independent, each on its own stream of ``rngs`` (K + 1), so with several workers they run in
    parallel processes, one fit per process (each then screens its family pairs alone), with the results of
    fitting them one after the other; their warnings are raised here, in order. A classifier's own fit takes as
    many draws as the view's model has."""
    k = matrix.shape[1]
    unused = copy.deepcopy(rngs)  # a refit with other draws (below) starts from the stream as it was
    jobs = [(view_values, rngs[0], _view_options(options, k > 1))]
    jobs += [(matrix[:, j], rngs[1 + j], options) for j in range(k)] if k > 1 else []
    with TaskPool(workers if len(jobs) > 1 else 1, shared=(labels, draws)) as pool:
        inner = 1 if pool.workers > 1 else workers
        with stage(f"fitting the classifiers' score models ({len(jobs)} fits in {pool.workers} processes)",
                   len(jobs), "fit") if pool.workers > 1 else nullcontext(NO_PROGRESS) as progress:
            done = pool.map_shared(_fit_one, *zip(*jobs), [inner] * len(jobs), [pool.workers > 1] * len(jobs),
                                   progress=progress)
    fits = []
    for (values, _, opts), rng, (fit, caught) in zip(jobs, unused, done):
        for message, category, filename, lineno in caught:
            warnings.warn_explicit(message, category, filename, lineno)
        if fits and fit.model.n_draws != fits[0].model.n_draws:  # the view's model has another number of draws
            fit = fit_scores(values, labels, rng=rng, draws=fits[0].model.n_draws, workers=workers, **opts)
        fits.append(fit)
    return fits


def _fit_one(shared, values, rng, options, workers, in_worker):
    """One fit of :func:`_fit_classifiers` (a task of its :class:`~spe.parallel.TaskPool`, ``shared`` = (labels,
    draws)): (the :class:`~spe.api.ScoresFit`, the warnings it raised as (message, category, file, line)). In a
    worker process it shows no progress bars (the parent's bar counts the fits)."""
    labels, draws = shared
    with warnings.catch_warnings(record=True) as caught, shown(False if in_worker else None):
        warnings.simplefilter("always")
        fit = fit_scores(values, labels, rng=rng, draws=draws, workers=workers, **options)
    return fit, [(w.message, w.category, w.filename, w.lineno) for w in caught]


def _check_of(fit):
    """The label check's p-value of a :class:`~spe.api.ScoresFit` (NaN when there was none)."""
    p = (fit.diagnostics.get("label_check") or {}).get("p_value")
    return np.nan if p is None else float(p)


def _shortened(text, width):
    """``text`` in at most ``width`` characters, cut after a whole model name (at ", ") with "…"."""
    if len(text) <= width:
        return text
    cut = text.rfind(", ", 0, width - 1)
    return (text[:cut] if cut > 0 else text[:width - 1]) + "…"


def _named(name, message):
    """A classifier's own warning, saying which classifier it is about."""
    category, source = getattr(message, "category", SpeWarning), getattr(message, "source", "spe")
    return Notice(f"{name}: {message}", category, source)


def _average(candidates, avg_rng):
    """The joint model: the candidate models averaged by their evidence, those failing the label check
    (p-value below :data:`~spe.models.criticism.P_VALUE_THRESHOLD`) left out; and the table of their evidence,
    weight and label check.

    ``candidates``: (FittedScoreModel, label-check p-value or NaN) pairs."""
    models, checks = [m for m, _ in candidates], [p for _, p in candidates]
    exclude = [bool(p < P_VALUE_THRESHOLD) for p in checks]
    if len(models) == 1:
        model = models[0]
        rows = [{"model": model.name, "log_evidence": model.log_evidence, "weight": 1.0}]
    else:
        model = average_models(models, draws=models[0].n_draws, rng=avg_rng, exclude=exclude)
        rows = model.diagnostics["models"]
    table = [{"model": r["model"], "log_evidence": r["log_evidence"], "weight": r["weight"],
              "label_check_p": None if not np.isfinite(p) else float(p), "excluded": x,
              "left_out_by": "labels" if x else None}
             for r, p, x in zip(rows, checks, exclude)]
    return model, table


def _classifier_evaluation(scores, index, value, level, model, perf, joint_diagnostics, ids=None):
    """One classifier's :class:`Evaluation` from the shared label draws of the joint model."""
    diagnostics = dict(joint_diagnostics,
                       score_bins=None if not perf.replay.groups.binned else int(perf.replay.groups.n_groups),
                       labels_drawn_from="the joint model of every classifier's scores (spe.compare)")
    return Evaluation(scores=scores.copy(), labeled_index=index, labeled_value=value, level=level, model=model,
                      performance=perf, families={"negative": None, "positive": None}, diagnostics=diagnostics,
                      ids=ids)


def differences_frame(comparisons, level):
    """The rows of :meth:`Comparison.comparisons` (a list of dicts, the JSON contract's ``comparisons``) as a
    tidy DataFrame: ``a``, ``b``, ``metric``, ``mean``, ``median``, ``lo``, ``hi``, ``level``, ``p_a_better``."""
    import pandas as pd

    nan = float("nan")
    return pd.DataFrame([{"a": c["a"], "b": c["b"], "metric": c["metric"],
                          **{k: nan if c["difference"].get(k) is None else c["difference"][k]
                             for k in ("mean", "median", "lo", "hi")},
                          "level": level, "p_a_better": nan if c["p_a_better"] is None else c["p_a_better"]}
                         for c in comparisons],
                        columns=["a", "b", "metric", "mean", "median", "lo", "hi", "level", "p_a_better"])


@dataclass
class Comparison:
    """SPE's joint estimate of several classifiers' performance on one pool.

    Build it with :func:`spe.compare`. Every classifier's :class:`Evaluation` (curves with bands, metrics,
    thresholds, item probabilities) comes from the same posterior label draws, so the difference of any metric
    between two classifiers is a weighted posterior sample too.

    Attributes
    ----------
    names : list of str, length K
    evaluations : dict name → Evaluation
    model : FittedScoreModel
        The joint score model (averaged by evidence): ``probability(draws, features (B, 1 + 2K))`` (the joint
        log-odds, the K log-odds, the K scores; :func:`compare`'s ``_features``).
    level : float
    labeled_index, labeled_value : int arrays, shape (n,)
    diagnostics : dict
        ``seed``, ``draws``, ``models`` (each candidate model's log evidence, weight, label check), ``view``
        (the diagnostics of the score models fitted on the joint log-odds) and ``alone`` (name → the diagnostics
        of that classifier's own score models).
    warnings : list of str

    Examples
    --------
    The examples of the queries below start from this ``cmp``: two
    classifiers of the same 1,500 simulated items, 25 of them labeled.

    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(3)
    >>> y = (rng.random(1500) < 0.2).astype(int)
    >>> good = np.where(y == 1, rng.normal(2, 1, 1500), rng.normal(0, 1, 1500))
    >>> weak = good + np.random.default_rng(4).normal(0, 1.5, 1500)
    >>> known = {int(i): int(y[i]) for i in np.random.default_rng(5).choice(1500, 25, replace=False)}
    >>> cmp = spe.compare({"good": good, "weak": weak}, known, draws=200, rng=0)
    >>> cmp.names
    ['good', 'weak']
    """

    names: list
    evaluations: dict
    model: object
    level: float
    labeled_index: np.ndarray
    labeled_value: np.ndarray
    diagnostics: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)

    def item_probabilities(self):
        """Posterior probability that each item is positive given every classifier's scores and the labels,
        p̂(y_i = 1 | S¹, …, Sᴷ, Y_L): the weighted mean over draws of the joint model (the same for every
        classifier; paper §4.4). Labeled items keep their label.

        Returns
        -------
        array, shape (N,)
            Probabilities in [0, 1], in the items' order.

        Examples
        --------
        >>> cmp.item_probabilities().shape
        (1500,)
        """
        return self.evaluations[self.names[0]].item_probabilities()

    def items_frame(self, ids=None):
        """Every item as a DataFrame, N rows: one score column per classifier (named by it, score units),
        ``label`` (0/1, <NA> unlabeled) and ``probability`` (:meth:`item_probabilities`), indexed by ``ids``
        (N,) when given, else by position. Raises ``SpeInputError`` when ``ids`` does not have N entries.

        Examples
        --------
        >>> list(cmp.items_frame().columns)
        ['good', 'weak', 'label', 'probability']
        """
        first = self.evaluations[self.names[0]].items_frame(ids)
        scores = {n: self.evaluations[n].scores for n in self.names}
        return first.drop(columns="score").assign(**scores)[[*self.names, "label", "probability"]]

    def suggest(self, k=10, target="compare", strategy="information", classifier=None, rng=None):
        """The k items to label next so that their labels settle ``target`` (default: which classifier is better
        in average precision, every pair), from the joint model's draws (:func:`spe.active.suggest`).

        Returns
        -------
        spe.active.Suggestion
            ``items`` (positions 0..N-1, never labeled ones), best first, with ``expected_gain`` (AP units for
            ``"compare"``).

        Raises
        ------
        SpeInputError
            An unknown target, strategy or classifier, k not an integer in [1, unlabeled items].

        Examples
        --------
        >>> s = cmp.suggest(5, rng=0)
        >>> len(s.items), s.names
        (5, ('good', 'weak'))
        """
        from .active import suggest

        return suggest(self, k, target=target, strategy=strategy, classifier=classifier, rng=rng)

    def plan_labels(self, width=None, probability=None, target="compare", strategy="information", classifier=None,
                    max_labels=None, futures=200, rng=None):
        """About how many more labels until ``target`` is settled, over simulated futures of the labels
        (:func:`spe.active.plan`). Without a goal: every pair's sign of the AP difference decided with
        probability 0.9.

        Returns
        -------
        spe.active.LabelPlan

        Raises
        ------
        SpeInputError
            Both goals, a goal that does not fit the target, an unknown target, strategy or classifier,
            max_labels beyond the unlabeled items.

        Examples
        --------
        >>> plan = cmp.plan_labels(target="compare", max_labels=60, futures=20, rng=0)
        >>> q10, median, q90 = plan.labels_needed()
        >>> bool(q10 <= median <= q90)
        True
        """
        from .active import plan

        if width is None and probability is None:
            probability = 0.9
        return plan(self, width=width, probability=probability, target=target, strategy=strategy,
                    classifier=classifier, max_labels=max_labels, futures=futures, rng=rng)

    def __getitem__(self, name) -> Evaluation:
        return self.evaluations[self._name(name)]

    @property
    def n_items(self) -> int:
        """N."""
        return self.evaluations[self.names[0]].n_items

    @property
    def weights(self):
        """Weights of the M draws (shared by every classifier), shape (M,)."""
        return self.evaluations[self.names[0]].weights

    def _level(self, level):
        return self.level if level is None else check_level(level)

    def _name(self, name):
        if name not in self.evaluations:
            raise SpeInputError(f"no classifier {plain(name)!r}; the classifiers are {', '.join(self.names)}",
                                argument="name")
        return name

    def metric_draws(self, name, metric="average_precision", performance="sample"):
        """A metric of one classifier under each of the M draws, (M,).

        ``metric``: a metric of the ranking (:func:`compared_metric_names`), ``"precision_at_recall"`` (at
        ``AT_RECALL`` = 0.5; or ``"precision_at_recall:R"``) or ``"recall_at_precision"`` (at ``AT_PRECISION``
        = 0.9, or ``":P"``: the largest recall of the grid whose precision is ≥ P; 0 when none). Values are
        probabilities (the metric's units; NaN where a draw leaves it undefined).

        Raises
        ------
        SpeInputError
            An unknown classifier, or a metric that does not say which value is better.

        Examples
        --------
        >>> cmp.metric_draws("good", "roc_auc").shape == cmp.weights.shape
        True
        """
        perf = self[name].performance_of(performance)
        kind, _, at = str(metric).partition(":")
        if kind == "precision_at_recall":
            r = AT_RECALL if not at else float(at)
            return perf.precision_at_recall[:, int(np.argmin(np.abs(perf.recall_grid - r)))]
        if kind == "recall_at_precision":
            p = AT_PRECISION if not at else float(at)
            ok = perf.precision_at_recall >= p - 1e-12
            return np.where(ok.any(axis=1), np.max(np.where(ok, perf.recall_grid, 0.0), axis=1), 0.0)
        if metric not in compared_metric_names():
            raise SpeInputError(f"cannot compare classifiers by {plain(metric)!r}; use one of "
                                f"{', '.join(compared_metric_names())}, precision_at_recall[:R] or "
                                "recall_at_precision[:P]", argument="metric")
        return perf.ranking_metrics[metric]

    def _lower_is_better(self, metric):
        m = METRICS.get(str(metric).partition(":")[0])
        return m is not None and m.better == "lower"

    def _difference_draws(self, a, b, metric, performance):
        """metric(a) − metric(b) under each draw, (M,)."""
        return self.metric_draws(a, metric, performance) - self.metric_draws(b, metric, performance)

    def _p_better(self, d, metric):
        """P(difference d (M,) favours a), a tie counting one half; draws where it is undefined left out."""
        if self._lower_is_better(metric):
            d = -d
        ok = np.isfinite(d)
        if not ok.any():
            return float("nan")
        w = self.weights[ok] / self.weights[ok].sum()
        return float(np.clip(w @ ((d[ok] > 0) + 0.5 * (d[ok] == 0)), 0.0, 1.0))

    def difference(self, a, b, metric="average_precision", level=None, performance="sample") -> Interval:
        """The posterior of metric(a) − metric(b) over the shared label draws: mean, median, equal-tailed
        interval at ``level`` (the metric's units: a difference of probabilities for every default metric).

        Raises
        ------
        SpeInputError
            An unknown classifier or metric (:meth:`metric_draws`), or a bad ``level``.

        Examples
        --------
        >>> d = cmp.difference("good", "weak")
        >>> bool(d.lo <= d.mean <= d.hi)
        True
        """
        return summarise_draws(self._difference_draws(a, b, metric, performance), self.weights, self._level(level))

    def probability_better(self, a, b, metric="average_precision", performance="sample") -> float:
        """P(a is better than b by ``metric``) under the posterior, in [0, 1] (NaN when undefined in every draw);
        a tie counts one half, draws where either is undefined are left out; "better" is the metric's declared
        direction (:attr:`spe.metrics.Metric.better`; higher for ``precision_at_recall`` and
        ``recall_at_precision``).

        Raises
        ------
        SpeInputError
            An unknown classifier or metric.

        Examples
        --------
        >>> bool(0.5 < cmp.probability_better("good", "weak") <= 1)
        True
        """
        return self._p_better(self._difference_draws(a, b, metric, performance), metric)

    def ranking(self, metric="average_precision", performance="sample") -> list:
        """Each classifier's posterior probability of being the best by ``metric`` (ties shared) and its
        posterior mean, best first: a list of ``{"name", "p_best", "mean"}`` (p_best sums to 1 over the K).
        Raises :class:`SpeInputError` on an unknown metric (:meth:`metric_draws`).

        Examples
        --------
        >>> cmp.ranking()[0]["name"]
        'good'
        """
        values = np.column_stack([self.metric_draws(n, metric, performance) for n in self.names])
        means = [summarise_draws(v, self.weights, self.level).mean for v in values.T]
        values = -values if self._lower_is_better(metric) else values
        values = np.where(np.isfinite(values), values, -np.inf)
        best = values == values.max(axis=1, keepdims=True)
        share = best / best.sum(axis=1, keepdims=True)
        p = np.clip(self.weights @ share, 0.0, 1.0)
        rows = [{"name": n, "p_best": float(pb), "mean": float(mu)} for n, pb, mu in zip(self.names, p, means)]
        return sorted(rows, key=lambda r: -r["p_best"])

    def comparisons(self, metrics=None, level=None, performance="sample") -> list:
        """Every pair (a before b in ``names``) and metric: ``{"a", "b", "metric", "difference", "p_a_better"}``
        (the ``spe compare --json`` contract). Default metrics: those of :func:`compared_metric_names`,
        ``precision_at_recall`` and ``recall_at_precision``. Raises :class:`SpeInputError` on an unknown metric
        or a bad ``level``.

        Examples
        --------
        >>> c = cmp.comparisons(["roc_auc"])
        >>> (c[0]["a"], c[0]["b"], c[0]["metric"])
        ('good', 'weak', 'roc_auc')
        """
        metrics = list(metrics or (*compared_metric_names(), "precision_at_recall", "recall_at_precision"))
        level = self._level(level)
        out = []
        for i, a in enumerate(self.names):
            for b in self.names[i + 1:]:
                for m in metrics:
                    d = self._difference_draws(a, b, m, performance)
                    out.append({"a": a, "b": b, "metric": m,
                                "difference": jsonable(summarise_draws(d, self.weights, level).to_dict()),
                                "p_a_better": self._p_better(d, m)})
        return out

    def to_dict(self, level=None, performance="sample", items=False) -> dict:
        """JSON-ready dict; ``spe compare --json`` writes exactly this (DESIGN.md contract). With ``items=True``
        also ``items``: ``score`` (classifier → its N scores), ``label`` (0, 1 or None when unlabeled) and
        ``probability`` (:meth:`item_probabilities`), N each.

        Examples
        --------
        >>> sorted(cmp.to_dict()["classifiers"])
        ['good', 'weak']
        """
        level = self._level(level)
        return {
            "n_items": self.n_items,
            "n_labeled": int(self.labeled_index.size),
            "level": level,
            "performance": performance,
            "classifiers": {n: self[n].to_dict(level, performance) for n in self.names},
            "comparisons": self.comparisons(level=level, performance=performance),
            "ranking": self.ranking(performance=performance),
            "diagnostics": jsonable(self.diagnostics),
            "warnings": list(self.warnings),
            **({"items": self._items_dict()} if items else {}),
        }

    def _items_dict(self):
        first = self.evaluations[self.names[0]].items_dict()
        return {"score": {n: jsonable(np.asarray(self.evaluations[n].scores, dtype=float)) for n in self.names},
                "label": first["label"], "probability": first["probability"]}

    def to_frame(self, level=None, performance="sample"):
        """Every classifier's whole-ranking metrics as one tidy DataFrame: :meth:`Evaluation.to_frame`'s rows
        with a first column ``classifier`` (K × 5 rows). Raises as :meth:`Evaluation.to_frame`.

        Examples
        --------
        >>> cmp.to_frame()["classifier"].unique().tolist()
        ['good', 'weak']
        """
        return classifiers_frame({n: self[n].to_frame(level, performance) for n in self.names})

    def differences_frame(self, metrics=None, level=None, performance="sample"):
        """:meth:`comparisons` as a tidy DataFrame, one row per pair and metric: ``a``, ``b``, ``metric``,
        ``mean``, ``median``, ``lo``, ``hi`` (of the difference a − b, with its credible interval at
        ``level``), ``level`` and ``p_a_better``. Raises as :meth:`comparisons`.

        Examples
        --------
        >>> cmp.differences_frame(["average_precision"])[["a", "b"]].values.tolist()
        [['good', 'weak']]
        """
        level = self._level(level)
        return differences_frame(self.comparisons(metrics, level, performance), level)

    def save(self, path, level=None, performance="sample", items=False):
        """Write :meth:`to_dict` to ``path`` as JSON (what ``spe compare --json`` writes), whole or not at all;
        :func:`spe.load` reads it back as a :class:`spe.saved.SavedComparison` (the summaries at ``level``, not
        the posterior draws: pickle the Comparison to keep those). ``items=True`` adds every item's scores,
        label and probability, so that the loaded result answers :meth:`item_probabilities` and
        :meth:`items_frame` too. Returns ``path``; raises ``SpeInputError`` when it cannot be written.

        Examples
        --------
        >>> import os, tempfile
        >>> back = spe.load(cmp.save(os.path.join(tempfile.mkdtemp(), "cmp.json")))
        >>> back.names
        ['good', 'weak']
        """
        return save_json(self.to_dict(level, performance, items), path)

    def _counts(self):
        return f"spe.Comparison: {len(self.names)} classifiers, {self.n_items} items, {self.labeled_index.size} labeled"

    def __repr__(self):
        return comparison_repr(self._counts(), self)

    def _repr_html_(self):
        """A notebook's view: the counts and a table of every classifier's metrics (one column each)."""
        return comparison_html(self._counts(), self)

    def summary(self, level=None, performance="sample", warnings=True) -> str:
        """A short human-readable report (what ``spe compare`` prints; ``warnings=False`` leaves out the
        warnings, which the command prints on standard error).

        Examples
        --------
        >>> print(cmp.summary())  # doctest: +ELLIPSIS
        spe compare: 2 classifiers, 1500 items, 25 labeled ...
        ...
        """
        level = self._level(level)
        pct = f"{100 * level:g}%"
        n_pos = int(np.sum(self.labeled_value == 1))
        lines = [f"spe compare: {len(self.names)} classifiers, {self.n_items} items, {self.labeled_index.size} "
                 f"labeled ({n_pos} positive), every figure from the same label draws",
                 "models of the labels (joint, and each classifier alone), weighted by their evidence "
                 "p(labels | scores):"]
        for v in self.diagnostics["models"]:
            left = "  (label check failed: left out)" if v["excluded"] else ""
            lines.append(f"  {_shortened(v['model'], 60):<60s} weight {v['weight']:.3f}  log evidence "
                         f"{v['log_evidence']:8.2f}{left}")
        first = self[self.names[0]]
        types = self.diagnostics.get("score_types") or {}
        if types:
            lines.append("scores read as: " + ", ".join(f"{n} {t}" for n, t in types.items()))
        lines.append(f"prevalence {first.prevalence(level, performance)}")
        lines.append(f"{performance} performance, posterior mean [{pct} credible interval]:")
        width = max(len(n) for n in self.names)
        for n in self.names:
            ev = self[n]
            lines.append(f"  {n:<{width}s}  AP {ev.average_precision(level, performance)}  "
                         f"ROC AUC {ev.roc_auc(level, performance)}")
        lines.append("probability of being the best by average precision: "
                     + ", ".join(f"{r['name']} {r['p_best']:.3f}" for r in self.ranking(performance=performance)))
        lines.append(f"differences (a − b), posterior mean [{pct} interval], P(a better than b):")
        for c in self.comparisons(["average_precision", "roc_auc"], level, performance):
            d = c["difference"]
            lines.append(f"  {c['a']} − {c['b']}  {METRICS[c['metric']].label:<17s} {d['mean']:+.3f} "
                         f"[{d['lo']:+.3f}, {d['hi']:+.3f}]  P = {c['p_a_better']:.3f}")
        lines.append(f"seed: {self.diagnostics['seed']} (--seed {self.diagnostics['seed']}, or "
                     f"rng={self.diagnostics['seed']} in Python, repeats this run)")
        lines += [f"warning: {w}" for w in self.warnings] if warnings else []
        return "\n".join(lines)

