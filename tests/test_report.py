"""``pushgen report`` and ``pushgen.report.figures``: the figures of a dataset, a split and a benchmark
run, the calibration marks, ``make --report``, and the page rendered by a real browser."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from fault_families_inputs import resign
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

from pushgen.benchmark.report import write_results
from pushgen.benchmark.run import Results
from pushgen.cli import main
from pushgen.data.calibration import FIGURES, LONG_TERM_FIGURES, TABLE_FIGURES, checks, summary, verdict_line
from pushgen.data.dataset import MANIFEST, REPORT, DatasetError
from pushgen.data.outputs import sha256_file, snapshot
from pushgen.data.validate import validate
from pushgen.extras import install_line
from pushgen.publishing.croissant import croissant, write_croissant
from pushgen.report import figures, report_html, write_report
from pushgen.report.data_figures import View
from pushgen.report.other_figures import calibration_figure, weekly_rows
from pushgen.report.sources import load_source

DATA_FIGURES = {"calibration", "calendar", "hours", "context", "apps", "response_times", "users",
                "fatigue_habituation", "content_context"}
BASELINES = [f"policy-{k}" for k in range(10)]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars")
FIGURE_CHECK = """<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images);
  const broken = images.filter((image) => !(image.complete && image.naturalWidth > 0)).length;
  const mark = document.createElement("div");
  mark.id = "figure-check";
  mark.textContent = `images=${images.length} broken=${broken}`;
  document.body.appendChild(mark);
});
</script>
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "small"
    assert main(["make", "--users", "3", "--days", "21", "--seed", "3", "--out", str(out), "--report"]) == 0
    return out


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory):
    """A results folder of ten policies on two tasks, five users each (no run needed)."""
    rng = np.random.default_rng(0)
    rows = [{"task": task, "baseline": name, "user_id": user, "steps": 200,
             "mean_reward": 0.1 * k + rng.normal(0, 0.05), "generated_open_rate": 0.3,
             "logged_open_rate": 0.4, "impossible_share": 0.0, "distinct_ratio": 0.5, "entropy": 0.5}
            for task in (1, 2) for k, name in enumerate(BASELINES) for user in range(5)]
    curves = pd.DataFrame([{"task": 2, "baseline": name, "step": step, "users": 5,
                            "mean_reward": 0.1 * k + 0.0001 * step}
                           for k, name in enumerate(BASELINES) for step in range(100, 2100, 100)])
    results = Results(split="test-split", fingerprint="0" * 64, mode="expected", seed=0, tasks=[1, 2],
                      baselines={name: f"{name} (a test policy)" for name in BASELINES},
                      per_user=pd.DataFrame(rows), curves=curves,
                      marks={"policy-9": {"uses_true_model": True, "upper_bound": True}})
    return write_results(results, tmp_path_factory.mktemp("bench") / "results")


def test_make_report_writes_a_listed_report_that_the_card_links(dataset):
    assert validate(dataset) == []
    manifest = json.loads((dataset / MANIFEST).read_text())
    assert manifest["files"][REPORT]["sha256"] == sha256_file(dataset / REPORT)
    card = (dataset / "README.md").read_text()
    assert f"[{REPORT}]({REPORT})" in card
    page = (dataset / REPORT).read_text()
    assert "<title>pushgen report: small</title>" in page  # the folder's name, not the temporary one


def test_the_report_is_one_self_contained_page(dataset):
    page = (dataset / REPORT).read_text()
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    assert "<script" not in page and "<link" not in page
    images = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(images) == len(DATA_FIGURES) + 2  # and the ground truth's context effects and long term
    for data in images:
        assert base64.b64decode(data).lstrip().startswith(b"<?xml")
    assert "@media print" in page
    assert "Key figures" in page


