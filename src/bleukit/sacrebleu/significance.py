"""sacreBLEU's paired significance tests (``sacrebleu.significance.PairedTest``) on
:func:`bleukit.analysis.significance.paired_test`: the same draws with the same seed, so the p-values are
sacreBLEU's; bootstrap means and intervals differ only by sacreBLEU's float32 sums (bleukit sums
exactly, see :mod:`bleukit.analysis.significance`).

>>> from bleukit.sacrebleu.metrics import BLEU
>>> refs = [["the cat sat on the mat", "a dog barked at the postman", "it is raining today"]]
>>> systems = [("base", ["the cat sat on a mat", "the dog barked at a postman", "it rains today"]),
...            ("new", ["the cat sat on the mat", "a dog barked at the postman", "it is raining now"])]
>>> signatures, scores = PairedTest(systems, {"BLEU": BLEU()}, refs, test_type="bs", n_samples=200)()
>>> scores["System"], scores["BLEU"][1].p_value
(['base', 'new'], 0.004975124378109453)
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..analysis.significance import check_systems, paired_test
from ..defaults import DEFAULT_SAMPLES, environment_seed
from ..inputs import check_count
from .metrics.base import Metric, Signature

__all__ = ["PairedTest", "Result"]


class Result:
    """One system's result in a paired test: ``score``, ``p_value`` (``None`` for the baseline),
    and with the paired bootstrap ``mean`` and ``ci``.

    >>> Result(20.5, 0.01)
    score=20.5,p_value=0.01,mean=None,ci=None
    """

    def __init__(
        self, score: float, p_value: Optional[float] = None, mean: Optional[float] = None, ci: Optional[float] = None
    ) -> None:
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.__dict__.items())


class PairedTest:
    """sacreBLEU's ``PairedTest``: every system of ``named_systems`` (``(name, hypotheses)`` pairs,
    the first is the baseline) against the baseline, for every metric of ``metrics``, by paired
    bootstrap (``test_type="bs"``, 1000 resamples by default) or approximate randomization (``"ar"``,
    10000 trials). ``references`` are streams, or ``None`` for each metric's cached references.
    The seed is ``$SACREBLEU_SEED`` (12345 when unset). Calling it returns ``(signatures, scores)``:
    per metric name its signature, and ``scores["System"]`` the names, ``scores[metric]`` a
    :class:`Result` per system.

    ``n_ar_confidence`` (bootstrap intervals inside a randomization test) is not supported: leave
    it at -1. ``n_jobs`` is accepted and unused (all systems are tested in one pass).
    """

    _DEFAULT_SAMPLES = DEFAULT_SAMPLES

    def __init__(
        self,
        named_systems: List[Tuple[str, Sequence[str]]],
        metrics: Mapping[str, Metric],
        references: Optional[Sequence[Sequence[Optional[str]]]],
        test_type: str = "ar",
        n_samples: int = 0,
        n_ar_confidence: int = -1,
        n_jobs: int = 1,
    ) -> None:
        if test_type not in ("ar", "bs"):
            raise ValueError(f"unknown test_type={test_type!r}: 'ar' (approximate randomization) or 'bs' (bootstrap)")
        if n_ar_confidence != -1:
            raise ValueError(
                "n_ar_confidence (bootstrap intervals inside an approximate randomization test) is not supported "
                "by bleukit.sacrebleu; leave it at -1, or run test_type='bs' for intervals"
            )
        self.test_type = test_type
        # bleukit's checks of paired_test's systems (a generator read once, sets and strings named)
        self.named_systems = check_systems(named_systems)
        self.metrics = metrics
        self.references = references
        self.n_ar_confidence = n_ar_confidence
        self.n_jobs = n_jobs
        # sacreBLEU: 0 is the test's default number of samples
        n_samples = check_count(n_samples, "n_samples", minimum=0)
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self._seed = environment_seed()

    def __call__(self) -> Tuple[Dict[str, Signature], Dict[str, List[Union[str, Result]]]]:
        """Run the test: ``(signatures, scores)``."""
        signatures: Dict[str, Signature] = {}
        scores: Dict[str, List[Union[str, Result]]] = {"System": [name for name, _ in self.named_systems]}
        n = len(self.named_systems[0][1])
        for metric in self.metrics.values():
            refs = metric._references_for(n, self.references)
            results = paired_test(
                self.named_systems,
                refs,
                method=self.test_type,
                n_samples=self.n_samples,
                seed=self._seed,
                options=metric._options(),
            )
            name = results[0].result.name
            scores[name] = [Result(r.score, r.p_value, r.mean, r.ci) for r in results]
            signature = metric.get_signature()
            signature.update("seed", str(self._seed).lower())
            signature.update(self.test_type, self.n_samples)
            signatures[name] = signature
        return signatures, scores
