"""The card (``README.md``) and the Croissant description of a log folder, and the check of its
propensities against the choices that the card shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from pushgen.data.outputs import sha256_file
from pushgen.ope.log import BanditLog
from pushgen.ope.policies import MIN_TEMPERATURE
from pushgen.text_tables import markdown_table

PROPENSITY_BINS = (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0)
TABLE_TEXT = {
    "rounds": "One row per round: the user, the time, the context, the chosen action (slot; k = hold), "
              "its propensity, the sampled reward and the true P(open) of the chosen notification.",
    "candidates": "One row per action of each round (the filled candidate slots and hold): the "
                  "notification's features (empty for hold), its propensity, whether it was chosen, "
                  "the sampled reward (chosen row only) and its true P(open) at that state.",
}


def propensity_check(log: BanditLog, bins: tuple[float, ...] = PROPENSITY_BINS) -> pd.DataFrame:
    """Logged propensities against how often the actions were chosen: the candidate rows binned by
    propensity, with the mean propensity, the share chosen and its binomial z-score per bin.

    Parameters
    ----------
    log : BanditLog
        The log.
    bins : tuple of float
        The bins' edges.

    Returns
    -------
    pandas.DataFrame
        One row per bin that holds actions.

    Examples
    --------
    >>> from pushgen.ope import log_policy, propensity_check
    >>> log = log_policy("pushgen-mini-v4", policy="uniform", users=[0], seed=0)
    >>> len(propensity_check(log)) >= 1
    True
    """
    propensity = log.candidates["propensity"].to_numpy()
    chosen = log.candidates["chosen"].to_numpy(dtype=bool)
    index = np.clip(np.searchsorted(bins, propensity, side="right") - 1, 0, len(bins) - 2)
    rows = []
    for b in np.unique(index):
        inside = index == b
        count = int(inside.sum())
        expected = float(propensity[inside].mean())
        share = float(chosen[inside].mean())
        sd = float(np.sqrt((propensity[inside] * (1 - propensity[inside])).sum())) / count
        rows.append({"bin": f"[{bins[b]:g}, {bins[b + 1]:g})", "actions": count,
                     "mean_propensity": expected, "chosen_share": share,
                     "z": (share - expected) / sd if sd > 0 else 0.0})
    return pd.DataFrame(rows)


def policy_text(recipe: dict) -> str:
    if recipe["policy"] == "softmax-learned":
        return (f"softmax-learned at temperature {recipe['temperature']:g}: pi(a) proportional to "
                "exp(q(a) / temperature), q = expit(the open log-odds of a logistic regression fitted on "
                "the split's public task 1 training rows), hold scored 0; the propensities reveal that "
                "public model, not the true P(open)")
    if recipe["policy"] == "softmax":
        return (f"softmax at temperature {recipe['temperature']:g}: pi(a) proportional to "
                "exp(P(open of a) / temperature), hold scored 0 (temperatures below "
                f"{MIN_TEMPERATURE:g} are refused); its propensities encode the true P(open), see "
                "the answer key")
    return "uniform: every filled candidate slot and hold alike"


def log_card(log: BanditLog, description: dict) -> str:
    recipe = description["recipe"]
    rounds = description["rounds"]
    check = propensity_check(log)
    check_rows = [(row.bin, f"{row.actions:,}", f"{row.mean_propensity:.4f}", f"{row.chosen_share:.4f}",
                   f"{row.z:+.2f}") for row in check.itertuples()]
    stationary = ("stationary: no fatigue and no habituation (a control for the estimators' i.i.d. "
                  "assumption)" if recipe["stationary"]
                  else "the full model: fatigue and habituation follow what the logging policy sent")
    lines = [
        "---",
        "license: cc-by-4.0",
        "tags: [synthetic, off-policy-evaluation, bandit-feedback, notifications]",
        "configs:",
        "- config_name: rounds",
        "  data_files: rounds.parquet",
        "- config_name: candidates",
        "  data_files: candidates.parquet",
        "---",
        "",
        "# pushgen bandit log",
        "",
        f"Logged bandit feedback of {len(recipe['users'])} simulated users of the split "
        f"`{recipe['split']}` (fingerprint {str(description.get('split_fingerprint'))[:16]}), played in "
        f"`pushgen/NotificationSelection-v0` with k = {recipe['k']} candidates per context "
        f"(candidate seed {recipe['candidate_seed']}) and hold: {rounds:,} rounds, "
        f"{description['held']:,} held, {description['opened']:,} opened. Made by pushgen "
        f"{description['pushgen_version']} with seed {recipe['seed']}; the same options give the same "
        "bytes.",
        "",
        f"- Logging policy: {policy_text(recipe)}. Propensities are its exact probabilities over the "
        "round's candidates and hold; they sum to 1 per round.",
        f"- Simulated user: {stationary}.",
        "- Reward: 1 if the user opened the notification sent (drawn from the engagement model), 0 "
        "otherwise and for hold.",
        "",
        "## Answer key",
        "",
        "The `p_open` columns hold the true P(open) of the split's test users at the state the logged "
        "trajectory reached: the simulator's ground truth. They are here to check estimators "
        "(`pushgen.ope`); an estimator, a reward model or a policy under evaluation must not read "
        "them. The log covers the split's test users: do not train a model for the split's tasks "
        "on it.",
        *(["", "With the softmax logging policy the propensities carry the answer key too: "
               "temperature * log(propensity of a / propensity of hold) is the true P(open) of a. "
               "Importance weights may use them; a reward model or a policy that reads them reads the "
               "truth. `softmax-learned` logs non-uniform propensities that reveal nothing hidden."]
          if recipe["policy"] == "softmax" else []),
        "",
        "## Tables",
        "",
        *(f"- `{name}.parquet`: {text}" for name, text in TABLE_TEXT.items()),
        "",
        "## Propensities against choices",
        "",
        "Every action of every round, binned by its logged propensity: the share chosen matches "
        "the mean propensity (z: the difference in binomial standard errors).",
        "",
        markdown_table(("propensity", "actions", "mean propensity", "share chosen", "z"), check_rows,
                       right=(False, True, True, True, True)).rstrip("\n"),
        "",
        "## Use",
        "",
        "```python",
        "from pushgen.ope import read_log, to_obp, to_vw, to_minari",
        "log = read_log('this folder')",
        "feedback = to_obp(log)  # Open Bandit Pipeline's BanditFeedback dict",
        "text = to_vw(log)  # Vowpal Wabbit cb_adf examples",
        "```",
        "",
    ]
    return "\n".join(lines)


def log_croissant(folder: Path, description: dict, tables: dict[str, str], unlisted: tuple[str, ...]) -> dict:
    """The Croissant JSON-LD of a log folder: ``tables`` name -> file, ``unlisted`` the files
    written beside the listed ones (the description and the card)."""
    from pushgen.publishing.croissant import Table, cite, document, file_object, semantic_version

    recipe = description["recipe"]
    files = dict(description["files"])
    for name in unlisted:
        files[name] = {"bytes": (folder / name).stat().st_size, "sha256": sha256_file(folder / name)}
    label = f"pushgen-log-{recipe['policy']}-k{recipe['k']}-seed{recipe['seed']}"
    described = [Table(name, TABLE_TEXT[name], {"fileObject": {"@id": file}}, pq.read_schema(folder / file))
                 for name, file in tables.items()]
    return document(
        name=label,
        description=(f"Logged bandit feedback with exact propensities from pushgen's selection "
                     f"environment on the split {recipe['split']}: {description['rounds']:,} rounds. The "
                     "p_open columns are the simulator's ground truth (an answer key) for checking "
                     "off-policy estimators."
                     + (" The softmax policy's propensities encode the true P(open) too."
                        if recipe["policy"] == "softmax" else "")),
        version=semantic_version(description["pushgen_version"]),
        recipe=description["split_recipe"],
        cite_as=cite(label, "a pushgen bandit log", str(description.get("split_fingerprint"))),
        distribution=[file_object(path, f["bytes"], f["sha256"]) for path, f in sorted(files.items())],
        described=described,
    )
