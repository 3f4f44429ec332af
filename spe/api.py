"""``spe.evaluate``: scores and a few labels in, an :class:`Evaluation` out."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from scipy import special

from .check import P_VALUE_THRESHOLD, label_check
from .evaluation import Evaluation, _check_level
from .exceptions import ImportanceSamplingWarning, SpeInputError, SpeWarning
from .fit import fit_mixture
from .metrics import sample_performance
from .models.average import average_models
from .models.mixture import SCORE_TYPES, logit_clip, resolve_score_type  # noqa: F401  (public here too)
from .models.mixture import outward_envelope, pivot_index, sorted_quantile
from .models.recalibration import fit_recalibration
from .parallel import resolve_workers

#: The score models ``score_model="average"`` averages by evidence.
SCORE_MODELS = ("mixture", "hybrid", "calibrated", "platt")

__all__ = ["evaluate", "normalize_labels"]


def _as_scores(scores):
    s = np.array(scores, dtype=float, copy=True)
    if s.ndim != 1:
        raise SpeInputError(f"scores must be one-dimensional, got shape {s.shape}")
    bad = np.flatnonzero(~np.isfinite(s))
    if bad.size:
        raise SpeInputError(
            f"scores must be finite; scores[{bad[0]}] = {s[bad[0]]} ({bad.size} non-finite value(s) in all)"
        )
    if s.size < 4:
        raise SpeInputError(f"need at least 4 scores, got {s.size}")
    s.flags.writeable = False
    return s


def normalize_labels(labels, n_items):
    """Normalise the ``labels`` argument to (index (n,), value (n,)) arrays.

    Parameters
    ----------
    labels : None, mapping, array of length N, or (index, value) pair
        * ``None`` or empty: no labels;
        * mapping ``{item position: 0/1}``;
        * array of length N with 0, 1 and NaN (NaN = unlabeled);
        * a pair ``(index (n,), value (n,))``.
    n_items : int
        N.

    Returns
    -------
    index : int array, shape (n,), sorted
    value : int array, shape (n,)

    Raises
    ------
    SpeInputError
        Labels other than 0/1, positions outside [0, N), duplicates.
    """
    if labels is None:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    if isinstance(labels, Mapping):
        idx = np.array(list(labels.keys()))
        val = np.array(list(labels.values()))
    elif isinstance(labels, tuple) and len(labels) == 2:
        idx, val = np.asarray(labels[0]), np.asarray(labels[1])
    else:
        arr = np.asarray(labels, dtype=float)
        if arr.ndim != 1 or arr.size != n_items:
            raise SpeInputError(
                f"labels given as an array must have one entry per score (N = {n_items}) with NaN for "
                f"unlabeled items; got shape {arr.shape}. Use a dict {{position: label}} for a few labels."
            )
        idx = np.flatnonzero(~np.isnan(arr))
        val = arr[idx]
    if idx.size == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    if idx.shape != val.shape or idx.ndim != 1:
        raise SpeInputError("labels: index and value must be one-dimensional and of equal length")
    try:
        idx_int = idx.astype(np.int64)
    except (TypeError, ValueError):
        raise SpeInputError(f"labels: item positions must be integers, got {idx[:3]!r}...") from None
    if not np.array_equal(idx_int, idx.astype(float)):
        raise SpeInputError("labels: item positions must be integers")
    out = (idx_int < 0) | (idx_int >= n_items)
    if out.any():
        raise SpeInputError(f"labels: item position {idx_int[out][0]} is outside 0..{n_items - 1}")
    val_f = np.asarray(val, dtype=float)
    bad = ~np.isin(val_f, (0.0, 1.0))
    if bad.any():
        raise SpeInputError(f"labels must be 0 or 1; item {idx_int[bad][0]} has label {val[bad][0]!r}")
    order = np.argsort(idx_int, kind="stable")
    idx_int, val_i = idx_int[order], val_f[order].astype(int)
    dup = np.flatnonzero(np.diff(idx_int) == 0)
    if dup.size:
        raise SpeInputError(f"labels: item {idx_int[dup[0]]} is labeled twice")
    return idx_int, val_i


def _input_warnings(scores, index, value, n_distinct):
    out = []
    n_pos = int(np.sum(value == 1))
    n_neg = int(np.sum(value == 0))
    if index.size == 0:
        out.append(
            "no labeled items: nothing checks the score models, so the estimate rests on their assumptions "
            "alone (the mixture's families, which component is positive decided by the larger mean score; the "
            "recalibrations' priors) and all get equal weight; label a few items at random to check them"
        )
    elif n_pos == 0 or n_neg == 0:
        which = "positive" if n_pos == 0 else "negative"
        out.append(
            f"no labeled {which} items among {index.size}: the {which} class is located by the mixture "
            "model alone; the bands may be too narrow if the model is wrong"
        )
    if n_distinct < 0.5 * scores.size:
        out.append(
            f"scores are heavily tied ({n_distinct} distinct values among {scores.size} items, e.g. a random "
            "forest or k-NN): continuous class-conditional densities fit such scores poorly; read the bands "
            "with care"
        )
    if n_pos and n_neg:
        pos_s, neg_s = scores[index[value == 1]], scores[index[value == 0]]
        if pos_s.min() > neg_s.max():
            out.append(
                "the labeled items are perfectly separated by the score: the curve near the boundary between "
                "the classes rests on the mixture model; more labels near the boundary would test it"
            )
    return out


def _log_odds_feature(scores, score_type="auto"):
    """The score read as log-odds: the logit of probability scores, else the score itself."""
    s = np.asarray(scores, dtype=float)
    if resolve_score_type(s, score_type) == "probability":
        eps = logit_clip(s)
        return lambda v: special.logit(np.clip(np.asarray(v, dtype=float), eps, 1 - eps))
    return lambda v: np.asarray(v, dtype=float)


def _standardized_feature(scores, score_type="auto"):
    """The log-odds feature centred at its median and scaled by its standard deviation over all N items."""
    base = _log_odds_feature(scores, score_type)
    z = base(scores)
    centre, spread = float(np.median(z)), float(np.std(z))
    spread = spread if spread > 0 else 1.0
    return lambda v: (base(v) - centre) / spread


def _mixture_log_odds_feature(mixture_model, scores):
    """The SPE mixture's log-odds at its MAP, made non-decreasing in the score: the hybrid's input.

    L(s) = log π p₁(s) − log (1 − π) p₀(s) at the MAP of the plain
    (untempered) posterior, clipped to ±50: in Raina et al.'s hybrid the
    generative part is fitted on all the data at full weight, and the
    discriminative offset and slope correct it with the labels.

    The input is the monotone envelope L̃ of L taken outward from the pool's
    median score m (:func:`spe.models.mixture.outward_envelope`): for s ≥ m,
    L̃(s) = max of L(s') over pool scores m ≤ s' ≤ s; for s < m, the min
    over s ≤ s' ≤ m; interpolated linearly between the N pool scores
    (constant beyond them). A classifier ranks items sensibly, but two
    fitted families need not: a negative family with a heavier upper tail
    than the positive one makes L fall at the top scores (the hybrid would
    call the highest-scored items less likely positive than those below
    them), and one whose density vanishes at the lowest scores (a gamma
    with shape > 1) makes L rise there. The envelope keeps L where it
    already rises, holds the top at the highest log-odds reached below it
    and the bottom at the lowest reached above it. (An isotonic regression
    of L pools an interior bump with its neighbours and was worse on the
    benchmark.)

    Parameters
    ----------
    mixture_model : FittedScoreModel
        The fitted SPE mixture (:func:`spe.fit.fit_mixture`).
    scores : array, shape (N,)
        All scores of the pool, score units: where the envelope is taken.
        Sorted ascending saves a sort (:func:`evaluate` passes them so).

    Returns
    -------
    callable
        scores (B,) in score units → L̃ (B,), log-odds (natural log).
    """
    d = mixture_model.details
    mix, space = d["mixture"], d["space"]
    u = d.get("u_map_untempered", d["u_map"])[None, :]
    pi, th0, th1, _ = mix.unpack(u)

    def log_odds(v):
        x = space.to_model(v)
        with np.errstate(invalid="ignore"):
            lo = ((np.log(pi)[:, None] + mix.positive.logpdf(th1, x))
                  - (np.log1p(-pi)[:, None] + mix.negative.logpdf(th0, x)))
        return np.clip(np.nan_to_num(lo[0], nan=0.0), -50, 50)

    ss = np.asarray(scores, dtype=float)
    if np.any(ss[1:] < ss[:-1]):
        ss = np.sort(ss)
    grid = ss[np.concatenate([[True], ss[1:] != ss[:-1]])]  # the distinct scores
    envelope = outward_envelope(log_odds(grid), pivot_index(grid, sorted_quantile(ss, [0.5])[0]))

    def feature(v):
        return np.interp(np.asarray(v, dtype=float), grid, envelope)

    return feature


#: ``score_bins="auto"`` and ``likelihood_bins="auto"``: above this many distinct scores, draw the labels per
#: score bin (this many bins) and let the unlabeled scores into the likelihood as a histogram (about this many).
AUTO_BIN_ABOVE = 50_000
AUTO_SCORE_BINS = 10_000
AUTO_LIKELIHOOD_BINS = 1024


def _resolve_bins(name, value, n_distinct, auto):
    if value is None:
        return None
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be 'auto', a positive integer or None, got {value!r}")
        return auto if n_distinct > AUTO_BIN_ABOVE else None
    if isinstance(value, bool) or int(value) != value or value < 2:
        raise ValueError(f"{name} must be 'auto', an integer ≥ 2 or None, got {value!r}")
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
        ``"auto"``: :data:`AUTO_SCORE_BINS` above :data:`AUTO_BIN_ABOVE`
        distinct scores, else None; an int: itself; None: None.

    Raises
    ------
    ValueError
        Anything else (another string, an integer < 2, a non-integer).
    """
    return _resolve_bins("score_bins", score_bins, n_distinct, AUTO_SCORE_BINS)


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
        distinct scores, else None; an int: itself; None: None.

    Raises
    ------
    ValueError
        Anything else (another string, an integer < 2, a non-integer).
    """
    return _resolve_bins("likelihood_bins", likelihood_bins, n_distinct, AUTO_LIKELIHOOD_BINS)


def evaluate(scores, labels=None, *, families="auto", draws=1000, level=0.9, inference="importance",
             rng=None, proposal="full", score_space="linear", score_model="average", score_type="auto",
             temper=True, monotone=True, progressbar=False, score_bins="auto",
             likelihood_bins="auto", workers=None):
    """Estimate a classifier's performance on a data set from all its scores and a few labels.

    Semisupervised performance evaluation (SPE; Welinder, Welling & Perona
    2013): fit a two-component mixture to all N scores and the n labels
    (eqs. 2–4), draw its parameters from the posterior by importance
    sampling around the MAP (§3.1, eqs. 8–10), draw the unknown labels
    under each draw (eq. 7) and compute the sample performance of this data
    set under each (§3). By default (``score_model="average"``) the mixture
    is one of four models of p(y = 1 | s): it is checked against the score
    histogram and tempered when it does not fit (:mod:`spe.check`), three
    Bayesian logistic recalibrations are fitted from the labels
    (:mod:`spe.models.recalibration`), each model is checked against the
    labeled items, and those that pass are averaged by their evidence
    p(labels | scores) (:mod:`spe.models.average`).

    Parameters
    ----------
    scores : array-like, shape (N,)
        The classifier's score for every item, score units (higher = more
        positive); finite. Never modified.
    labels : None, mapping, array or (index, value) pair
        The known labels; see :func:`normalize_labels`. Positions are
        0-based indices into ``scores``.
    families : "auto", "NEG,POS" or list of (NEG, POS)
        Class-conditional families of the negative and positive class;
        ``"auto"`` tries every pair of the default candidates (see
        :func:`spe.select.parse_families`) and keeps the best by BIC (paper
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
    score_model : {"average", "mixture", "hybrid", "calibrated", "platt"}
        Which model of p(y = 1 | s) turns the scores into label draws.
        ``"mixture"`` is the paper's SPE alone; ``"hybrid"``, ``"calibrated"``
        and ``"platt"`` are the logistic recalibrations of
        :mod:`spe.models.recalibration`; ``"average"`` (default) averages
        them by their evidence on the labeled items
        (:mod:`spe.models.average`): all four, or all but ``"calibrated"``
        when ``score_type="decision"``. A model that fails the label check
        is left out, and so is the mixture when it fails the histogram
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
        coarsened posterior (default True; :mod:`spe.check`). False keeps
        the paper's posterior as it is (e.g. to reproduce the paper); the
        check is still reported.
    progressbar : bool
        Show a progress bar while NUTS samples (``inference="nuts"`` only).
    score_bins : "auto", int or None
        For large N, draw the unknown labels per score bin instead of per
        item (:func:`spe.metrics.sample_performance`): at most B bins, half
        of their boundaries at equal steps of the expected positives and
        half at equal steps of the expected negatives under the posterior
        mean of p(y = 1 | s) (recall and false positive rate both resolved
        in steps of about 2/B), Binomial label counts per bin, thresholds
        at bin boundaries, item probabilities interpolated between bins. ``"auto"`` (default):
        :data:`AUTO_SCORE_BINS` bins when there are more than
        :data:`AUTO_BIN_ABOVE` distinct scores, else exact; None: always
        exact (O(M · N) work).
    likelihood_bins : "auto", int or None
        For large N, let the unlabeled scores into the SPE mixture's
        likelihood as a histogram of about B bins (half equal-width, half
        equal-count; :func:`spe.fit.likelihood_edges`), whose likelihood is
        exact by differences of the class-conditional CDFs: each
        log-posterior evaluation then costs O(B) whatever N is. ``"auto"``
        (default): :data:`AUTO_LIKELIHOOD_BINS` bins above
        :data:`AUTO_BIN_ABOVE` distinct scores; None: every unlabeled score
        through its density (on a grid of 1/4096 of the score range).
        ``diagnostics["likelihood"]`` says which ("histogram" or "density").
    monotone : bool
        Make the SPE mixture's p(y = 1 | s) non-decreasing in the score
        (default True: "the classifier ranks items sensibly"; see
        :meth:`spe.models.Mixture.monotone_positive_probability`), and
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

    Returns
    -------
    Evaluation

    Raises
    ------
    SpeInputError
        Non-finite scores, fewer than 4 scores, labels other than 0/1,
        positions outside the scores, duplicate positions.
    ValueError
        Bad ``families``, ``draws``, ``level``, ``inference``, ``score_model``,
        ``score_type`` or ``workers`` (also: ``score_model="calibrated"`` for decision
        scores, ``score_type="probability"`` for scores outside [0, 1]).

    Warns
    -----
    SpeWarning
        No labels, labels of one class only, heavily tied scores, perfectly
        separated labels; the mixture's densities failing the histogram
        check (and how much it was tempered); the labels failing the
        posterior-predictive check of the averaged model ("no score model
        predicts the labeled items well"). Warnings about a model the
        labels gave weight < 0.01 go to ``diagnostics["notes"]`` instead.
    ImportanceSamplingWarning
        Pareto k̂ > 0.7 after adapting the proposal.

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
    level = _check_level(level)
    if score_model != "average" and score_model not in SCORE_MODELS:
        raise ValueError(f"score_model must be 'average' or one of {SCORE_MODELS}, got {score_model!r}")
    if inference not in ("importance", "nuts"):
        raise ValueError(f"inference must be 'importance' or 'nuts', got {inference!r}")
    if int(draws) != draws or draws < 100:
        raise ValueError(f"draws must be an integer ≥ 100, got {draws!r}")
    s = _as_scores(scores)
    score_type = resolve_score_type(s, score_type)
    if score_model == "calibrated" and score_type == "decision":
        raise ValueError("score_model='calibrated' reads the scores as probabilities or log-odds; these are decision "
                         "values of unknown scale (pass score_type='log-odds' if they are log-odds)")
    index, value = normalize_labels(labels, s.size)
    resolve_workers(workers)  # a bad value fails before any work
    rng = np.random.default_rng(rng)
    fit_rng, label_rng, recal_rng, avg_rng, check_rng = rng.spawn(5)
    s_sorted = np.sort(s)  # one sort, for the tie warning, the choice of bins, the fit's quantiles and the groups
    n_distinct = int(np.count_nonzero(s_sorted[1:] != s_sorted[:-1])) + 1
    bins = resolve_score_bins(score_bins, n_distinct)
    like_bins = resolve_likelihood_bins(likelihood_bins, n_distinct)
    messages = _input_warnings(s, index, value, n_distinct)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mixture, ranking = fit_mixture(s, index, value, families=families, draws=int(draws), rng=fit_rng,
                                       proposal=proposal, score_space=score_space, temper=bool(temper),
                                       score_type=score_type, monotone=bool(monotone),
                                       identify_top=bool(monotone), inference=inference,
                                       progressbar=bool(progressbar), likelihood_bins=like_bins,
                                       sorted_scores=s_sorted, workers=workers)
    mixture_warnings = [str(w.message) for w in caught if issubclass(w.category, SpeWarning)]
    features = {
        "hybrid": lambda: _mixture_log_odds_feature(mixture, s_sorted),
        "calibrated": lambda: _log_odds_feature(s, score_type),
        "platt": lambda: _standardized_feature(s, score_type),
    }
    if score_model != "average":
        names = (score_model,)
    else:
        names = tuple(m for m in SCORE_MODELS if not (m == "calibrated" and score_type == "decision"))
    fitted = []
    for name, stream in zip(names, recal_rng.spawn(len(names))):
        if name == "mixture":
            fitted.append(mixture)
        else:
            fitted.append(fit_recalibration(name, features[name](), s, index, value, draws=int(draws), rng=stream))
    # criticism before averaging (Box's loop: check, then revise): a model whose own posterior predicts
    # the labeled items worse than it expects to (label_check p < 0.01) is left out of the average, and so
    # is the mixture when its densities do not reproduce the histogram of the scores (spe.check): tempered,
    # its posterior is close to its prior, whose p(y | s) says little about these scores yet is sharp at
    # the top (a positive family above a negative one), and 20 labels cannot refute that.
    label_p = [label_check(fm, s[index], value, rng=check_rng) if index.size else float("nan") for fm in fitted]
    hist = mixture.details.get("histogram_check")
    left_out = [("histogram" if fm is mixture and hist is not None and not hist.passed else
                 "labels" if p < P_VALUE_THRESHOLD else None)
                for fm, p in zip(fitted, label_p)]
    if len(fitted) == 1:
        model = fitted[0]
    else:
        model = average_models(fitted, draws=int(draws), rng=avg_rng, exclude=[w is not None for w in left_out])
    perf = sample_performance(model, s, index, value, rng=label_rng, bins=bins, sorted_scores=s_sorted,
                              workers=workers)
    mix = mixture.details["mixture"]
    diagnostics = dict(mixture.diagnostics)
    diagnostics["score_model"] = score_model
    diagnostics["score_bins"] = None if not perf.replay[1].binned else int(perf.replay[1].n_groups)
    diagnostics["score_type"] = score_type
    if len(fitted) == 1:
        diagnostics["score_models"] = [{"model": model.name, "log_evidence": model.log_evidence,
                                        "elpd_loo": model.elpd_loo,
                                        "weight": 1.0}]
    else:
        diagnostics["score_models"] = model.diagnostics["models"]
        diagnostics["chosen"] = model.diagnostics["chosen"]
    if len(fitted) > 1:
        for entry, why in zip(diagnostics["score_models"], left_out):
            entry["left_out_by"] = why if entry["excluded"] else None
    if index.size:
        for entry, p in zip(diagnostics["score_models"], label_p):
            entry["label_check_p"] = p
        p_all = label_p[0] if len(fitted) == 1 else label_check(model, s[index], value, rng=check_rng)
        diagnostics["label_check"] = {"p_value": p_all, "passed": bool(p_all >= P_VALUE_THRESHOLD)}
        if p_all < P_VALUE_THRESHOLD:
            messages.append(
                f"no score model predicts the labeled items well: the labels are less probable under the "
                f"{'averaged ' if len(fitted) > 1 else ''}model than labels it would generate itself "
                f"(posterior-predictive p = {p_all:.3f}); the bands may be too narrow — check the scores and "
                f"labels belong together, and label more items at random")
    weights = {m["model"]: m["weight"] for m in diagnostics["score_models"]}
    mixture_weight = weights.get(mixture.name, 0.0)
    for msg in mixture_warnings:
        if mixture_weight >= 0.01:
            messages.append(f"SPE mixture: {msg}")
        else:  # a model the labels switched off cannot mislead the estimates; keep the note, not the alarm
            diagnostics.setdefault("notes", []).append(
                f"SPE mixture (weight {mixture_weight:.3f}, so it does not affect the estimates): {msg}")
    ev = Evaluation(
        scores=s,
        labeled_index=index,
        labeled_value=value,
        level=level,
        model=model,
        performance=perf,
        families={"negative": mix.negative.name, "positive": mix.positive.name},
        diagnostics=diagnostics,
        warnings=messages,
    )
    for msg in messages:
        category = ImportanceSamplingWarning if "importance sampling" in msg else SpeWarning
        warnings.warn(msg, category, stacklevel=2)
    return ev
