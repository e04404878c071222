"""Sentence BLEU, chrF/chrF++, TER (any metric) as reward functions for RL trainers (TRL's GRPO and alike).

TRL 1.16 calls each reward function as ``f(prompts=..., completions=..., completion_ids=...,
**dataset_columns, trainer_state=..., log_extra=..., log_metric=...)`` and expects one float per
completion, or ``None`` where the reward does not apply (that sample then skips this reward).
Its async GRPO trainer runs rewards in a spawned process, so they must pickle, and it names
their logged metrics after ``__name__`` (or the class name).

:class:`MetricReward` is that function for any metric's options (``BleuOptions``,
``ChrfOptions``, ...): a picklable callable object that scores each completion with the
metric's sacreBLEU-exact sentence score (the core's statistics table and formula), times
``scale``. :class:`BleuReward`, :class:`ChrfReward` and :class:`TerReward` only build the
options; :func:`bleu_reward` is the older spelling of ``BleuReward``.

TER is an error rate (lower is better, 0 to 100 and beyond), so its reward is the complement
``100 - TER`` clipped at 0 (times ``scale``: ``1 - TER/100`` in [0, 1] by default), shaped as the
others. This keeps every reward "higher is better" and on the same 0-1 scale, so a TER reward can
be summed or weighted with a BLEU or chrF one (TRL adds its reward functions; verl's and
OpenRLHF's ``chrf_targets`` mix metrics per sample) and a ``threshold`` or ``power`` means the
same thing for all of them. TER above 100 (more edits than reference words: a hypothesis far
longer than its reference) gives 0, as an empty one does; an unbounded negative reward would let
a few runaway generations dominate a batch's reward, and length is better controlled by a
length penalty of its own.

>>> reward = BleuReward("reference", scale=1.0)
>>> reward(prompts=["Hallo Welt", "Guten Tag", "Danke"], completions=["Hello world !", "Good morning", "Thanks"],
...        reference=["Hello world!", ["Good day", "Hello"], None])
[100.00000000000004, 49.99999999999999, None]
>>> reward.__name__, ChrfReward(word_order=2).__name__
('bleu', 'chrf++')
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from bleukit.ids import PadIds, id_statistics
from bleukit.inputs import check_number, check_sequence
from bleukit.integrations._columns import _names, references_of_rows
from bleukit.metrics import metric_for, resolve_options
from bleukit.metrics.base import MetricOptions, Statistics
from bleukit.metrics.bleu.formula import score_table
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.metrics.chrf.options import ChrfOptions
from bleukit.metrics.ter.options import TerOptions
from bleukit.pipeline import corpus_statistics, sentence_result
from bleukit.tokenizers import DEFAULT_TOKENIZER, languages

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bleukit.metrics.bleu.options import BleuOptionKeywords
    from bleukit.metrics.chrf.options import ChrfOptionKeywords
    from bleukit.metrics.ter.options import TerOptionKeywords

__all__ = [
    "MetricReward",
    "BleuReward",
    "ChrfReward",
    "TerReward",
    "AsyncReward",
    "bleu_reward",
    "completion_text",
    "target_language",
    "options_for_language",
]

# Keyword arguments TRL adds next to the dataset columns; never a reference column.
_TRAINER_KWARGS = {"trainer_state", "log_extra", "log_metric", "environments"}


def completion_text(completion: Any, what: str = "a completion") -> str:
    """The text of one completion: a string, or a conversation (list of messages) whose last
    message's content is used (a string, or a list of ``{"type": "text", "text": ...}`` parts).

    >>> completion_text([{"role": "assistant", "content": "Hi there"}])
    'Hi there'
    >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}])
    'Hi'

    ``what`` names the completion in an error (``completions[3]``).
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, (list, tuple)) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, (list, tuple)):
            parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
            return "".join(parts)
        raise TypeError(
            f"{what}: message content must be a str or a list of parts, got {type(content).__name__}"
        )
    raise TypeError(
        f"{what} must be a str or a list of chat messages ({{'role': ..., 'content': ...}}), "
        f"got {type(completion).__name__}"
    )


