"""Markdown tables of the model's parameters, generated from the code for ``docs/model.md``.

``scripts/model_docs.py`` writes each table between its markers in the document, and a test
fails when the document differs from what the code gives, so the docs cannot go stale.
"""

from __future__ import annotations

import re

from pushgen.model.channels import GROUPS, KIND_CHANNELS
from pushgen.model.exposure import HABITUATION_TAU_DAYS, INTERRUPTION_BY_PRIORITY, UPDATE_INTERRUPTION
from pushgen.model.ground_truth_columns import ground_truth_markdown
from pushgen.model.situations import INTERACTIONS, PRIORITY_IN, SITUATIONS, UPDATES_IN
from pushgen.text_tables import markdown_table

MAX_SUBJECTS_SHOWN = 6


def channels_markdown() -> str:
    """What each kind of app may post: its channels and their fixed fields."""
    rows = []
    for kind, channels in KIND_CHANNELS.items():
        for c in channels:
            subjects = ", ".join(c.subjects[:MAX_SUBJECTS_SHOWN])
            if len(c.subjects) > MAX_SUBJECTS_SHOWN:
                subjects += f", ... ({len(c.subjects)} in all)"
            share = "while triggered" if c.triggered else f"{c.share:g}"
            rows.append((kind, c.name, share, c.category, c.priority, c.visibility, str(c.ongoing),
                         ", ".join(c.updates), subjects, c.group))
    return markdown_table(("kind", "channel", "share", "category", "priority", "visibility", "ongoing",
                           "numberOfUpdates", "subjects", "content group"), rows)


def interactions_markdown() -> str:
    """Population content x situation effects (log-odds); 0 where blank."""
    rows = []
    for group in GROUPS:
        effects = INTERACTIONS.get(group, {})
        rows.append((group, *(f"{effects[s]:+g}" if s in effects else "" for s in SITUATIONS)))
    for name, table in (("priority", PRIORITY_IN), ("numberOfUpdates", UPDATES_IN)):
        for situation, effects in table.items():
            for value, effect in effects.items():
                cells = (f"{effect:+g}" if s == situation else "" for s in SITUATIONS)
                rows.append((f"{name} = {value}", *cells))
    return markdown_table(("content group", *SITUATIONS), rows)


def exposure_markdown() -> str:
    rows = [(key, f"{tau:g} days", "1") for key, tau in HABITUATION_TAU_DAYS.items()]
    weights = ", ".join(f"{p} {w:g}" for p, w in INTERRUPTION_BY_PRIORITY.items())
    rows.append(("fatigue", "`fatigue_tau_minutes` (priors)",
                 f"by priority: {weights}; x {UPDATE_INTERRUPTION:g} for an update"))
    return markdown_table(("key", "time constant", "adds per notification"), rows)


def nodes_markdown() -> str:
    """Every node of the DBN in the order ``simulate_user`` runs it (``pushgen.model.graph``)."""
    from pushgen.model.graph import NODES

    rows = []
    for node in NODES:
        function = f"`{node.function.__module__.removeprefix('pushgen.model.')}.{node.function.__name__}`"
        parents = ", ".join(f"`{p}`" for p in node.parents)
        stream = node.stream.name if node.stream is not None else "(deterministic)"
        rows.append((f"`{node.name}`", node.timescale, function, parents, stream,
                     node.distribution.replace("|", "/")))
    return markdown_table(("node", "timescale", "function", "parents", "stream", "distribution"), rows)


def graph_mermaid() -> str:
    """The DBN's graph, drawn from ``pushgen.model.graph.NODES`` (inputs as rounded boxes)."""
    from pushgen.model.graph import INPUTS, NODES

    used = {p for node in NODES for p in node.parents}
    lines = ["```mermaid", "flowchart TD"]
    lines += [f"    {name}([{name}])" for name in INPUTS if name in used]
    for node in NODES:
        lines.append(f'    {node.name}["{node.name}<br/>{node.timescale}"]')
        lines += [f"    {parent} --> {node.name}" for parent in node.parents]
    lines.append("```")
    return "\n".join(lines)


def prior_meanings() -> dict[str, str]:
    """Each prior's meaning, from the Attributes section of ``Priors``' numpydoc docstring."""
    from pushgen.model.priors import Priors

    text = (Priors.__doc__ or "").split("Attributes\n    ----------\n", 1)[1]
    lines = text.splitlines()
    meanings: dict[str, str] = {}
    names: list[str] = []
    for line, underline in zip(lines, [*lines[1:], ""], strict=True):
        if underline.strip() and set(underline.strip()) == {"-"}:
            break  # the next numpydoc section (Raises, Examples): the attributes end here
        if line.startswith("    ") and not line.startswith("        ") and " : " in line:
            names = [n.strip() for n in line.split(" : ")[0].split(",")]
            meanings.update(dict.fromkeys(names, ""))
        elif line.strip() and names:
            for name in names:
                meanings[name] = (meanings[name] + " " + line.strip()).strip()
    return meanings


def prior_readers() -> dict[str, list[str]]:
    """For each prior, the nodes whose function reads it (``priors.<name>`` in its source, or every
    long-term constant where it calls ``LongTermConstants.from_priors(priors)``)."""
    import inspect
    from dataclasses import fields

    from pushgen.model.graph import NODES
    from pushgen.model.long_term import LongTermConstants
    from pushgen.model.priors import Priors

    sources = {node.name: inspect.getsource(node.function) for node in NODES if "priors" in node.parents}
    long_term = {f.name for f in fields(LongTermConstants)}

    def reads(source: str, name: str) -> bool:
        return f"priors.{name}" in source or (name in long_term
                                              and "LongTermConstants.from_priors(priors)" in source)

    return {f.name: [node for node, source in sources.items() if reads(source, f.name)]
            for f in fields(Priors)}


def priors_markdown() -> str:
    """Every prior: its default, allowed range, meaning and the nodes that read it."""
    from pushgen.model.priors import SHARES, Priors, allowed

    defaults, meanings, readers = Priors().to_dict(), prior_meanings(), prior_readers()
    rows = []
    for name, default in defaults.items():
        values = f"{SHARES[name]} shares summing to 1" if name in SHARES else allowed(name)
        shown = ", ".join(f"{v:g}" for v in default) if isinstance(default, list) else f"{default:g}"
        rows.append((f"`{name}`", shown, values, meanings.get(name, ""),
                     ", ".join(f"`{r}`" for r in readers[name])))
    return markdown_table(("prior", "default", "allowed", "meaning", "read by"), rows)


GENERATED = {"channels": channels_markdown, "interactions": interactions_markdown,
             "exposure": exposure_markdown, "nodes": nodes_markdown, "graph": graph_mermaid,
             "priors": priors_markdown, "ground_truth": ground_truth_markdown}


def refresh(document: str) -> str:
    """``document`` with every generated table replaced by what the code gives now."""
    for name, make in GENERATED.items():
        pattern = re.compile(rf"(<!-- generated: {name} -->\n).*?(<!-- end: {name} -->)", re.S)
        if not pattern.search(document):
            raise ValueError(f"the document has no markers for the {name} table")

        def fill(m: re.Match[str], table: str = make()) -> str:
            return f"{m.group(1)}{table}\n{m.group(2)}"

        document = pattern.sub(fill, document)
    return document
