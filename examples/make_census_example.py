"""Regenerate the monitoring example: a deployed classifier's scores over time, and its labeled reference period.

NannyML's US census employment data (``nannyml.load_us_census_ma_employment_data``: the American Community
Survey of Massachusetts, a classifier predicting whether a person is employed). Its 2015 rows are the labeled
reference period; its 2016–2018 rows, in the data's order, are what the classifier scored afterwards.

* ``census_reference.csv`` (score, label): 5,000 of the 68,785 reference rows, drawn at random.
* ``census_scores.csv`` (score, prediction, year, sex): every third analysis row from row 100,000 to 159,999
  (20,000 rows), in order; ``prediction`` is the classifier's own 0/1 decision, ``sex`` the survey's (male,
  female). In chunks of 2,000 of these rows, the true average precision of two (around analysis row 140,000,
  where 2017 turns into 2018) is far below the reference's.
* ``census_truth.csv`` (label): each of those rows' true label, in the same order, to compare an estimate
  with.
* ``census_labels.csv`` (id, label): the true labels of 20 items drawn at random from rows 12,000–13,999 of
  ``census_scores.csv`` (the chunk whose performance fell), ``id`` the 0-based row: what a user would label to
  confirm an alert.

Run:  python examples/make_census_example.py   (needs nannyml, or benchmarks/data/census_*.parquet, which
      benchmarks/monitor.py writes from it)
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "benchmarks" / "data"
REFERENCE_ROWS = 5000
#: The rows of census_scores.csv (0-based) of the chunk whose performance fell, and how many of them are labeled.
ALERTED_ROWS, N_LABELS = (12000, 14000), 20
ROWS = slice(100000, 160000, 3)


def census():
    """The reference and analysis frames (the analysis with its ``employed`` labels)."""
    ref_path, ana_path = DATA / "census_reference.parquet", DATA / "census_analysis.parquet"
    if ref_path.exists() and ana_path.exists():
        return pd.read_parquet(ref_path), pd.read_parquet(ana_path)
    import nannyml

    ref, ana, targets = nannyml.load_us_census_ma_employment_data()
    return ref, ana.merge(targets, on="id", how="left", validate="one_to_one")


def main(seed=0):
    ref, ana = census()
    pick = np.sort(np.random.default_rng(seed).choice(len(ref), REFERENCE_ROWS, replace=False))
    pd.DataFrame({"score": ref.predicted_probability.to_numpy()[pick].round(6),
                  "label": ref.employed.to_numpy()[pick].astype(int)}).to_csv(HERE / "census_reference.csv",
                                                                             index=False)
    part = ana.iloc[ROWS]
    pd.DataFrame({"score": part.predicted_probability.to_numpy().round(6),
                  "prediction": part.prediction.to_numpy().astype(int), "year": part.year.to_numpy(),
                  "sex": np.where(part.SEX.to_numpy().astype(int) == 1, "male", "female")}).to_csv(
        HERE / "census_scores.csv", index=False)
    truth = part.employed.to_numpy().astype(int)
    pd.DataFrame({"label": truth}).to_csv(HERE / "census_truth.csv", index=False)
    rows = np.sort(np.random.default_rng(seed + 1).choice(np.arange(*ALERTED_ROWS), N_LABELS, replace=False))
    pd.DataFrame({"id": rows, "label": truth[rows]}).to_csv(HERE / "census_labels.csv", index=False)


if __name__ == "__main__":
    main()
