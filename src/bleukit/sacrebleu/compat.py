"""sacreBLEU's functions (``sacrebleu.corpus_bleu``, ``corpus_chrf``, ``corpus_ter`` ...): the same
names, argument names, order and defaults, each a call of the metric class, as in sacreBLEU. References are *streams*:
``references[k][i]`` is the k-th reference of sentence i (``None`` where it is missing).

>>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
>>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
>>> round(corpus_bleu(hyps, refs).score, 4), round(corpus_chrf(hyps, refs).score, 4)
(48.5308, 59.7275)
>>> round(sentence_bleu(hyps[1], [refs[0][1], refs[1][1]]).score, 4)
14.794
"""

from __future__ import annotations

import functools
from typing import Any, Optional, Sequence, Tuple

from .metrics import BLEU, CHRF, TER, BLEUScore, CHRFScore, TERScore
from .metrics.base import Metric

__all__ = [
    "corpus_bleu",
    "raw_corpus_bleu",
    "sentence_bleu",
    "corpus_chrf",
    "sentence_chrf",
    "corpus_ter",
    "sentence_ter",
]

Streams = Sequence[Sequence[Optional[str]]]


def _sentence_metric(cls: Any, **arguments: Any) -> Any:
    """The metric object a per-sentence function scores with: one per distinct set of arguments,
    kept, since building it costs a good part of scoring a sentence (no score is kept in it)."""
    try:
        return _kept_metric(cls, tuple(sorted(arguments.items())))
    except TypeError:  # an unhashable argument: the constructor says what is wrong with it
        return cls(**arguments)


@functools.lru_cache(maxsize=64)
def _kept_metric(cls: Any, arguments: Tuple[Tuple[str, Any], ...]) -> Metric:
    return cls(**dict(arguments))


def corpus_bleu(
    hypotheses: Sequence[str],
    references: Streams,
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    force: bool = False,
    lowercase: bool = False,
    tokenize: str = BLEU.TOKENIZER_DEFAULT,
    use_effective_order: bool = False,
) -> BLEUScore:
    """Corpus BLEU of ``hypotheses`` against reference streams, as ``sacrebleu.corpus_bleu``."""
    metric = BLEU(
        lowercase=lowercase,
        force=force,
        tokenize=tokenize,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    )
    return metric.corpus_score(hypotheses, references)


def raw_corpus_bleu(
    hypotheses: Sequence[str],
    references: Streams,
    smooth_value: Optional[float] = BLEU.SMOOTH_DEFAULTS["floor"],
) -> BLEUScore:
    """Corpus BLEU without tokenization, floor smoothing and effective order, as
    ``sacrebleu.raw_corpus_bleu``.

    >>> round(raw_corpus_bleu(["this is a fest"], [["this is a test"]], 0.01).score, 6)
    22.36068
    """
    return corpus_bleu(
        hypotheses,
        references,
        smooth_method="floor",
        smooth_value=smooth_value,
        force=True,
        tokenize="none",
        use_effective_order=True,
    )


def sentence_bleu(
    hypothesis: str,
    references: Sequence[Optional[str]],
    smooth_method: str = "exp",
    smooth_value: Optional[float] = None,
    lowercase: bool = False,
    tokenize: str = BLEU.TOKENIZER_DEFAULT,
    use_effective_order: bool = True,
) -> BLEUScore:
    """BLEU of one hypothesis against a list of its references, as ``sacrebleu.sentence_bleu``."""
    metric = _sentence_metric(
        BLEU,
        lowercase=lowercase,
        tokenize=tokenize,
        force=False,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=use_effective_order,
    )
    score: BLEUScore = metric.sentence_score(hypothesis, references)
    return score


def corpus_chrf(
    hypotheses: Sequence[str],
    references: Streams,
    char_order: int = CHRF.CHAR_ORDER,
    word_order: int = CHRF.WORD_ORDER,
    beta: int = CHRF.BETA,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """Corpus chrF (chrF++ with ``word_order=2``) against reference streams, as ``sacrebleu.corpus_chrf``."""
    metric = CHRF(
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        whitespace=not remove_whitespace,
        eps_smoothing=eps_smoothing,
    )
    return metric.corpus_score(hypotheses, references)


def sentence_chrf(
    hypothesis: str,
    references: Sequence[Optional[str]],
    char_order: int = CHRF.CHAR_ORDER,
    word_order: int = CHRF.WORD_ORDER,
    beta: int = CHRF.BETA,
    remove_whitespace: bool = True,
    eps_smoothing: bool = False,
) -> CHRFScore:
    """chrF of one hypothesis against a list of its references, as ``sacrebleu.sentence_chrf``."""
    metric = _sentence_metric(
        CHRF,
        char_order=char_order,
        word_order=word_order,
        beta=beta,
        whitespace=not remove_whitespace,
        eps_smoothing=eps_smoothing,
    )
    score: CHRFScore = metric.sentence_score(hypothesis, references)
    return score


def corpus_ter(
    hypotheses: Sequence[str],
    references: Streams,
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """Corpus TER (lower is better) against reference streams, as ``sacrebleu.corpus_ter``.

    >>> corpus_ter(["a b c d"], [["c d a b"], ["a b x d"]]).score
    25.0
    """
    metric = TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive)
    return metric.corpus_score(hypotheses, references)


def sentence_ter(
    hypothesis: str,
    references: Sequence[Optional[str]],
    normalized: bool = False,
    no_punct: bool = False,
    asian_support: bool = False,
    case_sensitive: bool = False,
) -> TERScore:
    """TER of one hypothesis against a list of its references, as ``sacrebleu.sentence_ter``.

    >>> sentence_ter("the cat sat", ["the cat sat down"]).score
    25.0
    """
    metric = _sentence_metric(
        TER, normalized=normalized, no_punct=no_punct, asian_support=asian_support, case_sensitive=case_sensitive
    )
    score: TERScore = metric.sentence_score(hypothesis, references)
    return score
