"""What every evaluate module of bleukit shares: the input schema, the checked compute, and the
module itself, declared in one class statement.

Imported by the module files (``bleu_metric.py`` and ``modules/*.py``), never by ``import
bleukit``: it imports ``evaluate`` and ``datasets``. A module file declares its class in one
statement: a bleukit metric subclasses :class:`MetricModule` (its metric's name, the facade
module whose ``corpus_<metric>`` scores, the result keys and the card), a drop-in of
``bleukit.compat`` subclasses :class:`CompatModule` (the function that computes, and the card).
Everything else (the compute parameters, their defaults, the option checks) comes from the metric
protocol (:func:`bleukit.metrics.get_metric`) or from that function's signature. A module file
imports this module (``from bleukit.evaluate_module import base``), not the classes:
``evaluate.load`` takes the first ``evaluate.Metric`` subclass in the module's namespace as the
metric.

>>> [sorted(f) for f in text_features()]
[['predictions', 'references'], ['predictions', 'references']]
"""

from __future__ import annotations

import inspect
import os
import typing
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

import datasets
import evaluate

from bleukit.defaults import DEFAULT_SEED
from bleukit.inputs import check_hypotheses, check_references, check_utf8
from bleukit.metrics import MetricOptions, get_metric

__all__ = ["text_features", "TextMetric", "MetricModule", "CompatModule", "check_arrow_text", "SACREBLEU_CITATION"]


#: The citation of sacreBLEU (Post, 2018), whose numbers the modules give: the end of their cards' citations.
SACREBLEU_CITATION = """\
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    year = "2018",
    address = "Belgium, Brussels",
    publisher = "Association for Computational Linguistics",
    url = "https://www.aclweb.org/anthology/W18-6319",
    pages = "186--191",
}
"""


def text_features() -> List[datasets.Features]:
    """The input schemas of a text BLEU metric: several references per prediction, or one string.

    The evaluate modules of ``bleukit.compat`` (evaluate's "bleu" and "google_bleu") take the same.
    """
    references = datasets.Sequence(datasets.Value("string", id="sequence"), id="references")
    return [
        datasets.Features({"predictions": datasets.Value("string", id="sequence"), "references": references}),
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Value("string", id="sequence"),
            }
        ),
    ]


def check_arrow_text(predictions: Any, references: Any) -> None:
    """The lone-surrogate check (:func:`bleukit.inputs.check_utf8`) for modules that hand their
    input to evaluate as it came (the drop-ins of ``bleukit.compat``): Arrow stores UTF-8, and
    fails on a lone surrogate without saying which item holds it. Strings and lists of strings
    are checked; anything else is left to evaluate's own checks.

    >>> check_arrow_text(["a", "b"], [["a"], "b"])
    """
    for texts, what in ((predictions, "predictions"), (references, "references")):
        if isinstance(texts, (list, tuple)):
            check_utf8(
                [
                    t if isinstance(t, str) else [r if isinstance(r, str) else "" for r in t]
                    if isinstance(t, (list, tuple)) else ""
                    for t in texts
                ],
                what,
            )


