"""Misuses of ``pushgen``'s public names: ``mypy --strict`` must report each marked line.

If the package were untyped (``Any``), mypy would accept them all. Type-checked only, never run.
"""

from __future__ import annotations

import pushgen

pushgen.generate(users="2")  # error: arg-type
days: str = pushgen.generate(users=1, days=1).recipe.days  # error: assignment
pushgen.Priors(wake_hour_mean="late")  # error: arg-type
pushgen.load_split(3)  # error: arg-type
train: int = pushgen.load_split("pushgen-mini-v4").train  # error: assignment
pushgen.evaluate(1.5)  # error: arg-type
reward: str = pushgen.evaluate("pushgen-mini-v4").overall["mean_reward"]  # error: assignment
pushgen.run_benchmark("pushgen-mini-v4", tasks="1")  # error: arg-type
fingerprint: int = pushgen.run_benchmark("pushgen-mini-v4").fingerprint  # error: assignment
label: int = pushgen.list_splits()[0].label  # error: assignment
pushgen.is_possible({"postingApp": 1}, 2)  # error: arg-type
version: int = pushgen.__version__  # error: assignment
problem: int = pushgen.GenerationError("no")  # error: assignment
refusal: int = pushgen.DatasetError("no")  # error: assignment
pushgen.generat(users=2)  # error: attr-defined
