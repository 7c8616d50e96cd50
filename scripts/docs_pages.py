"""Pages of the documentation site made from the code when ``mkdocs build`` runs (mkdocs-gen-files):
the home page (the README, its links made relative to the site), the API reference of every public
name, the ground truth's column tables and the DBN figure."""

from __future__ import annotations

import importlib
import io
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))
from public_api import PUBLIC_MODULES, defined_at

from pushgen import schemas
from pushgen.model.graph import INPUTS, NODES, TIMESCALES
from pushgen.model.ground_truth_columns import ground_truth_markdown

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://github.com/pushgen/pushgen/blob/main/"


def home_page() -> str:
    """The README as the site's home page: ``docs/x`` links become ``x``, other files the repository's."""
    def relink(found: re.Match[str]) -> str:
        target = found.group(2)
        if re.match(r"[a-z]+:|#", target):
            return found.group(0)
        in_site = target.startswith("docs/") and target != "docs/README.md"
        inside = target.removeprefix("docs/") if in_site else REPOSITORY + target
        return f"{found.group(1)}({inside})"

    return re.sub(r"(!?\[[^\]]*\])\(([^)\s]+)\)", relink, (ROOT / "README.md").read_text())


def columns_table() -> str:
    """Every published feature of a dataset from ``schemas/``: its part, type, meaning and values."""
    rows = ["| column | part | type | meaning | values |", "|---|---|---|---|---|"]
    for entity in schemas.ENTITIES:
        for name in schemas.entity_fields(entity):
            f = schemas.field(name)
            shown = "any number" if f.values is None else ", ".join(f"`{v}`" for v in f.values[:4])
            if f.values is not None and len(f.values) > 4:
                shown += f", ... ({len(f.values)} in all)"
            rows.append(f"| `{name}` | {entity} | {f.type} | {f.description} | {shown} |")
    return "\n".join(rows)


def reference_page(module_name: str) -> str:
    """A module's reference page: its summary, then a mkdocstrings block per name of ``__all__``."""
    module = importlib.import_module(module_name)
    summary = (module.__doc__ or "").strip().split("\n\n")[0]
    lines = [f"# `{module_name}`", "", summary, ""]
    for name in module.__all__:
        target = defined_at(module, name)
        if target in PUBLIC_MODULES and target != module_name:
            lines += [f"## `{name}`", "", f"The module [`{target}`]({target}.md).", ""]
        else:
            lines += [f"::: {target}", "    options:", "      heading_level: 2", ""]
    return "\n".join(lines)


def dbn_svg() -> str:
    """The DBN of ``pushgen.model.graph.NODES`` as an SVG: one column per timescale, parent -> child."""
    columns = {"input": list(INPUTS[:1] + INPUTS[2:])} | {t: [] for t in TIMESCALES}
    for node in NODES:
        columns[node.timescale].append(node.name)
    where = {name: (x, -y) for x, names in enumerate(columns.values()) for y, name in enumerate(names)}
    where["seed"] = where["user_id"]
    plt.rcParams["svg.fonttype"] = "none"  # names stay text: searchable, and the file small
    figure, axes = plt.subplots(figsize=(12, 7.5))
    for node in NODES:
        for parent in node.parents:
            (x0, y0), (x1, y1) = where[parent], where[node.name]
            axes.annotate("", xy=(x1, y1), xytext=(x0, y0),
                          arrowprops={"arrowstyle": "->", "color": "#8a9bb0", "lw": 0.7, "shrinkA": 14,
                                      "shrinkB": 14, "connectionstyle": "arc3,rad=0.12"})
    for column, names in columns.items():
        for name in names:
            x, y = where[name]
            axes.text(x, y, name, ha="center", va="center", fontsize=9,
                      bbox={"boxstyle": "round" if column == "input" else "square",
                            "fc": "#fff7e0" if column == "input" else "#e8f0fb", "ec": "#34495e"})
    for x, column in enumerate(columns):
        axes.text(x, 1, column if column == "input" else f"per {column}" if column != "static" else "static",
                  ha="center", fontsize=11, weight="bold")
    axes.set_xlim(-0.6, len(columns) - 0.4)
    axes.set_ylim(-max(len(n) for n in columns.values()), 1.6)
    axes.axis("off")
    out = io.StringIO()
    figure.savefig(out, format="svg", bbox_inches="tight")
    plt.close(figure)
    return out.getvalue()


with mkdocs_gen_files.open("index.md", "w") as page:
    page.write(home_page())
for module_name in PUBLIC_MODULES:
    with mkdocs_gen_files.open(f"reference/{module_name}.md", "w") as page:
        page.write(reference_page(module_name))
with mkdocs_gen_files.open("reference/index.md", "w") as page:
    page.write("# API reference\n\nEvery public name, generated from its docstring, by module:\n\n"
               + "".join(f"- [`{m}`]({m}.md)\n" for m in PUBLIC_MODULES))
with mkdocs_gen_files.open("figures/dbn.svg", "w") as figure_file:
    figure_file.write(dbn_svg())
with mkdocs_gen_files.open("dataset.md", "a") as page:
    page.write("\n## Every column\n\nGenerated from the published value sets (`schemas/`, "
               "`pushgen.schemas`); besides them, `user_id`, `notification_id` and `posted_at`.\n\n"
               + columns_table() + "\n")
with mkdocs_gen_files.open("ground-truth.md", "a") as page:
    page.write("\n## The columns\n\nGenerated from `pushgen.model.ground_truth_columns`.\n\n"
               + ground_truth_markdown() + "\n")
