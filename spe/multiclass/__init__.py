"""Multiclass classifiers: N × K scores and a few labels → accuracy, per-class curves, the confusion matrix and
class prevalences with intervals (:func:`evaluate_multiclass`, :class:`MulticlassEvaluation`); several classifiers
compared from the same label draws (:func:`compare_multiclass`, :class:`MulticlassComparison`)."""

from .api import evaluate_classes, evaluate_multiclass
from .comparison import MulticlassComparison, compare_multiclass
from .evaluation import MulticlassEvaluation
from .scores import ClassScores, class_scores, is_multiclass

__all__ = ["evaluate_multiclass", "evaluate_classes", "MulticlassEvaluation", "ClassScores", "class_scores",
           "is_multiclass", "compare_multiclass", "MulticlassComparison"]
