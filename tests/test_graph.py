"""The DBN as data: every node's parents match its function, and the order is a valid one."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from pushgen.model.graph import INPUTS, NODES, TIMESCALES, Node, run
from pushgen.model.seeding import NodeFamily


def signature_inputs(node: Node) -> set[str]:
    """The parameters of a node's function that its parents fill (all but ``rng`` and defaults)."""
    parameters = inspect.signature(node.function).parameters.values()
    return {p.name for p in parameters if p.name != "rng" and p.default is inspect.Parameter.empty}


@pytest.mark.parametrize("node", NODES, ids=lambda n: n.name)
def test_a_nodes_declared_parents_are_its_functions_parameters(node: Node):
    assert set(node.inputs) == signature_inputs(node), node.name
    takes_rng = "rng" in inspect.signature(node.function).parameters
    assert takes_rng == (node.stream is not None), f"{node.name}: a random node has a stream, and only it"
    assert node.timescale in TIMESCALES and node.distribution


def test_parents_come_before_their_children_and_names_are_unique():
    known = set(INPUTS)
    for node in NODES:
        missing = [p for p in node.parents if p not in known]
        assert not missing, f"{node.name} reads {missing} before they exist"
        assert node.name not in known, f"{node.name} is defined twice"
        known.add(node.name)


def test_every_stream_but_the_pseudonyms_belongs_to_a_node():
    used = {node.stream for node in NODES if node.stream is not None}
    assert used == set(NodeFamily) - {NodeFamily.PSEUDONYM}


def test_running_the_graph_gives_every_node_in_order(small):
    from pushgen.model.catalog import app_catalog

    recipe = small.recipe
    inputs = {"user_id": 0, "seed": recipe.seed, "grid": recipe.grid, "priors": recipe.priors,
              "catalog": app_catalog()}
    values = dict((node.name, value) for node, value in run(inputs))
    assert list(values) == [node.name for node in NODES]
    n = len(values["posts"].seconds)
    lived = values["lived"]
    assert len(lived.fate) == len(lived.p_open) == n
    # the dataset holds the posts that reached the user (not from an app or channel turned off)
    assert lived.delivered.sum() == (small.notifications["user_id"] == 0).sum()
    assert ((lived.p_open >= 0) & (lived.p_open <= 1)).all() and (lived.p_open[~lived.delivered] == 0).all()
    np.testing.assert_array_equal(values["opened"], values["draw"] < lived.p_open)
    assert values["state"].shape == (recipe.grid.slots,)


def test_the_model_document_shows_the_graph_the_code_runs():
    from pathlib import Path

    from pushgen.model.tables_doc import refresh

    document = (Path(__file__).resolve().parents[1] / "docs" / "model.md").read_text()
    assert refresh(document) == document, "docs/model.md is stale: run python scripts/model_docs.py"
    for node in NODES:
        assert f'    {node.name}["{node.name}<br/>{node.timescale}"]' in document
        assert f"| `{node.name}` | {node.timescale} |" in document


def test_every_prior_is_documented_and_read_by_a_node():
    from dataclasses import fields

    from pushgen.model.priors import Priors
    from pushgen.model.tables_doc import prior_meanings, prior_readers

    names = {f.name for f in fields(Priors)}
    meanings, readers = prior_meanings(), prior_readers()
    assert set(meanings) == names and all(meanings.values())
    assert not [name for name, nodes in readers.items() if not nodes], "a prior no node reads"


def test_a_nodes_arguments_are_the_variables_and_fields_it_reads():
    from types import SimpleNamespace

    from pushgen.model.graph import node_arguments

    node = Node("n", lambda a, b, c: None, {"a": "x", "b": "y.inner.value", "c": "y.inner"}, "static")
    inner = SimpleNamespace(value=3)
    values = {"x": 1, "y": SimpleNamespace(inner=inner), "z": 2}
    assert node_arguments(node, values) == {"a": 1, "b": 3, "c": inner}
    for node in NODES:  # what each reader reads is the variable, then its fields in turn
        assert [parameter for parameter, _ in node.readers] == list(node.inputs)
