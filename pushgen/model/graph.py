"""The DBN as data: every node, its parents, its random stream and its timescale, in the order
``simulate_user`` runs them.

A ``Node`` names the variable it produces and calls ``function`` with one argument per
parameter: ``inputs`` maps each parameter to the variable it reads (a node's name, an input of
the user, or ``node.field`` for one field of a node's value), and a node with a ``stream``
also gets that stream's generator as ``rng``. Nodes that share a stream draw from it in the
order listed. Adding a node is one entry here and one function.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from pushgen.model import (
    arrivals,
    content,
    device,
    feasibility,
    habits,
    long_term,
    nodes,
    portfolio,
    regime,
    routine,
    surroundings,
    timings,
    traits,
)
from pushgen.model.seeding import NodeFamily, stream

INPUTS = ("user_id", "seed", "grid", "priors", "catalog")
TIMESCALES = ("static", "day", "slot", "segment", "notification")


@dataclass(frozen=True)
class Node:
    name: str
    function: Callable[..., Any]
    inputs: dict[str, str]  # parameter -> variable (or variable.field) it reads
    timescale: str
    stream: NodeFamily | None = None  # None: deterministic given its parents

    @property
    def parents(self) -> tuple[str, ...]:
        """The variables this node reads, without field names, in parameter order."""
        return tuple(dict.fromkeys(source.split(".")[0] for source in self.inputs.values()))

    @functools.cached_property
    def sources(self) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """(parameter, variable, fields read in turn) of each input."""
        return tuple((parameter, name, tuple(fields))
                     for parameter, (name, *fields) in ((p, s.split(".")) for p, s in self.inputs.items()))

    @functools.cached_property
    def readers(self) -> tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...]:
        """(parameter, what reads its value from the variables known so far) of each input."""
        return tuple((parameter, _reader(name, fields)) for parameter, name, fields in self.sources)

    @property
    def distribution(self) -> str:
        """The first paragraph of the function's docstring, on one line."""
        return " ".join((inspect.getdoc(self.function) or "").split("\n\n")[0].split())


def _reader(name: str, fields: tuple[str, ...]) -> Callable[[dict[str, Any]], Any]:
    """``values[name]``, then each of ``fields`` of it in turn."""
    variable = operator.itemgetter(name)
    if not fields:
        return variable
    field = operator.attrgetter(".".join(fields))
    return lambda values: field(variable(values))


def _same(*names: str) -> dict[str, str]:
    return {name: name for name in names}


