"""How results show in a notebook: the tables and HTML of ``_repr_html_`` (Evaluation, Comparison)."""

from __future__ import annotations

import html

import numpy as np

__all__ = ["interval_table", "html_view"]


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
