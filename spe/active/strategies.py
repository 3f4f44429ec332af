"""How ``spe suggest`` chooses the items to label next: the strategies, one registry.

A strategy picks one item at a time from :class:`~spe.active.candidates.Candidates`, seeing the
:class:`~spe.active.preposterior.Preposterior` conditioned on the items picked before it (their labels not yet
known). Every strategy's picks are then valued the same way (the expected reduction of the target's posterior
SD, in order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Strategy", "STRATEGIES", "register"]


@dataclass(frozen=True)
class Strategy:
    """A way of choosing the next items.

    Attributes
    ----------
    name : str
    about : str
        One line.
    choose : callable
        ``choose(candidates, preposterior, k, rng) -> list of (item, group)``: k items in order, taken from
        ``candidates`` (``preposterior.condition(group)`` is called by the caller after each pick when the
        strategy does not do it itself: see ``conditions``).
    conditions : bool
        Whether ``choose`` conditions the preposterior on each pick itself (and returns the gains as a third
        element of each tuple).
    """

    name: str
    about: str
    choose: Callable
    conditions: bool = False


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add a strategy to :data:`STRATEGIES` (a duplicate name is a programming error: ``ValueError``)."""
    if strategy.name in STRATEGIES:
        raise ValueError(f"strategy {strategy.name!r} is registered twice")
    STRATEGIES[strategy.name] = strategy
    return strategy


def _random(candidates, pre, k, rng):
    """k items uniformly at random among the unlabeled ones (the baseline: random labels)."""
    items = candidates.free_items()
    picked = rng.choice(items, k, replace=False)
    return [(int(i), candidates.take(int(i))) for i in picked]


def _stratified(candidates, pre, k, rng):
    """The unlabeled items split into k strata of equal size along the score (for several classifiers, along
    the posterior probability of being positive), one item at random from each, highest stratum first."""
    items = candidates.free_items()
    bounds = np.linspace(0, items.size, k + 1).astype(int)
    picked = [items[rng.integers(a, b)] for a, b in zip(bounds[:-1], bounds[1:])][::-1]
    return [(int(i), candidates.take(int(i))) for i in picked]


def _information(candidates, pre, k, rng):
    """Greedy expected information: each next item is the one whose label is expected to reduce the target's
    posterior variance most given the items already picked (:class:`~spe.active.preposterior.Preposterior`)."""
    out = []
    for _ in range(k):
        gains = np.where(candidates.remaining() > 0, pre.gains(), -np.inf)
        group = int(np.argmax(gains))
        out.append((candidates.take_from(group), group, pre.condition(group)))
    return out


register(Strategy("random", "uniformly at random among the unlabeled items (the baseline)", _random))
register(Strategy("stratified", "one item at random from each of k equal strata of the score order", _stratified))
register(Strategy("information", "greedily, the item whose label is expected to reduce the target's posterior "
                  "variance most given those already picked", _information, conditions=True))
