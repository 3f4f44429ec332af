"""``suggest``: which items to label next so that the labels settle the user's question.

SPE's posterior conditions on every score, so labels chosen by a rule that depends only on the scores and on
the labels already seen leave its likelihood valid (the selection is ignorable; Rubin 1976): an estimate from
such labels is as honest as one from random labels. A labeled-only estimate is not (it sees only the chosen
items) — see :func:`spe.evaluate`'s ``label_selection``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import SpeInputError
from ..inputs import check_choice, check_count, seed_of
from .candidates import MAX_GROUPS, Candidates
from .preposterior import Preposterior
from .strategies import STRATEGIES
from .targets import parse_target

__all__ = ["suggest", "Suggestion"]


@dataclass
class Suggestion:
    """The items to label next, in order, and what their labels are expected to do to the target.

    Attributes
    ----------
    items : int array, shape (k,)
        Positions 0..N-1 of the items, best first (never a labeled one).
    scores : array, shape (k,) or (k, K)
        Their scores (score units); for a Comparison, every classifier's, one column each (K classifiers, in
        the order of ``names``).
    expected_gain : array, shape (k,)
        The expected reduction of the target's posterior SD by each item's label given the items before it
        (target units; :class:`~spe.active.preposterior.Preposterior`). Their sum is the expected reduction by
        the whole batch.
    target, strategy : str
    uncertainty : float
        The target's posterior SD now (root mean variance over its components; target units).
    expected_uncertainty : float
        Its expected posterior SD once the k labels are known (``uncertainty − expected_gain.sum()``).
    n_labeled : int
        Labels already known.
    seed : int
    names : tuple of str
        For a Comparison, the classifiers' names (``scores``' columns); else empty.
    n_items : int or None
        N, the items of the estimate (None: not known).
    ids : array, shape (k,), or None
        The items' ids, when the estimate's scores carried ids (:attr:`spe.evaluation.Evaluation.ids`).
    """

    items: np.ndarray
    scores: np.ndarray
    expected_gain: np.ndarray
    target: str
    strategy: str
    uncertainty: float
    expected_uncertainty: float
    n_labeled: int
    seed: int
    names: tuple = ()
    n_items: int | None = None
    ids: np.ndarray | None = None

    def to_frame(self, ids=None):
        """A DataFrame, k rows best first: ``id``, ``position`` (the 0-based row), ``score`` (for a Comparison,
        ``score NAME`` for each classifier), ``expected_gain``.

        ``id`` is ``ids[position]`` when ``ids`` (N,) is given, else the id the estimate's scores carried
        (:attr:`ids`), else the position.

        Raises
        ------
        SpeInputError
            ``ids`` not one per item (N entries).
        """
        import pandas as pd

        if ids is not None:
            ids = np.asarray(ids)
            short = self.items.size and ids.size <= int(self.items.max())
            if ids.ndim != 1 or short or (self.n_items is not None and ids.size != self.n_items):
                want = self.n_items if self.n_items is not None else f"more than {int(self.items.max())}"
                got = ids.size if ids.ndim == 1 else f"an array of shape {ids.shape}"
                raise SpeInputError(f"must hold one id per item ({want}), got {got}", argument="ids")
            ident = ids[self.items]
        else:
            ident = self.items if self.ids is None else self.ids
        scores = {f"score {n}": self.scores[:, j] for j, n in enumerate(self.names)} or {"score": self.scores}
        return pd.DataFrame({"id": ident, "position": self.items, **scores, "expected_gain": self.expected_gain})

    def to_dict(self) -> dict:
        """JSON-ready: every attribute (arrays as lists)."""
        return {"target": self.target, "strategy": self.strategy, "n_labeled": self.n_labeled,
                "items": self.items.tolist(), "scores": self.scores.tolist(),
                "expected_gain": self.expected_gain.tolist(), "uncertainty": self.uncertainty,
                "expected_uncertainty": self.expected_uncertainty, "seed": self.seed, "names": list(self.names)}

    def summary(self) -> str:
        """What ``spe suggest`` prints."""
        if self.expected_gain.size == 0:
            return (f"no items to label next: all {self.n_labeled} items are labeled (target {self.target}: its "
                    f"posterior SD is {self.uncertainty:.4f})")
        return (f"{self.expected_gain.size} items to label next ({self.strategy} strategy, target {self.target}); "
                f"the target's posterior SD {self.uncertainty:.4f} now, expected {self.expected_uncertainty:.4f} "
                f"once they are labeled ({self.n_labeled} labels known)")


def suggest(source, k=10, *, target="pr-band", strategy="information", classifier=None, rng=None,
            max_groups=MAX_GROUPS) -> Suggestion:
    """The k items to label next so that their labels reduce a target's posterior uncertainty most.

    Parameters
    ----------
    source : Evaluation or Comparison
        The current estimate (:func:`spe.evaluate`, :func:`spe.compare`); its posterior draws are used as they
        are (nothing is refitted).
    k : int
        How many items (1 ≤ k ≤ the unlabeled items). When every item is labeled there is nothing left to
        suggest: the Suggestion is empty (no items, no gain) whatever k.
    target : str
        ``"pr-band"`` (precision at every recall of the grid), ``"ap"``, ``"prevalence"``, ``"threshold:P,R"``
        (whether the threshold most likely to meet precision ≥ P and recall ≥ R does), ``"compare"`` (the
        average precision differences of every pair of classifiers; a Comparison only).
        :data:`spe.active.TARGETS`.
    strategy : str
        ``"information"`` (greedy expected reduction of the target's posterior variance given the items picked
        before, :mod:`spe.active.preposterior`, with every fifth label at random), ``"greedy"`` (without the
        random fifth), ``"stratified"`` (one item at random from each of k equal
        strata of the score order), ``"random"``. :data:`spe.active.STRATEGIES`.
    classifier : str, optional
        For a Comparison and a single-classifier target: whose (default: the first).
    rng : numpy.random.Generator, int or None
        Which item of a group of equal scores, and the random strategies. Same seed, same items.
    max_groups : int
        B, the most candidate groups (:mod:`spe.active.candidates`).

    Returns
    -------
    Suggestion

    Raises
    ------
    SpeInputError
        An unknown target or strategy, a comparison target on one classifier, k not an integer in
        [1, unlabeled items].
    """
    check_choice("strategy", strategy, tuple(STRATEGIES))
    setup = prepare(source, target, classifier, rng, max_groups)
    k = check_count("k", k, setup.n_free if setup.n_free else np.inf)
    pre = setup.preposterior
    before = pre.uncertainty
    picks = STRATEGIES[strategy].choose(setup.candidates, pre, k, setup.rng) if setup.n_free else []
    items = np.array([item for item, _ in picks], dtype=int)
    gains = np.array([gain for _, gain in picks], dtype=float)
    names = tuple(source.names) if setup.comparison else ()
    scores = (np.column_stack([source[n].scores[items] for n in names]) if names
              else setup.evaluation.scores[items]).astype(float)
    ids = setup.evaluation.ids
    return Suggestion(items=items, scores=scores, expected_gain=gains, target=str(target), strategy=strategy,
                      uncertainty=before, expected_uncertainty=pre.uncertainty,
                      n_labeled=setup.evaluation.n_labeled, seed=setup.seed, names=names,
                      n_items=setup.evaluation.n_items, ids=None if ids is None else np.asarray(ids)[items])


@dataclass
class Setup:
    """What every question about the next labels starts from (:func:`prepare`).

    Attributes
    ----------
    evaluation : Evaluation
        The classifier's estimate (for a Comparison, that of the classifier asked for).
    target_draws : array, shape (M, R)
    candidates : Candidates
    preposterior : Preposterior
    rng : numpy.random.Generator
    seed : int
    comparison : bool
        Whether the estimate is a Comparison (several classifiers).
    """

    evaluation: object
    target_draws: np.ndarray
    candidates: Candidates
    preposterior: Preposterior
    rng: np.random.Generator
    seed: int
    comparison: bool = False

    @property
    def n_free(self) -> int:
        """The unlabeled items."""
        return self.evaluation.n_items - self.evaluation.n_labeled


def prepare(source, target, classifier=None, rng=None, max_groups=MAX_GROUPS) -> Setup:
    """The target's draws, the candidate items and the preposterior of an estimate (:func:`suggest`'s
    parameters).

    Raises
    ------
    SpeInputError
        An unknown target, a comparison target on one classifier, or an evaluation of a pool (its items are
        counted, not kept).
    """
    spec, parameters = parse_target(target)
    comparison = hasattr(source, "evaluations")
    if spec.comparison and not comparison:
        raise SpeInputError(f"target {target!r} compares classifiers: give spe.compare's result", argument="target")
    ev = source[classifier or source.names[0]] if comparison else source
    if getattr(ev, "counts", None) is not None:
        raise SpeInputError("which items to label next needs every item's own score: this evaluation counted the "
                            "scores into a pool (engine 'binned' or 'dask'); evaluate with engine='memory'",
                            argument="engine")
    seed = seed_of(rng)
    gen = np.random.default_rng(seed)
    replay = ev.performance.replay
    order = ev.scores if replay.per_score else ev.item_probabilities()
    candidates = Candidates(order, ev.labeled_index, replay.per_score, gen, max_groups)
    draws = np.asarray(spec.draws(source if spec.comparison else ev, parameters), dtype=float)
    pre = Preposterior(draws, replay.item_probability_draws(ev.scores, candidates.representative), ev.weights)
    return Setup(ev, draws, candidates, pre, gen, seed, comparison)
