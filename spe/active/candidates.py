"""The items that can be suggested: every unlabeled item, in groups that share p(y = 1 | item, θ).

For one classifier the labels depend on the score alone, so the unlabeled items are grouped by score: one group
per distinct score, or, above ``max_groups`` distinct scores, ``max_groups`` groups of consecutive scores with
equal numbers of items (each group's p computed at its median item). For several classifiers (``spe.compare``)
an item's p depends on every classifier's score: the candidates are ``max_groups`` unlabeled items drawn at
random, one group each. Within a group an item is chosen at random.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Candidates", "MAX_GROUPS"]

#: The most candidate groups (B): the preposterior works on (M, B) arrays.
MAX_GROUPS = 2000


class Candidates:
    """The unlabeled items in groups, and the items taken so far.

    Parameters
    ----------
    order : array, shape (N,)
        What the items are grouped and stratified by (one classifier's scores; for several, the posterior
        probability of being positive).
    labeled_index : int array, shape (n,)
    per_score : bool
        Whether items with the same ``order`` value are exchangeable (one classifier).
    rng : numpy.random.Generator
    max_groups : int

    Attributes
    ----------
    n_labeled : int
        The items labeled before any is taken (the ``information`` strategy counts from it).
    """

    def __init__(self, order, labeled_index, per_score, rng, max_groups=MAX_GROUPS):
        order = np.asarray(order, dtype=float)
        free = np.ones(order.size, dtype=bool)
        free[np.asarray(labeled_index, dtype=int)] = False
        items = np.flatnonzero(free)
        if not per_score and items.size > max_groups:
            items = np.sort(rng.choice(items, max_groups, replace=False))
        items = items[np.argsort(order[items], kind="stable")]
        self.order = order
        self.n_labeled = int(order.size - free.sum())
        if items.size == 0:  # every item labeled: no group
            starts = np.zeros(0, dtype=int)
        elif per_score:
            starts = np.flatnonzero(np.r_[True, np.diff(order[items]) != 0])
            if starts.size > max_groups:
                starts = np.unique(np.linspace(0, items.size, max_groups, endpoint=False).astype(int))
        else:
            starts = np.arange(items.size)
        bounds = np.r_[starts, items.size]
        self.groups = [list(rng.permutation(items[a:b])) for a, b in zip(bounds[:-1], bounds[1:])]
        self.representative = np.array([items[(a + b - 1) // 2] for a, b in zip(bounds[:-1], bounds[1:])], dtype=int)
        self.group_of = np.full(order.size, -1)
        for g, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            self.group_of[items[a:b]] = g

    @property
    def n_groups(self) -> int:
        """B."""
        return len(self.groups)

    def remaining(self):
        """How many items of each group are still free: (B,)."""
        return np.array([len(g) for g in self.groups])

    def free_items(self):
        """Every item still free, ascending in ``order``."""
        items = np.concatenate([np.asarray(g, dtype=int) for g in self.groups] or [np.zeros(0, dtype=int)])
        return items[np.argsort(self.order[items], kind="stable")]

    def take_from(self, group) -> int:
        """Take a (random) free item of ``group``; returns it."""
        return int(self.groups[group].pop())

    def take(self, item) -> int:
        """Take the free item ``item``; returns its group."""
        group = int(self.group_of[item])
        self.groups[group].remove(item)
        return group
