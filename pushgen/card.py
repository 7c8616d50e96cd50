"""The dataset card (README.md of a dataset folder) and the summary printed after ``make``."""

from __future__ import annotations

from pathlib import Path

from pushgen.generate import Dataset


def summary_paragraph(dataset: Dataset, out: Path) -> str:
    frame = dataset.notifications
    recipe = dataset.recipe
    first, last = frame["posted_at"].min(), frame["posted_at"].max()
    open_rate = (frame["action"] == "opened").mean()
    return (
        f"Wrote {len(frame):,} notifications of {recipe.users} users from {first:%Y-%m-%d} to "
        f"{last:%Y-%m-%d} ({recipe.days} days, seed {recipe.seed}); open rate {open_rate:.2f}; "
        f"in {out}"
    )


def dataset_card(dataset: Dataset, manifest: dict) -> str:
    return f"# pushgen dataset\n\n{manifest['rows']['notifications']} notifications.\n"
