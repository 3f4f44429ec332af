"""The HTML report (spe estimate --report out.html): one self-contained page, rendered in headless Chromium."""

import base64
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib import image as mpimg

from spe.cli import main
from spe.report import DIAGNOSTICS, diagnostic_rows

from .conftest import EXAMPLES

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
#: The flags this machine needs (no sandbox as root, no network) for a headless Chromium.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


class _Page(HTMLParser):
    """The images' sources, every link or source attribute, and the visible text of a page."""

    def __init__(self):
        super().__init__()
        self.images, self.references, self.text, self._skip = [], [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        self.references += [v for k, v in attrs.items() if k in ("href", "src") and v]
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """``spe estimate`` of the digits example with --report page.html and --requirement and --truth: (path,
    the JSON of the same run)."""
    import json

    d = tmp_path_factory.mktemp("report")
    argv = ["estimate", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--draws", "300", "--seed", "0", "--report", str(d / "page.html"), "--json", str(d / "e.json"),
            "--requirement", "0.9,0.5", "--truth", str(EXAMPLES / "digits_truth.csv")]
    assert main(argv) == 0
    assert sorted(p.name for p in d.iterdir()) == ["e.json", "page.html"]  # one file, nothing beside it
    return d / "page.html", json.loads((d / "e.json").read_text())


def _parsed(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_the_page_is_self_contained_with_every_figure_embedded(report):
    path, _ = report
    page = _parsed(path)
    assert len(page.images) == 6  # scores, threshold curves, PR, ROC, p(requirement met), reliability
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(ref.startswith("data:") for ref in page.references)  # nothing to fetch: it opens offline


def test_the_page_holds_the_numbers_and_the_diagnostics_explained(report):
    path, result = report
    text = " ".join(_parsed(path).text)
    for key in ("prevalence", "average_precision", "roc_auc"):
        for bound in ("mean", "lo", "hi"):
            assert f"{result[key][bound]:.3f}" in text
    rows = diagnostic_rows(result["diagnostics"])
    assert {r[0] for r in rows} >= {"effective sample size (ESS)", "Pareto k̂", "histogram check", "label check"}
    for name, value, verdict, meaning, worry in rows:
        assert name in text and value in text and meaning in text and worry in text
    for w in result["warnings"]:
        assert w in text


def test_diagnostic_verdicts_follow_their_thresholds():
    rows = diagnostic_rows({"inference": "importance", "draws": 1000, "ess": 40.0, "pareto_k": 0.9,
                            "label_check": {"p_value": 0.2, "passed": True}, "map_starts_agreeing": "1/2"})
    assert [(r[0], r[2]) for r in rows] == [("effective sample size (ESS)", "check"), ("Pareto k̂", "check"),
                                            ("label check", "ok"), ("MAP starts agreeing", "check")]
    assert all(r[3:] == DIAGNOSTICS[r[0]] for r in rows)


def _chromium(*args, cwd):
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("headless Chromium is not installed (.ci/run installs Debian's chromium)")
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    run = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={cwd / 'profile'}", *args], cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    return run


def _colourful(png):
    """How many pixels of a screenshot are clearly coloured (max − min channel > 0.15): the figures' lines and bands;
    the page's own text is black and grey."""
    rgb = mpimg.imread(png)[..., :3]
    return int(np.sum((rgb.max(axis=-1) - rgb.min(axis=-1)) > 0.15))


@pytest.mark.slow
def test_chromium_renders_the_figures_and_the_numbers(report, tmp_path):
    path, result = report
    dom = _chromium("--dump-dom", path.as_uri(), cwd=tmp_path).stdout
    assert "Performance on these 899 items" in dom and f"{result['average_precision']['mean']:.3f}" in dom
    shots = {}
    bare = tmp_path / "bare.html"  # the same page without its figures, to tell what they add
    bare.write_text(re.sub(r'<img [^>]*>', "", path.read_text(encoding="utf-8")), encoding="utf-8")
    for name, page in (("page", path), ("bare", bare)):
        shot = tmp_path / f"{name}.png"
        _chromium("--window-size=1000,6000", f"--screenshot={shot}", page.as_uri(), cwd=tmp_path)
        assert shot.exists(), name
        shots[name] = _colourful(shot)
    # six figures drawn with coloured bands and lines: tens of thousands of coloured pixels, and the page
    # without them hardly any (the verdicts' green and red words)
    assert shots["page"] > 30_000 and shots["page"] > 20 * max(shots["bare"], 1), shots
