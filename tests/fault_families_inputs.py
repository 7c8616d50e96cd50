"""More fault families for ``scripts/reliability.py`` and the tests: benchmark results folders
that are not as ``pushgen benchmark`` wrote them, one-file outputs over files pushgen did not
write, datasets of an old engagement model or with values outside the schemas (re-signed), and
names pushgen cannot use. The damages are shared with the tests that assert their messages."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fault_cases import made_folders, run_cli, snapshot
from fault_families import Case, left_behind, one_line, scratch

from pushgen.data.outputs import file_listing
from pushgen.publishing.croissant import dataset_croissant, write_croissant

DESCRIBED_LATER = {"dataset": ("manifest.json", "README.md", "croissant.json"),
                   "benchmark": ("benchmark.json", "timings.json")}
RESULTS, OUTPUTS = "benchmark results folder", "one-file outputs, old datasets, names"


def resign(folder: Path, kind: str = "dataset") -> None:
    """List ``folder``'s files in its description again, as they are now, and describe a dataset
    in Croissant again (as a forger would)."""
    description = folder / ("manifest.json" if kind == "dataset" else "benchmark.json")
    content = json.loads(description.read_text())
    content["files"] = file_listing(folder, exclude=DESCRIBED_LATER[kind])
    description.write_text(json.dumps(content))
    if kind == "dataset" and (folder / "croissant.json").is_file():
        write_croissant(folder, dataset_croissant(folder))


def old_model(folder: Path) -> None:
    """The dataset as pushgen 0.1 wrote it: engagement model 1."""
    model = folder / "ground_truth" / "engagement_model.json"
    model.write_text(json.dumps({**json.loads(model.read_text()), "model_version": 1}))
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "pushgen_version": "0.1.0"}))
    resign(folder)


def unknown_app(folder: Path) -> None:
    """The first notification's app replaced by one the schemas do not know, re-signed."""
    table = pq.read_table(folder / "notifications.parquet")
    apps = table.column("postingApp").cast(pa.string())
    first = pc.equal(pa.array(range(len(apps))), 0)
    index = table.column_names.index("postingApp")
    table = table.set_column(index, "postingApp", pc.if_else(first, "com.nonexistent", apps))
    pq.write_table(table, folder / "notifications.parquet", compression="zstd", store_schema=False)
    resign(folder)


def results_folder(root: Path) -> Path:
    """A results folder as ``pushgen benchmark`` writes it: two policies, task 1, three users."""
    from pushgen.benchmark.report import write_results
    from pushgen.benchmark.run import Results

    rows = [{"task": 1, "baseline": name, "user_id": user, "steps": 10, "mean_reward": k + 0.1 * user}
            for k, name in enumerate(("learned", "random")) for user in range(3)]
    made = Results(split="s", fingerprint="0" * 64, mode="expected", seed=0, tasks=[1],
                   baselines={"learned": "learned", "random": "random"}, per_user=pd.DataFrame(rows),
                   curves=pd.DataFrame(columns=["task", "baseline", "step", "mean_reward", "users"]),
                   marks={})
    return write_results(made, root / "results", plots=False)


def edit_table(name: str, column: str, value: object, signed: bool) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        table = pd.read_csv(folder / name)
        table[column] = value
        table.to_csv(folder / name, index=False)
        if signed:
            resign(folder, "benchmark")
    return damage


def without_task(folder: Path) -> None:
    pd.read_csv(folder / "per_user.csv").drop(columns="task").to_csv(folder / "per_user.csv", index=False)
    resign(folder, "benchmark")


RESULT_DAMAGES = {  # name -> (damage, what the message says)
    "an edited leaderboard.csv": (edit_table("leaderboard.csv", "mean_reward", 99.0, False),
                                  "leaderboard.csv differs from its entry in benchmark.json"),
    "an unlisted file": (lambda f: shutil.copy(f / "per_user.csv", f / "per_user_2.csv"),
                         "per_user_2.csv is not listed in"),
    "benchmark.json = []": (lambda f: (f / "benchmark.json").write_text("[]"), "is not a JSON object"),
    "benchmark.json nested 200,000 deep": (
        lambda f: (f / "benchmark.json").write_text("[" * 200_000 + "]" * 200_000), "is nested more than"),
    "per_user.csv without task": (without_task, "per_user.csv has no column 'task'"),
    "text in mean_reward, re-signed": (edit_table("leaderboard.csv", "mean_reward", "high", True),
                                       "the column 'mean_reward' must hold numbers"),
}


def damaged_results(name: str) -> str | None:
    damage, message = RESULT_DAMAGES[name]
    with scratch() as root:
        folder = results_folder(root)
        damage(folder)
        before = snapshot(folder)
        wrong = one_line(run_cli(["report", str(folder), "--out", str(root / "r.html")]), message)
        return wrong or ("it changed its input" if snapshot(folder) != before else None) or left_behind(
            root, {"results"})


def report_over(kind: str) -> str | None:
    with scratch() as root:
        folder = results_folder(root)
        out = {"a user's file": root / "notes.txt", "a file inside its input": folder / "r.html"}[kind]
        if kind == "a user's file":
            out.write_text("my notes\n")
        message = "is not a report pushgen wrote" if kind == "a user's file" else "is inside the pushgen"
        wrong = one_line(run_cli(["report", str(folder), "--out", str(out), "--force"]), message)
        return wrong or left_behind(root, {"results", "notes.txt"})


DATASET_DAMAGES = {"old engagement model": (old_model, "simulated with engagement model 1 by pushgen 0.1.0"),
                   "a value outside the schemas": (unknown_app, "'com.nonexistent' is not one of")}


def unusable_dataset(name: str, command: str) -> str | None:
    damage, message = DATASET_DAMAGES[name]
    with scratch() as root:
        folder = root / "dataset"
        shutil.copytree(made_folders()[0], folder)
        damage(folder)
        out = [] if command == "describe" else ["--out", str(root / "out")]
        return one_line(run_cli([command, str(folder), *out]), message) or left_behind(root, {"dataset"})


def bad_name(kind: str) -> str | None:
    with scratch() as root:
        if kind == "not UTF-8":
            outcome = run_cli(["make", "--users", "1", "--days", "2", "--out", str(root / "bad\udcff")])
            return one_line(outcome, "is not valid UTF-8 text") or left_behind(root, set())
        out = root / ("a" * 240)
        for force in ([], ["--force"]):
            outcome = run_cli(["make", "--users", "1", "--days", "2", "--out", str(out), "-q", *force])
            if outcome.code != 0:
                return f"a 240-byte name was refused: {outcome.err.strip()!r}"
        return left_behind(root, {out.name})


def input_families() -> list[Case]:
    """The cases of these families."""
    cases = [Case(RESULTS, name, partial(damaged_results, name)) for name in RESULT_DAMAGES]
    cases += [Case(OUTPUTS, f"report --force over {kind}", partial(report_over, kind))
              for kind in ("a user's file", "a file inside its input")]
    cases += [Case(OUTPUTS, f"{command} of a dataset with {name}", partial(unusable_dataset, name, command))
              for name in DATASET_DAMAGES for command in ("split", "describe", "report")]
    cases += [Case(OUTPUTS, f"--out {kind}", partial(bad_name, kind))
              for kind in ("not UTF-8", "of 240 bytes")]
    return cases
