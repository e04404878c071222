"""sacreBLEU's ``Score``, ``Signature`` and ``Metric``, as a translation layer over bleukit's flow.

A metric class here holds sacreBLEU's attributes and, from them, a bleukit options object
(:meth:`Metric._options`); scoring turns reference *streams* (``refs[k][i]``) into bleukit's
per-hypothesis lists, runs the protocol (:mod:`bleukit.pipeline`, the metric's ``statistics`` and
``result``, :func:`bleukit.analysis.significance.with_bootstrap`) and wraps the result in a score object with
sacreBLEU's fields. Nothing here counts or scores. A metric subclass (BLEU, chrF, TER) names its
options type and score type and lists its option values; the rest is shared.

>>> from bleukit.sacrebleu.metrics import BLEU
>>> bleu = BLEU()
>>> print(bleu.corpus_score(["the cat sat on the mat"], [["the cat sat on a mat"]]))
BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)
>>> bleu.get_signature().format(short=True)  # doctest: +ELLIPSIS
'#:1|c:mixed|e:no|tok:13a|s:exp|v:bleukit-...'
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar, Dict, List, Optional, Sequence, Type

from ...analysis.significance import with_bootstrap
from ...cli.output import score_json, score_line
from ...defaults import DEFAULT_THREADS, environment_seed
from ...inputs import (
    check_count,
    check_hypotheses,
    check_references,
    check_sequence,
    references_from_streams,
)
from ...metrics import fast, metric_for
from ...metrics.base import MetricOptions, MetricResult
from ...pipeline import corpus_statistics, score_statistics

__all__ = ["Score", "Signature", "Metric", "sacrelogger"]

#: sacreBLEU's logger: its warnings (tokenizer advice, tokenized input) go where sacreBLEU's go.
sacrelogger = logging.getLogger("sacrebleu")


class Score:
    """A score as sacreBLEU returns it: ``name``, ``score``, and ``_mean``/``_ci`` (``-1.0`` unless
    a bootstrap estimate was made); metric subclasses add their fields and the ``_verbose`` text.

    >>> Score("BLEU", 12.3456).format(width=1, signature="nrefs:1")
    'BLEU|nrefs:1 = 12.3'
    """

    def __init__(self, name: str, score: float) -> None:
        self.name = name
        self.score = score
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""

    def verbose_text(self) -> str:
        """What follows the score on its line (BLEU: precisions, BP and lengths)."""
        return self._verbose

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """sacreBLEU's ``Score.format``: ``NAME|SIGNATURE = SCORE VERBOSE``, the score alone
        (``score_only``), or sacreBLEU's JSON (``is_json``; it needs a ``signature``), with
        ``(μ = mean ± ci)`` after the score when a bootstrap estimate was made.

        >>> Score("chrF2", 50.0).format(signature="nrefs:1|nc:6", is_json=True).splitlines()[1:3]
        [' "name": "chrF2",', ' "score": 50.0,']
        """
        if is_json and not score_only:
            return score_json(self, width, signature, self._mean, self._ci)
        return score_line(self, width, score_only, signature, self._mean, self._ci)

    def __repr__(self) -> str:
        return self.format()


class Signature:
    """sacreBLEU's ``Signature``: the fields of a bleukit signature string in an ``info`` dict kept in
    sacreBLEU's order, ``format(short=...)`` and ``update(key, value)``.

    >>> from bleukit.metrics.bleu import BleuOptions
    >>> sig = Signature(BleuOptions().signature(2), BleuOptions)
    >>> sig.update("seed", "12345")
    >>> sig.update("bs", 1000)
    >>> str(sig)  # doctest: +ELLIPSIS
    'nrefs:2|bs:1000|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:bleukit-...'
    """

    def __init__(self, signature: str, options_type: Type[MetricOptions]) -> None:
        self._options_type = options_type
        # sacreBLEU's fields in its order, unset (None) until given; bleukit's own fields follow
        self.info: Dict[str, Any] = dict.fromkeys(options_type.SIGNATURE_ABBREVIATIONS)
        for field in signature.split("|"):
            key, _, value = field.partition(":")
            # sacreBLEU keeps counts (nrefs, nc, ...) as ints and the seed as a string
            self.info[key] = int(value) if value.isdigit() and key != "seed" else value

    def format(self, short: bool = False) -> str:
        """The signature string, ``version`` last, with sacreBLEU's short field names if ``short``."""
        pairs = []
        for key in [k for k in self.info if k != "version"] + ["version"]:
            value = self.info.get(key)
            if value is not None:
                if isinstance(value, bool):
                    value = "yes" if value else "no"
                pairs.append(f"{key}:{value}")
        text = "|".join(pairs)
        return self._options_type.short_signature(text) if short else text

    def update(self, key: str, value: Any) -> None:
        """Add a field or change one (sacreBLEU's paired tests add ``seed``, ``bs`` or ``ar``)."""
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return self.format()


