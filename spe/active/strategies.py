"""How ``spe suggest`` chooses the items to label next: the strategies, one registry.

A strategy picks k items from :class:`~spe.active.candidates.Candidates`, one at a time, and conditions the
:class:`~spe.active.preposterior.Preposterior` on each (its label not yet known): each pick is valued the same
way whatever the strategy (the expected reduction of the target's posterior SD given the picks before it), and
the information strategy chooses by that value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..registries import add_unique

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
        ``choose(candidates, preposterior, k, rng) -> list of (item, gain)``: k items in order, each taken from
        ``candidates`` and the preposterior conditioned on it (:func:`take`), with the expected reduction of the
        target's posterior SD it brought.
    """

    name: str
    about: str
    choose: Callable


STRATEGIES: dict[str, Strategy] = {}


def register(strategy: Strategy) -> Strategy:
    """Add a strategy to :data:`STRATEGIES` (a duplicate name is a programming error: ``ValueError``)."""
    return add_unique(STRATEGIES, strategy.name, strategy, "strategy")


def take(candidates, pre, item):
    """Take ``item`` from the candidates and condition the preposterior on its label: (item, its gain)."""
    return item, pre.condition(candidates.take(item))


def _random(candidates, pre, k, rng):
    """k items uniformly at random among the unlabeled ones (the baseline: random labels)."""
    items = candidates.free_items()
    return [take(candidates, pre, int(i)) for i in rng.choice(items, k, replace=False)]


def _stratified(candidates, pre, k, rng):
    """The unlabeled items split into k strata of equal size along the score (for several classifiers, along
    the posterior probability of being positive), one item at random from each, highest stratum first."""
    items = candidates.free_items()
    bounds = np.linspace(0, items.size, k + 1).astype(int)
    picked = [items[rng.integers(a, b)] for a, b in zip(bounds[:-1], bounds[1:])][::-1]
    return [take(candidates, pre, int(i)) for i in picked]


def _information(candidates, pre, k, rng):
    """Greedy expected information: each next item is the one whose label is expected to reduce the target's
    posterior variance most given the items already picked (:class:`~spe.active.preposterior.Preposterior`)."""
    out = []
    for _ in range(k):
        gains = np.where(candidates.remaining() > 0, pre.gains(), -np.inf)
        group = int(np.argmax(gains))
        out.append((candidates.take_from(group), pre.condition(group)))
    return out


register(Strategy("random", "uniformly at random among the unlabeled items (the baseline)", _random))
register(Strategy("stratified", "one item at random from each of k equal strata of the score order", _stratified))
register(Strategy("information", "greedily, the item whose label is expected to reduce the target's posterior "
                  "variance most given those already picked", _information))
