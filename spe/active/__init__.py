"""Which items to label next (``spe suggest``, ``Evaluation.suggest``): targets, strategies, the preposterior.

* :mod:`~spe.active.targets` — what the labels should settle (the PR band, AP, prevalence, a threshold
  decision, a comparison), one registry;
* :mod:`~spe.active.strategies` — random, stratified, expected information, one registry;
* :mod:`~spe.active.preposterior` — the expected reduction of the target's posterior variance by labels not yet
  seen, from the estimate's own weighted posterior draws;
* :mod:`~spe.active.candidates` — the unlabeled items, grouped by score;
* :mod:`~spe.active.suggest` — :func:`suggest` and its result;
* :mod:`~spe.active.plan` — :func:`plan`: about how many more labels until a target is settled.
"""

from .plan import LabelPlan, plan
from .preposterior import Preposterior
from .strategies import STRATEGIES, Strategy
from .suggest import Suggestion, suggest
from .targets import TARGETS, Target, parse_target

__all__ = ["suggest", "Suggestion", "plan", "LabelPlan", "Preposterior", "TARGETS", "Target", "parse_target",
           "STRATEGIES", "Strategy"]
