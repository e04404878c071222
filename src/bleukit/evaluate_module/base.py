"""What every evaluate module of bleukit shares: the input schema and the checked compute.

Imported by the module files (``bleu_metric.py`` and ``modules/*.py``), never by ``import
bleukit``: it imports ``evaluate`` and ``datasets``. A module subclasses :class:`TextMetric`, says
how its options are validated (:meth:`TextMetric.check_options`) and computes in ``_compute``. It
imports this module (``from bleukit.evaluate_module import base``), not the class: ``evaluate.load`` takes
the first ``evaluate.Metric`` subclass in the module's namespace as the metric.

>>> [sorted(f) for f in text_features()]
[['predictions', 'references'], ['predictions', 'references']]
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import datasets
import evaluate

from bleukit.inputs import check_hypotheses, check_references, check_utf8

__all__ = ["text_features", "TextMetric", "check_arrow_text"]


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
