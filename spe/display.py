"""How results show in a notebook: the tables and HTML of ``_repr_html_`` (Evaluation, Comparison)."""

from __future__ import annotations

import html

import numpy as np

__all__ = ["score_type_lines", "interval_table", "html_view", "result_repr", "result_html", "comparison_repr", "comparison_html",
           "classifiers_frame"]


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

