"""What the report's pictures say: habituation within user, empty heatmap cells explained, rows
that read the simulated user marked in every ranking, the same SVG bytes from one process to the next."""

from __future__ import annotations

import pandas as pd
import pytest

import pushgen

pytest.importorskip("matplotlib")

from pushgen.report import engagement_figures
from pushgen.report.data_figures import MIN_CELL_ROWS, View
from pushgen.report.other_figures import leaderboard_figure, with_marks
from pushgen.report.sources import load_source


@pytest.fixture(scope="module")
def view() -> View:
    return View(load_source(pushgen.generate(users=10, months=2, seed=0)))


def test_habituation_is_drawn_within_user_and_falls_with_repeats(view):
    buckets = engagement_figures._repeat_buckets(view)
    frame = view.frame
    opened = (frame["action"] == "opened").to_numpy(float)
    key = [frame["user_id"].to_numpy(), frame["postingApp"].astype(str).to_numpy(),
           frame["subject"].astype(str).to_numpy()]
    own = pd.Series(opened).groupby(key).transform("mean").to_numpy()
    assert sum(n for _, n, _ in buckets) == len(frame)
    # the first bucket (no repeat in the day) against the same rows' own user, app and subject
    group = pd.Series(key[0]).astype(str).add("|" + key[1]).add("|" + key[2]).factorize()[0]
    first = engagement_figures.recent_load(group, view.rows.ms, 24 * 3_600_000) == 0
    assert buckets[0][2] == pytest.approx(float((opened - own)[first].mean()), abs=1e-12)
    # the shifts average to zero over all rows: each row against its own user, app and subject
    assert sum(n * s for _, n, s in buckets) / len(frame) == pytest.approx(0, abs=1e-12)
    assert buckets[0][2] > buckets[-1][2], buckets  # more repeats, fewer opens than the user's own
    figure = engagement_figures.fatigue_figure(view)
    titles = [ax.get_title() for ax in figure.axes]
    assert "Habituation, within user" in titles


def test_empty_heatmap_cells_are_explained(view):
    figure = engagement_figures.content_context_figure(view)
    assert f"blank: fewer than {MIN_CELL_ROWS} notifications" in figure.axes[0].get_title()


def test_selection_rows_that_read_the_simulated_user_are_marked():
    table = pd.DataFrame({"baseline": ["random", "greedy", "oracle", "upper-bound", "someone-else"],
                          "user_id": 3, "mean_reward": [0.2, 0.69, 0.69, 0.8, 0.3]})
    marked = with_marks("selection", table)
    assert marked["uses_true_model"].tolist() == [False, True, True, True, False]
    assert marked["upper_bound"].tolist() == [False, False, False, True, False]
    assert with_marks("other", table) is table
    labels = [t.get_text() for t in leaderboard_figure(marked).axes[0].get_yticklabels()]
    assert "greedy *" in labels and "oracle *" in labels and "random" in labels
    assert any(label.startswith("upper-bound *") and "[bound]" in label for label in labels)


def test_a_figure_gives_the_same_svg_bytes_when_its_layout_moves_in_the_last_bit():
    """matplotlib names clip boxes by a hash of their floats; the SVG numbers them instead, so a
    layout solver's last-bit difference between processes leaves the bytes alone."""
    import re

    from pushgen.report.style import new_figure, svg_bytes

    def drawn(left: float) -> bytes:
        figure = new_figure(3, 2)
        figure.set_layout_engine("none")
        axes = figure.add_axes((left, 0.1, 0.8, 0.8))
        axes.bar([0, 1], [1.0, 2.0])
        axes.plot([0, 1], [1.0, 2.0], marker="o")
        return svg_bytes(figure)

    first, moved = drawn(0.1), drawn(0.1 + 2e-16)
    assert first == moved
    text = first.decode()
    defined = set(re.findall(r'id="((?:image|m|p)\d+)"', text))
    used = set(re.findall(r'#((?:image|m|p)\d+)[)"]', text))
    assert {"p1", "m2"} <= defined and used <= defined and used
