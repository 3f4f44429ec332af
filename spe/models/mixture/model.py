r"""The SPE generative model: a two-component mixture over the scores.

Welinder, Welling & Perona (2013), eqs. 2–4:

.. math::
    \log p(\theta \mid S, Y_L) = \sum_{i \in U} \log\big((1-\pi) p_0(s_i \mid \theta_0)
        + \pi p_1(s_i \mid \theta_1)\big)
      + \sum_{i \in L} \log\big(\pi^{y_i} (1-\pi)^{1-y_i} p_{y_i}(s_i \mid \theta_{y_i})\big)
      + \log p(\theta) + \text{const}

Unlabeled items (U) are marginalised over their label, labeled items (L)
enter with their known component. θ = (π, θ₀, θ₁) with π the prevalence;
the positive component is identified as the one with the larger mean score
(the posterior is restricted to mean₁ > mean₀, so there is no label
switching) and, when :attr:`Mixture.top` is given, as the one that holds the
top score (the log-likelihood ratio may not fall far from its peak above the
positive mean to the highest score) and, with :attr:`Mixture.bottom`, not
the bottom score (nor rise far from its trough below the negative mean to
the lowest score). Inference works in the unconstrained
space u (π by logit, each family parameter by its domain's transform), with
the log-Jacobian added.

Scores enter through their distinct values with counts, so tied scores cost
nothing extra, and the (M, K) work is done in blocks of draws so memory stays
bounded for large N.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from ...exceptions import MixtureFitError, SpeInputError, plain
from ...families import Family, get_family
from ..registry import ScoreModel, register

__all__ = ["ScoreSpace", "MixtureData", "Mixture", "MixtureFit", "BLOCK_ELEMENTS", "TOP_DROP", "logit_clip",
           "resolve_score_type", "natural_threshold", "resolve_score_reading", "clipped_probabilities",
           "PROBABILITY_TOLERANCE", "SCORE_TYPES", "SCORE_SPACES", "LOG_ODDS_LIMIT", "outward_envelope", "pivot_index",
           "START_SAMPLE", "start_sample"]

#: Nats the log-likelihood ratio may fall from its peak above the positive mean to the top score
#: (:attr:`Mixture.top`), or rise from its trough below the negative mean to the bottom score
#: (:attr:`Mixture.bottom`), and the points over [bottom, top] it is checked on.
TOP_DROP = 1.0
TOP_GRID = 65

#: What scores can be (see :func:`resolve_score_type`).
SCORE_TYPES = ("auto", "probability", "log-odds", "decision")

#: Where the families can model the scores (:meth:`ScoreSpace.fit`).
SCORE_SPACES = ("linear", "logit", "auto")

#: Largest |score| read as log-odds: beyond it, exp(−|score|) underflows even the smallest subnormal double
#: (≈ 4.9e-324 = e^−744.4), so no probability a computer holds has such log-odds.
LOG_ODDS_LIMIT = 745.0

#: How far outside [0, 1] scores may lie and still be probabilities: float noise (the rows of a softmax summed in
#: float32 reach 1.00001) far below any real probability's resolution. Such scores are clipped to [0, 1]
#: (:func:`clipped_probabilities`); a score further out says the scores are not probabilities.
PROBABILITY_TOLERANCE = 1e-4

#: Scores the MAP search's starting points are computed from, at most (:meth:`Mixture.initial_points`).
START_SAMPLE = 1 << 16

#: Largest (draws × distinct scores) block evaluated at once (≈ 32 MB of float64).
BLOCK_ELEMENTS = 1 << 22


def logit_clip(scores):
    """Clipping ε for taking the logit of probability scores (N,) in [0, 1].

    Half the smallest distance of an interior score to 0 or 1 (so exact 0s
    and 1s map just beyond the most extreme interior scores), kept within
    [1e-12, 1e-3].
    """
    s = np.asarray(scores, dtype=float)
    inner = s[(s > 0) & (s < 1)]
    eps = 0.5 * float(min(inner.min(), 1 - inner.max())) if inner.size else 1e-6
    return min(max(eps, 1e-12), 1e-3)


def resolve_score_type(scores, score_type="auto"):
    """What the scores are: "probability", "log-odds" or "decision" (a score of unknown scale).

    ``"auto"`` reads scores that all lie in [0, 1] (within
    :data:`PROBABILITY_TOLERANCE`: float noise) as probabilities, other
    scores within ±:data:`LOG_ODDS_LIMIT` as possibly log-odds (a logistic
    regression's decision function is one): the "calibrated up to a prior
    shift" model then reads the score as log-odds, and its evidence on the
    labels decides how much that reading counts; larger scores as decision
    values. ``"decision"`` says the scores are not log-odds (an SVM margin,
    a ranking score) and leaves that model out. On the benchmark cases
    leaving it out for every unbounded score hurt: it is right for logistic
    regressions and the evidence switches it off for most SVMs.

    Parameters
    ----------
    scores : array, shape (N,)
        All scores, score units.
    score_type : {"auto", "probability", "log-odds", "decision"}

    Returns
    -------
    str
        "probability", "log-odds" or "decision".

    Raises
    ------
    SpeInputError
        Unknown ``score_type``, or "probability" for scores outside [0, 1]
        (:func:`resolve_score_reading` reads those as decision values instead,
        with a warning).
    """
    _check_score_type(score_type)
    s = np.asarray(scores, dtype=float)
    lo, hi = float(s.min()), float(s.max())
    if score_type == "auto":
        return "probability" if _in_unit(lo, hi) else "log-odds" if max(-lo, hi) <= LOG_ODDS_LIMIT else "decision"
    if score_type == "probability" and not _in_unit(lo, hi):
        raise SpeInputError(f"'probability' needs scores in [0, 1]; they span [{lo:g}, {hi:g}]",
                            argument="score_type")
    return score_type


def natural_threshold(scores, score_type="auto"):
    """The classifier's own decision threshold, score units: 0.5 for probability scores, 0 for log-odds and
    decision values (:func:`resolve_score_type` of ``scores`` (N,); raises as it does)."""
    return 0.5 if resolve_score_type(scores, score_type) == "probability" else 0.0


def _check_score_type(score_type):
    """Raise SpeInputError (argument ``score_type``) unless it is one of :data:`SCORE_TYPES`."""
    if score_type not in SCORE_TYPES:
        raise SpeInputError(f"must be one of {SCORE_TYPES}, got {plain(score_type)!r}", argument="score_type")


def _in_unit(lo, hi):
    """Whether scores spanning [lo, hi] are within :data:`PROBABILITY_TOLERANCE` of [0, 1]."""
    return lo >= -PROBABILITY_TOLERANCE and hi <= 1 + PROBABILITY_TOLERANCE


def clipped_probabilities(scores, score_type="auto"):
    """Scores read as probabilities, float noise outside [0, 1] clipped: (scores (N,), note or None).

    Scores that :func:`resolve_score_type` reads as probabilities but that lie
    up to :data:`PROBABILITY_TOLERANCE` outside [0, 1] (1.00001 from a softmax
    summed in float32) are clipped into [0, 1] in a new array, with a note
    saying how many; any other scores come back as given (not copied), with
    None.

    Parameters
    ----------
    scores : array, shape (N,)
        Score units.
    score_type : {"auto", "probability", "log-odds", "decision"}

    Raises
    ------
    SpeInputError
        As :func:`resolve_score_type`.
    """
    _check_score_type(score_type)
    s = np.asarray(scores, dtype=float)
    lo, hi = float(s.min()), float(s.max())
    if score_type not in ("auto", "probability") or not _in_unit(lo, hi) or (lo >= 0 and hi <= 1):
        return scores, None
    outside = np.count_nonzero((s < 0) | (s > 1))
    return np.clip(s, 0.0, 1.0), (f"{outside} score(s) lie just outside [0, 1] (from {lo:.6g} to {hi:.6g}: float "
                                  "noise) and were clipped to [0, 1]; the scores are read as probabilities")


def resolve_score_reading(scores, score_type="auto", score_space="linear"):
    """The score type and score space to use, with a warning for each stated one the scores contradict.

    Scores outside [0, 1] cannot be probabilities, and scores beyond
    ±:data:`LOG_ODDS_LIMIT` cannot be log-odds of a probability a computer
    holds: stated so, they are read as decision values of unknown scale
    (the "calibrated" model is left out); ``score_space="logit"`` needs
    probabilities and falls back to "linear". Degenerate, not bad: an
    answer and a warning (:mod:`spe.inputs`), the same whatever the values.

    Parameters
    ----------
    scores : array, shape (N,)
    score_type : {"auto", "probability", "log-odds", "decision"}
    score_space : {"linear", "logit", "auto"}

    Returns
    -------
    score_type : str
        "probability", "log-odds" or "decision".
    score_space : str
        "linear", "logit" or "auto".
    warnings : list of str

    Raises
    ------
    SpeInputError
        An unknown ``score_type`` or ``score_space``.
    """
    _check_score_type(score_type)
    if score_space not in SCORE_SPACES:
        raise SpeInputError(f"must be one of {SCORE_SPACES}, got {plain(score_space)!r}", argument="score_space")
    s = np.asarray(scores, dtype=float)
    lo, hi = float(s.min()), float(s.max())
    in_unit, out = _in_unit(lo, hi), []
    span = f"[{lo:g}, {hi:g}]"
    if score_type == "probability" and not in_unit:
        out.append(f"the scores are said to be probabilities but span {span}, outside [0, 1]: they are read as "
                   "decision values of unknown scale (the 'calibrated' model, which needs probabilities or "
                   "log-odds, is left out)")
        score_type = "decision"
    elif score_type == "log-odds" and max(-lo, hi) > LOG_ODDS_LIMIT:
        out.append(f"the scores are said to be log-odds but span {span}: log-odds beyond ±{LOG_ODDS_LIMIT:g} are "
                   "probabilities no computer holds, so they are read as decision values of unknown scale (the "
                   "'calibrated' model is left out)")
        score_type = "decision"
    if score_space == "logit" and not in_unit:
        out.append(f"the score space 'logit' takes the logit of probability scores, but these span {span}: the "
                   "families model the scores as they are (the score space 'linear')")
        score_space = "linear"
    return resolve_score_type(s, score_type), score_space, out


@dataclass(frozen=True)
class ScoreSpace:
    """The recorded monotone map from classifier scores to model-space scores.

    ``x = (z(s) - lo) / (hi - lo)`` where ``z`` is the identity for decision
    values (``kind="linear"``) or the logit for probabilities
    (``kind="logit"``, scores clipped to [ε, 1 − ε] so exact 0 and 1 stay
    finite), ``lo = min z - δ``, ``hi = max z + δ`` and
    ``δ = margin · (max z - min z)``: every score lands strictly inside
    (0, 1), as the paper's map to (0, 1] (§4.2). Families with real,
    positive or unit support all see the same x, so their likelihoods are
    comparable. The map is strictly increasing, so rankings, curves and
    thresholds are unchanged; they are always reported in score units.

    Attributes
    ----------
    lo, hi : float
        Endpoints in z units mapped to 0 and 1.
    kind : {"linear", "logit"}
    eps : float
        Clipping of probability scores (``kind="logit"`` only).
    """

    lo: float
    hi: float
    kind: str = "linear"
    eps: float = 0.0

    @classmethod
    def fit(cls, scores, kind="auto", margin=0.01):
        """Fit the map to scores of shape (N,).

        Parameters
        ----------
        scores : array, shape (N,)
        kind : {"auto", "linear", "logit"}
            ``"auto"``: logit when every score lies in [0, 1] and they are
            not all equal, else linear.
        margin : float
            δ as a fraction of the z range.

        Raises
        ------
        SpeInputError
            ``kind="logit"`` with scores outside [0, 1], or an unknown kind.
        """
        s = np.asarray(scores, dtype=float)
        smin, smax = float(np.min(s)), float(np.max(s))
        if kind == "auto":
            kind = "logit" if (smin >= 0 and smax <= 1 and smax > smin) else "linear"
        if kind not in ("linear", "logit"):
            raise SpeInputError(f"must be one of {SCORE_SPACES}, got {plain(kind)!r}", argument="score_space")
        eps = 0.0
        if kind == "logit":
            if smin < 0 or smax > 1:
                raise SpeInputError(f"'logit' needs scores in [0, 1]; they span [{smin:g}, {smax:g}]",
                                    argument="score_space")
            eps = logit_clip(s)
        z = cls._z(s, kind, eps)
        zmin, zmax = float(np.min(z)), float(np.max(z))
        width = zmax - zmin
        if not width > 0:
            width = max(abs(zmin), 1.0)
        delta = margin * width
        return cls(zmin - delta, zmax + delta, kind, eps)

    @staticmethod
    def _z(s, kind, eps):
        if kind == "logit":
            return special.logit(np.clip(s, eps, 1 - eps))
        return s

    def to_model(self, scores):
        """Score units → model space, shape preserved."""
        z = self._z(np.asarray(scores, dtype=float), self.kind, self.eps)
        return (z - self.lo) / (self.hi - self.lo)

    def to_scores(self, x):
        """Model space → score units, shape preserved."""
        z = self.lo + np.asarray(x, dtype=float) * (self.hi - self.lo)
        return special.expit(z) if self.kind == "logit" else z


@dataclass
class MixtureData:
    """The scores and labels in the form the likelihood uses.

    Attributes
    ----------
    x_unlabeled : array, shape (K_u,)
        Distinct model-space scores of the unlabeled items (with
        ``bin_edges``: the midpoints of the non-empty bins).
    count_unlabeled : array, shape (K_u,)
        How many unlabeled items have each of those scores (fall in each bin).
    x_negative, x_positive : array, shapes (n₀,), (n₁,)
        Model-space scores of the labeled negatives and positives.
    n_items : int
        N, all items.
    bin_edges : array, shape (E,), or None
        Sorted model-space bin edges when the unlabeled scores enter as a
        histogram (exact likelihood of the binned data, eq. 2 with each
        density replaced by the class-conditional probability of the bin,
        :meth:`spe.families.base.Family.log_bin_mass`); None: through the
        density at each score.
    bin_lower, bin_upper : int arrays, shape (K_u,), or None
        Indices into ``bin_edges`` of each non-empty bin's edges.
    """

    x_unlabeled: np.ndarray
    count_unlabeled: np.ndarray
    x_negative: np.ndarray
    x_positive: np.ndarray
    n_items: int
    bin_edges: np.ndarray | None = None
    bin_lower: np.ndarray | None = None
    bin_upper: np.ndarray | None = None

    @classmethod
    def build(cls, x, labeled_index, labeled_value, *, resolution=None, edges=None, x_sorted=None, counts=None):
        """From model-space scores x (N,) and labels at ``labeled_index`` (n,).

        Parameters
        ----------
        x : array, shape (N,)
        labeled_index : int array, shape (n,)
        labeled_value : 0/1 array, shape (n,)
        resolution : float, optional
            If given, unlabeled scores are merged onto the midpoints of a
            grid of this width in model space (x ∈ (0, 1)), so the
            unlabeled term costs at most ``1/resolution`` density
            evaluations per draw whatever N is. This is the midpoint rule
            for the likelihood of the binned scores; with the default used
            by :func:`spe.evaluate` (1/4096 of the score range) its effect
            on the fit is far below the posterior uncertainty.
        edges : array, shape (E,), optional
            Bin edges in model space (sorted and deduplicated here; they
            must span the unlabeled scores). The unlabeled scores enter as
            the counts of the bins [e_j, e_{j+1}) (the last bin closed) and
            the likelihood of these counts is exact, by differences of the
            class-conditional CDFs: the large-N path of
            :func:`spe.evaluate` (``likelihood_bins``). Overrides
            ``resolution``.
        x_sorted : array, shape (N,), optional
            ``x`` sorted, if the caller has it: the bins are then counted
            by E binary searches instead of N (same counts).
        counts : int array, shape (N,), optional
            Items each x stands for (a :class:`spe.pool.ScorePool`; labeled
            entries stand for one); ``x_sorted`` is then not needed.

        Raises
        ------
        ValueError
            ``edges`` with fewer than two distinct values, or not spanning
            the unlabeled scores.
        """
        x = np.asarray(x, dtype=float)
        mask = np.ones(x.size, dtype=bool)
        mask[labeled_index] = False
        xu = x[mask]
        weights = None if counts is None else np.asarray(counts, dtype=float)[mask]
        lab_x = x[labeled_index]
        lab_y = np.asarray(labeled_value)
        labeled = (lab_x[lab_y == 0], lab_x[lab_y == 1], x.size if counts is None else int(np.sum(counts)))
        if edges is not None:
            e = np.unique(np.asarray(edges, dtype=float))
            if e.size < 2:
                raise ValueError("likelihood bin edges need at least two distinct values")
            if xu.size and (xu.min() < e[0] or xu.max() > e[-1]):
                raise ValueError(f"likelihood bin edges [{e[0]:g}, {e[-1]:g}] do not span the unlabeled scores "
                                 f"[{xu.min():g}, {xu.max():g}]")
            if x_sorted is None or weights is not None:
                j = np.minimum(np.searchsorted(e, xu, side="right") - 1, e.size - 2)
                counts = np.bincount(j, weights=weights, minlength=e.size - 1)
            else:  # items below each edge (the last bin closed), all items minus the labeled ones
                def below(v):
                    return np.append(np.searchsorted(v, e[:-1], side="left"), np.searchsorted(v, e[-1], "right"))

                counts = np.diff(below(np.asarray(x_sorted, dtype=float)) - below(np.sort(lab_x)))
            lower = np.flatnonzero(counts)
            return cls(0.5 * (e[lower] + e[lower + 1]), counts[lower].astype(float), *labeled,
                       bin_edges=e, bin_lower=lower, bin_upper=lower + 1)
        if resolution is not None and xu.size:
            # grid cells by counting (O(N)), not by sorting: the same midpoints and counts as np.unique
            cell = np.floor(xu / resolution)
            first = cell.min()
            counts = np.bincount((cell - first).astype(np.int64), weights=weights)
            filled = np.flatnonzero(counts)
            return cls((first + filled + 0.5) * resolution, counts[filled].astype(float), *labeled)
        if weights is not None:
            xu, inverse = np.unique(xu, return_inverse=True)
            return cls(xu, np.bincount(inverse, weights=weights, minlength=xu.size), *labeled)
        xu, cu = np.unique(xu, return_counts=True)
        return cls(xu, cu.astype(float), *labeled)

    @functools.cached_property
    def x_for_negative(self):
        """The unlabeled scores (or bin midpoints) then the labeled negatives', shape (K_u + n₀,)."""
        return np.concatenate([self.x_unlabeled, self.x_negative])

    @functools.cached_property
    def x_for_positive(self):
        """The unlabeled scores (or bin midpoints) then the labeled positives', shape (K_u + n₁,)."""
        return np.concatenate([self.x_unlabeled, self.x_positive])

    def tempered(self, power):
        """The same data with the unlabeled likelihood raised to ``power`` ζ ∈ (0, 1] (counts × ζ)."""
        return dataclasses.replace(self, count_unlabeled=self.count_unlabeled * float(power))


def outward_envelope(values, pivot_index):
    """Make values on a sorted grid non-decreasing outward from a pivot: (..., G) → (..., G).

    From grid index ``pivot_index`` upward, the running maximum; from it
    downward, the running minimum (taken from the pivot toward the bottom).
    Values that already rise through the pivot are unchanged; a fall above
    the pivot is held at the highest value reached between the pivot and
    that point, a rise below it at the lowest value reached between that
    point and the pivot. Used on log-odds of the SPE mixture
    (:meth:`Mixture.monotone_class_probability`, the hybrid's input in
    :func:`spe.api.evaluate`).

    Parameters
    ----------
    values : array, shape (..., G)
        Values at G sorted grid points (last axis).
    pivot_index : int
        0 ≤ index ≤ G; G (the pivot above the grid) gives the running minimum
        from the top down everywhere, 0 the running maximum from the bottom up.

    Returns
    -------
    array, shape (..., G)
        Non-decreasing along the last axis.
    """
    v = np.asarray(values, dtype=float)
    k = int(pivot_index)
    if not 0 <= k <= v.shape[-1]:
        raise ValueError(f"pivot_index must be in [0, {v.shape[-1]}], got {k}")
    out = np.empty_like(v)
    out[..., k:] = np.maximum.accumulate(v[..., k:], axis=-1)
    if k > 0:  # from the pivot (included when on the grid) down: running minimum, reversed back
        top = min(k, v.shape[-1] - 1)
        down = np.minimum.accumulate(v[..., top::-1], axis=-1)[..., ::-1]
        out[..., :k] = down[..., :k]
    return out


def pivot_index(grid, pivot):
    """Index (int) of the first point of a sorted grid (G,) at or above ``pivot``, at most G − 1: where
    :func:`outward_envelope` starts when the pivot is a score rather than a grid point."""
    return min(int(np.searchsorted(grid, pivot, side="left")), len(grid) - 1)


@dataclass
class Mixture:
    """Two-component mixture with pluggable class-conditional families.

    Parameters
    ----------
    negative, positive : Family or str
        Class-conditional families of the negative (y = 0) and positive
        (y = 1) class, by object or registry name.
    prevalence_prior : (float, float)
        Beta(a, b) prior on π (paper §4.2). Default Beta(1, 1).
    top : float or None
        Model-space score of the highest-scored item. When given, a
        parameter value is identified only if, besides mean₁ > mean₀, the
        log-likelihood ratio log p₁(x)/p₀(x) at ``top`` is within
        :data:`TOP_DROP` nats of its maximum over [mean₁, top] (checked on
        :data:`TOP_GRID` points): the highest-scored items are not less
        likely positive than the positive class's typical item. Without it
        a negative family with a heavier upper tail than the positive one
        can take the top scores, which the unlabeled scores alone cannot
        refute. None: the paper's identification (means only).
    bottom : float or None
        Model-space score of the lowest-scored item; the same at the other
        end (used only with ``top``): the log-likelihood ratio at
        ``bottom`` is within :data:`TOP_DROP` nats of its minimum over
        [bottom, mean₀] — the lowest-scored items are not more likely
        positive than the negative class's typical item. Without it a
        negative family whose density vanishes at the lowest scores (a
        gamma or beta with shape > 1) under a positive family that does not
        calls the bottom items positive.

    Notes
    -----
    The parameter vector is ``(π, θ₀..., θ₁...)``, P = 1 + P₀ + P₁; names in
    :attr:`param_names`.
    """

    negative: Family
    positive: Family
    prevalence_prior: tuple[float, float] = (1.0, 1.0)
    top: float | None = None
    bottom: float | None = None
    _slices: tuple = field(init=False, repr=False)
    _log_beta: float = field(init=False, repr=False)  # log B(a, b) of the prevalence prior, computed once

    def __post_init__(self):
        self.negative = get_family(self.negative)
        self.positive = get_family(self.positive)
        p0 = self.negative.n_params
        self._slices = (slice(1, 1 + p0), slice(1 + p0, 1 + p0 + self.positive.n_params))
        self._log_beta = special.betaln(*self.prevalence_prior)

    @property
    def n_params(self) -> int:
        """P = 1 + P₀ + P₁."""
        return 1 + self.negative.n_params + self.positive.n_params

    @property
    def param_names(self) -> list[str]:
        return (
            ["prevalence"]
            + [f"negative.{n}" for n in self.negative.param_names]
            + [f"positive.{n}" for n in self.positive.param_names]
        )

    @property
    def name(self) -> str:
        return f"{self.negative.name},{self.positive.name}"

    # ----- parameter packing ----------------------------------------------------------
    def unpack(self, u):
        """Unconstrained u (M, P) → (π (M,), θ₀ (M, P₀), θ₁ (M, P₁), log-Jacobian (M,))."""
        u = np.atleast_2d(np.asarray(u, dtype=float))
        s0, s1 = self._slices
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            pi = special.expit(u[:, 0])
            jac = special.log_expit(u[:, 0]) + special.log_expit(-u[:, 0])
            th0, j0 = self.negative.from_unconstrained(u[:, s0])
            th1, j1 = self.positive.from_unconstrained(u[:, s1])
        return pi, th0, th1, jac + j0 + j1

    def pack(self, pi, theta0, theta1):
        """Constrained (π, θ₀, θ₁) → unconstrained u of shape (M, P)."""
        pi = np.atleast_1d(np.asarray(pi, dtype=float))
        t0 = np.atleast_2d(theta0)
        t1 = np.atleast_2d(theta1)
        with np.errstate(divide="ignore"):
            return np.hstack(
                [special.logit(pi)[:, None], self.negative.to_unconstrained(t0), self.positive.to_unconstrained(t1)]
            )

    def constrained(self, u):
        """Unconstrained u (M, P) → constrained θ (M, P), columns as :attr:`param_names`."""
        pi, th0, th1, _ = self.unpack(u)
        return np.hstack([pi[:, None], th0, th1])

    # ----- densities ------------------------------------------------------------------
    def _log_prior(self, pi, th0, th1):
        a, b = self.prevalence_prior
        with np.errstate(divide="ignore"):
            lp = special.xlogy(a - 1, pi) + special.xlog1py(b - 1, -pi) - self._log_beta
        return lp + self.negative.log_prior(th0) + self.positive.log_prior(th1)

    def identified(self, th0, th1):
        """Which parameter values are identified: θ₀ (M, P₀), θ₁ (M, P₁) constrained → boolean (M,).

        True where the positive component has the larger mean model-space score (the paper's
        ordering, §3) and, when :attr:`top` is set, the log-likelihood ratio log p₁/p₀ at ``top`` is
        within :data:`TOP_DROP` nats of its maximum over [mean₁, top] and, when :attr:`bottom` is
        also set, its value at ``bottom`` is within :data:`TOP_DROP` nats of its minimum over
        [bottom, mean₀] (:data:`TOP_GRID` points over [bottom or 0, top]; cost O(M · TOP_GRID)
        density evaluations).
        """
        m1 = self.positive.mean_of(th1)
        m0 = self.negative.mean_of(th0)
        ok = m1 > m0
        if self.top is None or not ok.any():
            return ok
        low = 0.0 if self.bottom is None else self.bottom
        grid = np.linspace(low, self.top, TOP_GRID)
        with np.errstate(all="ignore"):
            llr = self.positive.logpdf(th1, grid) - self.negative.logpdf(th0, grid)  # (M, G)
        undefined = np.isnan(llr)  # both densities zero: counts against neither test
        llr_hi = np.where(undefined, -np.inf, llr)
        above = grid[None, :] >= np.minimum(m1, self.top)[:, None]
        peak = np.max(np.where(above, llr_hi, -np.inf), axis=1)
        ok &= llr_hi[:, -1] >= peak - TOP_DROP
        if self.bottom is not None:
            llr_lo = np.where(undefined, np.inf, llr)
            below = grid[None, :] <= np.maximum(m0, self.bottom)[:, None]
            trough = np.min(np.where(below, llr_lo, np.inf), axis=1)
            ok &= llr_lo[:, 0] <= trough + TOP_DROP
        return ok

    def identified_at(self, u):
        """Whether one unconstrained point u (P,) is identified (the MAP search's ``accept``)."""
        _, th0, th1, _ = self.unpack(np.asarray(u, dtype=float)[None, :])
        return bool(self.identified(th0, th1)[0])

    def _log_likelihood_block(self, pi, th0, th1, data):
        with np.errstate(divide="ignore", invalid="ignore"):
            log_pi, log_1mpi = np.log(pi), np.log1p(-pi)
            ll = np.zeros(pi.shape)
            ku, n0, n1 = data.x_unlabeled.size, data.x_negative.size, data.x_positive.size
            if data.bin_edges is None:
                # one density call per class for its unlabeled and labeled scores (the calls' overhead,
                # not their arithmetic, is most of a MAP step's cost on the coarse grid)
                d0 = self.negative.logpdf(th0, data.x_for_negative)
                d1 = self.positive.logpdf(th1, data.x_for_positive)
                l0, l1 = d0[:, :ku], d1[:, :ku]
                lab0, lab1 = d0[:, ku:], d1[:, ku:]
            else:  # the histogram: log P(bin | class) from CDF differences
                l0 = self.negative.log_bin_mass(th0, data.bin_edges, data.bin_lower, data.bin_upper)
                l1 = self.positive.log_bin_mass(th1, data.bin_edges, data.bin_lower, data.bin_upper)
                lab0 = self.negative.logpdf(th0, data.x_negative) if n0 else None
                lab1 = self.positive.logpdf(th1, data.x_positive) if n1 else None
            if ku:
                mix = np.logaddexp(log_1mpi[:, None] + l0, log_pi[:, None] + l1)
                ll += mix @ data.count_unlabeled
            if n0:
                ll += n0 * log_1mpi + lab0.sum(axis=1)
            if n1:
                ll += n1 * log_pi + lab1.sum(axis=1)
        return np.where(np.isnan(ll), -np.inf, ll)

    def log_likelihood(self, u, data):
        """Log-likelihood of eqs. 2–3 for each draw: u (M, P) → (M,)."""
        pi, th0, th1, _ = self.unpack(u)
        return self._blocks(lambda sl: self._log_likelihood_block(pi[sl], th0[sl], th1[sl], data), pi.size, data)

    def log_posterior(self, u, data, identify=True):
        """Unnormalised log posterior density of unconstrained u (eq. 4 plus log-Jacobian).

        Parameters
        ----------
        u : array, shape (M, P)
        data : MixtureData

        Returns
        -------
        array, shape (M,)
            ``-inf`` where the draw is outside the domain or not identified
            (positive mean ≤ negative mean) unless ``identify`` is False
            (the MAP search drops the constraint, so its line searches see a
            smooth surface, and checks it at the optimum).
        """
        pi, th0, th1, jac = self.unpack(u)
        lp = self._log_prior(pi, th0, th1) + jac
        ok = np.isfinite(lp)
        if identify:
            ok &= self.identified(th0, th1)
        ll = self._blocks(lambda sl: self._log_likelihood_block(pi[sl], th0[sl], th1[sl], data), pi.size, data)
        out = np.where(ok, lp + ll, -np.inf)
        return np.where(np.isnan(out), -np.inf, out)

    @staticmethod
    def _blocks(fn, m, data):
        k = max(data.x_unlabeled.size, 1)
        step = max(1, BLOCK_ELEMENTS // k)
        if m <= step:
            return fn(slice(0, m))
        return np.concatenate([fn(slice(i, min(i + step, m))) for i in range(0, m, step)])

    def class_probability(self, u, x):
        """p(y = 1 | x, θ) for each draw and score: u (M, P) unconstrained parameters, x (B,) in model space →
        (M, B) probabilities (:meth:`spe.models.base.FittedScoreModel.positive_probability` is the same in score
        units, for any score model).

        The posterior class probability under the mixture,
        ``π p₁(x) / ((1 − π) p₀(x) + π p₁(x))``; x in model space.
        """
        pi, th0, th1, _ = self.unpack(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.log1p(-pi)[:, None] + self.negative.logpdf(th0, x)
            b = np.log(pi)[:, None] + self.positive.logpdf(th1, x)
            out = special.expit(b - a)
        # both densities zero (outside both supports): fall back to the prevalence
        both = ~np.isfinite(a) & ~np.isfinite(b)
        return np.where(both, pi[:, None], np.nan_to_num(out, nan=0.5))

    def monotone_class_probability(self, u, x, grid, pivot=None):
        """p(y = 1 | x, θ) made non-decreasing in x: u (M, P), x (B,) → (M, B).

        "The classifier ranks items sensibly" as a constraint on p(y | s),
        applied outward from a central ``pivot`` score (see
        :func:`outward_envelope`): above it the log-odds at x is the largest
        of the mixture's log-odds L at x and at the grid points in
        [pivot, x]; below it, the smallest of L at x and at the grid points
        in [x, pivot] (and between two grid points it stays between their
        values, so it never decreases). Two misfits are repaired this way:
        a negative family with a heavier upper tail than the positive one
        makes L fall at the top scores (p holds at the highest value reached
        below), and a negative family whose density vanishes at the lower
        end of the scores (a gamma or beta with shape > 1) makes L rise at
        the bottom (p holds at the lowest value reached above; a running
        maximum from the bottom would carry that rise up to every score).
        Where L rises through the pivot it is unchanged. Cost O(M·G) beyond
        :meth:`class_probability`.

        Parameters
        ----------
        u : array, shape (M, P)
            Unconstrained parameter draws.
        x : array, shape (B,)
            Scores in model space.
        grid : array, shape (G,)
            Sorted model-space points over which the envelope is taken
            (:func:`spe.models.mixture.fit.fit_mixture` uses 513 quantiles of all scores).
        pivot : float, optional
            Model-space score the envelope starts from (default: the
            median of ``grid``; :func:`spe.models.mixture.fit.fit_mixture` passes the
            median of all scores).

        Returns
        -------
        array, shape (M, B)
            Probabilities in [0, 1].
        """
        x = np.asarray(x, dtype=float)
        grid = np.asarray(grid, dtype=float)
        pivot = float(np.median(grid)) if pivot is None else float(pivot)
        lg = special.logit(np.clip(self.class_probability(u, grid), 1e-300, 1 - 1e-16))
        env = outward_envelope(lg, pivot_index(grid, pivot))
        lx = special.logit(np.clip(self.class_probability(u, x), 1e-300, 1 - 1e-16))
        # between grid points j and j + 1, L at x clipped to [envelope at j, envelope at j + 1] (the running
        # maximum above the pivot, the running minimum below it); below the grid at most its envelope at the
        # lowest point, above it at least its envelope at the highest
        padded = np.pad(env, ((0, 0), (1, 1)), constant_values=(-np.inf, np.inf))
        j = np.searchsorted(grid, x, side="right")  # 1 + the last grid point ≤ x (0: below the grid)
        return special.expit(np.clip(lx, padded[:, j], padded[:, j + 1]))

    # ----- starting points ------------------------------------------------------------
    def initial_points(self, x, data, fractions=(0.5, 0.3, 0.1, 0.03), limit=None):
        """Data-driven starting points u (S, P) for the MAP search.

        Each start splits all scores at a quantile: the top fraction f (and
        the labeled positives) initialise the positive family, the rest (and
        the labeled negatives) the negative family, π = f. The labeled
        prevalence is tried too when there are labels of both classes.
        Above :data:`START_SAMPLE` scores, every k-th score stands in for
        all of them (a systematic sample of about that many, whatever the
        order of the items), so the cost does not grow with N. ``limit``:
        stop after that many starts (the first ones of the full list).
        """
        x = np.asarray(x, dtype=float)
        if x.size > START_SAMPLE:
            x = x[:: -(-x.size // START_SAMPLE)]
        fr = list(fractions)
        n0, n1 = data.x_negative.size, data.x_positive.size
        if n0 and n1:
            fr.insert(0, float(np.clip(n1 / (n0 + n1), 0.02, 0.9)))
        starts = []
        xs = np.sort(x)
        for f in fr:
            cut = xs[min(int((1 - f) * xs.size), xs.size - 1)]
            lo = np.concatenate([x[x < cut], data.x_negative])
            hi = np.concatenate([x[x >= cut], data.x_positive])
            if lo.size < 2 or hi.size < 2:
                continue
            try:
                u = self.pack(f, self.negative.initialize(lo), self.positive.initialize(hi))
            except (ValueError, FloatingPointError):
                continue
            if np.all(np.isfinite(u)):
                starts.append(u[0])
                if limit is not None and len(starts) >= limit:
                    break
        if not starts:
            raise MixtureFitError("could not initialise the mixture: too few distinct scores on either side of "
                                  "every split")
        return np.array(starts)


def start_sample(x_sorted, counts, size=START_SAMPLE):
    """A systematic sample of the items of a pool for :meth:`Mixture.initial_points`: the values at ``size``
    evenly spaced ranks of the N items (all N when fewer), (K,), (K,) → (≤ size,), model space.

    ``x_sorted`` ascending, each standing for ``counts`` items (a :class:`spe.pool.ScorePool`)."""
    cum = np.cumsum(np.asarray(counts, dtype=np.int64))
    m = int(min(cum[-1], size))
    ranks = ((np.arange(m) + 0.5) * (cum[-1] / m)).astype(np.int64)
    return np.asarray(x_sorted, dtype=float)[np.searchsorted(cum, ranks, side="right")]


@dataclass(frozen=True)
class MixtureFit:
    """What the SPE mixture's fit keeps beside its draws (:attr:`FittedScoreModel.mixture_fit`).

    Attributes
    ----------
    mixture : Mixture
        The chosen families and prior.
    space : ScoreSpace
        The map between score units and model space.
    u_map : array, shape (P,)
        The MAP (unconstrained) of the posterior sampled: the tempered one
        when the histogram check failed.
    u_map_untempered : array, shape (P,)
        The MAP of the paper's (untempered) posterior.
    histogram_check : spe.models.mixture.check.HistogramCheck or None
        The posterior-predictive check of the score histogram.
    inference_data : arviz.InferenceData or None
        NUTS only: PyMC's record of the chains.
    sampling_seconds : float
        Wall time of the posterior sampling (for benchmarks; kept out of
        the diagnostics, so that the same seed gives the same JSON).
    """

    mixture: Mixture
    space: ScoreSpace
    u_map: np.ndarray
    u_map_untempered: np.ndarray
    histogram_check: object = None
    inference_data: object = None
    sampling_seconds: float = 0.0


def _fit_registered(data, rng):
    """The SPE mixture is fitted before the other models (they may read it): this returns that fit."""
    return data.mixture


register(ScoreModel(name="mixture", fit=_fit_registered, uses_mixture=True,
                    about="the paper's SPE mixture alone"))
