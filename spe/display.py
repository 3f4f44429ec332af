"""How results show in a notebook: the tables and HTML of ``_repr_html_`` (Evaluation, Comparison and the
multiclass ones)."""

from __future__ import annotations

import html

import numpy as np

__all__ = ["score_type_lines", "interval_table", "html_view", "result_repr", "result_html", "comparison_repr",
           "comparison_html", "classifiers_frame", "class_result_html", "class_comparison_html"]


def interval_table(frame, column=None):
    """A metrics DataFrame (``Evaluation.to_frame``: columns name, mean, lo, hi, level) as one column of
    'mean [lo, hi]' strings indexed by ``name`` ("undefined" where the mean is not finite); the column is named
    ``column``, by default after the credible level."""
    text = [f"{m:.3f} [{lo:.3f}, {hi:.3f}]" if np.isfinite(m) else "undefined"
            for m, lo, hi in zip(frame["mean"], frame["lo"], frame["hi"])]
    column = column or f"mean [{100 * frame['level'].iloc[0]:g}% interval]"
    return frame.assign(**{column: text}).set_index("name")[[column]]


def html_view(head, table, warnings=()):
    """A bold heading, a table (DataFrame, escaped) and how many warnings there were, as notebook HTML."""
    note = (f"<p>{len(warnings)} warning{'s' if len(warnings) != 1 else ''}: see <code>.warnings</code></p>"
            if warnings else "")
    return f"<p><b>{html.escape(head)}</b></p>{table.to_html(escape=True)}{note}"


# An Evaluation and a saved one (spe.saved) show the same way, and so do a Comparison and a saved one: the
# functions below take any result with their queries (prevalence(), average_precision(), to_frame(), level,
# warnings; a comparison's names and [name]).

def result_repr(counts, result):
    """One line: the counts, the prevalence and the average precision with their intervals."""
    return (f"<{counts}; prevalence {result.prevalence()}, average precision {result.average_precision()} "
            f"({100 * result.level:g}% credible intervals)>")


def result_html(counts, result):
    """A notebook's view of one result: the counts, its metrics' table and how many warnings."""
    return html_view(counts, interval_table(result.to_frame()), result.warnings)


def comparison_repr(counts, comparison):
    """One line: the counts and each classifier's average precision with its interval."""
    aps = ", ".join(f"{n} {comparison[n].average_precision()}" for n in comparison.names)
    return f"<{counts}; average precision {aps} ({100 * comparison.level:g}% credible intervals)>"


def comparison_html(counts, comparison):
    """A notebook's view of a comparison: the counts and a table of every classifier's metrics (a column each)."""
    import pandas as pd

    table = pd.concat([interval_table(comparison[n].to_frame(), column=n) for n in comparison.names], axis=1)
    return html_view(f"{counts}; metrics: posterior mean [{100 * comparison.level:g}% credible interval]", table,
                     comparison.warnings)


def classifiers_frame(frames):
    """Each classifier's metrics DataFrame ({name: frame}, as ``to_frame`` gives them) in one, with a first
    column ``classifier``."""
    import pandas as pd

    return pd.concat([f.assign(classifier=n) for n, f in frames.items()], ignore_index=True)[
        ["classifier", "metric", "name", "mean", "median", "lo", "hi", "level"]]


#: How each score type reads the scores, in a summary's words.
_SCORE_READINGS = {
    "probability": "probabilities of the positive class",
    "log-odds": "log-odds or decision values (the labels' evidence weighs both readings)",
    "decision": "decision values of unknown scale (not log-odds)",
}


def score_type_lines(score_type):
    """The line of a summary that says how the scores were read (``diagnostics["score_type"]``): [] when unknown.

    >>> score_type_lines("probability")
    ['scores read as probabilities of the positive class (score type: probability)']
    """
    if score_type not in _SCORE_READINGS:
        return []
    return [f"scores read as {_SCORE_READINGS[score_type]} (score type: {score_type})"]



def _cell(interval):
    return f"{interval.mean:.3f} [{interval.lo:.3f}, {interval.hi:.3f}]" if np.isfinite(interval.mean) \
        else "undefined"


def class_result_html(result, most=20):
    """A notebook's view of a multiclass result (live or saved): the headline metrics, then each class's
    prevalence, precision, recall, F1 and AP (the first ``most`` classes)."""
    import pandas as pd

    head = (f"{result.n_items} items, {len(result.classes)} classes, {result.n_labeled} labeled; posterior mean "
            f"[{100 * result.level:g}% credible interval]")
    metrics = pd.DataFrame({"estimate": [_cell(i) for i in (result.accuracy(), result.macro_f1(),
                                                            result.macro_average_precision(),
                                                            result.calibration_error())]},
                           index=["accuracy", "macro F1", "macro AP", "calibration error (top-label ECE)"])
    prevalence, per_class = result.prevalence(), result.per_class()
    classes = pd.DataFrame([{"class": c, "prevalence": _cell(prevalence[c]),
                             **{m: _cell(per_class[c][m]) for m in ("precision", "recall", "f1", "average_precision")}}
                            for c in result.classes[:most]]).set_index("class")
    more = f"<p>… {len(result.classes) - most} more classes: see <code>.per_class()</code></p>" \
        if len(result.classes) > most else ""
    return html_view(head, metrics, result.warnings) + classes.to_html(escape=True) + more


def class_comparison_html(comparison):
    """A notebook's view of a multiclass comparison: each classifier's headline metrics (a column each) and its
    probability of being the most accurate."""
    import pandas as pd

    best = {r["name"]: r["p_best"] for r in comparison.ranking()}
    table = pd.DataFrame({n: [_cell(comparison[n].accuracy()), _cell(comparison[n].macro_f1()),
                              _cell(comparison[n].macro_average_precision()), f"{best[n]:.3f}"]
                          for n in comparison.names},
                         index=["accuracy", "macro F1", "macro AP", "P(most accurate)"])
    head = (f"{len(comparison.names)} classifiers, {comparison.n_items} items, {len(comparison.classes)} classes, "
            f"{comparison.n_labeled} labeled; posterior mean [{100 * comparison.level:g}% credible interval], every "
            "figure from the same label draws")
    return html_view(head, table, comparison.warnings)
