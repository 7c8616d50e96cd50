"""pushgen: synthetic smartphone push-notification datasets and benchmarks."""

from pushgen import envs as envs  # registers the gymnasium environments
from pushgen._version import __version__
from pushgen.benchmark import run_benchmark as run_benchmark
from pushgen.evaluation import evaluate as evaluate
from pushgen.generate import Dataset, GenerationError, generate
from pushgen.model.priors import Priors
from pushgen.registry import list_splits
from pushgen.splits import load_split

__all__ = [
    "Dataset",
    "GenerationError",
    "Priors",
    "__version__",
    "envs",
    "evaluate",
    "generate",
    "list_splits",
    "load_split",
]
