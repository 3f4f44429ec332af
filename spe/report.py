"""One self-contained HTML page of an evaluation (``spe estimate --report out.html``): what to send a colleague.

The page holds the counts, the metrics with their credible intervals, the
warnings (first, where they cannot be missed), every figure of
:func:`spe.plot.report_figures` embedded as a PNG data URI (no other file,
no network), the score models' table, each diagnostic with its value, a
verdict and what it means in plain words (:data:`DIAGNOSTICS`), and the
printed summary. It opens in any browser, offline.
"""

from __future__ import annotations

import base64
import html
import io

import numpy as np

from .inference.importance import PARETO_K_GOOD
from .inference.nuts import ESS_GOOD
from .models.criticism import P_VALUE_THRESHOLD

__all__ = ["html_report", "monitoring_report", "diagnostic_rows", "DIAGNOSTICS"]

#: Each diagnostic in plain words: name → (what it measures, when to worry).
DIAGNOSTICS = {
    "effective sample size (ESS)": (
        "How many independent posterior draws the weighted importance-sampling draws are worth (Kish's n_eff = "
        "(Σw)²/Σw²). The bands are quantiles of these draws: with few effective draws they are noisy.",
        f"below {ESS_GOOD}: rerun with more --draws"),
    "Pareto k̂": (
        "The shape of the tail of the importance weights (Vehtari et al., PSIS). It says whether the proposal "
        "around the MAP covers the posterior.",
        f"above {PARETO_K_GOOD}: the weighted draws are unreliable and the intervals may be too narrow"),
    "histogram check": (
        "A posterior-predictive check of the SPE mixture against the histogram of all the scores: would scores "
        "drawn from the fitted class-conditional densities look like these? p is the share of replicated "
        "histograms that fit worse than the real one.",
        f"p below {P_VALUE_THRESHOLD}: the mixture's families do not fit these scores; it is down-weighted or "
        "left out"),
    "label check": (
        "A posterior-predictive check of the averaged model against the labeled items: are their labels as "
        "probable as labels the model generates itself at the same scores?",
        f"p below {P_VALUE_THRESHOLD}: no score model predicts the labeled items well; trust the intervals less"),
    "log evidence": (
        "log p(labels | scores) of each score model, in nats: how well it predicted the labeled items before "
        "seeing them (with a reference set, its labels too: log p(reference labels, labels | scores)). The "
        "models are averaged with weights proportional to their prior times exp(log evidence).",
        "a difference of 2-3 nats between models is decisive; all close: the labels cannot tell the models apart"),
    "LOO": (
        "The leave-one-out expected log predictive density (PSIS-LOO) of the labeled items under each model, "
        "in nats: a check of the evidence that does not depend on the prior.",
        "a model with much better evidence than LOO may be overfitting the few labels"),
    "label-shift check": (
        "With a reference set: could the pool's score histogram be the reference's two classes remixed (a label "
        "shift, only the prevalence changed)? A bootstrap test over 20 bins of the reference's scores, the "
        "reference's own sampling noise included.",
        f"p below {P_VALUE_THRESHOLD}: more than the prevalence changed; the label-shift models are left out and "
        "the estimate rests on a covariate shift (the reference's map applied unchanged)"),
    "MAP starts agreeing": (
        "How many of the optimiser's starting points reached the same mode of the mixture's posterior.",
        "fewer than all: the posterior has several modes; the importance sampler is around the best one"),
}


def _png_uri(fig):
    """A matplotlib figure as a ``data:image/png;base64`` URI (and closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _fmt(value, digits=3):
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def diagnostic_rows(diagnostics):
    """The diagnostics of an evaluation (``Evaluation.diagnostics``) as rows (name, value, verdict, meaning):
    the verdict is ``"ok"`` or ``"check"`` by the thresholds of :data:`DIAGNOSTICS`, ``""`` where there is
    none."""
    rows = []
    ess, k = diagnostics.get("ess"), diagnostics.get("pareto_k")
    if diagnostics.get("inference") in ("importance", "nuts") and ess is not None:
        rows.append(("effective sample size (ESS)", f"{ess:.0f} of {diagnostics.get('draws')}",
                     "ok" if ess >= ESS_GOOD else "check"))
    if k is not None:
        rows.append(("Pareto k̂", f"{k:.2f}", "ok" if k <= PARETO_K_GOOD else "check"))
    hc = diagnostics.get("histogram_check")
    if hc:
        rows.append(("histogram check", f"p = {hc['p_value']:.3f}", "ok" if hc["passed"] else "check"))
    lc = diagnostics.get("label_check")
    if lc:
        rows.append(("label check", f"p = {lc['p_value']:.3f}", "ok" if lc["passed"] else "check"))
    shift_p = (diagnostics.get("reference") or {}).get("label_shift_check_p")
    if shift_p is not None:
        rows.append(("label-shift check", f"p = {shift_p:.3f}", "ok" if shift_p >= P_VALUE_THRESHOLD else "check"))
    models = diagnostics.get("score_models") or []
    if len(models) > 1:
        best = max(models, key=lambda m: m["weight"])
        rows.append(("log evidence", f"best: {best['model']} ({best['log_evidence']:.2f}, weight "
                                     f"{best['weight']:.2f})", ""))
        if best.get("elpd_loo") is not None:
            rows.append(("LOO", f"{best['model']}: {best['elpd_loo']:.2f}", ""))
    if diagnostics.get("map_starts_agreeing"):
        agree = str(diagnostics["map_starts_agreeing"])
        a, _, b = agree.partition("/")
        rows.append(("MAP starts agreeing", agree, "ok" if a == b else "check"))
    return [(name, value, verdict, *DIAGNOSTICS[name]) for name, value, verdict in rows]


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0} th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
.warning{background:#fff4e5;border-left:4px solid #e69500;padding:.5em .8em;margin:.4em 0}
.ok{color:#17803d;font-weight:600} .check{color:#b00020;font-weight:600}
figure{margin:1.2em 0} figure img{max-width:100%;border:1px solid #eee} figcaption{color:#555;font-size:.92em}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em}
.meta{color:#666}
"""


