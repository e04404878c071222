"""Bootstrap confidence intervals of one system's corpus score: sacreBLEU's ``--confidence``, and
``corpus_bleu(..., n_bootstrap=N)``'s ``mean`` and ``ci``.

>>> mean, ci = bootstrap_ci(["a b c d", "a b c e"], ["a b c d", "a b c d"], n_bootstrap=10)
>>> round(mean, 2), round(ci, 2)
(68.39, 25.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence, TypeVar, Union

from ... import resampling
from ...defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ...inputs import check_count, check_hypotheses, check_seed
from ...metrics import metric_for, resolve_options
from ...metrics.base import MetricOptions, MetricResult, Statistics
from .compiled import _compiled_bootstrap, _Resampled
from .draws import BootstrapCI, Seed, _estimate_ci, bootstrap_scores

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ...metrics.bleu.options import BleuOptionKeywords

__all__ = ["bootstrap_ci", "with_bootstrap", "bootstrap_result"]

R = TypeVar("R", bound=MetricResult)


def bootstrap_ci(
    hypotheses_or_statistics: Union[Sequence[str], Statistics],
    references: Optional[Sequence[Any]] = None,
    *,
    n_bootstrap: int = DEFAULT_SAMPLES["bs"],
    seed: Seed = DEFAULT_SEED,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> BootstrapCI:
    """95% bootstrap confidence interval of a corpus score, as sacreBLEU's ``--confidence``.

    Give hypotheses and references (``references[i]`` a string or a list of strings), or a
    statistics table (``bleukit.corpus_statistics``) and no references. The metric is BLEU with
    the option ``keywords`` (``tokenize``, ``lowercase``, ``smooth_method``, ... as
    ``bleukit.BleuOptions``), or the one of ``options`` (any metric's options object). Returns
    ``BootstrapCI(mean, ci)``: the mean of the resampled scores and the half-width of their
    2.5–97.5 percentile interval; it unpacks as a tuple. ``seed=None`` is unseeded.

    >>> mean, ci = bootstrap_ci(["a b c d", "a b c e"], ["a b c d", "a b c d"], n_bootstrap=10)
    >>> round(mean, 2), round(ci, 2)
    (68.39, 25.0)
    """
    opts = resolve_options(options, keywords)
    if isinstance(hypotheses_or_statistics, Statistics):
        if references is not None:
            raise ValueError("give either a statistics table or hypotheses with references, not both")
        stats = hypotheses_or_statistics
    else:
        if references is None:
            raise ValueError("references are required with hypotheses (or pass a statistics table)")
        n_bootstrap, seed = check_count(n_bootstrap, "n_bootstrap"), check_seed(seed)
        hyps = check_hypotheses(hypotheses_or_statistics)
        if not hyps:
            raise ValueError("cannot resample an empty corpus")
        found = _compiled_bootstrap([("system", hyps)], references, opts, n_bootstrap, seed, None)
        if isinstance(found, _Resampled):
            return BootstrapCI(*resampling.estimate_ci(found.columns[0], paired=False))
        stats = found[1][0]
    return _estimate_ci(bootstrap_scores(stats, opts, n_bootstrap, seed), paired=False)


def with_bootstrap(result: R, statistics: Statistics, options: MetricOptions, n_bootstrap: int, seed: Seed) -> R:
    """``result`` with the bootstrap ``mean`` and ``ci`` of ``statistics`` and ``bs:N|seed:S`` in its
    signature (what ``corpus_bleu(..., n_bootstrap=N, seed=S)`` returns). As sacreBLEU, only
    ``n_bootstrap > 1`` resamples: ``n_bootstrap=1`` (sacreBLEU's default) returns ``result`` as it is.

    >>> from bleukit import BleuOptions, corpus_statistics, score_statistics
    >>> opts = BleuOptions()
    >>> stats = corpus_statistics(["a b c d", "a b c e"], ["a b c d", "a b c d"], options=opts)
    >>> r = with_bootstrap(score_statistics(stats, opts), stats, opts, 10, 12345)
    >>> r.signature.split("|")[:3]
    ['nrefs:1', 'bs:10', 'seed:12345']
    >>> with_bootstrap(score_statistics(stats, opts), stats, opts, 1, 12345).mean is None
    True
    """
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap")
    seed = check_seed(seed)
    if n_bootstrap == 1:
        return result  # one resample estimates nothing: sacreBLEU bootstraps only when n > 1
    mean, ci = _estimate_ci(bootstrap_scores(statistics, options, n_bootstrap, seed), paired=False)
    return result.with_estimate(mean, ci, options.signature(statistics.nrefs_signature, ("bs", n_bootstrap, seed)))


def bootstrap_result(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    options: MetricOptions,
    n_bootstrap: int = DEFAULT_SAMPLES["bs"],
    seed: Seed = DEFAULT_SEED,
) -> MetricResult:
    """The corpus result of ``hypotheses`` with the bootstrap ``mean`` and ``ci`` of ``n_bootstrap``
    resamples and ``bs:N|seed:S`` in its signature: sacreBLEU's ``--confidence``, and
    :func:`with_bootstrap` of the corpus' table (as it, ``n_bootstrap=1`` adds nothing). It runs
    without numpy where the compiled route applies (:mod:`bleukit.resampling`).

    >>> from bleukit import BleuOptions
    >>> r = bootstrap_result(["a b c d", "a b c e"], ["a b c d", "a b c d"], BleuOptions(), 10)
    >>> round(r.mean, 2), round(r.ci, 2), r.signature.split("|")[1]
    (68.39, 25.0, 'bs:10')
    """
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap")
    seed = check_seed(seed)
    hyps = check_hypotheses(hypotheses)
    if n_bootstrap == 1:
        from ...pipeline import corpus_result

        return corpus_result(hyps, references, options)
    if not hyps:
        raise ValueError("cannot resample an empty corpus")
    found = _compiled_bootstrap([("system", hyps)], references, options, n_bootstrap, seed, None)
    if isinstance(found, _Resampled):
        mean, ci = resampling.estimate_ci(found.columns[0], paired=False)
        return found.results[0].with_estimate(mean, ci, options.signature(found.nrefs[0], ("bs", n_bootstrap, seed)))
    stats = found[1][0]
    return with_bootstrap(metric_for(options).result(stats, options), stats, options, n_bootstrap, seed)
