"""Is the difference significant? Bootstrap confidence intervals and paired tests on statistics tables.

Everything here works for every metric through its statistics table (:mod:`bleukit.metrics.base`)
and resamples rows of it: a bootstrap
resample's corpus statistics are ``counts @ rows`` where ``counts[s, i]`` says how often sentence
``i`` was drawn in resample ``s``, and an approximate-randomization trial's are
``sys_total + swap @ (baseline_rows - system_rows)``. Those sums are exact integers; the scores
come from the metric's one formula (``Metric.scores``), vectorised over resamples.

The numbers are sacreBLEU 2.6's (``sacrebleu.significance``, ``--confidence``, ``--paired-bs``,
``--paired-ar``) with the same seed: the random draws are the very same numpy ``default_rng``
calls, so resample ``s`` holds the same sentences. sacreBLEU sums each bootstrap resample in
float32 and scores those float32 sums (with numpy 2 its BLEU precisions are float32 arithmetic
too); bleukit does the same arithmetic (``Metric.float32_scores``), so bootstrap scores, means,
intervals and p-values are sacreBLEU's bit for bit. The sums themselves are exact integer products
(BLAS only where every partial sum provably stays an exact integer), which equal sacreBLEU's
float32 sums below 2**24; above that, where float32 stops counting exactly, each resample is summed
in float32 in sacreBLEU's order instead (every resample's rows gathered: some 4x slower).
:func:`resampled_scores` gives the exact corpus scores of given resamples instead, and approximate
randomization, which sacreBLEU computes on integers, is exact throughout.

sacreBLEU's seed-0 quirk is not copied: it passes ``seed if seed else None`` to its paired
comparisons, so ``SACREBLEU_SEED=0`` leaves them unseeded; here ``seed=0`` seeds them.

>>> refs = ["the cat sat on the mat", "a dog barked at the postman", "it is raining in the city today",
...         "hello world , said the program", "she reads a book every night", "the train leaves at noon"]
>>> base = ["the cat sat on a mat", "the dog barked at a postman", "it rains in the city today",
...         "hello world said the program", "she is reading a book each night", "the train departs at noon"]
>>> new = ["the cat sat on the mat", "a dog barked at the postman", "it is raining in town today",
...        "hello world , the program said", "she reads one book every night", "the train leaves at noon"]
>>> mean, ci = bootstrap_ci(base, refs, n_bootstrap=100)
>>> round(mean, 2), round(ci, 2)
(31.86, 15.45)
>>> for r in paired_test({"base": base, "new": new}, refs, method="ar", n_samples=1000):
...     print(r.name, round(r.score, 2), r.p_value)
base 32.35 None
new 69.27 0.052947052947052944
"""

from __future__ import annotations

# The package's modules: draws (numpy's draws, sums and scores), compiled (the same without numpy),
# bootstrap (confidence intervals), paired (paired tests), corrections (Holm, Bonferroni). Every public
# name that bleukit.significance had is importable from here; those imported "as" themselves are for
# the other analyses (ranking, groups), not in __all__.
from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from .bootstrap import bootstrap_ci, bootstrap_result, with_bootstrap
from .corrections import CORRECTIONS, adjust_p_values
from .corrections import check_correction as check_correction
from .draws import BootstrapCI, Progress, Seed, bootstrap_matrix, bootstrap_scores, resampled_scores
from .draws import bootstrap_p_value as bootstrap_p_value
from .draws import randomization_p_values as randomization_p_values
from .paired import PairedResult, check_systems, paired_test, paired_test_statistics, system_statistics
from .paired import check_test as check_test

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_SAMPLES",
    "BootstrapCI",
    "PairedResult",
    "CORRECTIONS",
    "adjust_p_values",
    "bootstrap_ci",
    "bootstrap_result",
    "bootstrap_scores",
    "check_systems",
    "paired_test",
    "paired_test_statistics",
    "resampled_scores",
    "with_bootstrap",
    # for the front ends that run several analyses of the same systems (the app) and type seeds
    "Seed",
    "Progress",
    "bootstrap_matrix",
    "system_statistics",
]
