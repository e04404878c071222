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
>>> mean, ci = bootstrap_ci(base, refs, n_samples=100)
>>> round(mean, 2), round(ci, 2)
(31.86, 15.45)
>>> for r in paired_test({"base": base, "new": new}, refs, method="ar", n_samples=1000):
...     print(r.name, round(r.score, 2), r.p_value)
base 32.35 None
new 69.27 0.052947052947052944
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

from .. import resampling
from ..defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ..inputs import check_count, check_hypotheses, check_seed, check_sequence
from ..metrics import metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult, Statistics, nrefs_signature
from ..pipeline import checked_references
from ..resampling import CHUNK as _CHUNK
from ..resampling import FLIP_BITS as _BOOL_BITS
from ..resampling import chunks as _chunks

if TYPE_CHECKING:
    import numpy as np
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

R = TypeVar("R", bound=MetricResult)


class _LazyNumpy:
    """numpy, imported where first used: a bootstrap on the compiled route (the command line's
    ``--confidence`` and ``--paired-bs``, :mod:`bleukit.resampling`) never imports it."""

    def __getattr__(self, attr: str) -> Any:
        import numpy

        return getattr(numpy, attr)


if not TYPE_CHECKING:
    np = _LazyNumpy()

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
]

# Random draws are made and summed _CHUNK row elements at a time, so memory stays a few MB
# whatever the number of samples. numpy's generators continue their stream across calls, so the
# chunked draws equal sacreBLEU's single call element for element (tests check it); coin flips
# are the bits of 32-bit words whose unused bits a call drops, so their chunks hold whole words.
_CHUNK_FLIPS = 1 << 20  # coin flips (bool, then float32) per chunk
# Integers below these magnitudes are exact in float32 / float64, products and sums included.
_EXACT_FLOAT32 = 2**24
_EXACT_FLOAT64 = 2**53

Seed = Optional[int]
#: Called with the number of resamples or trials just finished (e.g. ``tqdm(total=n).update``).
Progress = Optional[Callable[[int], Any]]


class BootstrapCI(NamedTuple):
    """Bootstrap estimate of a corpus score: mean of the resampled scores and the half-width of
    their 2.5–97.5 percentile interval (sacreBLEU's ``μ = mean ± ci``)."""

    mean: float
    ci: float


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


def _estimate_ci(scores: np.ndarray, paired: bool) -> BootstrapCI:
    """Mean and half-width of the 95% interval, with sacreBLEU's percentile indices (n // 40).

    sacreBLEU takes the mean two ways: a paired test's is numpy's (pairwise summation of the
    sorted scores, then a division), a single system's (``--confidence``) is ``statistics.mean``
    (the exact mean, rounded once to the scores' type). Each is taken here as it does, so the
    digits are the same; float32 scores (chrF's) give float32 means and intervals, as there.
    float64 scores go through :func:`bleukit.resampling.estimate_ci`, which the route without
    numpy uses too."""
    if scores.dtype != np.float32:
        return BootstrapCI(*resampling.estimate_ci(scores.tolist(), paired))
    ordered = np.sort(scores)
    n = len(ordered)
    lower = n // 40
    upper = n - lower - 1
    if paired:
        mean = float(ordered.mean())
    else:
        # statistics.mean gives the scores' own type: numpy float32 for chrF's float32 scores.
        # (Imported here: with decimal and fractions it costs the paired tests' processes ~5 ms.)
        from statistics import mean as exact_mean  # module 'statistics' would be shadowed by arguments

        mean = float(exact_mean(list(ordered)))
    return BootstrapCI(mean, float(0.5 * (ordered[upper] - ordered[lower])))