class Metric:
    """sacreBLEU's ``Metric``: ``corpus_score`` (with ``n_bootstrap``), ``sentence_score``,
    ``get_signature``, and references cached at construction (``references=`` then
    ``corpus_score(hyps, None)``).

    A subclass sets ``_OPTIONS_TYPE`` (the bleukit options) and ``_SCORE_TYPE`` (the score class,
    with ``_from_result``), and returns its option values from :meth:`_option_keywords`.
    """

    _OPTIONS_TYPE: ClassVar[Type[MetricOptions]]
    _SCORE_TYPE: ClassVar[Type[Any]]

    def __init__(self) -> None:
        self._ref_cache: Optional[List[List[str]]] = None
        # only BLEU warns about tokenized input, unless force=True
        self._force = True
        # the bootstrap of the last corpus_score, which the signature reports (as in sacreBLEU)
        self.n_bootstrap: Optional[int] = None
        self.seed: Optional[str] = None
        self._options_cache: Optional[MetricOptions] = None
        self._options_keywords: Dict[str, Any] = {}

    def _option_keywords(self) -> Dict[str, Any]:
        """The bleukit option keywords the metric's current attributes say."""
        raise NotImplementedError

    def _options(self) -> MetricOptions:
        # Rebuilt when an attribute changed since (sacreBLEU reads its attributes at each call).
        keywords = self._option_keywords()
        if self._options_cache is None or keywords != self._options_keywords:
            self._options_cache = self._OPTIONS_TYPE(**keywords)
            self._options_keywords = keywords
        return self._options_cache

    def _check_system(self, hypotheses: List[str]) -> None:
        """Warnings about a system's text before it is scored (BLEU's tokenized-input warning)."""

    def _cache_references(
        self, references: Sequence[Sequence[Optional[str]]], n: Optional[int] = None
    ) -> List[List[str]]:
        """Reference streams as bleukit's per-hypothesis lists (``None`` dropped); sets ``num_refs``
        (``-1`` when sentences have different numbers of references)."""
        per_hypothesis = references_from_streams(references, n)
        checked = check_references(per_hypothesis, len(per_hypothesis))
        counts = {len(refs) for refs in checked}
        self.num_refs = counts.pop() if len(counts) == 1 else -1
        return checked

    def _references_for(self, n: int, references: Optional[Sequence[Sequence[Optional[str]]]]) -> List[List[str]]:
        """The per-hypothesis references of ``n`` hypotheses: the given streams, else the cache."""
        if references is not None:
            # sacreBLEU takes an empty list as "use the cache"; a generator is read once here
            references = check_sequence(references, "references", of="reference streams")
            if references:
                return self._cache_references(references, n)
        if self._ref_cache is None:
            raise RuntimeError("No references provided and the cache is empty.")
        if len(self._ref_cache) != n:
            raise ValueError(
                f"the references given to {type(self).__name__}(references=...) are for {len(self._ref_cache)} "
                f"sentences, got {n} hypotheses: score the same sentences or pass their references"
            )
        return self._ref_cache

    def _score(self, result: MetricResult) -> Any:
        score = self._SCORE_TYPE._from_result(result)
        if result.mean is not None:
            score._mean, score._ci = result.mean, result.ci
        return score

    def corpus_score(
        self,
        hypotheses: Sequence[str],
        references: Optional[Sequence[Sequence[Optional[str]]]],
        n_bootstrap: int = 1,
    ) -> Any:
        """The corpus score of ``hypotheses`` against reference streams (``references[k][i]`` is the
        k-th reference of sentence i, ``None`` where it is missing), or the cached references when
        ``references`` is ``None``. ``n_bootstrap > 1`` adds the bootstrap estimate (seeded by
        ``$SACREBLEU_SEED``, as sacreBLEU). A stream of another length than ``hypotheses`` is a
        ``ValueError`` naming it (sacreBLEU's ``zip`` would drop lines).
        """
        options = self._options()
        hyps = check_hypotheses(hypotheses)
        refs = self._references_for(len(hyps), references)
        self._check_system(hyps)
        stats = corpus_statistics(hyps, refs, options=options, threads=DEFAULT_THREADS)
        result = score_statistics(stats, options)
        # sacreBLEU resamples only when n_bootstrap > 1 (0 and 1 are a plain score); a bool, a
        # float or a string is named here rather than compared
        if check_count(n_bootstrap, "n_bootstrap", minimum=0) > 1:
            seed = environment_seed()
            self.n_bootstrap, self.seed = n_bootstrap, str(seed).lower()
            result = with_bootstrap(result, stats, options, n_bootstrap, seed)
        return self._score(result)

    def sentence_score(self, hypothesis: str, references: Sequence[Optional[str]]) -> Any:
        """The score of one hypothesis against its references (a list of strings; ``None`` entries
        are missing ones), with the metric's options as they are (no sentence-level defaults)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"{type(self).__name__}: hypothesis must be a str, got {type(hypothesis).__name__}")
        if isinstance(references, str):
            raise TypeError(
                f"{type(self).__name__}: references must be a list of reference strings, got a str; "
                "wrap the reference in a list: [reference]"
            )
        options = self._options()
        metric = metric_for(options)
        # the metric's one-sentence path (one kernel call, the formula on plain floats), which
        # checks the references as check_sentence_references does
        row, self.num_refs = fast.sentence_row(metric, hypothesis, references, options)
        return self._score(metric.row_result(row, self.num_refs, options))

    def get_signature(self) -> Signature:
        """The signature of the last scoring (its number of references, and the bootstrap if any)."""
        num_refs = getattr(self, "num_refs", None)
        if num_refs is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        signature = Signature(self._options().signature(num_refs if num_refs >= 0 else "var"), self._OPTIONS_TYPE)
        if self.n_bootstrap is not None:
            signature.update("bs", self.n_bootstrap)
            signature.update("seed", self.seed)
        return signature
