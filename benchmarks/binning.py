"""Error of the two large-N approximations against the exact path, on the real cases.

``--what score`` (the label draws): for every case in ``../shared/cases/``
(or --cases-dir) and every seed, draw n labels at random and run
``spe.evaluate`` twice with the same seed — exact (``score_bins=None``:
every distinct score its own group) and binned (``score_bins=B``). The fit
is the same in both; only the label draws and the curves differ, so this
isolates that binning's error.

``--what likelihood`` (the fit): the same with ``likelihood_bins=None``
(every unlabeled score through its density) against ``likelihood_bins=B``
(the unlabeled scores as a histogram of about B bins, exact likelihood of
the bin counts by CDF differences); label draws exact in both. The fits
differ, so the difference also holds Monte-Carlo noise; the error of each
against the true PR curve says whether the histogram costs accuracy.

Reported: the area between the two median PR curves, the largest
difference of the band edges, the differences in prevalence and average
precision, the largest difference of an item's probability p̂(y = 1 | s)
(binned: interpolated between the bins), and each one's error against the
true curve. B is forced even
where ``"auto"`` would not bin (these cases have at most 50,000 items), so
that the error of the approximation is measured where it can be compared
with the exact answer.

Run:  python benchmarks/binning.py --what score --bins 2000 20000 --seeds 2 --labels 20
      python benchmarks/binning.py --what likelihood --bins 1024 --seeds 2 --labels 20
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from cases import DEFAULT_CASES, case_paths, read_case

HERE = Path(__file__).resolve().parent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--bins", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--labels", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--what", choices=("score", "likelihood"), default="score",
                    help="which approximation: the label draws' score bins or the likelihood's histogram")
    args = ap.parse_args(argv)
    knob = "score_bins" if args.what == "score" else "likelihood_bins"

    import spe
    from spe.baselines import pr_curve_from_labels
    from spe.benchmark import pr_curve_error

    rows = []
    paths = case_paths(args.cases_dir)
    if not paths:
        sys.exit(f"no cases found in {args.cases_dir}")
    for path in paths:
        s, y, _ = read_case(path)
        truth = pr_curve_from_labels(s, y)
        for seed in range(args.seeds):
            idx = np.sort(np.random.default_rng([seed, 7]).choice(s.size, args.labels, replace=False))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                exact = spe.evaluate(s, (idx, y[idx]), draws=args.draws, rng=seed, score_bins=None,
                                     likelihood_bins=None)
                t_exact = time.perf_counter() - t0
                for b in args.bins:
                    t0 = time.perf_counter()
                    binned = spe.evaluate(s, (idx, y[idx]), draws=args.draws, rng=seed,
                                          **{"score_bins": None, "likelihood_bins": None, knob: b})
                    t_binned = time.perf_counter() - t0
                    pe, pb = exact.pr_curve(), binned.pr_curve()
                    rows.append({
                        "case": path.stem, "n_items": s.size, "distinct": np.unique(s).size, "seed": seed, "bins": b,
                        "groups": (binned.diagnostics["score_bins"] or np.unique(s).size) if args.what == "score"
                        else binned.diagnostics["likelihood_bins"],
                        "pr_area": pr_curve_error(pb.median, pe.median),
                        "band_max_diff": float(np.nanmax(np.abs(np.r_[pb.lo - pe.lo, pb.hi - pe.hi]))),
                        "prevalence_diff": abs(binned.prevalence().mean - exact.prevalence().mean),
                        "ap_diff": abs(binned.average_precision().mean - exact.average_precision().mean),
                        "item_p_diff": float(np.max(np.abs(binned.item_probabilities() - exact.item_probabilities()))),
                        "err_exact": pr_curve_error(pe.median, truth), "err_binned": pr_curve_error(pb.median, truth),
                        "seconds_exact": t_exact, "seconds_binned": t_binned,
                    })
            print(f"{path.stem} seed {seed}: done", file=sys.stderr)
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    cols = ["pr_area", "band_max_diff", "prevalence_diff", "ap_diff", "item_p_diff", "err_exact", "err_binned"]
    print(f"{knob}: exact against binned")
    print(table.groupby(["case", "bins"])[["groups"] + cols].max().round(4).to_string())
    print("\nover all cases and seeds (max and mean):")
    print(table.groupby("bins")[cols].agg(["max", "mean"]).round(4).to_string())
    out = HERE / "results" / f"binning_{args.what}.csv"
    out.parent.mkdir(exist_ok=True)
    table.to_csv(out, index=False)
    print(f"\ntrials written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