def test_figures_of_a_dataset_folder_and_of_a_generated_dataset(dataset, small):
    from matplotlib.figure import Figure

    drawn = figures(dataset)
    assert set(drawn) == DATA_FIGURES | {"context_effects", "long_term"}
    assert all(isinstance(f, Figure) and f.axes for f in drawn.values())
    in_memory = figures(small)
    assert set(in_memory) == DATA_FIGURES | {"long_term"}  # its ground truth in memory: no context effects
    users = in_memory["users"].axes[0]
    assert len(users.collections[0].get_offsets()) == small.notifications["user_id"].nunique()


def test_a_one_day_dataset_has_every_figure_without_a_warning():
    import warnings

    import pushgen

    tiny = pushgen.generate(users=1, days=1, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = figures(tiny)
        report_html(tiny)
    assert set(drawn) == DATA_FIGURES | {"long_term"}
    assert "too few rows" in drawn["content_context"].axes[0].texts[0].get_text()


def test_the_calibration_figure_marks_a_miss(small):
    source = load_source(small)
    stats = source.stats
    found = {c.figure.name: c for c in checks(stats)}
    assert len(found) == len(FIGURES)
    missed = {**stats, "open_rate": {**stats["open_rate"], "overall": 0.9}}
    assert {c.figure.name: c.holds for c in checks(missed)}["open rate, overall"] is False
    figure = calibration_figure(View(replace(source, stats=missed)))
    ax = figure.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "90.0%  MISSES" in texts
    red = [label.get_text() for label in ax.get_yticklabels() if label.get_color() == "#d62728"]
    assert "open rate, overall" in red
    misses = sum(c.holds is False for c in checks(missed))
    measured = sum(c.value is not None for c in checks(missed))
    assert measured > len(TABLE_FIGURES) - 1  # the long-term figures of the dataset's ground truth too
    assert f"{misses} of {measured} measured figures miss their target." in ax.get_title(loc="left")


def test_describe_and_the_report_count_and_judge_the_same_figures(dataset):
    from pushgen.data.describe import describe_path

    described = describe_path(dataset)["calibration"]
    source = load_source(dataset)
    assert summary(checks(source.stats)) == described
    # every figure that reads the users table is measured from a dataset folder; the AUC needs auc=True;
    # of the ground truth's long-term figures, 21 days measure the users' tolerance but not 3 months
    unmeasured = [f["figure"] for f in described["figures"] if f["value"] is None]
    long_term = {f.name for f in LONG_TERM_FIGURES}
    assert [name for name in unmeasured if name not in long_term] == [
        "AUC of the action from the three timings"]
    assert {f"apps turned off or abandoned, {n} months" for n in (3, 6)} <= set(unmeasured)
    assert not any(name.startswith("users who tolerate") for name in unmeasured)
    title = calibration_figure(View(source)).axes[0].get_title(loc="left")
    assert title == verdict_line(described, named=False)
    assert (f"{len(FIGURES) - len(unmeasured)} measured figures" in title
            and f"{len(unmeasured)} of {len(FIGURES)} not measurable here" in title)


@pytest.fixture(scope="module")
def mini():
    return load_source("pushgen-mini")


def test_the_split_report_shows_its_parts(mini):
    description = json.loads((load_split_folder() / "split.json").read_text())
    sizes = mini.parts["part"].value_counts().to_dict()
    for part in ("task1/train", "task1/validation", "task1/test", "task2/test"):
        assert sizes[part] == description["parts"][part]["rows"]
    history = description["parts"]["task1/train"]["rows"] + description["parts"]["task1/validation"]["rows"]
    assert mini.stats["rows"] == history == len(mini.notifications)  # the figures are of the history
    assert "scorer/" in mini.facts["test parts"] and "not read" in mini.facts["test parts"]
    drawn = figures(mini)
    assert next(iter(drawn)) == "split_parts"
    assert set(drawn) == DATA_FIGURES | {"split_parts"}


def load_split_folder():
    from pushgen.publishing.access import resolve_split

    return resolve_split("pushgen-mini")


@pytest.fixture
def mini_copy(tmp_path):
    copy = tmp_path / "mini"
    shutil.copytree(load_split_folder(), copy)
    return copy


@pytest.fixture
def opened_files(monkeypatch):
    """Every file opened from Python (audit events) or read by pyarrow.parquet while the test runs."""
    opened: list[str] = []
    _RECORDERS.append(opened)
    for name in ("read_table", "read_schema", "read_metadata", "ParquetFile"):
        reader = getattr(pq, name)
        monkeypatch.setattr(pq, name, _recording(reader, opened))
    yield opened
    _RECORDERS.remove(opened)


_RECORDERS: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if _RECORDERS and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _RECORDERS[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _recording(reader, opened: list[str]):
    def read(source, *args, **kwargs):
        if isinstance(source, (str, os.PathLike)):
            opened.append(os.fspath(source))
        return reader(source, *args, **kwargs)
    return read


def test_a_split_report_opens_nothing_of_the_answer_key(mini_copy, opened_files):
    expected = report_html(load_split_folder())
    for path in sorted((mini_copy / "scorer").rglob("*"), reverse=True):
        if path.is_file():  # a folder in its place: opening it fails in Python and in Arrow alike
            path.unlink()
            path.mkdir()
    opened_files.clear()
    assert report_html(mini_copy) == expected  # the answer key does not change the report
    inside = [Path(p).resolve() for p in opened_files if mini_copy in Path(p).resolve().parents]
    assert mini_copy / "task1" / "train.parquet" in inside  # the recording sees the parts it reads
    assert mini_copy / "task2" / "test.parquet" in inside
    assert not [p for p in inside if (mini_copy / "scorer") in p.parents]


def test_test_contexts_with_posted_at_are_counted_in_their_weeks(mini_copy):
    """A split whose test parts carry ``posted_at`` shows their contexts by week, not spread."""
    source = load_source(mini_copy)
    counts, spread = weekly_rows(source.parts, source.test_span)
    assert spread == set()
    description = json.loads((mini_copy / "split.json").read_text())
    for part in ("task1/test", "task2/test"):
        times = pq.read_table(mini_copy / f"{part}.parquet").column("posted_at").to_numpy()
        days = times.astype("datetime64[D]")
        expected = pd.Series(days - (days.astype(np.int64) + 3) % 7).value_counts()
        assert counts[part][counts[part] > 0].to_dict() == expected.to_dict()
        assert counts[part].sum() == description["parts"][part]["rows"]


def test_test_contexts_without_posted_at_are_spread_over_the_test_months(mini_copy):
    """Splits up to version 2 carry no test times: their contexts are spread evenly over the test months."""
    for part in ("task1/test", "task2/test"):
        path = mini_copy / f"{part}.parquet"
        pq.write_table(pq.read_table(path).drop_columns(["posted_at"]), path)
    description = json.loads((mini_copy / "split.json").read_text())
    for part in ("task1/test", "task2/test"):
        path = mini_copy / f"{part}.parquet"
        description["files"][f"{part}.parquet"] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    (mini_copy / "split.json").write_text(json.dumps(description, indent=1))
    write_croissant(mini_copy, croissant(mini_copy))  # as such a split's own
    source = load_source(mini_copy)
    counts, spread = weekly_rows(source.parts, source.test_span)
    assert spread == {"task1/test", "task2/test"}
    for part in spread:
        assert counts[part].sum() == pytest.approx(description["parts"][part]["rows"])


@settings(max_examples=40, deadline=None)
@given(days=st.lists(st.integers(0, 120), min_size=1, max_size=60), untimed=st.integers(0, 500),
       span_start=st.integers(0, 100), span_days=st.integers(1, 70))
def test_weekly_rows_count_every_row_in_its_monday_week(days, untimed, span_start, span_days):
    start = np.datetime64("2026-01-07")  # a Wednesday
    dated = pd.DataFrame({"part": "task1/train", "user_id": 0,
                          "posted_at": (start + np.array(days)).astype("datetime64[ms]")})
    undated = pd.DataFrame({"part": ["task1/test"] * untimed, "user_id": 0,
                            "posted_at": pd.Series([pd.NaT] * untimed, dtype="datetime64[ms]")})
    span = (start + span_start, start + span_start + span_days)
    counts, spread = weekly_rows(pd.concat([dated, undated], ignore_index=True), span)
    assert spread == ({"task1/test"} if untimed else set())
    assert all(pd.Timestamp(week).weekday() == 0 for week in counts.index)
    assert counts["task1/train"].sum() == len(days)
    if untimed:
        assert counts["task1/test"].sum() == pytest.approx(untimed)
        covered = counts.index[counts["task1/test"] > 0]
        assert covered.min() <= pd.Timestamp(span[0]) and covered.max() + pd.Timedelta(days=7) > pd.Timestamp(
            span[1] - 1)
    for day in days:
        monday = pd.Timestamp(start + day) - pd.Timedelta(days=pd.Timestamp(start + day).weekday())
        assert counts.loc[monday, "task1/train"] >= 1


def test_a_report_inside_a_pushgen_output_is_refused(dataset, mini_copy, tmp_path, capsys):
    before = snapshot(dataset), snapshot(mini_copy)
    for folder, kind in ((dataset, "dataset"), (mini_copy, "split")):
        for out in (folder / "again.html", folder / "task1" / "r.html"):
            assert main(["report", str(dataset), "--out", str(out)]) == 2
            error = capsys.readouterr().err
            assert error.count("\n") == 1, error
            assert f"inside the pushgen {kind} {folder.resolve()}" in error and "outside it" in error
            assert not out.exists()
    with pytest.raises(DatasetError, match="inside the pushgen split"):
        write_report(dataset, mini_copy / "r.html", force=True)
    assert (snapshot(dataset), snapshot(mini_copy)) == before
    assert main(["report", str(dataset), "--out", str(tmp_path / "nowhere" / "r.html")]) == 2
    assert f"folder {tmp_path / 'nowhere'} does not exist; choose another --out" in capsys.readouterr().err


def test_the_benchmark_report_stays_readable_with_ten_policies(results_folder):
    drawn = figures(results_folder)
    assert list(drawn) == ["leaderboard", "per_user", "learning_curves"]
    curves = drawn["learning_curves"]
    panels = [ax for ax in curves.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == BASELINES  # one panel per policy, no legend to hide one
    assert all(ax.get_legend() is None for ax in panels)
    assert all(len(ax.lines) == len(BASELINES) for ax in panels)
    board = drawn["leaderboard"].axes
    assert len(board) == 2  # a panel per task
    top = max(board[0].get_yticklabels(), key=lambda label: label.get_position()[1])
    assert top.get_text() == "policy-9 * [bound]"  # best first
    page = report_html(results_folder)
    assert page.count("<img ") == 3


def test_the_benchmark_report_shows_what_the_results_folder_has(results_folder, tmp_path):
    folder = tmp_path / "results"
    shutil.copytree(results_folder, folder)
    board = pd.read_csv(folder / "leaderboard.csv").assign(paired_gap=0.02)
    selection = board[board["task"] == 1].head(4).assign(task="selection")
    pd.concat([board, selection]).to_csv(folder / "leaderboard.csv", index=False)
    pd.DataFrame({"metric": ["coverage", "regret"], "value": [0.5, 0.25]}).to_csv(
        folder / "selection_summary.csv", index=False)
    (folder / "curves.csv").unlink()
    selection.assign(task=np.nan).to_csv(folder / "selection_board.csv", index=False)
    with pytest.raises(DatasetError, match=r"selection_board\.csv is not listed in .*benchmark\.json"):
        figures(folder)  # files added after pushgen wrote it
    resign(folder, "benchmark")
    drawn = figures(folder)
    assert list(drawn) == ["leaderboard", "leaderboard_2", "per_user"]  # no curves: no learning curves
    assert [ax.get_title() for ax in drawn["leaderboard_2"].axes if ax.get_visible()] == ["Mean reward"]
    panels = [ax for ax in drawn["leaderboard"].axes if ax.get_visible()]
    assert [ax.get_title().split(":")[0] for ax in panels] == ["Task 1", "Task 2", "Task selection"]
    assert len(panels[2].get_yticklabels()) == 4
    page = report_html(folder)
    assert "<th>paired_gap</th>" in page and "Table: selection_summary.csv" in page
    assert "<h2>Leaderboard: selection_board.csv</h2>" in page
    assert "<td>coverage</td>" in page and '<td class=num>0.2500</td>' in page
    (folder / "leaderboard.csv").unlink()
    with pytest.raises(DatasetError, match=r"leaderboard\.csv is missing; benchmark\.json lists it"):
        figures(folder)
    resign(folder, "benchmark")
    with pytest.raises(DatasetError, match=r"does not list leaderboard\.csv"):
        figures(folder)


def test_cli_report_makes_the_same_bytes_again_and_refuses_to_overwrite(dataset, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", str(dataset), "--out", str(out)]) == 0
    assert sha256_file(out) == sha256_file(dataset / REPORT)  # the manifest's sha256 stays true
    before = out.read_bytes()
    capsys.readouterr()
    assert main(["report", str(dataset), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "already exists" in error and "--force" in error
    assert out.read_bytes() == before
    assert main(["report", str(tmp_path / "nowhere" / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", str(out)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_missing_matplotlib_is_named_with_its_install_line(dataset, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "r.html"
    assert main(["report", str(dataset), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and install_line("plot") in error
    assert not out.exists()
    assert main(["make", "--users", "1", "--days", "2", "--out", str(tmp_path / "d"), "--report"]) == 2
    assert install_line("plot") in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def chromium(tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=300, check=False)


def figure_check(page: str, tmp_path) -> tuple[int, int]:
    """(images, images that did not load) once the page has loaded in Chromium."""
    checked = tmp_path / "checked.html"
    checked.write_text(page + FIGURE_CHECK)
    dom = chromium(tmp_path, "--dump-dom", checked.as_uri()).stdout
    found = re.search(r'id="figure-check">images=(\d+) broken=(\d+)<', dom)
    assert found, dom[-500:]
    return int(found[1]), int(found[2])


def screenshot_pixels(page_file, tmp_path) -> np.ndarray:
    import matplotlib.image

    shot = tmp_path / f"{page_file.stem}.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2400", page_file.as_uri())
    return matplotlib.image.imread(shot)[..., :3]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_chromium_shows_every_figure_of_a_dataset_the_mini_split_and_results(dataset, mini, results_folder,
                                                                               tmp_path):
    mini_page = write_report(mini, tmp_path / "mini.html")
    results_page = write_report(results_folder, tmp_path / "results.html")
    for page_file, least in ((dataset / REPORT, len(DATA_FIGURES)), (mini_page, len(DATA_FIGURES)),
                             (results_page, 3)):
        page = page_file.read_text()
        images, broken = figure_check(page, tmp_path)
        assert images == page.count("<img ") >= least
        assert broken == 0
        pixels = screenshot_pixels(page_file, tmp_path)
        not_white = (pixels < 0.9).any(axis=-1)
        assert not_white.mean() > 0.02  # text and figures, not a blank page (a blank one: 0)
        assert len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)) > 50


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_figure_check_sees_a_figure_that_does_not_load(tmp_path):
    broken = base64.b64encode(b"<svg this is not svg").decode()
    page = f'<html><body><img src="data:image/svg+xml;base64,{broken}"></body></html>'
    assert figure_check(page, tmp_path) == (1, 1)


def test_a_name_the_system_refuses_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "a" * 300]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pushgen report: error: File name too long") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
