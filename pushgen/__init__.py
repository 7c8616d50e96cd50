"""pushgen: synthetic smartphone push-notification datasets and benchmarks."""

from pushgen._version import __version__
from pushgen.generate import Dataset, GenerationError, generate
from pushgen.model.priors import Priors

__all__ = ["Dataset", "GenerationError", "Priors", "__version__", "generate"]
