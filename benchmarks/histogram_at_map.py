"""Does the histogram check at the MAP alone foretell the posterior's? The evidence for leaving a mixture out unsampled.

:func:`spe.evaluate` leaves the SPE mixture out of its average when its densities fail the histogram check
(``spe.models.mixture.check``). That check needs the posterior's draws; :func:`~spe.models.mixture.check.
map_histogram_check` needs only the MAP. For every shared case and seed (random labels as every benchmark draws
them, :mod:`cases`), this runs ``spe.evaluate`` with the mixture sampled and checked as before (neither tempered
nor left out early) and records beside that check the one at the MAP: its excess in standard deviations of the
replicated discrepancy (``excess_z``) and its p-value. A MAP beyond
:data:`~spe.models.mixture.check.DECISIVE_EXCESS_Z` is left out without sampling; this shows where the posterior
checks of all trials fall against that.

Run:  python benchmarks/histogram_at_map.py [--labels 20] [--seeds 2] [--jobs 2] [--out OUT.csv]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

from cases import add_run_arguments, random_labels, read_case, rows_of_run, seeds_of, trial_rng

_CHECKS = {}


def trial(task):
    """One case and seed: the MAP's check and the posterior's (dict)."""
    import spe
    from spe.models.mixture import fit
    from spe.models.mixture.check import DECISIVE_EXCESS_Z, map_histogram_check

    path, seed, n_labels = task
    s, y, name = read_case(path)
    row = {"case": name, "seed": seed, "n_labels": n_labels}
    sampled = _CHECKS.setdefault("posterior", fit._checked_posterior)

    def both(sample, best, ranked, x_sorted, data, **options):
        at_map = map_histogram_check(best.mixture, best.u_map, x_sorted, rng=np.random.default_rng(seed),
                                     counts=ranked.counts)
        out = sampled(sample, best, ranked, x_sorted, data, **dict(options, leave_out=False, temper=False))
        row.update(excess_z=at_map.excess_z, map_p=at_map.p_value, decisive=at_map.excess_z >= DECISIVE_EXCESS_Z,
                   bins=at_map.bins, posterior_p=out[4].p_value, posterior_passed=out[4].passed)
        return out

    fit._checked_posterior = both
    idx = random_labels(trial_rng(seed, n_labels, name), s.size, n_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spe.evaluate(s, pd.Series(y[idx], index=idx), rng=seed, workers=1)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(ap, seeds=2, out="histogram_at_map.csv", start=20, draws=1000)
    ap.add_argument("--labels", type=int, default=20)
    args = ap.parse_args(argv)
    df = rows_of_run(args, trial, lambda paths: [(p, s, args.labels) for p in paths for s in seeds_of(args)],
                     "trials")
    passed, failed = df[df.posterior_passed], df[~df.posterior_passed]
    print(df.sort_values("excess_z")[["case", "seed", "excess_z", "map_p", "posterior_p", "posterior_passed"]]
          .to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"\nposterior check passed: {len(passed)} trials, their MAP's excess z at most {passed.excess_z.max():.2f}")
    print(f"posterior check failed: {len(failed)} trials, MAP's excess z from {failed.excess_z.min():.2f}; "
          f"left out unsampled (decisive): {int(failed.decisive.sum())}")
    print(f"decisive where the posterior passed (a mixture wrongly left out): {int(passed.decisive.sum())}")


if __name__ == "__main__":
    main()