class TextMetric(evaluate.Metric):
    """An evaluate metric on predictions and references checked by bleukit before ``evaluate`` sees them.

    A reference may be a string or a list of strings in any batch; generators are read once; a
    compute that raises discards what it would have scored, so the next one starts clean.
    """

    def check_options(self, kwargs: Dict[str, Any]) -> None:
        """Validate the compute keywords (a ``TypeError``/``ValueError`` naming the problem)."""

    def _check(
        self, predictions: Any, references: Any, kwargs: Dict[str, Any]
    ) -> Tuple[Optional[List[str]], Optional[List[List[str]]]]:
        """The core's checks, before anything is handed to `evaluate` (whose own checks answer with
        less helpful messages, or none). Returns the inputs as new lists, references always as one
        list per prediction: one Arrow type for every batch, and an iterator read exactly once."""
        self.check_options(kwargs)
        if predictions is None and references is None:
            return None, None
        if predictions is None or references is None:
            missing = "predictions" if predictions is None else "references"
            raise ValueError(
                f"{missing} is None: give both predictions and references (or neither, to score the "
                "batches added with add_batch)"
            )
        hyps = check_hypotheses(predictions)
        refs = check_references(references, len(hyps))
        # Arrow stores UTF-8: a lone surrogate would fail there without saying which item holds it.
        check_utf8(hyps, "predictions")
        check_utf8(refs, "references")
        return hyps, refs

    def compute(
        self, *, predictions: Optional[Sequence[str]] = None, references: Optional[Sequence[Any]] = None,
        **kwargs: Any,
    ) -> Optional[Dict[str, Any]]:
        """Check the input with bleukit's messages, then let `evaluate` run `_compute`.

        A compute that raises (bad input or options included) discards everything it would have
        scored, batches added before it too, so the next compute scores only its own input.
        """
        try:
            predictions, references = self._check(predictions, references, kwargs)
            if predictions is not None:
                return super().compute(predictions=predictions, references=references, **kwargs)
            return super().compute(**kwargs)
        except BaseException:
            self._discard_pending()
            raise

    def add_batch(
        self, *, predictions: Optional[Sequence[str]] = None, references: Optional[Sequence[Any]] = None,
        **kwargs: Any,
    ) -> None:
        """Add a batch (checked like `compute`; a reference may be a string or a list of strings
        in any batch); score everything added with `compute()`."""
        predictions, references = self._check(predictions, references, {})
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one prediction and its reference (a string) or references (a list)."""
        return self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def _discard_pending(self) -> None:
        # evaluate keeps its writer, the data read back and (on disk) a locked cache file between
        # add_batch and the end of compute; a compute that raised leaves them behind, and the
        # next compute would score the old batches with the new ones. Drop them all.
        paths = list(getattr(self, "file_paths", None) or []) + [getattr(self, "cache_file_name", None)]
        locks = list(getattr(self, "filelocks", None) or []) + [getattr(self, "filelock", None)]
        for name in ("writer", "buf_writer", "data", "selected_feature_format", "cache_file_name"):
            if hasattr(self, name):
                setattr(self, name, None)
        for path in filter(None, paths):
            try:
                os.remove(path)
            except OSError:
                pass
        for lock in locks:
            if lock is not None:
                try:
                    lock.release()
                except Exception:  # a lock that is not held: nothing to release
                    pass
        self.filelock = None
        self.filelocks: List[Any] = []
        self.file_paths: List[str] = []


# ---- the module, declared: its compute parameters from the metric protocol or a function's signature ----

#: The compute arguments of a bootstrap estimate (sacreBLEU's ``--confidence``), given to the
#: metric's corpus function as they are, and their defaults.
RESAMPLING_DEFAULTS: Mapping[str, Any] = {"n_bootstrap": None, "seed": DEFAULT_SEED}

_INPUTS = [
    inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("predictions", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=List[str]),
    inspect.Parameter("references", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=List[Any]),
]


def _hints(obj: Any) -> Dict[str, Any]:
    """The resolved annotations of a class or function (the strings as written where they do not resolve)."""
    try:
        return typing.get_type_hints(obj)
    except Exception:  # a name that only a type checker sees
        return dict(getattr(obj, "__annotations__", {}))


def _declare(cls: type, parameters: List[inspect.Parameter], card: Dict[str, Any]) -> None:
    """Give a declared module class its card, its docstring and its ``_compute``.

    ``_compute`` takes ``parameters`` after the predictions and references: its signature says so
    (evaluate's own module test reads it, and refuses ``**kwargs``) and every call is bound to it,
    defaults applied, before :meth:`_run` sees the arguments."""
    signature = inspect.Signature(_INPUTS + parameters, return_annotation=Dict[str, Any])
    qualname = f"{cls.__qualname__}._compute"

    def _compute(self: Any, predictions: List[str], references: List[Any], **arguments: Any) -> Dict[str, Any]:
        try:
            bound = signature.bind(self, predictions, references, **arguments)
        except TypeError as err:  # named as Python names a function's own: "Bleu._compute() got an ..."
            raise TypeError(f"{qualname}() {err}") from None
        bound.apply_defaults()
        values = dict(bound.arguments)
        del values["self"], values["predictions"], values["references"]
        result: Dict[str, Any] = self._run(predictions, references, values)
        return result

    _compute.__signature__ = signature  # type: ignore[attr-defined]
    _compute.__qualname__ = qualname
    _compute.__doc__ = f"Computes {cls.__name__}: the parameters are the compute keywords, with their defaults."
    cls._compute = _compute  # type: ignore[attr-defined]
    cls._card = dict(card)  # type: ignore[attr-defined]
    # evaluate's add_start_docstrings: the card's text, examples included, before the class's own
    evaluate.utils.file_utils.add_start_docstrings(card.get("description", ""), card.get("inputs_description", ""))(cls)


class MetricModule(TextMetric):
    """A bleukit metric as an evaluate module, declared in the module's class statement::

        class ChrF(base.MetricModule, metric="chrf", facade=bleukit.chrf, outputs=("score", "beta"),
                   description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION):
            \"\"\"evaluate's "chrf", computed by bleukit.\"\"\"

    - ``metric``: the metric's name in :mod:`bleukit.metrics`. Its options type gives the compute
      parameters (the option keywords, in their order), their defaults and their checks (an
      unknown or bad option is a ``TypeError``/``ValueError`` before evaluate sees the input);
    - ``facade``: the module of the metric's public functions; its ``corpus_<metric>`` scores,
      looked up on each compute, with the options' keywords;
    - ``outputs``: the result's attributes that the compute returns, in this order;
    - ``names``: the module's own names of options whose upstream name is not bleukit's, mapped to
      the option's (TER's Hub metric: ``{"ignore_punct": "no_punct"}``); unknown names are then
      listed with the module's names;
    - ``resampling``: also take ``n_bootstrap`` and ``seed`` (:data:`RESAMPLING_DEFAULTS`) and
      return the result's ``mean`` and ``ci`` when it has them;
    - the other keywords are the card, :class:`evaluate.MetricInfo`'s fields (``description``,
      ``citation``, ``inputs_description``, ``homepage``, ``codebase_urls``, ...).
    """

    _metric: ClassVar[str]
    _facade: ClassVar[Any]
    _outputs: ClassVar[Tuple[str, ...]]
    _names: ClassVar[Dict[str, str]]
    _resampling: ClassVar[bool]
    _card: ClassVar[Dict[str, Any]]

    def __init_subclass__(
        cls,
        *,
        metric: str,
        facade: Any,
        outputs: Sequence[str],
        names: Optional[Mapping[str, str]] = None,
        resampling: bool = False,
        **card: Any,
    ) -> None:
        super().__init_subclass__()
        cls._metric, cls._facade, cls._outputs = metric, facade, tuple(outputs)
        cls._names, cls._resampling = dict(names or {}), resampling
        options_type = get_metric(metric).options_type
        defaults, hints = options_type(), _hints(options_type)
        parameters = [
            inspect.Parameter(public, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=getattr(defaults, name),
                              annotation=hints.get(name, inspect.Parameter.empty))
            for public, name in zip(cls._public_names(), options_type.option_names())
        ]
        if resampling:
            parameters += [
                inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                  annotation=Optional[int])
                for name, default in RESAMPLING_DEFAULTS.items()
            ]
        _declare(cls, parameters, card)

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(features=text_features(), **self._card)

    @classmethod
    def _public_names(cls) -> List[str]:
        """The option keywords by the module's names, in the options' order."""
        own = {name: public for public, name in cls._names.items()}
        return [own.get(name, name) for name in get_metric(cls._metric).options_type.option_names()]

    @classmethod
    def _options(cls, keywords: Mapping[str, Any]) -> MetricOptions:
        """The metric's options from compute keywords by the module's names (checked, as
        :meth:`~bleukit.metrics.base.MetricOptions.from_keywords` checks its own names)."""
        options_type = get_metric(cls._metric).options_type
        if not cls._names:
            return options_type.from_keywords(keywords)
        public = cls._public_names()
        unknown = sorted(set(keywords) - set(public))
        if unknown:
            raise TypeError(
                f"unknown {cls._metric.upper()} option(s): {', '.join(unknown)}; known: {', '.join(public)}"
            )
        return options_type(**{cls._names.get(name, name): value for name, value in keywords.items()})

    def check_options(self, kwargs: Dict[str, Any]) -> None:
        extras = RESAMPLING_DEFAULTS if self._resampling else {}
        self._options({k: v for k, v in kwargs.items() if k not in extras})

    def _run(self, predictions: List[str], references: List[Any], arguments: Dict[str, Any]) -> Dict[str, Any]:
        extras = {name: arguments.pop(name) for name in RESAMPLING_DEFAULTS if self._resampling}
        options = self._options(arguments)
        corpus = getattr(self._facade, f"corpus_{self._metric}")
        result = corpus(predictions, references, **extras, **options.to_dict())
        out = {key: getattr(result, key) for key in self._outputs}
        if self._resampling and result.mean is not None:
            out["mean"], out["ci"] = result.mean, result.ci
        return out


class CompatModule(evaluate.Metric):
    """A drop-in of ``bleukit.compat`` as an evaluate module (evaluate's own checks, bleukit's
    numbers), declared in the module's class statement::

        class GoogleBleu(base.CompatModule, compute=gleu.google_bleu, description=..., citation=...):
            \"\"\"evaluate's "google_bleu", computed by bleukit.\"\"\"

    ``compute(predictions, references, **options)`` returns the result; its options, with their
    defaults, are the compute parameters. The other keywords are the card, as :class:`MetricModule`'s.
    Unlike evaluate's own modules, empty input and a lone surrogate are ``ValueError`` naming the
    problem.
    """

    _function: ClassVar[Callable[..., Dict[str, Any]]]
    _card: ClassVar[Dict[str, Any]]

    def __init_subclass__(cls, *, compute: Callable[..., Dict[str, Any]], **card: Any) -> None:
        super().__init_subclass__()
        cls._function = staticmethod(compute)
        hints = _hints(compute)
        parameters = [
            p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hints.get(p.name, p.annotation))
            for p in list(inspect.signature(compute).parameters.values())[2:]
        ]
        _declare(cls, parameters, card)

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(features=text_features(), **self._card)

    def _run(self, predictions: List[str], references: List[Any], arguments: Dict[str, Any]) -> Dict[str, Any]:
        return self._function(predictions, references, **arguments)

    def compute(self, *, predictions: Optional[List[str]] = None, references: Optional[List[Any]] = None,
                **kwargs: Any) -> Optional[Dict[str, Any]]:
        """As evaluate's, but empty input is a ValueError (evaluate's own code fails with IndexError)."""
        if predictions is None and references is None:
            return super().compute(**kwargs)
        if predictions is not None and len(predictions) == 0:
            raise ValueError("empty input: no predictions to score")
        check_arrow_text(predictions, references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions: Optional[List[str]] = None, references: Optional[List[Any]] = None,
                  **kwargs: Any) -> None:
        """As evaluate's; a lone surrogate is a ValueError naming its item."""
        check_arrow_text(predictions, references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """As evaluate's; a lone surrogate is a ValueError naming it."""
        check_arrow_text([prediction], [reference])
        return super().add(prediction=prediction, reference=reference, **kwargs)