def target_language(value: Any) -> Optional[str]:
    """The target language of a language column's value: a language (``"zh"``) or a pair
    ``"SRC-TRG"`` (``"en-zh"``, read as sacreBLEU's ``-l``); ``None`` or ``""`` for none.

    >>> target_language("en-zh"), target_language("ja"), target_language(None)
    ('zh', 'ja', None)
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"a language must be a str such as 'zh' or 'en-zh', got {type(value).__name__}")
    if "-" in value:
        return languages.target_language(value)
    return value or None


def options_for_language(options: MetricOptions, language: Optional[str]) -> MetricOptions:
    """The options for a sentence in ``language``: as sacreBLEU's ``trg_lang``, a Chinese,
    Japanese or Korean target picks the ``zh``/``ja-mecab``/``ko-mecab`` tokenizer when the
    options' tokenizer is the default (``13a``); other options (chrF has no tokenizer) are kept.

    >>> options_for_language(BleuOptions(), "ja").tokenize
    'ja-mecab'
    >>> options_for_language(BleuOptions(tokenize="intl"), "ja").tokenize
    'intl'
    """
    if language is None or getattr(options, "tokenize", None) != DEFAULT_TOKENIZER:
        return options
    tokenizer = languages.tokenizer_for_language(None, trg_lang=language)
    if tokenizer == DEFAULT_TOKENIZER:
        return options
    return dataclasses.replace(options, tokenize=tokenizer)  # type: ignore[type-var]


def _missing(reference: Any) -> bool:
    """Whether a row has no reference (``None``, or a list of none)."""
    if reference is None:
        return True
    if isinstance(reference, (list, tuple, np.ndarray)) and not isinstance(reference, str):
        return all(r is None for r in reference)
    return False


class MetricReward:
    """A reward function: the sentence score of each completion under any metric's ``options``
    (BLEU keywords when ``options`` is not given), times ``scale``.

    - ``reference_column``: the dataset column(s) holding each row's reference: a string, a list
      of strings (several references) or ``None`` (no reference: the reward is ``None`` for that
      row, and TRL skips this reward for it). Several columns add up their references.
    - ``ids=True`` scores the generated ``completion_ids`` with token-id BLEU (no decoding)
      against an id column, or a text column encoded with ``tokenizer`` (a Hugging Face
      tokenizer; no special tokens); ``pad_id`` (one id or several, e.g. pad and EOS) is dropped.
    - ``language_column`` names a per-row language (``"zh"``) or pair (``"en-zh"``) whose target
      picks the tokenizer, as sacreBLEU's ``trg_lang`` (:func:`options_for_language`).
    - Shaping: a score below ``threshold`` (on the metric's 0-100 scale) gives 0; otherwise the
      reward is ``(score * scale) ** power``. For a metric where lower is better (TER) the score
      shaped is ``max(0, 100 - score)`` (see the module's docstring). ``scale=0.01`` gives [0, 1];
      ``scale=1.0`` and ``power=1.0`` give sacreBLEU's numbers exactly (``100 - TER`` for TER).
    - Logging: with TRL's ``log_metric`` the batch's corpus score (``<name>/corpus``, scored with
      ``options`` as given, i.e. corpus defaults) and, for BLEU, its brevity penalty and length
      ratio; with ``log_extra`` each completion's n-gram precisions (``<name>/p1``, ...).
    - ``name`` is the logged name (default: the metric's, ``bleu_ids`` for ids).

    The object pickles (TRL's async trainer sends it to a spawned process);
    :meth:`asynchronous` gives the same reward as an async callable.

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> reward = MetricReward("refs", options=ChrfOptions(word_order=2), scale=1.0)
    >>> [round(r, 4) for r in reward(completions=["The cat sat on the mat."], refs=["The cat is on the mat."])]
    [69.437]
    """

    def __init__(
        self,
        reference_column: Union[str, Sequence[str]] = "reference",
        *,
        options: Optional[MetricOptions] = None,
        ids: bool = False,
        scale: float = 0.01,
        power: float = 1.0,
        threshold: Optional[float] = None,
        language_column: Optional[str] = None,
        pad_id: PadIds = None,
        tokenizer: Any = None,
        name: Optional[str] = None,
        **keywords: Unpack[BleuOptionKeywords],
    ) -> None:
        self.reference_columns: Tuple[str, ...] = _names(reference_column, "reference_column")
        resolved = resolve_options(options, keywords)
        if not isinstance(ids, bool):
            raise TypeError(f"ids must be a bool, got {type(ids).__name__}")
        if ids:
            if not isinstance(resolved, BleuOptions):
                raise ValueError(
                    f"ids=True scores token ids with BLEU; {resolved.metric} needs text (leave ids=False)"
                )
            if language_column is not None:
                raise ValueError("language_column picks a text tokenizer; token ids are scored as they are (ids=True)")
            # Ids are already tokens: no tokenizer, no lowercasing.
            resolved = dataclasses.replace(resolved, tokenize="none", lowercase=False)
        elif tokenizer is not None or pad_id is not None:
            raise ValueError("tokenizer= and pad_id= apply to token ids: pass ids=True, or leave them out")
        self.options: MetricOptions = resolved
        self.ids = ids
        self.scale = check_number(scale, "scale", minimum=0, strict=True)
        self.power = check_number(power, "power", minimum=0, strict=True)
        self.threshold = None if threshold is None else check_number(threshold, "threshold")
        if language_column is not None and not isinstance(language_column, str):
            raise TypeError(f"language_column must be a column name (str), got {type(language_column).__name__}")
        if language_column in self.reference_columns:
            raise ValueError(f"column {language_column!r} is both the language and a reference column")
        self.language_column = language_column
        self.pad_id = pad_id
        self.tokenizer = tokenizer
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        self.__name__ = name or self._default_name()
        # Sentence options per target language, built once (the options validate on construction).
        self._sentence_options: Dict[Optional[str], MetricOptions] = {None: resolved.sentence_level()}

    def _default_name(self) -> str:
        if self.ids:
            return "bleu_ids"
        if isinstance(self.options, ChrfOptions) and self.options.word_order > 0:
            return "chrf++"
        return self.options.metric

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reference_columns!r}, options={self.options!r}, name={self.__name__!r})"

    def sentence_options(self, language: Optional[str] = None) -> MetricOptions:
        """The options a sentence in ``language`` (a target language or ``None``) is scored with."""
        if language not in self._sentence_options:
            self._sentence_options[language] = options_for_language(self._sentence_options[None], language)
        return self._sentence_options[language]

    # -- scoring ---------------------------------------------------------------------------------

    def table(
        self, hypotheses: Sequence[Any], references: Sequence[Any], languages: Optional[Sequence[Any]] = None
    ) -> Tuple[Optional[Statistics], List[int]]:
        """The statistics table of the rows that have a reference, and those rows' indices.

        ``hypotheses`` are texts (or id lists with ``ids=True``); ``languages`` (optional) holds
        each row's language or pair. Rows of one target language are counted together."""
        present = [i for i, ref in enumerate(references) if not _missing(ref)]
        if not present:
            return None, present
        if self.ids:
            refs = [_encode(references[i], self.tokenizer) for i in present]
            hyps = [hypotheses[i] for i in present]
            table: Statistics = id_statistics(
                hyps, refs, pad_id=self.pad_id, max_ngram_order=self.options.max_ngram_order  # type: ignore[attr-defined]
            )
            return table, present
        groups: Dict[MetricOptions, List[int]] = {}
        for i in present:
            language = target_language(languages[i]) if languages is not None else None
            groups.setdefault(self.sentence_options(language), []).append(i)
        parts, order = [], []
        for options, rows in groups.items():
            parts.append(
                corpus_statistics([hypotheses[i] for i in rows], [references[i] for i in rows], options=options)
            )
            order.extend(rows)
        return (parts[0] if len(parts) == 1 else type(parts[0]).concat(parts)), order

    def scores(
        self, hypotheses: Sequence[Any], references: Sequence[Any], languages: Optional[Sequence[Any]] = None
    ) -> List[Optional[float]]:
        """The metric's sentence score (0-100, unscaled) of every row; ``None`` where a row has no
        reference. Texts, or id lists with ``ids=True``."""
        if len(hypotheses) == 1 and not self.ids:
            # one sample (verl's single form, a notebook): the metric's one-sentence path, one
            # kernel call and the formula on plain floats, the same score as the table's row
            if _missing(references[0]):
                return [None]
            language = target_language(languages[0]) if languages is not None else None
            return [sentence_result(hypotheses[0], references[0], self.sentence_options(language)).score]
        table, rows = self.table(hypotheses, references, languages)
        return self._scatter(self._row_scores(table), rows, len(hypotheses))

    def reward_of(self, score: Optional[float]) -> Optional[float]:
        """The reward of a sentence score (``None`` stays ``None``): an error rate's complement
        (``max(0, 100 - score)`` where lower is better), then shaping and scale.

        >>> TerReward(scale=1.0).reward_of(25.0), TerReward().reward_of(130.0)
        (75.0, 0.0)
        """
        if score is None:
            return None
        if not metric_for(self.options).higher_is_better:
            score = max(0.0, 100.0 - score)
        if self.threshold is not None and score < self.threshold:
            shaped = 0.0
        else:
            shaped = score * self.scale
            if self.power != 1.0:
                shaped = shaped**self.power
        return shaped

    def _row_scores(self, table: Optional[Statistics]) -> List[float]:
        if table is None:
            return []
        sentence = self._sentence_options[None]
        scores: List[float] = np.asarray(metric_for(sentence).scores(table.rows, sentence), dtype=np.float64).tolist()
        return scores

    @staticmethod
    def _scatter(values: Sequence[Any], rows: Sequence[int], n: int) -> List[Any]:
        out: List[Any] = [None] * n
        for i, value in zip(rows, values):
            out[i] = value
        return out

    # -- the trainer's call ------------------------------------------------------------------------

    def __call__(
        self, prompts: Any = None, completions: Any = None, completion_ids: Any = None, **kwargs: Any
    ) -> List[Optional[float]]:
        """One reward per completion, as TRL's reward functions return them (``None``: no reference)."""
        if self.ids:
            if completion_ids is None:
                raise ValueError(f"{type(self).__name__}(ids=True) needs completion_ids (TRL passes them), got None")
            hypotheses: List[Any] = check_sequence(completion_ids, "completion_ids", of="id lists")
        else:
            if completions is None:
                raise ValueError(f"the {self.__name__} reward needs completions, got None")
            items = check_sequence(completions, "completions", of="completions (strings or chat messages)")
            hypotheses = [completion_text(c, f"completions[{i}]") for i, c in enumerate(items)]
        n = len(hypotheses)
        references = references_of_rows([self._column(kwargs, name, n) for name in self.reference_columns])
        languages = self._column(kwargs, self.language_column, n) if self.language_column is not None else None
        if n == 1 and not (callable(kwargs.get("log_metric")) or callable(kwargs.get("log_extra"))):
            return [self.reward_of(s) for s in self.scores(hypotheses, references, languages)]
        table, rows = self.table(hypotheses, references, languages)
        scores = self._row_scores(table)
        if table is not None:
            self._log(kwargs, table, rows, n)
        return [self.reward_of(s) for s in self._scatter(scores, rows, n)]

    def _column(self, kwargs: Dict[str, Any], name: str, n: int) -> List[Any]:
        if name not in kwargs:
            columns = sorted(k for k in kwargs if k not in _TRAINER_KWARGS)
            raise ValueError(
                f"the {self.__name__} reward needs the column {name!r}, but the batch has only {columns}; "
                f"name a dataset column (reference_column=..., language_column=...)"
            )
        # A set, a mapping or a DataFrame is named; a string is one value, not one per character.
        values = check_sequence(kwargs[name], f"column {name!r}", of="values, one per completion")
        if len(values) != n:
            raise ValueError(f"got {n} completions but {len(values)} entries in column {name!r}")
        return values

    def _log(self, kwargs: Dict[str, Any], table: Statistics, rows: List[int], n: int) -> None:
        metric = metric_for(self.options)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            result = metric.result(table, self.options)
            log_metric(f"{self.__name__}/corpus", float(result.score))
            for key, attribute in (("bp", "bp"), ("length_ratio", "ratio")):
                value = getattr(result, attribute, None)
                if value is not None:
                    log_metric(f"{self.__name__}/{key}", float(value))
        log_extra = kwargs.get("log_extra")
        if callable(log_extra) and isinstance(self.options, BleuOptions):
            # BLEU's per-order precisions of every row, from one vectorised call of its formula
            # (other metrics have no per-order figures to show).
            sentence = self._sentence_options[None]
            assert isinstance(sentence, BleuOptions)
            precisions = score_table(table.rows, sentence).precisions.tolist()
            for order in range(len(precisions[0])):
                log_extra(f"{self.__name__}/p{order + 1}", self._scatter([p[order] for p in precisions], rows, n))

    def asynchronous(self) -> AsyncReward:
        """The same reward as an async callable (TRL awaits it; the scoring runs in a thread).

        >>> import asyncio, inspect
        >>> reward = BleuReward(scale=1.0).asynchronous()
        >>> inspect.iscoroutinefunction(reward.__call__), reward.__name__
        (True, 'bleu')
        >>> asyncio.run(reward(completions=["a b c d"], reference=["a b c d"]))
        [100.00000000000004]
        """
        return AsyncReward(self)


class BleuReward(MetricReward):
    """Sentence BLEU as a reward; the option keywords are :class:`~bleukit.BleuOptions` fields
    (sentence defaults: ``effective_order=True``). See :class:`MetricReward` for the rest.

    >>> BleuReward("reference", scale=1.0, tokenize="intl")(completions=["Hello world !"], reference=["Hello world!"])
    [100.00000000000004]
    """

    def __init__(
        self,
        reference_column: Union[str, Sequence[str]] = "reference",
        *,
        ids: bool = False,
        scale: float = 0.01,
        power: float = 1.0,
        threshold: Optional[float] = None,
        language_column: Optional[str] = None,
        pad_id: PadIds = None,
        tokenizer: Any = None,
        name: Optional[str] = None,
        **keywords: Unpack[BleuOptionKeywords],
    ) -> None:
        super().__init__(
            reference_column, options=BleuOptions.from_keywords(keywords), ids=ids, scale=scale, power=power,
            threshold=threshold, language_column=language_column, pad_id=pad_id, tokenizer=tokenizer, name=name,
        )


class ChrfReward(MetricReward):
    """Sentence chrF as a reward (``word_order=2``: chrF++); the option keywords are
    :class:`~bleukit.metrics.chrf.ChrfOptions` fields. See :class:`MetricReward` for the rest.

    >>> [round(r, 6) for r in ChrfReward(word_order=2)(completions=["The cat sat."], reference=["The cat sat down."])]
    [0.628124]
    """

    def __init__(
        self,
        reference_column: Union[str, Sequence[str]] = "reference",
        *,
        scale: float = 0.01,
        power: float = 1.0,
        threshold: Optional[float] = None,
        language_column: Optional[str] = None,
        name: Optional[str] = None,
        **keywords: Unpack[ChrfOptionKeywords],
    ) -> None:
        super().__init__(
            reference_column, options=ChrfOptions.from_keywords(keywords), scale=scale, power=power,
            threshold=threshold, language_column=language_column, name=name,
        )


class TerReward(MetricReward):
    """Sentence TER as a reward: ``(100 - TER) * scale`` clipped at 0 (``1 - TER/100`` by default,
    so lower TER is a higher reward; see the module's docstring for why). The option keywords are
    :class:`~bleukit.metrics.ter.TerOptions` fields (``normalized``, ``no_punct``,
    ``asian_support``, ``case_sensitive``). :meth:`~MetricReward.scores` gives the TER itself.

    >>> TerReward()(completions=["the cat sat", "a b"], reference=["the cat sat down", "x y z w v"])
    [0.75, 0.0]
    """

    def __init__(
        self,
        reference_column: Union[str, Sequence[str]] = "reference",
        *,
        scale: float = 0.01,
        power: float = 1.0,
        threshold: Optional[float] = None,
        language_column: Optional[str] = None,
        name: Optional[str] = None,
        **keywords: Unpack[TerOptionKeywords],
    ) -> None:
        super().__init__(
            reference_column, options=TerOptions.from_keywords(keywords), scale=scale, power=power,
            threshold=threshold, language_column=language_column, name=name,
        )


class AsyncReward:
    """An async reward function around a synchronous one (picklable when the reward is): TRL
    awaits it, and the scoring runs in a worker thread (the compiled kernels release the GIL)."""

    def __init__(self, reward: Any) -> None:
        if not callable(reward):
            raise TypeError(f"reward must be callable, got {type(reward).__name__}")
        self.reward = reward
        self.__name__ = getattr(reward, "__name__", type(reward).__name__)

    async def __call__(self, **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.reward, **kwargs)

    def __repr__(self) -> str:
        return f"AsyncReward({self.reward!r})"


def bleu_reward(reference_column: Union[str, Sequence[str]] = "reference", **kwargs: Any) -> BleuReward:
    """``BleuReward(reference_column, **kwargs)``: the name this reward had before it became a class.

    >>> reward = bleu_reward("refs", ids=True, scale=1.0, pad_id=2)
    >>> reward(prompts=["p", "q"], completions=["?", "?"], completion_ids=[[5, 6, 7, 8, 2], [5, 6, 2]],
    ...        refs=[[5, 6, 7, 8], [[5, 6, 9], [1]]])
    [100.00000000000004, 100.00000000000004]
    """
    return BleuReward(reference_column, **kwargs)


def _encode(reference: Any, tokenizer: Any) -> Any:
    """Reference ids; strings are encoded with the tokenizer (one reference or a list of them)."""
    if isinstance(reference, str) or (
        isinstance(reference, (list, tuple)) and reference and all(isinstance(r, str) for r in reference)
    ):
        if tokenizer is None:
            raise TypeError(
                "reference column holds text but ids=True: pass tokenizer=... to encode it, or use "
                "ids=False to score decoded text"
            )
        if isinstance(reference, str):
            return tokenizer(reference, add_special_tokens=False)["input_ids"]
        return [tokenizer(r, add_special_tokens=False)["input_ids"] for r in reference]
    return reference