def _table(header, rows, numeric=()):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{html.escape(str(c))}</td>' if i in numeric else
                         f"<td>{html.escape(str(c))}</td>" for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _metrics_section(evaluation, level):
    rows = [(r["name"], _fmt(r["mean"]), _fmt(r["lo"]), _fmt(r["hi"]))
            for _, r in evaluation.to_frame(level).iterrows()]
    pct = f"{100 * level:g}%"
    return (f"<h2>Performance on these {evaluation.n_items} items</h2><p>Posterior mean and {pct} credible "
            "interval (equal-tailed): the truth lies in the interval with probability " + pct + " under the model."
            "</p>" + _table(["metric", "mean", "lo", "hi"], rows, numeric=(1, 2, 3)))


def _pr_points_section(evaluation, level):
    pr = evaluation.pr_curve(level)
    rows = []
    for r in (0.1, 0.25, 0.5, 0.75, 0.9):
        g = int(np.argmin(np.abs(pr.x - r)))
        rows.append((f"{pr.x[g]:.2f}", _fmt(float(pr.median[g])), _fmt(float(pr.lo[g])), _fmt(float(pr.hi[g]))))
    return ("<h2>Precision at recall</h2>"
            + _table(["recall", "precision (median)", "lo", "hi"], rows, numeric=(0, 1, 2, 3)))


def _models_section(evaluation):
    table = evaluation.score_model_table()
    if not len(table):
        return ""
    cols = [c for c in ("model", "weight", "log_evidence", "elpd_loo", "label_check_p") if c in table]
    rows = [[_fmt(v) if isinstance(v, float) else v for v in row] for row in table[cols].itertuples(index=False)]
    return ("<h2>Score models</h2><p>The models of p(y = 1 | score) averaged by how well they predicted the "
            "labeled items (their evidence); weight is each one's share of the posterior draws.</p>"
            + _table([c.replace("_", " ") for c in cols], rows, numeric=tuple(range(1, len(cols)))))


def _diagnostics_section(evaluation):
    rows = diagnostic_rows(evaluation.diagnostics)
    body = "".join(
        f"<tr><td>{html.escape(name)}</td><td class=\"num\">{html.escape(value)}</td>"
        f"<td class=\"{verdict}\">{verdict}</td><td>{html.escape(meaning)}<br><i>Worry when: "
        f"{html.escape(worry)}.</i></td></tr>" for name, value, verdict, meaning, worry in rows)
    return ("<h2>Diagnostics, explained</h2><table><thead><tr><th>diagnostic</th><th>value</th><th>verdict</th>"
            f"<th>what it means</th></tr></thead><tbody>{body}</tbody></table>")


def html_report(evaluation, figures, summary, title="spe estimate"):
    """The report as one HTML document.

    Parameters
    ----------
    evaluation : Evaluation
    figures : dict of str → (matplotlib Figure, str)
        Name → (figure, caption), as :func:`spe.plot.report_figures` gives them; each is embedded as a PNG
        and closed.
    summary : str
        The printed summary (shown as text at the end).
    title : str
        The page's heading (e.g. the scores file's name).

    Returns
    -------
    str
        A complete HTML5 document with no external resources.
    """
    from . import __version__

    level = evaluation.level
    n_pos = int(np.sum(evaluation.labeled_value == 1))
    meta = (f"{evaluation.n_items} items, {evaluation.n_labeled} labeled ({n_pos} positive, "
            f"{evaluation.n_labeled - n_pos} negative); semisupervised performance evaluation (Welinder, Welling "
            f"&amp; Perona 2013) with spe {__version__}")
    return _page(title, meta, evaluation.diagnostics.get("seed"), evaluation.warnings,
                 _metrics_section(evaluation, level) + _pr_points_section(evaluation, level)
                 + _figures_section(figures) + _models_section(evaluation) + _diagnostics_section(evaluation),
                 summary)


