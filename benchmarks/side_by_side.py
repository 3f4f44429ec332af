"""Whether a change made the README's commands faster: the same commands with the code before and after it, run
alternately in fresh processes, median of ``--repeats`` each.

This machine's speed drifts by tens of percent from hour to hour, so two runs of ``latency.py`` an hour apart do
not show a change of 10%; runs of the two versions alternated within minutes do.

Run:  git worktree add /tmp/before <commit before the change>
      python benchmarks/side_by_side.py --before /tmp/before [--repeats 5] [--commands estimate plan ...]
      [--cases civil_distilbert_erm1 ...] [--out side_by_side.txt]
The "after" is this checkout. The commands are :func:`latency.readme_commands`' (by name); ``--cases`` adds
``spe estimate`` on shared cases with 20 random labels (seed 0).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from latency import readme_commands, shared_case

ROOT = Path(__file__).resolve().parent.parent


def seconds(argv, code, cwd):
    """Wall time of ``python -m spe ARGV`` with the package of the checkout ``code`` first on the path."""
    env = dict(os.environ, PYTHONPATH=str(code))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spe", *argv], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    return time.perf_counter() - t0


def compared(argv, before, after, repeats, cwd):
    """Median seconds (before, after) of ``argv``, the two versions alternated ``repeats`` times."""
    runs = [(seconds(argv, before, cwd), seconds(argv, after, cwd)) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a checkout of the code before the change")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--commands", nargs="*", default=["spe list", "estimate", "threshold", "compare (2 classifiers)",
                                                      "plan"])
    ap.add_argument("--cases", nargs="*", default=[])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        commands = readme_commands(tmp)
        todo = [(name, commands[name]) for name in args.commands]
        for case in args.cases:
            scores, labels, _ = shared_case(tmp, case)
            todo.append((f"estimate {case}", ["estimate", str(scores), "--labels", str(labels), "--seed", "0"]))
        lines = [f"# side_by_side.py --before {args.before} --repeats {args.repeats}; after: {ROOT}",
                 f"{'command':32s} {'before':>7s} {'after':>7s} {'after/before':>13s}"]
        print("\n".join(lines), flush=True)
        for name, argv_ in todo:
            a, b = compared(argv_, args.before.resolve(), ROOT, args.repeats, tmp)
            lines.append(f"{name:32s} {a:7.2f} {b:7.2f} {b / a:13.2f}")
            print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
