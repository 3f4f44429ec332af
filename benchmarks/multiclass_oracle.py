"""What limits the multiclass accuracy at 20 labels: an oracle experiment on the real classifiers' scores.

Every case of :mod:`multiclass` (its loaders, its pools of ``--pool`` items) gets labels that temperature
scaling explains exactly: the inverse temperature a* is fitted by maximum likelihood to every true label of the
case, and each pool item's class is drawn from softmax(a*·log p). The truth is the accuracy on those drawn
classes. Then ``--labels`` random items are labeled and ``spe`` estimates the accuracy with

* ``--score-model temperature`` (default) or ``average``: the model is right; what is left is what the labels
  can tell about a* under the prior log a ~ N(0, 0.75²);
* ``--prior-at-truth SD``: temperature scaling alone with the prior log a ~ N(log a*, SD²), the temperature
  nearly known (:data:`spe.multiclass.models.temperature.INVERSE_TEMPERATURE_PRIOR` set per case).

Prints per case the accuracy error, the labeled items' own error and their ratio, the bias, the 90% interval's
hits and width; ``--out`` writes every trial (CSV).

    python benchmarks/multiclass_oracle.py --multinli DIR --banking77 DIR --seeds 15
    python benchmarks/multiclass_oracle.py --multinli DIR --banking77 DIR --seeds 15 --prior-at-truth 0.1
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from scipy import optimize, special

import multiclass as cases_of
from spe.multiclass import evaluate_multiclass
from spe.multiclass.models import temperature


def fitted_log_inverse_temperature(log_probs, y):
    """log a* maximising Σ log softmax(a·L)[y] over every labeled item."""
    def nll(log_a):
        return -np.mean(special.log_softmax(np.exp(log_a) * log_probs, axis=1)[np.arange(y.size), y])

    return float(optimize.minimize_scalar(nll, bounds=(-3.0, 3.0), method="bounded").x)


def simulated_classes(log_probs, log_a, rng):
    """One class per item drawn from softmax(a·L), (N,)."""
    p = special.softmax(np.exp(log_a) * log_probs, axis=1)
    return (p.cumsum(axis=1) > rng.random(log_probs.shape[0])[:, None]).argmax(axis=1)


def trial(probs, log_probs, log_a, n_labels, seed, pool, score_model):
    rng = np.random.default_rng(seed)
    keep = rng.permutation(probs.shape[0])[:pool]
    probs, log_probs = probs[keep], log_probs[keep]
    y = simulated_classes(log_probs, log_a, rng)
    truth = float(np.mean(probs.argmax(1) == y))
    labeled = rng.choice(y.size, n_labels, replace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = evaluate_multiclass(probs, {int(i): int(y[i]) for i in labeled}, rng=seed,
                                  score_model=score_model).accuracy()
    own = float(np.mean(probs[labeled].argmax(1) == y[labeled]))
    return {"error": abs(acc.mean - truth), "bias": acc.mean - truth, "labeled_error": abs(own - truth),
            "hit": acc.lo <= truth <= acc.hi, "width": acc.hi - acc.lo}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--multinli", metavar="DIR")
    parser.add_argument("--banking77", metavar="DIR")
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=15)
    parser.add_argument("--pool", type=int, default=10_000)
    parser.add_argument("--score-model", default="temperature", choices=("temperature", "average"))
    parser.add_argument("--prior-at-truth", type=float, metavar="SD",
                        help="temperature scaling with log a ~ N(log a*, SD²)")
    parser.add_argument("--out", help="CSV of every trial")
    args = parser.parse_args(argv)
    if args.prior_at_truth is not None and not args.prior_at_truth > 0:
        parser.error("--prior-at-truth: the prior's sd must be positive")
    cases = cases_of.digits_cases()
    if args.multinli:
        cases.update(cases_of.multinli_cases(args.multinli))
    if args.banking77:
        cases.update(cases_of.banking77_cases(args.banking77))
    score_model = "temperature" if args.prior_at_truth is not None else args.score_model
    rows, default_prior = [], temperature.INVERSE_TEMPERATURE_PRIOR
    for name, (probs, y) in cases.items():
        log_probs = special.log_softmax(np.log(np.clip(probs, 1e-300, None)), axis=1)
        log_a = fitted_log_inverse_temperature(log_probs, y)
        temperature.INVERSE_TEMPERATURE_PRIOR = ((log_a, args.prior_at_truth) if args.prior_at_truth is not None
                                                 else default_prior)
        part = [{"case": name, "log_a": log_a, "seed": seed,
                 **trial(probs, log_probs, log_a, args.labels, 1000 + seed, args.pool, score_model)}
                for seed in range(args.seeds)]
        rows += part
        _print(pd.DataFrame(part), f"{name} (log a* {log_a:+.2f})")
    temperature.INVERSE_TEMPERATURE_PRIOR = default_prior
    frame = pd.DataFrame(rows)
    _print(frame, "mean over cases")
    if args.out:
        frame.to_csv(args.out, index=False)


def _print(part, name):
    m = part.mean(numeric_only=True)
    print(f"{name:<36} accuracy error {m.error:.4f} (labeled-only {m.labeled_error:.4f}, ratio "
          f"{m.error / m.labeled_error:.2f}) bias {m.bias:+.4f} hits {m.hit:.2f} width {m.width:.3f}", flush=True)


if __name__ == "__main__":
    main()
