"""``spe.evaluate``: scores and a few labels in, an :class:`Evaluation` out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluation import Evaluation
from .exceptions import Notice, SpeInputError, plain
from .inference import INFERENCE_METHODS, PROPOSALS
from .inference.nuts import require_pymc
from .inputs import (as_scores, check_choice, check_draws, check_level, input_warnings, item_ids, normalize_labels,
                     normalize_reference, reference_warnings, scores_of_frame, seed_of)
from .performance import sample_performance
from .models.features import LabeledScores
from .models.mixture import (SCORE_TYPES, clipped_probabilities, resolve_score_reading,  # noqa: F401  (public here too)
                             resolve_score_type)
from .models.pipeline import fit_score_models, prevalence_only
from .models.registry import REGISTRY, score_model_names
from .parallel import one_blas_thread, resolve_workers, usable_cpus
from .progress import showing, shown
from .engines import pooled_scores
from .models.mixture.select import parse_families


__all__ = ["evaluate", "fit_scores", "ScoresFit", "normalize_labels", "resolve_score_bins", "resolve_likelihood_bins"]


#: ``likelihood_bins="auto"``: above this many distinct scores, let the unlabeled scores into the likelihood as a
#: histogram of about :data:`AUTO_LIKELIHOOD_BINS` bins.
AUTO_BIN_ABOVE = 50_000
AUTO_LIKELIHOOD_BINS = 1024
#: ``score_bins="auto"``: above this many distinct scores (twice the bins), draw the labels per score bin,
#: :data:`AUTO_SCORE_BINS` of them. 2,000 bins placed by expected positives and negatives moved the median PR
#: curve by at most 0.0039 from the exact one on the ten shared cases above 10,000 items, and not its error
#: against the truth (benchmarks/results/binning_2000_58464ad.txt; binning_minimum_14ceb9a.txt for fewer bins);
#: on the seven with 4,900–9,200 distinct scores by at most 0.0053 (mean 0.0014), the error against the truth
#: 0.1535 either way (binning_2000_4k_to_10k.txt). They cost a fifth of 10,000 bins; exact draws at 9,000
#: distinct scores took about 1 s more than the bins (10⁷ binomial draws), at 50,000 items 25 times as long.
AUTO_SCORE_BIN_ABOVE = 4_000
AUTO_SCORE_BINS = 2_000
#: Fewest score bins of the label draws: recall and false positive rate are resolved in steps of about 2/B.
MIN_SCORE_BINS = 500
#: Fewest histogram bins of the likelihood.
MIN_LIKELIHOOD_BINS = 128


#: The fewest bins ``score_bins`` and ``likelihood_bins`` accept (measured on the real cases:
#: benchmarks/results/binning_minimum_*.txt).
MIN_BINS = {"score_bins": MIN_SCORE_BINS, "likelihood_bins": MIN_LIKELIHOOD_BINS}

#: How the labeled items may have been chosen (``evaluate``'s ``label_selection``).
LABEL_SELECTIONS = ("random", "adaptive")


def _resolve_bins(name, value, n_distinct, auto, above):
    if value is None:
        return None
    if isinstance(value, str) and value == "auto":
        return auto if n_distinct > above else None
    try:
        ok = not isinstance(value, (bool, str)) and int(value) == value and value >= MIN_BINS[name]
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise SpeInputError(f"must be 'auto', an integer ≥ {MIN_BINS[name]} or None (exact), got {plain(value)!r}",
                            argument=name)
    return int(value)


def resolve_score_bins(score_bins, n_distinct):
    """B, the number of score bins for the label draws, or None for the exact path.

    Parameters
    ----------
    score_bins : "auto", int or None
        As :func:`evaluate`'s ``score_bins``.
    n_distinct : int
        Distinct scores among the N items.

    Returns
    -------
    int or None
        ``"auto"``: :data:`AUTO_SCORE_BINS` above :data:`AUTO_SCORE_BIN_ABOVE`
        distinct scores, else None; an int: itself; None: None.

    Raises
    ------
    SpeInputError
        Anything else (another string, an integer < :data:`MIN_SCORE_BINS`, a non-integer).
    """
    return _resolve_bins("score_bins", score_bins, n_distinct, AUTO_SCORE_BINS, AUTO_SCORE_BIN_ABOVE)


def resolve_likelihood_bins(likelihood_bins, n_distinct):
    """About how many histogram bins the unlabeled scores enter the likelihood through, or None (densities).

    Parameters
    ----------
    likelihood_bins : "auto", int or None
        As :func:`evaluate`'s ``likelihood_bins``.
    n_distinct : int
        Distinct scores among the N items.

    Returns
    -------
    int or None
        ``"auto"``: :data:`AUTO_LIKELIHOOD_BINS` above :data:`AUTO_BIN_ABOVE`
        distinct scores, else None; an int: itself, at most twice the
        distinct scores (half the bins are equal-count, half equal-width:
        more would hold nothing, and cost a pass each — 10⁷ bins for 899
        scores took minutes); None: None.

    Raises
    ------
    SpeInputError
        Anything else (another string, an integer < :data:`MIN_LIKELIHOOD_BINS`, a non-integer).
    """
    bins = _resolve_bins("likelihood_bins", likelihood_bins, n_distinct, AUTO_LIKELIHOOD_BINS, AUTO_BIN_ABOVE)
    return bins if bins is None else min(bins, max(2 * n_distinct, MIN_LIKELIHOOD_BINS))


def evaluate(scores, labels=None, *, families="auto", draws=1000, level=0.9, inference="importance",
             rng=None, proposal="full", score_space="linear", score_model="average", score_type="auto",
             temper=True, monotone=True, progressbar=None, score_bins="auto",
             likelihood_bins="auto", workers=None, reference=None, label_selection="random", engine="auto",
             scheduler=None, pos_label=None):
    """Estimate a classifier's performance on a data set from all its scores and a few labels.

    Semisupervised performance evaluation (SPE; Welinder, Welling & Perona
    2013): fit a two-component mixture to all N scores and the n labels
    (eqs. 2–4), draw its parameters from the posterior by importance
    sampling around the MAP (§3.1, eqs. 8–10), draw the unknown labels
    under each draw (eq. 7) and compute the sample performance of this data
    set under each (§3). By default (``score_model="average"``) the mixture
    is one of seven models of p(y = 1 | s): it is checked against the score
    histogram and tempered when it does not fit (:mod:`spe.models.mixture.check`); three
    Bayesian logistic recalibrations, a piecewise-linear one and one with a
    floor and a ceiling are fitted from the labels
    (:mod:`spe.models.recalibration`, :mod:`spe.models.piecewise`,
    :mod:`spe.models.contaminated`), beside the null model "the scores say
    nothing" (:mod:`spe.models.constant`); each model is checked against the
    labeled items, and those that pass are averaged by their evidence
    p(labels | scores) (:mod:`spe.models.average`).

    Parameters
    ----------
    scores : array-like, shape (N,)
        The classifier's score for every item, score units (higher = more
        positive); finite. Never modified. A pandas Series indexed by item id, or a DataFrame with a ``score``
        column and optionally an ``id`` column (``pd.read_csv`` of ``spe estimate``'s SCORES.csv), carries ids.
        A multiclass classifier's scores, an (N, K) array or a DataFrame with one column per class and no
        ``score`` column, go to :func:`spe.multiclass.evaluate_classes` (K ≥ 3: a
        :class:`~spe.multiclass.MulticlassEvaluation`; K = 2: this function on the second class's column).
    labels : None, mapping, Series, DataFrame, array or (index, value) pair
        The known labels; see :func:`normalize_labels`. Positions are
        0-based indices into ``scores``, or its ids when it carries them; a DataFrame has a ``label`` column and
        optionally an ``id`` column (LABELS.csv). A label is 0/1, −1/1 or True/False (scikit-learn's
        conventions), or one of two values with ``pos_label``; NaN or None marks an unlabeled item, never −1.
    families : "auto", "NEG,POS" or list of (NEG, POS)
        Class-conditional families of the negative and positive class;
        ``"auto"`` tries every pair of the default candidates (see
        :func:`spe.models.mixture.select.parse_families`) and keeps the best by BIC (paper
        §4.2).
    draws : int
        M, posterior draws (≥ 100).
    level : float
        Credible level of the bands and intervals, in (0, 1).
    inference : {"importance", "nuts"}
        Sampler of the SPE mixture's posterior: importance sampling around
        the MAP (default; the paper's §3.1), or NUTS on the same log
        posterior with PyMC (:mod:`spe.inference.nuts`; the reference, much
        slower; PyMC is imported only then). Every query works the same on
        either.
    rng : numpy.random.Generator, int or None
        Seed or generator; the same seed gives the same result.
    proposal : {"full", "diagonal"}
        Importance proposal covariance: full Hessian, or the paper's
        per-axis fit.
    score_space : {"linear", "logit", "auto"}
        Where the families model the scores: "linear" (default, the paper's
        affine map to (0, 1)), "logit" for probability scores, or "auto"
        (logit when every score is in [0, 1]). Curves and thresholds are in
        score units either way. On the real benchmark cases the logit did
        not help on average (it helps some probability scores and hurts
        others), hence the default.
    score_model : str
        Which model of p(y = 1 | s) turns the scores into label draws: one of
        the registered score models (:func:`spe.models.registry.score_model_names`)
        or ``"average"``.
        ``"mixture"`` is the paper's SPE alone; ``"hybrid"``, ``"calibrated"``
        and ``"platt"`` are the logistic recalibrations of
        :mod:`spe.models.recalibration`; ``"piecewise"`` is Zhang & Yang's
        piecewise-linear log-odds with a prior keeping its four slopes near
        a common one (:mod:`spe.models.piecewise`); ``"contaminated"`` is
        the logistic recalibration with an unknown floor and ceiling on the
        probability (Copas 1988; :mod:`spe.models.contaminated`: label noise,
        over-confident deep networks); ``"uninformative"`` is
        p(y = 1 | s) = π, the scores carrying no information about the
        labels (:mod:`spe.models.constant`; the only model whose ROC AUC is
        0.5); ``"reference"`` is the ``reference`` set's calibration map
        carried to this pool under prior shift (:mod:`spe.models.reference`;
        only with ``reference``); ``"average"`` (default) averages them by
        their evidence on the labeled items (:mod:`spe.models.average`): all
        seven, or all but ``"calibrated"`` when ``score_type="decision"``.
        With a reference set the average weighs the hypotheses it raises
        (:mod:`spe.models.anchor`): its map applies to the pool up to a label
        or covariate shift (the ``"reference"`` model and every model that
        learns the map from the reference's labels, carried to the pool:
        ``reference-<name>``, ``reference-<name>-covariate``, the pool's score
        histogram weighing the two), possibly drifted (a spike-and-slab
        prior, 1/2: ``"reference-deviation"``, ``"reference-deviation-covariate"``),
        or a new map (prior 0.05, with pool labels only: the models above
        fitted on the pool alone); the evidence is then
        p(Y_ref, Y_L | S_ref, S).
        A model that fails the label check is left out, and so is the mixture when it fails the histogram
        check (``diagnostics["score_models"][k]["left_out_by"]``).
    score_type : {"auto", "probability", "log-odds", "decision"}
        What the scores are. ``"calibrated"`` reads probabilities through
        their logit and log-odds (e.g. a logistic regression's
        ``decision_function``) as they are, with the prior "calibrated up to
        a prior shift" (Saerens et al.); for ``"decision"`` scores (an SVM
        margin, any score of unknown scale) that prior has no basis and the
        model is left out. ``"auto"`` (default): probability when every
        score is in [0, 1], else log-odds (a reading the evidence on the
        labels weighs); see :func:`resolve_score_type`.
    temper : bool
        When the SPE mixture fails the posterior-predictive check of the
        score histogram, down-weight its unlabeled likelihood to the
        coarsened posterior (default True; :mod:`spe.models.mixture.check`). False keeps
        the paper's posterior as it is (e.g. to reproduce the paper); the
        check is still reported. Averaged (``score_model="average"``), a
        mixture that fails the check is left out instead, neither tempered
        nor its evidence computed (``histogram_check["left_out"]``).
    progressbar : bool or None
        Show a progress bar on standard error for each long stage (the
        family screening, the sampling, the score models, the label draws;
        NUTS's own): None (default) when standard error is a terminal or in
        a Jupyter notebook (:mod:`spe.progress`). Each stage's time is
        logged at INFO to the ``"spe"`` logger either way.
    score_bins : "auto", int or None
        For large N, draw the unknown labels per score bin instead of per
        item (:func:`spe.performance.sample_performance`): at most B bins, half
        of their boundaries at equal steps of the expected positives and
        half at equal steps of the expected negatives under the posterior
        mean of p(y = 1 | s) (recall and false positive rate both resolved
        in steps of about 2/B), Binomial label counts per bin, thresholds
        at bin boundaries, item probabilities interpolated between bins. ``"auto"`` (default):
        :data:`AUTO_SCORE_BINS` (2,000) bins when there are more than
        :data:`AUTO_SCORE_BIN_ABOVE` (4,000) distinct scores, else exact;
        None: always exact (O(M · N) work).
    likelihood_bins : "auto", int or None
        For large N, let the unlabeled scores into the SPE mixture's
        likelihood as a histogram of about B bins (half equal-width, half
        equal-count; :func:`spe.models.mixture.fit.likelihood_edges`), whose likelihood is
        exact by differences of the class-conditional CDFs: each
        log-posterior evaluation then costs O(B) whatever N is. ``"auto"``
        (default): :data:`AUTO_LIKELIHOOD_BINS` bins above
        :data:`AUTO_BIN_ABOVE` distinct scores; None: every unlabeled score
        through its density (on a grid of 1/4096 of the score range).
        ``diagnostics["likelihood"]`` says which ("histogram" or "density").
    monotone : bool
        Make the SPE mixture's p(y = 1 | s) non-decreasing in the score
        (default True: "the classifier ranks items sensibly"; see
        :meth:`spe.models.Mixture.monotone_class_probability`), and
        identify its components so that the top score is not the negative
        family's tail nor the bottom score the positive one's
        (:attr:`spe.models.Mixture.top`, :attr:`spe.models.Mixture.bottom`).
        False keeps the paper's Bayes rule, which can fall at the top scores
        and rise at the bottom, and its identification (positive mean above
        the negative mean).
    workers : int or None
        Cores to use (:mod:`spe.parallel`): the candidate family pairs are
        fitted in this many forked processes (the family screening, a fixed
        ≈ 2–4 s whatever N is; Linux only, elsewhere they are fitted here
        one by one), and the unknown labels are drawn in this many threads.
        None (default): all usable cores, at most 8; 1: this process and
        thread only. The result is the same for any value.
    reference : None, (scores (R,), labels (R,)) pair, mapping or DataFrame
        A labeled reference set: the same classifier's scores (score units)
        on other items with every label 0/1, e.g. its validation data; see
        :func:`spe.inputs.normalize_reference`. Its labels are evidence for
        every model of the average (see ``score_model``): the pool's
        prevalence may differ (label shift, re-estimated from the pool's
        scores) or only its scores' distribution (covariate shift); without
        pool labels the estimate rests on it, and with them they weigh it
        against concept shift. When the pool's labels give it weight < 0.2 a
        warning says the reference disagrees. ``diagnostics["reference"]``
        reports its size, prevalence, the pool prevalence it implies, the
        shift, the assumption, its weight (``weight``, ``drift_weight``,
        ``label_shift_weight``, ``concept_shift_weight``), each anchored map's
        weight (``maps``), the label-shift check (``label_shift_check_p``) and
        what checked it (``check``). Never modified.

    label_selection : {"random", "adaptive"}
        How the labeled items were chosen: ``"adaptive"`` when by a rule that looked only at the scores and at
        earlier labels (:meth:`Evaluation.suggest`, ``spe suggest``). SPE's posterior is the same either way
        (conditioning on every score makes such a selection ignorable); the summary says so, and
        ``diagnostics["label_selection"]`` records it, because the labeled items alone are then not a random
        sample (their own estimate, :func:`spe.baselines.labeled_only`, is biased). A labeler who picks items
        by looking at them breaks the assumption either way.
    engine : {"auto", "memory", "binned", "dask"}
        Who does the passes over all N scores (:mod:`spe.engines`): ``"memory"`` every score in this process,
        each its own item; ``"binned"`` in this process, counted into a :class:`spe.pool.ScorePool` of at
        most 2¹⁸ cells, each item's score within ``diagnostics["pool"]["max_error"]`` of the value that stands
        for it; ``"dask"`` the same pool computed by Dask over the chunks of ``scores`` (a Dask Array or
        Series, a Dask DataFrame with a ``score`` column and an optional ``id`` column, or an array cut into
        chunks; :mod:`spe.dask_engine`), which need never be in memory at once.
        ``"auto"`` (default): Dask for a Dask collection, binned above :data:`spe.engines.POOL_ABOVE` items,
        else memory. With Dask, ``labels`` is a mapping {0-based position (or id, for a DataFrame with ids):
        0/1} or an (index, value) pair.
        "binned" and "dask" give the same result for the same seed.
    scheduler : str or None
        With ``engine="dask"``: a ``dask.distributed`` scheduler's address (``"tcp://host:8786"``) to run the
        passes on its cluster; None (default): this machine's threads.
    pos_label : scalar or None
        The label value of the positive class, for labels (and the reference set's labels) that are not 0/1,
        −1/1 or True/False, e.g. ``"spam"`` (:func:`spe.inputs.binary_labels`).

    Returns
    -------
    Evaluation
        ``diagnostics["seed"]`` is the seed the run used: ``rng=seed``
        repeats it exactly (drawn from the operating system's entropy when
        ``rng`` is None, from the generator when it is one).

    Raises
    ------
    SpeInputError
        Bad input, named by its argument, before any fitting (see
        :mod:`spe.inputs`): non-finite scores, fewer than 4 scores, labels
        other than 0/1, positions outside the scores, duplicate positions; a
        bad ``families``, ``draws`` (< 100, or more than the available
        memory holds), ``level``, ``inference``, ``score_model``,
        ``score_type``, ``score_space``, ``score_bins``, ``likelihood_bins``,
        ``workers``, ``rng`` or ``reference`` (both classes needed);
        ``score_model="calibrated"`` with ``score_type="decision"``;
        ``score_model="reference"`` without a reference set.
        ``SpeInputError`` is a ``ValueError``.

    Warns
    -----
    SpeWarning
        Degenerate but legal data, with what the numbers then mean
        (:func:`spe.inputs.input_warnings`): no labels, labels of one class
        only, every item labeled, all scores equal (the prevalence from the
        labels alone), two distinct scores, heavily tied scores, perfectly
        separated labels, labels that rank backwards, scores outside what
        ``score_type`` or ``score_space`` allows (read as decision values, or
        linear); the SPE mixture failing to fit at all (left out); its
        densities failing the histogram check (and how much it was
        tempered); the labels failing the posterior-predictive check of the
        averaged model ("no score model predicts the labeled items well");
        real weight on the uninformative model (the scores may not rank the
        items at all); a reference set whose calibration map the labeled
        items give weight < 0.2 (it disagrees with this pool).
        Warnings about a model the labels gave weight < 0.01 go to
        ``diagnostics["notes"]`` instead, as does ``workers`` beyond the
        usable cores (capped).
    ImportanceSamplingWarning
        Pareto k̂ > 0.7 in a model's importance sampling (the mixture's after
        adapting its proposal, a link model's, the reference model's).

    Examples
    --------
    >>> import numpy as np, spe
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(2000) < 0.2
    >>> s = np.where(y, rng.normal(2, 1, 2000), rng.normal(0, 1, 2000))
    >>> known = {int(i): int(y[i]) for i in rng.choice(2000, 20, replace=False)}
    >>> ev = spe.evaluate(s, known, families="truncnorm,truncnorm", draws=500, rng=1)
    >>> 0.1 < ev.prevalence().mean < 0.3
    True
    """
    from .multiclass.scores import is_multiclass  # the multiclass layer sits above; imported only here
    if is_multiclass(scores):
        from .multiclass import evaluate_classes
        return evaluate_classes(scores, labels, draws=draws, level=level, rng=rng, families=families,
                                inference=inference, proposal=proposal, score_space=score_space,
                                score_model=score_model, score_type=score_type, temper=temper, monotone=monotone,
                                progressbar=progressbar, score_bins=score_bins, likelihood_bins=likelihood_bins,
                                workers=workers, reference=reference, label_selection=label_selection,
                                engine=engine, scheduler=scheduler)
    level = check_level(level)
    check_choice("label_selection", label_selection, LABEL_SELECTIONS)
    seed = seed_of(rng)
    fit_rng, label_rng, recal_rng, avg_rng, check_rng = np.random.default_rng(seed).spawn(5)
    scores = scores_of_frame(scores)
    with shown(progressbar), one_blas_thread():
        reference = normalize_reference(reference, pos_label)  # checked before any pass over the scores
        pool = pooled_scores(scores, labels, engine=engine, scheduler=scheduler, workers=workers,
                             pos_label=pos_label)
        if pool is None:
            s, counts = as_scores(scores), None
            index, value = normalize_labels(labels, s.size, item_ids(scores), pos_label)
        else:
            s, counts, index, value = pool.values, pool.counts, pool.labeled_index, pool.labeled_value
        fs, fi, fv = _in_score_order(s, index, value) if pool is None else (s, index, value)
        fitted = _fit_checked(fs, fi, fv, (fit_rng, recal_rng, avg_rng, check_rng), families=families,
                              draws=draws, inference=inference, proposal=proposal, score_space=score_space,
                              score_model=score_model, score_type=score_type, temper=temper, monotone=monotone,
                              score_bins=score_bins, likelihood_bins=likelihood_bins, workers=workers,
                              reference=reference, pool=pool)
        s = clipped_probabilities(s, score_type)[0] if pool is None else fitted.scores  # the items' own order
        perf = sample_performance(fitted.model, s, index, value, rng=label_rng, bins=fitted.score_bins,
                                  sorted_scores=fitted.sorted_scores, workers=workers, counts=counts)
    diagnostics = dict(fitted.diagnostics, seed=seed, label_selection=label_selection, score_model=fitted.score_model,
                       score_type=fitted.score_type,
                       score_bins=None if not perf.replay.groups.binned else int(perf.replay.groups.n_groups))
    if pool is not None:
        diagnostics["pool"] = pool.to_dict()
    ev = Evaluation(scores=s, labeled_index=index, labeled_value=value, level=level, model=fitted.model,
                    performance=perf, families=fitted.families, diagnostics=diagnostics, warnings=fitted.messages,
                    counts=counts, ids=item_ids(scores) if pool is None else None)
    for msg in fitted.messages:
        (msg if isinstance(msg, Notice) else Notice(msg)).emit(stacklevel=2)
    return ev


@dataclass
class ScoresFit:
    """The score models fitted to one classifier's scores and the labels (what :func:`fit_scores` returns).

    Attributes
    ----------
    model : FittedScoreModel
        The seam: M weighted draws of p(y = 1 | s), s in score units.
    families : dict
        ``{"negative": name, "positive": name}`` of the SPE mixture (None when it was not fitted).
    diagnostics : dict
        As :attr:`Evaluation.diagnostics`, without the seed and the label draws' bins.
    messages : list
        Warnings for the user (str or :class:`~spe.exceptions.Notice`), in order; not yet emitted.
    score_model, score_type : str
        The score model fitted (``"average"`` or one name) and how the scores were read.
    score_bins : int or None
        B, the score bins the label draws should use (None: exact).
    sorted_scores : array, shape (N,)
        The scores sorted ascending.
    scores : array, shape (N,)
        The scores as the models read them, in the order they were given to the fit: as given, or clipped to
        [0, 1] where probabilities carried float noise (:func:`spe.models.mixture.clipped_probabilities`).
    """

    model: object
    families: dict
    diagnostics: dict
    messages: list
    score_model: str
    score_type: str
    score_bins: int | None
    sorted_scores: np.ndarray
    scores: np.ndarray

    @property
    def n_distinct(self) -> int:
        """The number of distinct scores."""
        return _n_distinct(self.sorted_scores)


def fit_scores(scores, labels=None, *, rng=None, **options) -> ScoresFit:
    """Fit the score models of one classifier's scores (everything :func:`evaluate` does before the label draws).

    Parameters
    ----------
    scores : array-like, shape (N,)
        Score units, finite.
    labels : as :func:`evaluate`'s
    rng : numpy.random.Generator, int or None
        The fit's own streams are spawned from it (4 of them, in :func:`evaluate`'s order).
    **options
        :func:`evaluate`'s model options (``families``, ``draws``, ``inference``, ``proposal``, ``score_space``,
        ``score_model``, ``score_type``, ``temper``, ``monotone``, ``progressbar``, ``score_bins``,
        ``likelihood_bins``, ``workers``, ``reference``).

    Returns
    -------
    ScoresFit
        Its warnings are returned, not emitted.

    Raises
    ------
    SpeInputError
        As :func:`evaluate`.
    """
    scores = scores_of_frame(scores)
    s = as_scores(scores)
    index, value = normalize_labels(labels, s.size, item_ids(scores), options.get("pos_label"))
    if options.get("reference") is not None:
        options["reference"] = normalize_reference(options["reference"], options.get("pos_label"))
    options.pop("pos_label", None)
    with shown(options.pop("progressbar", None)):
        return _fit_checked(s, index, value, np.random.default_rng(rng).spawn(4), **options)


def _in_score_order(s, index, value):
    """The scores (N,) sorted, and the labeled items (n,) at their places in that order: what the fit reads, so
    that its sums (and, through them, its draws) do not depend on the order of the items (shuffled rows with
    ids give the same answer)."""
    keyed = np.full(s.size, -1)
    keyed[index] = value
    order = np.lexsort((keyed, s))
    rank = np.empty(s.size, dtype=int)
    rank[order] = np.arange(s.size)
    at = rank[index]
    o = np.argsort(at, kind="stable")
    return s[order], at[o], np.asarray(value)[o]


def _fit_checked(s, index, value, rngs, *, families="auto", draws=1000, inference="importance", proposal="full",
                 score_space="linear", score_model="average", score_type="auto", temper=True, monotone=True,
                 score_bins="auto", likelihood_bins="auto", workers=None, reference=None, pool=None):
    """Check the model options against the scores (N,) and labels, then fit: a :class:`ScoresFit`.

    ``pool``: ``s`` holds the K ascending values of this :class:`spe.pool.ScorePool`, each standing for
    ``pool.counts`` items."""
    check_choice("score_model", score_model, ("average",) + score_model_names())
    check_choice("inference", inference, INFERENCE_METHODS)
    if inference == "nuts":
        require_pymc()
    check_choice("proposal", proposal, PROPOSALS)
    reference = normalize_reference(reference)
    _check_reference_model(score_model, reference)
    notes = _workers_notes(workers)
    counts = None if pool is None else pool.counts
    s_sorted = np.sort(s) if pool is None else s  # one sort, for the tie warning, bins, quantiles and groups
    n_distinct = _n_distinct(s_sorted) if pool is None else pool.n_distinct
    draws = check_draws(draws, s.size, min(n_distinct, s.size))
    bins = resolve_score_bins(score_bins, n_distinct)
    like_bins = resolve_likelihood_bins(likelihood_bins, n_distinct)
    stated_type = score_type
    s, clip_note = clipped_probabilities(s, score_type)
    if clip_note is not None:
        s_sorted = np.clip(s_sorted, 0.0, 1.0)
    score_type, score_space, messages = resolve_score_reading(s, score_type, score_space)
    score_model, model_messages = _usable_score_model(score_model, score_type, stated_type)
    parse_families(families, score_type)  # checked even where the data leave no family to fit
    messages += model_messages + input_warnings(s, index, value, n_distinct, counts, reference is not None)
    if reference is not None:
        messages += reference_warnings(score_type, resolve_score_reading(reference[0], stated_type)[0], reference)
    fit_rng, recal_rng, avg_rng, check_rng = rngs
    options = dict(families=families, draws=draws, proposal=proposal, score_space=score_space, temper=bool(temper),
                   score_type=score_type, monotone=bool(monotone), inference=inference,
                   progressbar=showing(), likelihood_bins=like_bins, workers=workers)
    if n_distinct == 1:
        fit = prevalence_only(value, draws, recal_rng)
    else:
        data = LabeledScores(s, s_sorted, index, value, score_type, draws, reference, counts=counts)
        fit = fit_score_models(data, score_model, options, (fit_rng, recal_rng, avg_rng, check_rng))
    diagnostics = dict(fit.diagnostics)
    notes += [clip_note] if clip_note is not None else []
    if notes:
        diagnostics["notes"] = notes + diagnostics.get("notes", [])
    return ScoresFit(fit.model, fit.families, diagnostics, messages + fit.messages, score_model, score_type, bins,
                     s_sorted, s)


def _n_distinct(sorted_scores):
    """The number of distinct values of sorted scores (N,), N ≥ 1."""
    return int(np.count_nonzero(sorted_scores[1:] != sorted_scores[:-1])) + 1


def _check_reference_model(score_model, reference):
    if score_model != "average" and REGISTRY[score_model].needs_reference and reference is None:
        raise SpeInputError(f"the score model {score_model!r} needs a reference set (--reference REF.csv in the "
                            "shell, reference=(scores, labels) in Python)", argument="score_model")


def _workers_notes(workers):
    """Check ``workers`` (before any work); a note when it asks for more than the usable cores (capped)."""
    resolve_workers(workers)
    cores = usable_cpus()
    if workers is not None and workers > cores:
        return [f"workers={workers} is more than the {cores} usable cores of this machine: {cores} are used"]
    return []


def _usable_score_model(score_model, score_type, stated_type):
    """The score model to fit, and a warning when the "calibrated" model meets scores it cannot read."""
    if score_model != "calibrated" or score_type != "decision":
        return score_model, []
    if stated_type == "decision":
        raise SpeInputError("'calibrated' reads the scores as probabilities or log-odds, and the score type "
                            "'decision' says they are neither (give the score type 'log-odds' if they are log-odds)",
                            argument="score_model")
    return "platt", ["the score model 'calibrated' reads the scores as probabilities or log-odds, and these can "
                     "be neither: Bayesian Platt scaling (the score model 'platt') is fitted instead"]
