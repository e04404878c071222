"""Paired significance tests of systems against a baseline: sacreBLEU's ``--paired-bs`` (paired
bootstrap resampling) and ``--paired-ar`` (approximate randomization), from texts or from the
systems' statistics tables.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ... import resampling
from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ...inputs import check_count, check_hypotheses, check_seed, check_sequence
from ...metrics import fast, metric_for, resolve_options
from ...metrics.base import MetricOptions, MetricResult, Statistics
from ...pipeline import route
from .compiled import _compiled_bootstrap, _compiled_randomization, _Randomized, _Resampled
from .corrections import adjust_p_values, check_correction
from .draws import Progress, Seed, _estimate_ci, bootstrap_matrix, bootstrap_p_value, randomization_p_values

if TYPE_CHECKING:
    import numpy as np
    from typing_extensions import Unpack

    from ...metrics.bleu.options import BleuOptionKeywords

__all__ = ["PairedResult", "check_systems", "paired_test", "paired_test_statistics", "check_test",
           "system_statistics"]


@dataclass(frozen=True)
class PairedResult:
    """One system of a paired test against the baseline (the first system).

    ``p_value`` is ``None`` for the baseline; ``mean`` and ``ci`` come with the paired bootstrap
    (``method="bs"``) and are ``None`` with approximate randomization, as in sacreBLEU.
    ``result.signature`` carries ``bs:N|seed:S`` or ``ar:N|seed:S``.
    """

    name: str
    result: MetricResult
    p_value: Optional[float]
    mean: Optional[float]
    ci: Optional[float]
    #: The p-value corrected for the number of comparisons (``paired_test(..., correction="holm")``);
    #: ``None`` without a correction and for the baseline.
    p_value_adjusted: Optional[float] = None

    @property
    def score(self) -> float:
        """The system's corpus score (``result.score``)."""
        return self.result.score

    def to_dict(self) -> Dict[str, Any]:
        """Plain JSON-ready dictionary: name, score, p_value, mean, ci and signature (and
        ``p_value_adjusted`` when a correction was made).

        >>> r = paired_test({"a": ["x y z"], "b": ["x y"]}, ["x y z"], n_samples=10)
        >>> sorted(r[1].to_dict())
        ['ci', 'mean', 'name', 'p_value', 'score', 'signature']
        """
        out = {
            "name": self.name,
            "score": self.score,
            "p_value": self.p_value,
            "mean": self.mean,
            "ci": self.ci,
            "signature": self.result.signature,
        }
        if self.p_value_adjusted is not None:
            out["p_value_adjusted"] = self.p_value_adjusted
        return out


def check_systems(systems: Any) -> List[Tuple[str, List[str]]]:
    """The systems of a paired test as ``(name, hypotheses)`` pairs, hypotheses as new lists of
    equal length, from a mapping name -> hypotheses or a sequence of pairs (the first is the
    baseline); a ``TypeError``/``ValueError`` names what is wrong (a set of pairs, one string,
    a duplicate name, systems of different lengths, ...). Generators are read once.

    >>> check_systems({"base": ("a b",), "new": (h for h in ["a c"])})
    [('base', ['a b']), ('new', ['a c'])]
    """
    if isinstance(systems, Mapping):
        pairs = list(systems.items())
    else:
        # (a set of pairs would change which system is the baseline from run to run)
        items = check_sequence(systems, "systems", of="(name, hypotheses) pairs, or a mapping name -> hypotheses")
        pairs = []
        for k, item in enumerate(items):
            if isinstance(item, (str, bytes)) or not hasattr(item, "__len__") or len(item) != 2:
                raise TypeError(f"systems[{k}] must be a (name, hypotheses) pair")
            pairs.append((item[0], item[1]))
    if len(pairs) < 2:
        raise ValueError(f"a paired test needs at least 2 systems (a baseline and one to compare), got {len(pairs)}")
    seen = set()
    for name, _ in pairs:
        if not isinstance(name, str):
            raise TypeError(f"system names must be str, got {type(name).__name__}")
        if name in seen:
            raise ValueError(f"duplicate system name {name!r}: every system needs its own name")
        seen.add(name)
    checked: List[Tuple[str, List[str]]] = []
    for name, hyps in pairs:
        hyps = check_hypotheses(hyps)
        if checked and len(hyps) != len(checked[0][1]):
            raise ValueError(
                f"system {name!r} has {len(hyps)} hypotheses but {checked[0][0]!r} has {len(checked[0][1])}: "
                "every system must translate the same sentences"
            )
        checked.append((name, hyps))
    return checked


