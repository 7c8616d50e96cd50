"""One-hot features of (notification, context) pairs for the linear models.

Columns: one per value of each of the 18 features (main effects), then one per
(category, value) of each interacting context variable: ``time`` and ``audio`` (headphones
and music together, 4 levels). With these, a linear score splits into a notification part, a
context part and a category-by-context part, so the best of many candidates for many
contexts is found without scoring every pair.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pushgen import schemas
from pushgen.baselines.base import Codes
from pushgen.envs.spaces import CONTEXT_FEATURES, NOTIFICATION_FEATURES

INTERACTIONS = ("time", "audio")
CATEGORY = NOTIFICATION_FEATURES.index("category")


def context_variable(name: str, contexts: Codes) -> np.ndarray:
    """Codes of a context feature, or of ``audio`` = 2 * headphonesIn + musicActive."""
    if name == "audio":
        return 2 * np.asarray(contexts["headphonesIn"]) + np.asarray(contexts["musicActive"])
    return np.asarray(contexts[name])


def variable_size(name: str) -> int:
    return 4 if name == "audio" else len(schemas.values(name))


class Design:
    """Column layout of the one-hot features."""

    def __init__(self, interactions: tuple[str, ...] = INTERACTIONS) -> None:
        self.interactions = interactions
        self.n_categories = len(schemas.values("category"))
        offset = 0
        self.offsets: dict[str, int] = {}
        for name in (*NOTIFICATION_FEATURES, *CONTEXT_FEATURES):
            self.offsets[name] = offset
            offset += len(schemas.values(name))
        self.n_main = offset
        for name in interactions:
            self.offsets[f"category*{name}"] = offset
            offset += self.n_categories * variable_size(name)
        self.size = offset

    def columns(self, notifications: np.ndarray, contexts: Codes) -> np.ndarray:
        """Per row, the indices of its nonzero columns; ``notifications`` is an (n, 7) matrix."""
        parts = [self.offsets[f] + notifications[:, j] for j, f in enumerate(NOTIFICATION_FEATURES)]
        parts += [self.offsets[f] + np.asarray(contexts[f]) for f in CONTEXT_FEATURES]
        category = notifications[:, CATEGORY]
        for name in self.interactions:
            parts.append(self.offsets[f"category*{name}"] + category * variable_size(name)
                         + context_variable(name, contexts))
        return np.column_stack(parts).astype(np.int64)

    def matrix(self, notifications: np.ndarray, contexts: Codes) -> sp.csr_matrix:
        columns = self.columns(notifications, contexts)
        n, k = columns.shape
        indptr = np.arange(0, n * k + 1, k)
        return sp.csr_matrix((np.ones(n * k), columns.ravel(), indptr), shape=(n, self.size))

    def notification_scores(self, weights: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """The notification part of the score of each candidate."""
        score = np.zeros(len(candidates))
        for j, f in enumerate(NOTIFICATION_FEATURES):
            score += weights[self.offsets[f] + candidates[:, j]]
        return score

    def interaction_table(self, weights: np.ndarray, contexts: Codes) -> np.ndarray:
        """(n contexts, categories): the category-by-context part of the score."""
        n = len(contexts[CONTEXT_FEATURES[0]])
        table = np.zeros((n, self.n_categories))
        for name in self.interactions:
            size = variable_size(name)
            block = weights[self.offsets[f"category*{name}"]:][: self.n_categories * size]
            table += block.reshape(self.n_categories, size)[:, context_variable(name, contexts)].T
        return table

    def best(self, weights: np.ndarray, candidates: np.ndarray, contexts: Codes) -> np.ndarray:
        """Index of the highest scoring candidate for each context (the first one on ties)."""
        base = self.notification_scores(weights, candidates)
        category = candidates[:, CATEGORY]
        best_of = np.full(self.n_categories, -1)
        top = np.full(self.n_categories, -np.inf)
        order = np.lexsort((np.arange(len(candidates)), -base, category))
        first = np.r_[True, category[order][1:] != category[order][:-1]]
        best_of[category[order][first]] = order[first]
        top[category[order][first]] = base[order][first]
        total = self.interaction_table(weights, contexts) + top
        return best_of[np.argmax(total, axis=1)]

    def scores(self, weights: np.ndarray, candidates: np.ndarray, contexts: Codes) -> np.ndarray:
        """(n contexts, n candidates): every score, less the context-only part."""
        base = self.notification_scores(weights, candidates)
        return base + self.interaction_table(weights, contexts)[:, candidates[:, CATEGORY]]

    def sample(self, weights: np.ndarray, candidates: np.ndarray, contexts: Codes,
               temperature: float, u: np.ndarray) -> np.ndarray:
        """Per context, a candidate index drawn with probability proportional to
        exp(score / temperature), by inverting the distribution at the uniform number ``u``.

        The category is drawn first (its weight: the sum over its candidates times the
        category-by-context term), then the candidate within it, whose weights do not depend
        on the context.
        """
        n = len(candidates)
        base = self.notification_scores(weights, candidates) / temperature
        category = candidates[:, CATEGORY]
        order = np.lexsort((np.arange(n), category))
        weight = np.exp(base[order] - base.max())
        cumulative = np.cumsum(weight)
        starts = np.flatnonzero(np.r_[True, category[order][1:] != category[order][:-1]])
        ends = np.r_[starts[1:], n]
        before = np.r_[0.0, cumulative][starts]
        totals = cumulative[ends - 1] - before
        terms = self.interaction_table(weights, contexts)[:, category[order][starts]] / temperature
        terms += np.log(totals)
        p = np.exp(terms - terms.max(axis=1, keepdims=True))
        p_cumulative = np.cumsum(p, axis=1)
        target = u * p_cumulative[:, -1]
        k = np.minimum((p_cumulative <= target[:, None]).sum(axis=1), len(starts) - 1)
        rows = np.arange(len(u))
        within = (target - (p_cumulative[rows, k] - p[rows, k])) / p[rows, k]
        position = np.searchsorted(cumulative, before[k] + within * totals[k], side="right")
        return order[np.clip(position, starts[k], ends[k] - 1)]
