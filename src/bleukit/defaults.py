"""The defaults that are not any one metric's: seeds, sample counts, threads. Named once here.

Each metric's own option defaults live in its options class (``BleuOptions`` ...).

>>> DEFAULT_SEED, DEFAULT_SAMPLES["bs"], DEFAULT_THREADS
(12345, 1000, 1)
"""

from __future__ import annotations

from typing import Dict

__all__ = ["DEFAULT_SEED", "DEFAULT_SAMPLES", "DEFAULT_THREADS", "SEED_ENVIRONMENT_VARIABLE"]

#: sacreBLEU's default seed (its ``SACREBLEU_SEED`` environment variable when unset).
DEFAULT_SEED = 12345
#: The environment variable the command line reads the seed from, as sacreBLEU's does.
SEED_ENVIRONMENT_VARIABLE = "SACREBLEU_SEED"
#: Default number of resamples (``bs``, also for confidence intervals) and of randomization trials (``ar``).
DEFAULT_SAMPLES: Dict[str, int] = {"bs": 1000, "ar": 10000}
#: Threads of a call unless ``threads=`` says otherwise (0 means every core this process may use).
DEFAULT_THREADS = 1