def paired_test(
    systems: Union[Mapping[str, Sequence[str]], Sequence[Tuple[str, Sequence[str]]]],
    references: Sequence[Any],
    *,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = None,
    progress: Progress = None,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> List[PairedResult]:
    """Paired significance test of every system against the first (the baseline), as sacreBLEU's
    ``--paired-bs`` / ``--paired-ar``.

    ``systems`` maps names to hypotheses (or is a list of ``(name, hypotheses)``), all translating
    the same sentences; ``references[i]`` is the reference (a string) or references (a list) of
    sentence ``i``. The metric is BLEU with the option ``keywords`` (``tokenize``, ``lowercase``,
    ``smooth_method``, ... as ``bleukit.BleuOptions``), or the one of ``options`` (any metric's
    options object).

    - ``method="bs"``: paired bootstrap resampling (Koehn 2004), ``n_samples`` resamples
      (default 1000). The p-value is the share of resamples whose centred absolute score
      difference exceeds the observed one; every system also gets the bootstrap ``mean`` and
      ``ci`` of its score.
    - ``method="ar"``: approximate randomization, ``n_samples`` trials (default 10000), each
      swapping the two systems' outputs of every sentence on a coin flip; p-values only.

    p-values are ``(count + 1) / (n_samples + 1)``, the baseline's is ``None``. With the same seed
    they equal sacreBLEU's; ``seed=None`` draws from OS entropy (sacreBLEU's
    ``SACREBLEU_SEED=none``). Unlike sacreBLEU, ``seed=0`` seeds the comparisons too.
    ``correction`` (``"holm"`` or ``"bonferroni"``, see :func:`adjust_p_values`) corrects the
    p-values for the number of systems compared with the baseline: each result then carries
    ``p_value_adjusted`` (``p_value`` stays the uncorrected one). All pairs of systems and a
    ranking: :func:`bleukit.analysis.ranking.compare_systems`.
    ``progress``, if given, is called with the number of resamples or trials finished after each
    chunk of them (``n_samples`` in all), for a progress bar.

    >>> refs = ["the cat sat on the mat", "a dog barked at the postman", "it is raining today"]
    >>> base = ["the cat sat on a mat", "the dog barked at a postman", "it rains today"]
    >>> new = ["the cat sat on the mat", "a dog barked at the postman", "it is raining now"]
    >>> for r in paired_test([("base", base), ("new", new)], refs, n_samples=200):
    ...     print(r.name, round(r.score, 2), r.p_value, round(r.mean, 2), round(r.ci, 2))
    base 35.21 None 34.48 26.86
    new 90.39 0.004975124378109453 88.15 27.41
    """
    n, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    opts = resolve_options(options, keywords)
    if method == "bs":
        found = _compiled_bootstrap(check_systems(systems), references, opts, n, seed, progress)
        if isinstance(found, _Resampled):
            base = found.results[0].score
            p_values = [resampling.paired_p_value(found.columns[0], c, abs(base - r.score))
                        for r, c in zip(found.results[1:], found.columns[1:])]
            estimates = [resampling.estimate_ci(c, paired=True) for c in found.columns]
            out = _bootstrap_records(found.names, found.results, found.nrefs, estimates, p_values, opts, n, seed)
            return _corrected(out, p_values, correction)
        names, stats = found
    else:
        randomized = _compiled_randomization(check_systems(systems), references, opts, n, seed, progress)
        if isinstance(randomized, _Randomized):
            counted, p_values = randomized.counted, randomized.p_values
            out = [
                PairedResult(name, _signed(result, sig, opts, ("ar", n, seed)), p_values[k - 1] if k else None, None,
                             None)
                for k, (name, result, sig) in enumerate(zip(counted.names, counted.results, counted.signatures))
            ]
            return _corrected(out, p_values, correction)
        names, stats = randomized
    return paired_test_statistics(
        names, stats, opts, method=method, n_samples=n, seed=seed, correction=correction, progress=progress
    )


def _bootstrap_records(
    names: Sequence[str], results: Sequence[MetricResult], nrefs: Sequence[Any],
    estimates: Sequence[Tuple[float, float]], p_values: Sequence[float], options: MetricOptions, n: int, seed: Seed,
) -> List[PairedResult]:
    """A paired bootstrap's records: each system's result with its estimate and ``bs:N|seed:S`` in
    its signature, and its p-value against the baseline (the first; ``None`` for it)."""
    out = []
    for k, (name, result) in enumerate(zip(names, results)):
        mean, ci = estimates[k]
        signed = result.with_estimate(mean, ci, options.signature(nrefs[k], ("bs", n, seed)))
        out.append(PairedResult(name, signed, p_values[k - 1] if k else None, mean, ci))
    return out


def _corrected(out: List[PairedResult], p_values: List[float], correction: Optional[str]) -> List[PairedResult]:
    """The records with the p-values adjusted for the comparisons with the baseline, if asked."""
    if correction is None:
        return out
    adjusted = adjust_p_values(p_values, correction)
    return [out[0]] + [dataclasses.replace(r, p_value_adjusted=q) for r, q in zip(out[1:], adjusted)]


def paired_test_statistics(
    names: Sequence[str],
    stats: Sequence[Statistics],
    options: MetricOptions,
    *,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Seed = DEFAULT_SEED,
    correction: Optional[str] = None,
    progress: Progress = None,
    scores: Optional[np.ndarray] = None,
) -> List[PairedResult]:
    """:func:`paired_test` from the systems' statistics tables (:func:`system_statistics`, one per
    system, the baseline first), so that a caller running several analyses of the same systems
    (the app: the test, a ranking, a plot of the distributions) tokenizes and counts each system
    once. ``scores``, for ``method="bs"``, is :func:`bootstrap_matrix` of the same tables with the
    same ``n_samples`` and ``seed``, reused instead of drawn again.

    >>> options = resolve_options(None, {})  # BLEU's defaults
    >>> names, stats, _ = system_statistics([("a", ["a b c d", "a b"]), ("b", ["a b c d", "x y"])],
    ...                                     ["a b c d", "a b"], options)
    >>> [(r.name, round(r.score, 2)) for r in paired_test_statistics(names, stats, options, n_samples=20)]
    [('a', 100.0), ('b', 84.09)]
    """
    n, seed = check_test(method, n_samples, seed)
    check_correction(correction)
    opts = options
    results = [metric_for(opts).result(s, opts) for s in stats]
    pairs = [(0, k) for k in range(1, len(names))]
    if method == "bs":
        if scores is None:
            scores = bootstrap_matrix(stats, opts, n, seed, progress)
        elif scores.shape != (n, len(stats)):
            raise ValueError(f"scores must be bootstrap_matrix of the {len(stats)} tables with {n} samples, "
                             f"got shape {scores.shape}")
        p_values = [bootstrap_p_value(scores, results, a, b) for a, b in pairs]
        estimates = [_estimate_ci(scores[:, k], paired=True) for k in range(len(stats))]
        out = _bootstrap_records(names, results, [t.nrefs_signature for t in stats], estimates, p_values, opts,
                                 n, seed)
    else:
        p_values = randomization_p_values(stats, results, pairs, opts, n, seed, progress)
        out = [
            PairedResult(name, _signed(result, stats[k].nrefs_signature, opts, ("ar", n, seed)),
                         p_values[k - 1] if k else None, None, None)
            for k, (name, result) in enumerate(zip(names, results))
        ]
    return _corrected(out, p_values, correction)


def check_test(method: Any, n_samples: Any, seed: Any) -> Tuple[int, Seed]:
    """``(n_samples, seed)`` of a paired test, checked (``n_samples=None``: the method's default)."""
    if method not in DEFAULT_SAMPLES:
        raise ValueError(
            f"unknown method={method!r}; choose 'bs' (paired bootstrap) or 'ar' (approximate "
            "randomization)"
        )
    n = DEFAULT_SAMPLES[method] if n_samples is None else check_count(n_samples, "n_samples")
    return n, check_seed(seed)


def system_statistics(
    systems: Any, references: Sequence[Any], options: MetricOptions
) -> Tuple[List[str], List[Statistics], List[MetricResult]]:
    """Names, statistics tables and corpus results of systems that translate the same sentences
    (checked by :func:`check_systems`)."""
    way = route(options)
    named = check_systems(systems)
    checked = [hyps for _, hyps in named]
    refs = way.checked_references(references, len(checked[0]))
    stats = fast.systems_statistics(way.metric, checked, refs, options)  # the references counted once for all
    return [name for name, _ in named], stats, [way.metric.result(s, options) for s in stats]


def _signed(result: MetricResult, nrefs: Any, options: MetricOptions, resampling: Tuple[str, int, Seed]) -> Any:
    """The result with ``resampling`` (``("ar", n, seed)``) in its signature; ``nrefs`` is the
    table's ``nrefs:`` value."""
    return dataclasses.replace(result, signature=options.signature(nrefs, resampling))  # type: ignore