def _figures_section(figures):
    """The figures ({name: (Figure, caption)}) embedded as PNG data URIs, each closed."""
    return "<h2>Figures</h2>" + "".join(
        f'<figure><img alt="{html.escape(name)}" src="{_png_uri(fig)}"><figcaption>{html.escape(caption)}'
        "</figcaption></figure>" for name, (fig, caption) in figures.items())


def _page(title, meta, seed, warnings, body, summary):
    """A complete HTML5 document: the heading, the meta line (HTML, with the seed), the warnings, the body and
    the printed summary."""
    said = "".join(f'<div class="warning"><b>Warning:</b> {html.escape(str(w))}</div>' for w in warnings)
    return (
        f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>{_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1><p class=\"meta\">{meta}"
        + (f", seed {seed}" if seed is not None else "") + ".</p>"
        + (f"<h2>Warnings</h2>{said}" if said else "") + body
        + f"<h2>Summary as printed</h2><pre>{html.escape(summary)}</pre></body></html>\n")


def _interval_text(interval):
    return f"{interval.median:.3f} [{interval.lo:.3f}, {interval.hi:.3f}]"


def _units_section(monitoring):
    """One table per kind (chunks, slices): items, labels, the headline metrics (AP and ROC AUC; a multiclass
    pool's accuracy and macro F1), then the prevalence (a multiclass pool's macro AP and calibration error), and
    the metrics alerted."""
    from .monitoring import METRIC_SHORT_NAMES

    out = ""
    for kind, units in (("Chunks", monitoring.chunks), ("Slices", monitoring.slices)):
        if not units:
            continue
        shown = [*monitoring.headline, *(m for m in ("prevalence", "macro_average_precision", "calibration_error")
                                         if m in units[0].metrics and m not in monitoring.headline)]
        rows = [(u.key, u.n_items, u.n_labeled, *(_interval_text(u.metrics[m]) for m in shown),
                 _fmt(u.p_concept_shift, 2) + (" (labels disagree)" if u.labels_disagree else ""),
                 ", ".join(a["metric"] for a in u.alerts if a["alert"]) or "—") for u in units]
        names = [METRIC_SHORT_NAMES.get(m, m) for m in shown]
        out += (f"<h2>{kind}</h2>" + _table([kind[:-1].lower(), "items", "labeled", f"{names[0]} (median [interval])",
                                              *names[1:], "P(new map)", "alerts"], rows,
                                             numeric=tuple(range(1, 3 + len(shown)))))
    return out


def _alerts_section(monitoring):
    what = (f"below {monitoring.alert_below:g}" if monitoring.alert_below is not None else
            f"more than {monitoring.alert_drop:g} below the reference's value")
    rows = [(kind, key, metric, _fmt(p)) for kind, key, metric, p in monitoring.alerts]
    intro = (f"<h2>Alerts</h2><p>An alert is raised where the posterior probability that the metric is {what} is "
             f"at least {monitoring.alert_probability:g}.</p>")
    return intro + (_table(["kind", "chunk or slice", "metric", "P(drop)"], rows, numeric=(3,)) if rows
                    else "<p>None.</p>")


def _gaps_section(monitoring):
    rows = [(g["a"], g["b"], g["metric"].replace("_", " "),
             f"{g['difference']['median']:+.3f} [{g['difference']['lo']:+.3f}, {g['difference']['hi']:+.3f}]",
             _fmt(g["p_gap"], 2)) for g in monitoring.gaps]
    if not rows:
        return ""
    return (f"<h2>Gaps between slices</h2><p>Each metric's difference a − b with its credible interval, and the "
            f"probability that it exceeds {monitoring.alert_drop:g} either way.</p>"
            + _table(["a", "b", "metric", "a − b", "P(|gap| > δ)"], rows, numeric=(3, 4)))


def monitoring_report(monitoring, figures, summary, title="spe monitor"):
    """The report of :func:`spe.monitor` as one HTML document (``spe monitor --report OUT.html``).

    Parameters
    ----------
    monitoring : spe.monitoring.Monitoring
    figures : dict of str → (matplotlib Figure, str)
        Name → (figure, caption); each is embedded as a PNG and closed.
    summary : str
        The printed summary (shown as text at the end).
    title : str

    Returns
    -------
    str
        A complete HTML5 document with no external resources: the warnings, the reference's values, the alerts,
        every chunk's and slice's estimates with intervals, the slices' gaps, the figures and the summary.
    """
    from . import __version__
    from .monitoring import METRIC_SHORT_NAMES

    ref = monitoring.reference
    said = ", ".join(f"{METRIC_SHORT_NAMES.get(m, m)} {_fmt(ref[m])}" for m in (*monitoring.headline, "prevalence")
                     if ref is not None and m in ref)
    reference = ("" if ref is None else
                 f"<p>Reference set: {ref['n_items']} labeled items; {said} (from its labels).</p>")
    operating = "" if monitoring.threshold is None else f"threshold {monitoring.threshold:g}; "
    meta = (f"{monitoring.n_items} items, {monitoring.n_labeled} labeled; {len(monitoring.chunks)} chunks, "
            f"{len(monitoring.slices)} slices; {operating}{100 * monitoring.level:g}% "
            f"credible intervals; spe {__version__}")
    return _page(title, meta, monitoring.diagnostics.get("seed"), monitoring.warnings,
                 reference + _alerts_section(monitoring) + _figures_section(figures) + _units_section(monitoring)
                 + _gaps_section(monitoring), summary)


def _class_metrics_section(ev, truth):
    """The multiclass headline metrics, with the true values under ``--truth``."""
    named = (("accuracy", ev.accuracy()), *((f"top-{k} accuracy", ev.top_k_accuracy(k)) for k in ev.top_ks),
             ("macro F1", ev.macro_f1()), ("weighted F1", ev.weighted_f1()),
             ("macro AP", ev.macro_average_precision()), ("macro ROC AUC", ev.macro_roc_auc()),
             ("calibration error (top-label ECE)", ev.calibration_error()))
    keys = ("accuracy", *(f"top_k_accuracy.{k}" for k in ev.top_ks), "macro_f1", "weighted_f1",
            "macro_average_precision", "macro_roc_auc", "calibration_error")

    def true_value(key):
        head, _, k = key.partition(".")
        return truth[head][k] if k else truth[head]

    rows = [(name, _fmt(i.mean), _fmt(i.lo), _fmt(i.hi), *((_fmt(true_value(key)),) if truth else ()))
            for (name, i), key in zip(named, keys)]
    pct = f"{100 * ev.level:g}%"
    return (f"<h2>Performance on these {ev.n_items} items</h2><p>Posterior mean and {pct} credible interval "
            "(equal-tailed).</p>" + _table(["metric", "mean", "lo", "hi", *(("truth",) if truth else ())], rows,
                                            numeric=(1, 2, 3, 4)))


def _classes_section(ev, truth):
    """One row per class: prevalence, precision, recall, F1 and AP with intervals (and the true AP)."""
    prevalence, per_class = ev.prevalence(), ev.per_class()
    rows = [(c, _interval_text(prevalence[c]), *(_interval_text(per_class[c][m])
                                                 for m in ("precision", "recall", "f1", "average_precision")),
             *((_fmt(truth["per_class"][c]["average_precision"]),) if truth else ())) for c in ev.classes]
    return ("<h2>Each class</h2><p>Median [interval]; precision, recall and F1 at the classifier's decision "
            "(its most probable class); AP one-vs-rest.</p>"
            + _table(["class", "prevalence", "precision", "recall", "F1", "AP", *(("true AP",) if truth else ())],
                     rows, numeric=(1, 2, 3, 4, 5, 6)))


def multiclass_report(evaluation, figures, summary, title="spe estimate", truth=None):
    """The report of a multiclass estimate as one HTML document (``spe estimate --report`` on class columns).

    Parameters
    ----------
    evaluation : spe.multiclass.MulticlassEvaluation
    figures : dict name → (matplotlib Figure, caption)
        Embedded as PNG and closed.
    summary : str
        What the command printed.
    title : str
    truth : dict, optional
        :meth:`~spe.multiclass.MulticlassEvaluation.true_values` under ``--truth``: a truth column is added.

    Returns
    -------
    str
        A complete HTML5 document with no external resources.
    """
    from . import __version__

    models = [(m["name"], _fmt(m["weight"]), _fmt(m["log_evidence"], 2), _fmt(m["ess"], 0), _fmt(m["pareto_k"], 2))
              for m in evaluation.diagnostics.get("score_models", [])]
    meta = (f"{evaluation.n_items} items, {len(evaluation.classes)} classes, {evaluation.n_labeled} labeled; scores "
            f"read as {evaluation.score_type}; spe {__version__}")
    body = (_class_metrics_section(evaluation, truth) + _classes_section(evaluation, truth)
            + _figures_section(figures)
            + "<h2>Score models</h2><p>Averaged by their evidence p(labels | scores).</p>"
            + _table(["model", "weight", "log evidence", "ESS", "Pareto k̂"], models, numeric=(1, 2, 3, 4)))
    return _page(title, meta, evaluation.diagnostics.get("seed"), evaluation.warnings, body, summary)
