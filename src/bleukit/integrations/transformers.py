"""transformers adapter: sacreBLEU-exact BLEU in ``Seq2SeqTrainer`` evaluations, streamed or not.

``BleuComputeMetrics`` turns generated token ids and label ids into text and hands the text to the
core (``bleukit.corpus_statistics`` → ``bleukit.score_statistics``); no BLEU logic lives here. With
``TrainingArguments(batch_eval_metrics=True)`` it keeps only a running sum of the integer
statistics, so memory does not grow with the evaluation set, and the result is exactly the
non-streaming one (integer sums are exact). ``BleuCallback`` keeps the BLEU history, logs the
signature once and a table of sample translations at each evaluation to the loggers that render it.

>>> import numpy as np
>>> from transformers.trainer_utils import EvalPrediction
>>> class Tokenizer:  # any object with batch_decode; id k decodes to "wk", 0 is padding
...     pad_token_id = 0
...     def batch_decode(self, rows, skip_special_tokens=True):
...         return [" ".join(f"w{i}" for i in row if not (skip_special_tokens and i == 0)) for row in rows]
>>> metric = BleuComputeMetrics(Tokenizer())
>>> preds = np.array([[5, 6, 7, 8, -100], [5, 6, 9, -100, -100]])   # -100: ignored positions
>>> labels = np.array([[5, 6, 7, 8, -100], [5, 6, 7, -100, -100]])
>>> out = metric(EvalPrediction(predictions=preds, label_ids=labels))
>>> round(out["bleu"], 4), out["sys_len"], out["ref_len"], out["gen_len"]
(82.2267, 7, 7, 3.5)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np

from bleukit._torch import is_torch_tensor
from bleukit.accumulator import StatisticsAccumulator
from bleukit.ids.layout import check_id_array
from bleukit.metrics import resolve_options
from bleukit.metrics.base import MetricOptions, Statistics
from bleukit.metrics.bleu.options import BleuOptions
from bleukit.metrics.bleu.result import BleuResult
from bleukit.pipeline import sentence_scores_from_statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bleukit.metrics.bleu.options import BleuOptionKeywords

try:  # The callback needs transformers; the metric itself works with any tokenizer.
    from transformers import TrainerCallback
except ImportError:  # pragma: no cover - transformers is in the [hf] extra
    TrainerCallback = object  # type: ignore[assignment,misc]

__all__ = ["BleuComputeMetrics", "BleuCallback", "samples_table"]

class BleuComputeMetrics:
    """``compute_metrics`` for ``Seq2SeqTrainer``: decoded predictions and labels → corpus BLEU.

    ``tokenizer`` decodes token ids (any object with ``batch_decode``; its ``pad_token_id`` is
    left out of ``gen_len``). The option keywords are ``bleukit.BleuOptions`` fields (``tokenize``,
    ``lowercase``, ``smooth_method``, ...; sacreBLEU's corpus defaults); ``options`` takes any
    metric's options object instead.

    Predictions may be token ids or logits (argmax over the last axis), numpy arrays, torch
    tensors, tuples whose first element is one of those (model outputs), or ragged lists of id
    sequences. Negative ids (the ``-100`` ignore index that transformers pads predictions and
    labels with) are removed before decoding, which is what replacing them with the pad token and
    skipping special tokens does; they never reach the tokenizer (no ``OverflowError``).

    ``postprocess`` (optional) maps each decoded prediction and reference to the string scored.
    ``num_samples`` first sentences of each evaluation are kept in ``last_samples`` for
    ``BleuCallback``. The signature of the last result is in ``last_signature`` (``BleuCallback``
    logs it once); ``signature=True`` also puts it in every evaluation's metrics, where it becomes
    a column of the Trainer's results table and an entry of every log.

    ``all_reduce=True`` sums the integer statistics over processes with
    ``torch.distributed`` (when initialised) before scoring: use it when every process passes only
    its own shard. ``Seq2SeqTrainer`` already gathers the predictions of all processes onto every
    process before calling ``compute_metrics``, so inside the Trainer leave it ``False``.

    Called with ``compute_result`` (``batch_eval_metrics=True``), each call adds its batch to a
    running sum and returns ``{}`` until ``compute_result=True``, which returns the score of
    everything seen and starts afresh.

    ``num_examples`` (normally left to ``BleuCallback``) caps the sentences of one evaluation:
    in multi-process evaluation ``Seq2SeqTrainer`` gathers with ``accelerator.gather``, not
    ``gather_for_metrics``, so the last batch carries the distributed sampler's padding (repeats
    of the first examples); the callback sets the cap to the evaluation set's length and the
    repeats are left out. It is cleared after each result.
    """

    def __init__(
        self,
        tokenizer: Any = None,
        /,
        *,
        postprocess: Optional[Callable[[str], str]] = None,
        skip_special_tokens: bool = True,
        num_samples: int = 5,
        signature: bool = False,
        all_reduce: bool = False,
        options: Optional[MetricOptions] = None,
        **keywords: Unpack[BleuOptionKeywords],
    ) -> None:
        given = cast(Dict[str, Any], keywords)  # may hold what is not an option: tokenizer=
        if "tokenizer" in given:
            if tokenizer is not None:
                raise TypeError(
                    "tokenizer= given besides the tokenizer: the first argument is the Hugging Face tokenizer "
                    f"that decodes ids; BLEU's tokenizer option is tokenize= (tokenize={given['tokenizer']!r})"
                )
            tokenizer = given.pop("tokenizer")  # BleuComputeMetrics(tokenizer=tok)
        if isinstance(tokenizer, str):
            raise TypeError(
                f"tokenizer must be a Hugging Face tokenizer (it decodes the ids), got the string {tokenizer!r}; "
                f"BLEU's tokenizer option is tokenize= (tokenize={tokenizer!r})"
            )
        if not hasattr(tokenizer, "batch_decode"):
            raise TypeError(
                f"tokenizer must have a batch_decode method (a transformers tokenizer), "
                f"got {type(tokenizer).__name__}"
            )
        if postprocess is not None and not callable(postprocess):
            raise TypeError(f"postprocess must be callable, got {type(postprocess).__name__}")
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 0:
            raise ValueError(f"num_samples must be an int >= 0, got {num_samples!r}")
        self.tokenizer = tokenizer
        resolved = resolve_options(options, keywords)
        if not isinstance(resolved, BleuOptions):
            raise TypeError(
                "BleuComputeMetrics scores BLEU: options must be BleuOptions, got "
                f"{type(resolved).__name__}"
            )
        self.options = resolved
        # Sample rows are scored as sacrebleu.sentence_bleu does by default: effective order on.
        self.sentence_options = self.options.sentence_level()
        self.postprocess = postprocess
        self.skip_special_tokens = bool(skip_special_tokens)
        self.num_samples = num_samples
        self.signature = bool(signature)
        self.all_reduce = bool(all_reduce)
        self.last_samples: List[Dict[str, Any]] = []
        self.last_signature: Optional[str] = None
        self.num_examples: Optional[int] = None
        self.reset()

    def reset(self) -> None:
        """Forget a streaming evaluation in progress (the next batch starts a new one)."""
        self._sums = StatisticsAccumulator(self.options, extras=("gen_tokens",))
        self._samples: List[Dict[str, Any]] = []

    def __call__(self, eval_pred: Any, compute_result: Optional[bool] = None) -> Dict[str, Any]:
        """Score an ``EvalPrediction`` (or a ``(predictions, labels)`` pair).

        ``compute_result=None`` (the Trainer's default mode) scores this call's sentences alone;
        ``False``/``True`` stream as described in the class docstring.
        """
        predictions, labels, inputs = _unpack(eval_pred)
        hyps, gen_tokens = self._decode(predictions, "predictions")
        n_rows = len(hyps)
        refs, _ = self._decode(labels, "label_ids")
        if len(hyps) != len(refs):
            raise ValueError(
                f"predictions have {len(hyps)} sequences but label_ids have {len(refs)}: "
                "each prediction needs the labels of the same example"
            )
        if compute_result is None:
            self.reset()
        if self.num_examples is not None:
            keep = max(self.num_examples - self._sums.n_rows, 0)
            hyps, refs, gen_tokens = hyps[:keep], refs[:keep], gen_tokens[:keep]
        if hyps:
            stats = self._sums.add_text(hyps, refs, gen_tokens=sum(gen_tokens))
            self._keep_samples(stats, hyps, refs, inputs, n_rows)
        if compute_result is False:
            return {}
        sums = self._sums
        if self.all_reduce:
            sums.all_reduce()
        self.last_samples = self._samples
        self.num_examples = None
        self.reset()
        return self._result(sums)

    def _result(self, sums: StatisticsAccumulator) -> Dict[str, Any]:
        if sums.n_rows == 0:
            raise ValueError("no predictions were given: BLEU needs at least one sentence")
        result = sums.result()
        assert isinstance(result, BleuResult)
        out: Dict[str, Any] = {"bleu": result.score}
        for n, precision in enumerate(result.precisions, start=1):
            out[f"precision_{n}"] = precision
        out.update(
            bp=result.bp,
            sys_len=result.sys_len,
            ref_len=result.ref_len,
            gen_len=sums.counters["gen_tokens"] / sums.n_rows,
        )
        self.last_signature = result.signature
        if self.signature:
            out["signature"] = result.signature
        return out

    def _decode(self, ids: Any, what: str) -> Tuple[List[str], List[int]]:
        rows = _id_rows(ids, what)
        if not rows:  # some tokenizers decode an empty batch as one empty string
            return [], []
        pad = getattr(self.tokenizer, "pad_token_id", None)
        gen_tokens = [int(np.count_nonzero(row != pad)) if pad is not None else len(row) for row in rows]
        try:
            texts = self.tokenizer.batch_decode(
                [row.tolist() for row in rows], skip_special_tokens=self.skip_special_tokens
            )
        except OverflowError as err:
            raise _overflow(rows, what, err) from None
        if self.postprocess is not None:
            texts = [self.postprocess(t) for t in texts]
            for i, t in enumerate(texts):
                if not isinstance(t, str):
                    raise TypeError(f"postprocess must return a str, got {type(t).__name__} (item {i})")
        return list(texts), gen_tokens

    def _keep_samples(
        self, stats: Statistics, hyps: List[str], refs: List[str], inputs: Any, n_rows: int
    ) -> None:
        wanted = min(self.num_samples - len(self._samples), len(hyps))
        if wanted <= 0:
            return
        sources: Sequence[Optional[str]] = [None] * wanted
        if isinstance(inputs, Mapping):
            inputs = inputs.get("input_ids")
        if isinstance(inputs, tuple):
            inputs = inputs[0]
        # Under several processes the Trainer gathers predictions but passes this process's own
        # batch of inputs; rows would not line up, so sources are only shown when counts agree.
        if inputs is not None and len(inputs) == n_rows:
            sources, _ = self._decode(inputs[:wanted], "inputs")
        scores = sentence_scores_from_statistics(stats[:wanted], self.sentence_options)
        for i in range(wanted):
            self._samples.append(
                {
                    "source": sources[i],
                    "reference": refs[i],
                    "prediction": hyps[i],
                    "sentence_bleu": float(scores[i]),
                }
            )


def _unpack(eval_pred: Any) -> Tuple[Any, Any, Any]:
    if hasattr(eval_pred, "predictions") and hasattr(eval_pred, "label_ids"):
        return eval_pred.predictions, eval_pred.label_ids, getattr(eval_pred, "inputs", None)
    if isinstance(eval_pred, (tuple, list)) and len(eval_pred) == 2:
        return eval_pred[0], eval_pred[1], None
    raise TypeError(
        "compute_metrics expects an EvalPrediction or a (predictions, label_ids) pair, "
        f"got {type(eval_pred).__name__}"
    )


def _overflow(rows: List[np.ndarray], what: str, err: OverflowError) -> ValueError:
    """The tokenizer could not take an id (the Rust tokenizers read 32-bit ids): say which."""
    for i, row in enumerate(rows):
        if row.size and int(row.max()) > 2**32 - 1:
            return ValueError(
                f"{what}[{i}] holds the token id {int(row.max())}, which the tokenizer cannot decode ({err}); "
                "token ids must lie in the tokenizer's vocabulary"
            )
    return ValueError(f"the tokenizer cannot decode {what} ({err})")


def _to_numpy(array: Any) -> np.ndarray:
    if is_torch_tensor(array):
        array = array.detach()
        if array.is_floating_point() and str(array.dtype) not in ("torch.float16", "torch.float32", "torch.float64"):
            # numpy has no bfloat16 (or float8): float32 holds every such value exactly.
            array = array.float()
        return array.cpu().numpy()
    return np.asarray(array)


def _id_rows(ids: Any, what: str) -> List[np.ndarray]:
    """Token-id rows without ignored (negative) positions, from any supported layout."""
    if ids is None:
        raise ValueError(f"{what} is None: BLEU needs generated ids and labels")
    if isinstance(ids, tuple):
        # Model outputs: the first element holds the tokens or logits.
        ids = ids[0]
    if isinstance(ids, list) and ids and not np.isscalar(ids[0]):
        rows = [_to_numpy(row) for row in ids]
        if any(row.ndim != 1 for row in rows):
            raise ValueError(f"{what} as a list must hold one 1-D id sequence per example")
        return [_drop_ignored(_integral(row, what)) for row in rows]
    array = _to_numpy(ids)
    if array.ndim == 3:
        if not np.issubdtype(array.dtype, np.floating):
            raise ValueError(f"{what} has 3 dimensions but is not floating point: expected logits")
        array = array.argmax(-1)
    if array.ndim != 2:
        raise ValueError(
            f"{what} must be a (batch, length) array of token ids or (batch, length, vocab) logits, "
            f"got shape {array.shape}"
        )
    array = _integral(array, what)
    return [_drop_ignored(row) for row in array]


def _integral(array: np.ndarray, what: str) -> np.ndarray:
    if array.dtype == object:
        raise TypeError(f"{what} must hold token ids (integers), got objects")
    if np.issubdtype(array.dtype, np.integer):
        check_id_array(array, what)  # uint64 ids above 2**63 - 1 would wrap to "ignored" negative ids
        return array.astype(np.int64, copy=False)
    if np.issubdtype(array.dtype, np.floating) and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
        # Gathered or padded ids sometimes arrive as floats; whole numbers are still ids.
        return array.astype(np.int64)
    raise TypeError(f"{what} must hold integer token ids, got dtype {array.dtype}")


def _drop_ignored(row: np.ndarray) -> np.ndarray:
    return row[row >= 0]


def samples_table(samples: Sequence[Mapping[str, Any]]) -> str:
    """Markdown table of sample translations (what TensorBoard's text tab shows for ``BleuCallback``).

    >>> print(samples_table([{"source": "s1 s2", "reference": "a|b", "prediction": "a b",
    ...                       "sentence_bleu": 0.0}]))
    | source | reference | prediction | sentence BLEU |
    |---|---|---|---|
    | s1 s2 | a\\|b | a b | 0.00 |
    """
    lines = ["| source | reference | prediction | sentence BLEU |", "|---|---|---|---|"]
    for s in samples:
        cells = [s.get("source") or "", s["reference"], s["prediction"]]
        cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in cells]
        lines.append("| " + " | ".join(cells) + f" | {s['sentence_bleu']:.2f} |")
    return "\n".join(lines)


class BleuCallback(TrainerCallback):
    """At each evaluation: record the BLEU, log the signature once and sample translations.

    ``metric`` is the ``BleuComputeMetrics`` given to the Trainer; ``trainer`` is the Trainer (without
    it nothing is logged, and the callback only keeps ``history`` and ``last_table``).

    - ``history`` holds ``{"step", "epoch", "bleu"}`` per evaluation.
    - The signature goes through ``trainer.log`` as ``<prefix>_bleu_signature`` at the first
      evaluation of each log history (``train()`` starts a new one), and again only if it changes:
      one line on the console, one entry in ``trainer_state.json``, TensorBoard's text tab, W&B;
      not a column of every evaluation.
    - The metric's ``last_samples`` (sources appear with ``TrainingArguments(include_for_metrics=
      ["inputs"])``) become a ``wandb.Table`` when a W&B run is active and a markdown table in
      TensorBoard's text tab when TensorBoard logs, both under ``<prefix>/bleu_samples`` (as those
      loggers name the rest) at the evaluation's step. They stay out of the console and the log
      history, where a table is a wall of text; ``last_table`` keeps the last one as markdown.
    - In multi-process runs it keeps the sampler's padding out of the score (see
      ``BleuComputeMetrics.num_examples``).

    >>> class Tokenizer:
    ...     def batch_decode(self, rows, skip_special_tokens=True):
    ...         return [" ".join(map(str, row)) for row in rows]
    >>> cb = BleuCallback(BleuComputeMetrics(Tokenizer()))
    >>> cb.history
    []
    """

    def __init__(self, metric: BleuComputeMetrics, trainer: Any = None) -> None:
        if not isinstance(metric, BleuComputeMetrics):
            raise TypeError(f"metric must be a BleuComputeMetrics, got {type(metric).__name__}")
        self.metric = metric
        self.trainer = trainer
        self.history: List[Dict[str, Any]] = []
        self.last_table: Optional[str] = None
        self._logged_signature: Optional[Tuple[Any, str]] = None  # (the log history, the signature)

    def on_prediction_step(self, args, state, control, eval_dataloader=None, **kwargs):
        # Runs after the gather and before compute_metrics: the moment to tell the metric how
        # many gathered rows are real examples (see BleuComputeMetrics.num_examples).
        if args.world_size > 1 and not self.metric.all_reduce and eval_dataloader is not None:
            try:
                self.metric.num_examples = len(eval_dataloader.dataset)
            except TypeError:  # an iterable dataset has no length: nothing to cap
                pass

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        keys = [k for k in (metrics or {}) if k == "bleu" or k.endswith("_bleu")]
        if not keys:
            return
        key = keys[0]
        self.history.append({"step": state.global_step, "epoch": state.epoch, "bleu": metrics[key]})
        signature = self.metric.last_signature
        logged = self._logged_signature
        if self.trainer is not None and signature is not None and (
            logged is None or logged[0] is not state.log_history or logged[1] != signature
        ):
            self._logged_signature = (state.log_history, signature)
            self.trainer.log({key + "_signature": signature})
        if not self.metric.last_samples:
            return
        self.last_table = samples_table(self.metric.last_samples)
        if self.trainer is not None:
            _log_samples(self.trainer, key + "_samples", self.metric.last_samples, self.last_table, state.global_step)


SAMPLE_COLUMNS = ["source", "reference", "prediction", "sentence BLEU"]


def _log_samples(trainer: Any, key: str, samples: Sequence[Mapping[str, Any]], table: str, step: int) -> None:
    # Only the loggers that render a table get one, each in its own form, straight to the logger:
    # trainer.log would also send it to the console and to number-only loggers (MLflow warns).
    from transformers.integrations import TensorBoardCallback, WandbCallback
    from transformers.integrations.integration_utils import rewrite_logs

    [key] = rewrite_logs({key: None})  # eval_bleu_samples -> eval/bleu_samples, as those loggers name the rest
    for callback in trainer.callback_handler.callbacks:
        if isinstance(callback, TensorBoardCallback) and callback.tb_writer is not None:
            callback.tb_writer.add_text(key, table, step)
        elif isinstance(callback, WandbCallback):
            import wandb

            if wandb.run is not None:
                rows = [[s.get("source") or "", s["reference"], s["prediction"], s["sentence_bleu"]] for s in samples]
                columns: List[Any] = list(SAMPLE_COLUMNS)
                # train/global_step: the x axis WandbCallback defines for everything it logs
                wandb.log({key: wandb.Table(columns=columns, data=rows), "train/global_step": step})
