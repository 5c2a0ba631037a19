"""matchmeter: fair, cost-aware benchmarks of LM–CLI agent configurations.

Importing the package has no side effects; heavy dependencies (litellm, docker, pandas)
are imported inside the functions that need them.
"""

__version__ = "0.1.0"
