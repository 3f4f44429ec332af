"""Multiclass classifiers: N × K scores and a few labels → accuracy, per-class curves, the confusion matrix and
class prevalences with intervals (:func:`evaluate_multiclass`, :class:`MulticlassEvaluation`)."""

from .api import evaluate_classes, evaluate_multiclass
from .evaluation import MulticlassEvaluation
from .scores import ClassScores, class_scores, is_multiclass

__all__ = ["evaluate_multiclass", "evaluate_classes", "MulticlassEvaluation", "ClassScores", "class_scores", "is_multiclass"]
