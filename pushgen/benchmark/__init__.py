"""Benchmark notification models on a split's tasks: baselines, leaderboard, plots.

``run_benchmark(split)`` runs the baselines of ``pushgen.baselines`` on tasks 1 and 2;
``write_results`` writes the leaderboard folder; ``run_policy`` runs any ``Policy``.
"""

from pushgen.benchmark.policy_runs import make_setting, run_baseline, run_policy
from pushgen.benchmark.report import write_results
from pushgen.benchmark.run import Results, run_benchmark, select_baselines
from pushgen.benchmark.runner import Episodes, PolicyError, Run, play
from pushgen.benchmark.summary import leaderboard
from pushgen.benchmark.task_inputs import BenchmarkError, TaskData, task_data

__all__ = [
    "BenchmarkError",
    "Episodes",
    "PolicyError",
    "Results",
    "Run",
    "TaskData",
    "leaderboard",
    "make_setting",
    "play",
    "run_baseline",
    "run_benchmark",
    "run_policy",
    "select_baselines",
    "task_data",
    "write_results",
]