NODES: tuple[Node, ...] = (
    Node("chrono", habits.chronotype, _same("priors"), "static", NodeFamily.CHRONOTYPE),
    Node("sched", habits.schedule, _same("priors", "chrono"), "static", NodeFamily.SCHEDULE),
    Node("places", habits.places, _same("sched"), "static", NodeFamily.PLACES),
    Node("life", habits.lifestyle, _same("priors"), "static", NodeFamily.LIFESTYLE),
    Node("dev", habits.device_habits, _same("priors"), "static", NodeFamily.DEVICE_HABITS),
    Node("folio", portfolio.portfolio, {"priors": "priors", "catalog": "catalog", "chrono": "chrono",
                                        "device": "dev"}, "static", NodeFamily.PORTFOLIO),
    Node("log_interest", portfolio.interests, _same("priors"), "static", NodeFamily.INTERESTS),
    Node("tolerance", long_term.tolerance, _same("priors"), "static", NodeFamily.LONG_TERM),
    Node("params", traits.engagement_traits, {"user_id": "user_id", "priors": "priors", "catalog": "catalog",
                                              "log_interest": "log_interest", "apps": "folio.apps",
                                              "tolerance": "tolerance"},
         "static", NodeFamily.TRAITS),
    Node("attention", timings.attention_habits, _same("priors"), "static", NodeFamily.TIMINGS),
    Node("daily", regime.day_regime, {"days": "grid.days", "weekday": "grid.weekday_of_day",
                                      "priors": "priors", "life": "life"}, "day", NodeFamily.REGIME),
    Node("plan", routine.day_plan, {"grid": "grid", "chrono": "chrono", "sched": "sched", "places": "places",
                                    "life": "life", "away": "daily.away"}, "day", NodeFamily.ROUTINE),
    Node("state", routine.routine_state, _same("grid", "plan", "sched"), "slot"),
    Node("place", routine.place, _same("grid", "state", "plan", "places"), "slot"),
    Node("activity_table", routine.activity_table, _same("sched", "life"), "static"),
    Node("activity", routine.activity, {"state": "state", "table": "activity_table"}, "slot",
         NodeFamily.SURROUNDINGS),
    Node("noise", surroundings.noise, _same("state"), "slot", NodeFamily.SURROUNDINGS),
    Node("proximity", surroundings.proximity, _same("state"), "slot", NodeFamily.SURROUNDINGS),
    Node("sound", device.audio, {"state": "state", "habits": "dev"}, "segment", NodeFamily.AUDIO),
    Node("power", device.battery, {"grid": "grid", "state": "state", "music": "sound.music", "plan": "plan",
                                   "habits": "dev"}, "slot", NodeFamily.BATTERY),
    Node("ringer", device.ringer_mode, {"grid": "grid", "state": "state", "habits": "dev",
                                        "do_not_disturb": "daily.do_not_disturb"}, "segment",
         NodeFamily.RINGER),
    Node("posts", arrivals.arrivals, {"grid": "grid", "state": "state", "music": "sound.music",
                                      "plan": "plan", "volume": "daily.volume", "folio": "folio",
                                      "catalog": "catalog"}, "notification", NodeFamily.ARRIVALS),
    Node("trigger_on", nodes.trigger_on, {"posts": "posts", "catalog": "catalog", "state": "state",
                                          "music": "sound.music"}, "notification"),
    Node("notification", content.content, {"arrivals": "posts", "catalog": "catalog",
                                           "log_interest": "log_interest", "trigger_on": "trigger_on"},
         "notification", NodeFamily.CONTENT),
    Node("codes", nodes.features, _same("grid", "posts", "notification", "place", "activity", "noise",
                                        "proximity", "ringer", "power", "sound"), "notification"),
    Node("mood", nodes.mood, {"grid": "grid", "state": "state", "priors": "priors"}, "segment",
         NodeFamily.MOOD),
    Node("row_state", nodes.row_state, _same("grid", "posts", "state", "mood", "daily"), "notification"),
    Node("channel", feasibility.channel_of, _same("codes"), "notification"),
    Node("unwanted", nodes.unwanted, _same("codes", "row_state", "folio", "params", "catalog"),
         "notification"),
    Node("lived", nodes.lived, _same("posts", "codes", "channel", "row_state", "params", "unwanted"),
         "notification", NodeFamily.LONG_TERM),
    Node("draw", nodes.uniform_draw, _same("posts"), "notification", NodeFamily.ENGAGEMENT),
    Node("opened", nodes.opened, {"draw": "draw", "p_open": "lived.p_open"}, "notification"),
    Node("times", nodes.response_times, _same("grid", "posts", "opened", "codes", "state", "plan",
                                              "attention"), "notification", NodeFamily.TIMINGS),
)


def node_arguments(node: Node, values: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a node's function from the variables known so far (all but ``rng``)."""
    return {parameter: read(values) for parameter, read in node.readers}


def run(inputs: dict[str, Any], nodes_: tuple[Node, ...] = NODES) -> Iterator[tuple[Node, Any]]:
    """Each node's value, in order, for one user (``inputs`` holds ``INPUTS``)."""
    values = dict(inputs)
    streams: dict[NodeFamily, np.random.Generator] = {}
    for node in nodes_:
        arguments = node_arguments(node, values)
        if node.stream is not None:
            if node.stream not in streams:
                streams[node.stream] = stream(inputs["seed"], inputs["user_id"], node.stream)
            arguments["rng"] = streams[node.stream]
        values[node.name] = node.function(**arguments)
        yield node, values[node.name]
