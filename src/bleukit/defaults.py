"""The defaults that are not any one metric's: seeds, sample counts, threads. Named once here.

Each metric's own option defaults live in its options class (``BleuOptions`` ...).

>>> DEFAULT_SEED, DEFAULT_SAMPLES["bs"], DEFAULT_THREADS
(12345, 1000, 1)
"""

from __future__ import annotations

import os
from typing import Dict, Optional

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_SAMPLES",
    "DEFAULT_THREADS",
    "SEED_ENVIRONMENT_VARIABLE",
    "environment_seed",
    "parse_seed",
]

#: sacreBLEU's default seed (its ``SACREBLEU_SEED`` environment variable when unset).
DEFAULT_SEED = 12345
#: The environment variable the command line reads the seed from, as sacreBLEU's does.
SEED_ENVIRONMENT_VARIABLE = "SACREBLEU_SEED"
#: Default number of resamples (``bs``, also for confidence intervals) and of randomization trials (``ar``).
DEFAULT_SAMPLES: Dict[str, int] = {"bs": 1000, "ar": 10000}
#: Threads of a call unless ``threads=`` says otherwise (0 means every core this process may use).
DEFAULT_THREADS = 1


def parse_seed(raw: str, where: str) -> Optional[int]:
    """A seed as sacreBLEU reads it from text: an integer, or ``none`` (any case) for unseeded.
    ``where`` names the source in the error (``--seed``, ``SACREBLEU_SEED``).

    >>> parse_seed("7", "--seed"), parse_seed(" None", "--seed")
    (7, None)
    >>> parse_seed("x", "--seed")
    Traceback (most recent call last):
    ...
    ValueError: --seed='x' is not an integer or 'none'
    """
    if raw.strip().lower() == "none":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{where}={raw!r} is not an integer or 'none'") from None


def environment_seed() -> Optional[int]:
    """The seed sacreBLEU's tests take: ``$SACREBLEU_SEED`` (``none``: unseeded), else :data:`DEFAULT_SEED`.

    >>> environment_seed() if "SACREBLEU_SEED" not in os.environ else 12345
    12345
    """
    return parse_seed(os.environ.get(SEED_ENVIRONMENT_VARIABLE, str(DEFAULT_SEED)), SEED_ENVIRONMENT_VARIABLE)