class _ExactProduct:
    """``left @ right`` for integer matrices, exactly, as int64, for a fixed ``right``.

    ``bound`` bounds every product and partial sum. Below 2**24 (any corpus of up to millions of
    tokens) float32 BLAS is exact, below 2**53 float64 BLAS; both are an order of magnitude faster
    than numpy's integer matmul, used above that.
    """

    def __init__(self, right: np.ndarray, bound: int) -> None:
        self.dtype: Any = np.int64
        for limit, dtype in ((_EXACT_FLOAT32, np.float32), (_EXACT_FLOAT64, np.float64)):
            if bound < limit:
                self.dtype = dtype
                break
        self.right = right.astype(self.dtype)

    def __call__(self, left: np.ndarray) -> np.ndarray:
        return (left.astype(self.dtype, copy=False) @ self.right).astype(np.int64)


@functools.lru_cache(maxsize=None)
def _byte_bits() -> np.ndarray:
    """A coin flip's 0/1 for each bit of a byte, lowest bit first."""
    return ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)


def _coin_flips(rng: np.random.Generator, k: int, n_rows: int) -> np.ndarray:
    """``rng.integers(2, size=(k, n_rows), dtype=bool)``'s flips as float32 0/1, ready for BLAS.

    numpy draws bool flips as the bits of 32-bit words, lowest bit first, starting a fresh word
    each call (the last word's unused bits are dropped); drawing those words and spreading their
    bytes through a table gives the very same flips and stream position several times faster
    than drawing bools and casting them (tests compare the two, chunk after chunk)."""
    count = k * n_rows
    words = rng.integers(0, 2**32, size=-(-count // _BOOL_BITS), dtype=np.uint32)
    flips = np.take(_byte_bits(), words.astype("<u4", copy=False).view(np.uint8), axis=0)
    return flips.reshape(-1)[:count].reshape(k, n_rows)


def resampled_scores(statistics: Statistics, indices: np.ndarray, options: MetricOptions) -> np.ndarray:
    """Corpus score of each resample: ``indices[s]`` lists the sentences (rows) of resample ``s``.

    Element ``s`` equals the corpus score of the corpus made of those sentences.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> opts = BleuOptions()
    >>> stats = corpus_statistics(["a b c d", "x y"], ["a b c d", "x z"], opts)
    >>> resampled_scores(stats, np.array([[0, 0], [0, 1]]), opts).round(4).tolist()
    [100.0, 88.914]
    """
    metric_for(options).check_statistics(statistics, options)
    rows = statistics.rows
    indices = np.asarray(indices)
    if indices.ndim != 2 or not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must be a 2-d integer array (resamples x sentences)")
    n_rows = len(statistics)
    if indices.size and (indices.min() < 0 or indices.max() >= n_rows):
        raise ValueError(f"indices must lie in [0, {n_rows})")
    return _bootstrap_sums_scores(rows, iter([indices]), options, float32=False)[:, 0]


def _bootstrap_sums_scores(
    rows: np.ndarray,
    index_chunks: Any,
    options: MetricOptions,
    n_systems: int = 1,
    progress: Progress = None,
    float32: bool = True,
) -> np.ndarray:
    """Scores (n_samples, n_systems) of resampled sums; ``rows`` is (sentences, n_systems * columns).

    ``float32``: score each resample as sacreBLEU's bootstrap does (float32 sums, the metric's
    ``float32_scores``); otherwise exactly, as the corpus of the resampled sentences."""
    n_rows, width = rows.shape
    metric = metric_for(options)
    bound = n_rows * int(rows.max(initial=0))
    # The float32 rows sacreBLEU resamples: the integer rows cast, or the metric's own (TER's
    # float average lengths), which are summed in float32 as it sums them.
    w = width // n_systems
    own = [metric.float32_rows(rows[:, j * w : (j + 1) * w], options) for j in range(n_systems)] if float32 else []
    blocks32 = None if all(b is None for b in own) else [
        np.asarray(rows[:, j * w : (j + 1) * w], dtype=np.float32) if b is None else b for j, b in enumerate(own)]
    product = _ExactProduct(rows, bound)
    out = []
    for idx in index_chunks:
        k = idx.shape[0]
        if float32 and (blocks32 is not None or bound >= _EXACT_FLOAT32):
            sums32 = _float32_sums(rows, idx, n_systems, blocks32)
            scores = metric.float32_scores(sums32.reshape(k * n_systems, width // n_systems), options)
        else:
            # How often each sentence is drawn in each resample: one bincount over offset indices.
            flat = idx + (np.arange(k, dtype=np.int64) * n_rows)[:, None]
            counts = np.bincount(flat.ravel(), minlength=k * n_rows).reshape(k, n_rows)
            del flat
            sums = product(counts).reshape(k * n_systems, width // n_systems)
            # Below 2**24 the float32 sums sacreBLEU makes are these exact integers.
            if float32:
                scores = metric.float32_scores(sums.astype(np.float32), options)
            else:
                scores = metric.scores(sums, options)
        # float32 stays float32 (chrF's bootstrap scores are float32 in sacreBLEU, and so are
        # their mean and interval); a chunk of float64 scores makes the whole array float64.
        scores = np.asarray(scores)
        out.append(scores.reshape(k, n_systems) if scores.dtype == np.float32 else
                   scores.astype(np.float64).reshape(k, n_systems))
        if progress is not None:
            progress(k)
    return np.concatenate(out) if out else np.zeros((0, n_systems))


def _float32_sums(
    rows: np.ndarray, idx: np.ndarray, n_systems: int, blocks32: Optional[List[np.ndarray]] = None
) -> np.ndarray:
    """sacreBLEU's float32 sums of the resamples ``idx`` (k, n_systems, columns): each system's rows
    as a float32 array (``blocks32[j]`` where the metric gives its own), summed as its
    ``stats[idx[s]].sum(0)`` sums each resample, where float32 rounds partial sums above 2**24
    (and every sum of fractions).

    All resamples of a chunk are gathered at once and reduced over the sentence axis: each
    ``(k, n, columns)[s]`` is laid out as sacreBLEU's ``(n, columns)`` gather, so numpy adds it in
    the same order (row by row; pairwise for a single column), without a Python loop per resample
    (tests compare with that loop and with sacreBLEU, ``==``)."""
    width = rows.shape[1] // n_systems
    out = np.empty((idx.shape[0], n_systems, width), dtype=np.float32)
    for j in range(n_systems):
        block = rows[:, j * width : (j + 1) * width] if blocks32 is None else blocks32[j]
        stats = np.ascontiguousarray(block, dtype=np.float32)
        out[:, j] = stats[idx].sum(axis=1)
    return out


def _draw_indices(n_rows: int, n_samples: int, seed: Seed) -> Iterator[np.ndarray]:
    """sacreBLEU's ``default_rng(seed).choice(n_rows, size=(n_samples, n_rows))``, in chunks of resamples."""
    rng = np.random.default_rng(seed)
    for k in _chunks(n_samples, n_rows, _CHUNK):
        yield rng.integers(0, n_rows, size=(k, n_rows), dtype=np.int64)


def bootstrap_scores(
    statistics: Statistics, options: MetricOptions, n_samples: int = DEFAULT_SAMPLES["bs"], seed: Seed = DEFAULT_SEED
) -> np.ndarray:
    """The score of ``n_samples`` bootstrap resamples of a statistics table, each as sacreBLEU's
    bootstrap scores it: from its float32 sums (for BLEU with numpy 2, float32 precisions; chrF's
    formula is float32 throughout, so its scores are a float32 array, BLEU's float64), which can
    differ from the exact corpus score of the resample in the last digits
    (:func:`resampled_scores` gives those).

    Resample ``s`` draws the same sentences as sacreBLEU's with the same seed; ``seed=None``
    draws from fresh OS entropy. Several tables of the same corpus resampled with one seed share
    their resamples, which is what a paired comparison or a plot of score distributions needs.

    >>> from bleukit import BleuOptions, corpus_statistics
    >>> stats = corpus_statistics(["a b c d", "a b c e"], ["a b c d", "a b c d"], BleuOptions())
    >>> bootstrap_scores(stats, BleuOptions(), n_samples=3, seed=1).round(2).tolist()
    [72.31, 50.0, 100.0]
    """
    n_samples = check_count(n_samples, "n_samples")
    seed = check_seed(seed)
    metric_for(options).check_statistics(statistics, options)
    if len(statistics) == 0:
        raise ValueError("cannot resample an empty corpus")
    compiled = _compiled_matrix([statistics], options, n_samples, seed)
    if compiled is not None:
        return compiled[:, 0]
    return _bootstrap_sums_scores(statistics.rows, _draw_indices(len(statistics), n_samples, seed), options)[:, 0]


def _compiled_matrix(
    stats: Sequence[Statistics], options: MetricOptions, n: int, seed: Seed, progress: Progress = None
) -> Optional[np.ndarray]:
    """:func:`bootstrap_matrix` on the compiled route (:mod:`bleukit.resampling`: the same draws,
    sums and scores), or ``None`` where it does not apply."""
    flat = np.concatenate([s.rows for s in stats]).reshape(-1)  # one table after another
    columns = resampling.bootstrap_columns(flat, len(stats[0]), len(stats), options, n, seed, progress)
    return None if columns is None else np.array(columns, dtype=np.float64).T.reshape(n, len(stats))


def bootstrap_ci(
    hypotheses_or_statistics: Union[Sequence[str], Statistics],
    references: Optional[Sequence[Any]] = None,
    *,
    n_samples: int = DEFAULT_SAMPLES["bs"],
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

    >>> mean, ci = bootstrap_ci(["a b c d", "a b c e"], ["a b c d", "a b c d"], n_samples=10)
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
        n_samples, seed = check_count(n_samples, "n_samples"), check_seed(seed)
        hyps = check_hypotheses(hypotheses_or_statistics)
        if not hyps:
            raise ValueError("cannot resample an empty corpus")
        found = _compiled_bootstrap([("system", hyps)], references, opts, n_samples, seed, None)
        if isinstance(found, _Resampled):
            return BootstrapCI(*resampling.estimate_ci(found.columns[0], paired=False))
        stats = found[1][0]
    return _estimate_ci(bootstrap_scores(stats, opts, n_samples, seed), paired=False)


def with_bootstrap(result: R, statistics: Statistics, options: MetricOptions, n_samples: int, seed: Seed) -> R:
    """``result`` with the bootstrap ``mean`` and ``ci`` of ``statistics`` and ``bs:N|seed:S`` in its
    signature (what ``corpus_bleu(..., n_bootstrap=N, seed=S)`` returns). As sacreBLEU, only
    ``n_samples > 1`` resamples: ``n_samples=1`` (sacreBLEU's default) returns ``result`` as it is.

    >>> from bleukit import BleuOptions, corpus_statistics, score_statistics
    >>> opts = BleuOptions()
    >>> stats = corpus_statistics(["a b c d", "a b c e"], ["a b c d", "a b c d"], opts)
    >>> r = with_bootstrap(score_statistics(stats, opts), stats, opts, 10, 12345)
    >>> r.signature.split("|")[:3]
    ['nrefs:1', 'bs:10', 'seed:12345']
    >>> with_bootstrap(score_statistics(stats, opts), stats, opts, 1, 12345).mean is None
    True
    """
    n_samples = check_count(n_samples, "n_bootstrap")
    seed = check_seed(seed)
    if n_samples == 1:
        return result  # one resample estimates nothing: sacreBLEU bootstraps only when n > 1
    mean, ci = _estimate_ci(bootstrap_scores(statistics, options, n_samples, seed), paired=False)
    return result.with_estimate(mean, ci, options.signature(statistics.nrefs_signature, ("bs", n_samples, seed)))


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


class _Resampled:
    """The compiled route's bootstrap of some systems: their corpus results, ``nrefs:`` signature
    values and resampled scores (one list per system). (A plain class: a NamedTuple costs the
    command line's start-up a millisecond.)"""

    __slots__ = ("names", "results", "nrefs", "columns")

    def __init__(self, names: List[str], results: List[MetricResult], nrefs: List[Any],
                 columns: List[List[float]]) -> None:
        self.names, self.results, self.nrefs, self.columns = names, results, nrefs, columns


class _Counted:
    """Systems' statistics tables counted without numpy (``Metric.systems_rows``): every table, one
    after another, in one flat int64 buffer, their ``nrefs`` columns likewise, and their corpus
    results and ``nrefs:`` signature values."""

    __slots__ = ("names", "rows", "nrefs", "n_rows", "results", "signatures")

    def __init__(self, names: List[str], rows: Any, nrefs: Any, n_rows: int, options: MetricOptions) -> None:
        self.names, self.rows, self.nrefs, self.n_rows = names, rows, nrefs, n_rows
        metric = metric_for(options)
        self.results: List[MetricResult] = []
        self.signatures: List[Any] = []
        for j, sums in enumerate(resampling.column_sums(rows, n_rows, len(names))):
            sig = nrefs_signature(min(nrefs[j * n_rows : (j + 1) * n_rows]), max(nrefs[j * n_rows : (j + 1) * n_rows]))
            self.results.append(metric.row_result(sums, sig if isinstance(sig, int) else -1, options))
            self.signatures.append(sig)

    def statistics(self, options: MetricOptions) -> Tuple[List[str], List[Statistics]]:
        """The names and the numpy statistics tables, for numpy's route."""
        metric = metric_for(options)
        count = len(self.names)
        table = np.frombuffer(self.rows, dtype=np.int64).reshape(count, self.n_rows, -1)
        counts = np.frombuffer(self.nrefs, dtype=np.int64).reshape(count, self.n_rows)
        return self.names, [metric.statistics_type(table[j], counts[j], **metric.layout(options)) for j in range(count)]


def _counted(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, seed: Seed
) -> Union[_Counted, Tuple[List[str], List[Statistics]]]:
    """Checked ``(name, hypotheses)`` systems counted for the compiled route (:class:`_Counted`), or,
    where it cannot apply (no seed, no such path for the metric), their names and statistics tables
    for numpy's route. The references are counted once for all systems either way."""
    metric = metric_for(options)
    names, hyps = [name for name, _ in named], [h for _, h in named]
    refs = checked_references(references, len(hyps[0]), options)
    found = metric.systems_rows(hyps, refs, options) if seed is not None and refs else None
    if found is None:
        return names, metric.systems_statistics(hyps, refs, options)
    return _Counted(names, found[0], found[1], len(refs), options)


def _compiled_bootstrap(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, n: int, seed: Seed,
    progress: Progress,
) -> Union[_Resampled, Tuple[List[str], List[Statistics]]]:
    """The bootstrap of checked ``(name, hypotheses)`` systems on the compiled route, without numpy
    (:mod:`bleukit.resampling`), or, where it does not apply, their names and statistics tables for
    numpy's route (counted once)."""
    found = _counted(named, references, options, seed)
    if not isinstance(found, _Counted):
        return found
    columns = resampling.bootstrap_columns(found.rows, found.n_rows, len(found.names), options, n, seed, progress)
    if columns is None:
        return found.statistics(options)
    return _Resampled(found.names, found.results, found.signatures, columns)


class _Randomized:
    """The compiled route's approximate randomization: the counted systems and the p-value of each
    against the first."""

    __slots__ = ("counted", "p_values")

    def __init__(self, counted: _Counted, p_values: List[float]) -> None:
        self.counted, self.p_values = counted, p_values


def _compiled_randomization(
    named: List[Tuple[str, List[str]]], references: Sequence[Any], options: MetricOptions, n: int, seed: Seed,
    progress: Progress,
) -> Union[_Randomized, Tuple[List[str], List[Statistics]]]:
    """Approximate randomization of checked ``(name, hypotheses)`` systems against the first on the
    compiled route, without numpy (:func:`bleukit.resampling.randomization_counts`): the counted
    systems and their p-values; or, where it does not apply, their names and statistics tables for
    numpy's route (counted once)."""
    found = _counted(named, references, options, seed)
    if not isinstance(found, _Counted):
        return found
    base = found.results[0].score
    pairs = [(0, k) for k in range(1, len(found.names))]
    observed = [abs(base - r.score) for r in found.results[1:]]
    counts = resampling.randomization_counts(found.rows, found.n_rows, len(found.names), pairs, observed, options,
                                             n, seed, progress) if pairs else []
    if counts is None:
        return found.statistics(options)
    return _Randomized(found, [(c + 1) / (n + 1) for c in counts])


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


def bootstrap_result(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    options: MetricOptions,
    n_samples: int = DEFAULT_SAMPLES["bs"],
    seed: Seed = DEFAULT_SEED,
) -> MetricResult:
    """The corpus result of ``hypotheses`` with the bootstrap ``mean`` and ``ci`` of ``n_samples``
    resamples and ``bs:N|seed:S`` in its signature: sacreBLEU's ``--confidence``, and
    :func:`with_bootstrap` of the corpus' table (as it, ``n_samples=1`` adds nothing). It runs
    without numpy where the compiled route applies (:mod:`bleukit.resampling`).

    >>> from bleukit import BleuOptions
    >>> r = bootstrap_result(["a b c d", "a b c e"], ["a b c d", "a b c d"], BleuOptions(), 10)
    >>> round(r.mean, 2), round(r.ci, 2), r.signature.split("|")[1]
    (68.39, 25.0, 'bs:10')
    """
    n_samples = check_count(n_samples, "n_bootstrap")
    seed = check_seed(seed)
    hyps = check_hypotheses(hypotheses)
    if n_samples == 1:
        from ..pipeline import corpus_result

        return corpus_result(hyps, references, options)
    if not hyps:
        raise ValueError("cannot resample an empty corpus")
    found = _compiled_bootstrap([("system", hyps)], references, options, n_samples, seed, None)
    if isinstance(found, _Resampled):
        mean, ci = resampling.estimate_ci(found.columns[0], paired=False)
        return found.results[0].with_estimate(mean, ci, options.signature(found.nrefs[0], ("bs", n_samples, seed)))
    stats = found[1][0]
    return with_bootstrap(metric_for(options).result(stats, options), stats, options, n_samples, seed)


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


#: The corrections for multiple comparisons :func:`adjust_p_values` knows.
CORRECTIONS = ("holm", "bonferroni")


def check_correction(correction: Any) -> Optional[str]:
    """``correction`` if it is ``None`` or one of :data:`CORRECTIONS`, else a ``ValueError``."""
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"unknown correction={correction!r}; choose one of {', '.join(CORRECTIONS)} (or None)")
    return correction


def adjust_p_values(p_values: Sequence[float], method: str = "holm") -> List[float]:
    """p-values corrected for testing them all at once (family-wise error rate), in the given order.

    - ``"holm"`` (Holm 1979, step-down Bonferroni): with the p-values sorted ascending
      ``p(1) <= ... <= p(m)``, ``adjusted(k) = max over j <= k of min(1, (m - j + 1) * p(j))``.
      A hypothesis is rejected at level alpha exactly when Holm's procedure rejects it, i.e. when
      its adjusted p-value is at most alpha; never less powerful than Bonferroni.
    - ``"bonferroni"``: ``min(1, m * p)``.

    >>> adjust_p_values([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bonferroni")
    [0.03, 0.12, 0.09]
    """
    check_correction(method)
    values = [float(p) for p in p_values]
    for p in values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p!r}")
    m = len(values)
    if method == "bonferroni":
        return [min(1.0, m * p) for p in values]
    out = [0.0] * m
    running = 0.0
    # a stable sort: equal p-values keep their order, and the running maximum makes them equal anyway
    for rank, i in enumerate(sorted(range(m), key=values.__getitem__)):
        running = max(running, min(1.0, (m - rank) * values[i]))
        out[i] = running
    return out


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
    metric = metric_for(options)
    named = check_systems(systems)
    checked = [hyps for _, hyps in named]
    refs = checked_references(references, len(checked[0]), options)
    stats = metric.systems_statistics(checked, refs, options)  # the references counted once for all
    return [name for name, _ in named], stats, [metric.result(s, options) for s in stats]


def bootstrap_matrix(
    stats: Sequence[Statistics], options: MetricOptions, n: int, seed: Seed, progress: Progress = None
) -> np.ndarray:
    """The corpus score of every system in each of ``n`` paired bootstrap resamples: ``(n, systems)``.

    Every system is resampled with the same draws (sacreBLEU re-seeds each comparison with the same
    seed), so all of them are summed in one product over the side-by-side tables.
    """
    compiled = _compiled_matrix(stats, options, n, seed, progress)
    if compiled is not None:
        return compiled
    rows = np.concatenate([s.rows for s in stats], axis=1)
    return _bootstrap_sums_scores(rows, _draw_indices(rows.shape[0], n, seed), options, len(stats), progress)


def bootstrap_p_value(scores: np.ndarray, results: Sequence[MetricResult], a: int, b: int) -> float:
    """The paired bootstrap p-value of systems ``a`` and ``b`` from :func:`bootstrap_matrix` scores."""
    observed = abs(results[a].score - results[b].score)
    if scores.dtype != np.float32:
        return resampling.paired_p_value(scores[:, a].tolist(), scores[:, b].tolist(), observed)
    diffs = np.abs(scores[:, b] - scores[:, a])
    # Centring makes the resampled differences a sample under the null hypothesis.
    return _p_value(diffs - diffs.mean(), observed)


def randomization_p_values(
    stats: Sequence[Statistics],
    results: Sequence[MetricResult],
    pairs: Sequence[Tuple[int, int]],
    options: MetricOptions,
    n: int,
    seed: Seed,
    progress: Progress = None,
) -> List[float]:
    """Approximate-randomization p-values of the system pairs ``(a, b)``, one trial stream for all:
    sacreBLEU re-seeds each comparison, so every pair sees the same coin flips."""
    metric = metric_for(options)
    n_rows, width = stats[0].rows.shape
    # Trial statistics: a' = pos @ a + ~pos @ b = b_total + pos @ (a - b), b' = the rest.
    delta = np.concatenate([stats[a].rows - stats[b].rows for a, b in pairs], axis=1)
    b_total = np.concatenate([stats[b].rows.sum(axis=0) for _, b in pairs])
    both_total = b_total + np.concatenate([stats[a].rows.sum(axis=0) for a, _ in pairs])
    product = _ExactProduct(delta, n_rows * int(np.abs(delta).max(initial=0)))
    rng = np.random.default_rng(seed)
    k_pairs = len(pairs)
    exceed = np.zeros(k_pairs, dtype=np.int64)
    observed = np.array([abs(results[a].score - results[b].score) for a, b in pairs])
    for k in _chunks(n, n_rows, _CHUNK_FLIPS, _BOOL_BITS):
        moved = product(_coin_flips(rng, k, n_rows))
        a_side = b_total + moved
        b_side = both_total - a_side
        score_a = np.asarray(metric.scores(a_side.reshape(k * k_pairs, width), options)).reshape(k, k_pairs)
        score_b = np.asarray(metric.scores(b_side.reshape(k * k_pairs, width), options)).reshape(k, k_pairs)
        exceed += (np.abs(score_a - score_b) > observed).sum(axis=0)
        if progress is not None:
            progress(k)
    return [(int(e) + 1) / (n + 1) for e in exceed.tolist()]


def _signed(result: MetricResult, nrefs: Any, options: MetricOptions, resampling: Tuple[str, int, Seed]) -> Any:
    """The result with ``resampling`` (``("ar", n, seed)``) in its signature; ``nrefs`` is the
    table's ``nrefs:`` value."""
    return dataclasses.replace(result, signature=options.signature(nrefs, resampling))  # type: ignore


def _p_value(samples: np.ndarray, observed: float) -> float:
    """sacreBLEU's (multeval's) p-value: strict ``>``, so a system against itself is never
    significant, and ``+1`` so the test never rejects more often than its level."""
    return (int(np.sum(samples > observed)) + 1) / (len(samples) + 1)
