"""lm-evaluation-harness plug-in: corpus BLEU, chrF, chrF++ and TER scored as sacreBLEU does, with
the tokenizer of the target language, the full bootstrap standard error, and a corpus paired test.

lm-eval's own ``bleu``/``chrf``/``ter`` use 13a for every language and cap their bootstrap standard
error at 100 resamples (``min(bootstrap_iters, 100)``, because sacreBLEU rescores every resample).
Importing this module registers, in lm-eval's registries, the metrics and aggregations
``bleukit_bleu``, ``bleukit_chrf``, ``bleukit_chrf++`` and ``bleukit_ter`` (the last one when
bleukit has the TER metric), for any metric of :mod:`bleukit.metrics` through its options:

- each document's metric value is a :class:`Item` (its references, the prediction and the option
  keywords, JSON-ready, so ``--log_samples`` files hold what was scored); the option keywords of
  the task's ``metric_list`` entry (``tokenize: intl``, ``lowercase: true``, ``word_order: 2``, ...)
  and ``target_lang: zh`` or ``language_pair: en-zh`` (picks ``zh``/``ja-mecab``/``ko-mecab`` as
  sacreBLEU's ``-l``) set the options; lm-eval hands a metric one target string per document, so
  several references come as one string cut by ``reference_separator: "\t"`` (``doc_to_target:
  "{{refs | join('\t')}}"``);
- the aggregation (:data:`AGGREGATIONS`, :func:`corpus_score`) scores all items as one corpus (one
  statistics row each); it also reads lm-eval's own ``bleu``/``chrf``/``ter`` items, ``(reference,
  prediction)``, so a task may keep lm-eval's metric and swap only its ``aggregation: bleukit_bleu``;
- the standard error is lm-eval's own bootstrap at the requested ``bootstrap_iters``, uncapped:
  the same resamples (``random.Random(chunk).choices``), each scored from the summed statistics
  rows instead of re-tokenizing the corpus, so it equals ``lm_eval.api.metrics.bootstrap_stderr``
  of sacreBLEU's score in milliseconds (lm-eval asks aggregations for no standard error, so
  :func:`register` wraps ``lm_eval.evaluator_utils.stderr_for_metric``; other metrics are untouched).

:func:`paired_test_samples` compares two runs' ``--log_samples`` files with sacreBLEU's paired
bootstrap or approximate randomization on statistics rows (a corpus metric's difference is not a
mean of per-document differences).

>>> item = METRIC_FUNCTIONS["bleukit_bleu"](references=["Das ist gut."], predictions=["Das ist gut."])
>>> item.references, item.prediction, item.options
(['Das ist gut.'], 'Das ist gut.', {'metric': 'bleu'})
>>> round(corpus_score([item]), 2)
100.0
>>> METRIC_FUNCTIONS["bleukit_bleu"](references=["我喜欢猫。"], predictions=["我喜欢狗。"], target_lang="zh").options
{'metric': 'bleu', 'tokenize': 'zh'}
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import lm_eval.api.registry as lm_registry
import lm_eval.evaluator_utils as lm_evaluator_utils

from bleukit.analysis.significance import DEFAULT_SEED, PairedResult, paired_test
from bleukit.inputs import check_hypotheses
from bleukit.integrations._harness import harness_bootstrap_scores
from bleukit.integrations.rewards import options_for_language, target_language
from bleukit.metrics import available_metrics, get_metric
from bleukit.metrics.base import MetricOptions
from bleukit.pipeline import corpus_statistics, score_statistics

__all__ = [
    "AGGREGATIONS",
    "METRIC_FUNCTIONS",
    "Item",
    "bootstrap_stderr",
    "corpus_score",
    "paired_test_samples",
    "read_samples",
    "register",
]

#: lm-eval metric name -> (bleukit metric, the option keywords that name implies). A metric whose
#: package is absent (TER before it lands) is left out; nothing else here names a metric.
_SPECS: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "bleukit_bleu": ("bleu", {}),
    "bleukit_chrf": ("chrf", {}),
    "bleukit_chrf++": ("chrf", {"word_order": 2}),
    "bleukit_ter": ("ter", {}),
}
# Keywords of a metric_list entry that choose the target language rather than an option.
_LANGUAGE_KEYS = ("target_lang", "language_pair")


class Item(NamedTuple):
    """One document's metric value: its references, the model's prediction and the option keywords
    (``{"metric": name, **non-default options}``). A tuple, so lm-eval logs it as a JSON list."""

    references: List[str]
    prediction: str
    options: Dict[str, Any]


def _options_keywords(options: MetricOptions) -> Dict[str, Any]:
    """``{"metric": name}`` plus the options that differ from the metric's defaults."""
    defaults = type(options)()
    changed = {k: v for k, v in options.to_dict().items() if getattr(defaults, k) != v}
    return {"metric": options.metric, **changed}


def _options_from_keywords(keywords: Mapping[str, Any]) -> MetricOptions:
    if not isinstance(keywords, Mapping) or "metric" not in keywords:
        raise TypeError(f"an item's options must be a mapping with a 'metric' key, got {keywords!r}")
    rest = {k: (tuple(v) if isinstance(v, list) else v) for k, v in keywords.items() if k != "metric"}
    return get_metric(keywords["metric"]).options_type.from_keywords(rest)


def _metric_function(lm_name: str, metric: str, implied: Dict[str, Any]) -> Callable[..., Item]:
    def score_item(references: Any = None, predictions: Any = None, **keywords: Any) -> Item:
        if references is None or predictions is None:
            # lm-eval falls back to fn([gold, result]) on a TypeError (its passthrough metrics).
            raise TypeError(f"{lm_name} takes references= and predictions= (lm-eval's metric call)")
        preds = check_hypotheses(predictions)
        if len(preds) != 1 or len(references) != 1:
            raise ValueError(f"{lm_name} scores one document at a time, got {len(preds)} predictions")
        gold = references[0]
        separator = keywords.pop("reference_separator", None)
        if separator is not None and (not isinstance(separator, str) or not separator):
            raise TypeError(f"{lm_name}: reference_separator must be a non-empty str, got {separator!r}")
        if separator is not None and isinstance(gold, str):
            # lm-eval turns a list target into its str() (unless multiple_target, which scores each
            # reference alone), so several references travel as one string cut here.
            gold = gold.split(separator)
        refs = [gold] if isinstance(gold, str) else list(gold)
        if not refs or not all(isinstance(r, str) for r in refs):
            raise TypeError(f"{lm_name}: a document's target must be a str or a list of str, got {gold!r}")
        pair = {k: keywords.pop(k) for k in _LANGUAGE_KEYS if k in keywords}
        if len(pair) > 1:
            raise TypeError("give target_lang or language_pair, not both")
        options = get_metric(metric).options_type.from_keywords({**implied, **keywords})
        if pair:
            options = options_for_language(options, target_language(next(iter(pair.values()))))
        return Item(refs, preds[0], _options_keywords(options))

    score_item.__name__ = score_item.__qualname__ = lm_name
    score_item.__doc__ = f"lm-eval metric {lm_name!r}: one document's :class:`Item` for {metric} (see the module)."
    return score_item


#: lm-eval metric name -> its per-document function (``fn(references=[gold], predictions=[pred],
#: **metric_list_keywords)``), for the metrics bleukit has.
METRIC_FUNCTIONS: Dict[str, Callable[..., Item]] = {
    name: _metric_function(name, metric, implied)
    for name, (metric, implied) in _SPECS.items()
    if metric in available_metrics()
}


def _pair(item: Sequence[Any], k: int) -> Tuple[str, List[str]]:
    """The prediction and references of lm-eval's own ``bleu``/``chrf``/``ter`` item, ``(reference,
    prediction)``: the reference a str or a list of them, the prediction a str or a list of one."""
    gold, prediction = item
    if isinstance(prediction, (list, tuple)) and len(prediction) == 1:
        prediction = prediction[0]  # lm-eval's _sacreformat takes a list of one prediction
    references = [gold] if isinstance(gold, str) else gold
    if (
        not isinstance(prediction, str)
        or not isinstance(references, (list, tuple))
        or not references
        or not all(isinstance(r, str) for r in references)
    ):
        raise TypeError(
            f"item {k} must be lm-eval's (reference, prediction) with str texts (the reference may be a list of "
            f"str), got ({type(gold).__name__}, {type(prediction).__name__})"
        )
    return prediction, list(references)


def _items(items: Iterable[Any], metric: Optional[str] = None) -> Tuple[List[str], List[List[str]], MetricOptions]:
    """Predictions, references and the one options object of a list of items (or logged lists).
    With ``metric`` (an lm-eval metric name of this module), lm-eval's own ``(reference,
    prediction)`` items are read too, scored with that metric's options."""
    hyps: List[str] = []
    refs: List[List[str]] = []
    keywords: Optional[Mapping[str, Any]] = None
    pair_options = None if metric is None else _options_keywords(_implied_options(metric))
    pair_counts = set()
    for k, item in enumerate(items):
        if pair_options is not None and isinstance(item, (list, tuple)) and len(item) == 2:
            prediction, references = _pair(item, k)
            options = pair_options
            pair_counts.add(len(references))
        elif isinstance(item, (list, tuple)) and len(item) == 3:
            references, prediction, options = item
        else:
            pairs = (
                f", or lm-eval's (reference, prediction) as its aggregation {metric!r} reads them"
                if metric is not None
                else " (lm-eval's own (reference, prediction) items: use the aggregation of a metric name, "
                f"{', '.join(AGGREGATIONS)})"
            )
            raise TypeError(
                f"item {k} must be an Item (references, prediction, options) from a bleukit lm-eval metric"
                f"{pairs}, got {type(item).__name__}"
                + (f" of {len(item)}" if isinstance(item, (list, tuple)) else "")
            )
        if keywords is None:
            keywords = options
        elif options != keywords:
            raise ValueError(f"items were scored with different options ({keywords} and {options})")
        hyps.append(prediction)
        refs.append(references)
    if len(pair_counts) > 1:
        # lm-eval's own aggregation zips the documents' references, keeping only as many as the
        # document with fewest has: refuse rather than give a number that is neither its nor sacreBLEU's.
        raise ValueError(
            f"lm-eval's (reference, prediction) items have different numbers of references "
            f"({', '.join(map(str, sorted(pair_counts)))}); lm-eval's own aggregation would drop references "
            "beyond the smallest number. Give every document the same references, or use the metric "
            f"{metric!r} itself (its items keep every document's references)"
        )
    if keywords is None:
        raise ValueError("no items to score")
    return hyps, refs, _options_from_keywords(keywords)


def _implied_options(metric: str) -> MetricOptions:
    """The options of lm-eval metric name ``metric`` of this module, without task keywords."""
    name, implied = _SPECS[metric]
    return get_metric(name).options_type.from_keywords(implied)


def corpus_score(items: Sequence[Any], metric: Optional[str] = None) -> float:
    """The corpus score of every document's :class:`Item` (sacreBLEU's corpus score of the
    predictions against their references, with the items' options). With ``metric``, one of
    :data:`METRIC_FUNCTIONS`' names, lm-eval's own ``(reference, prediction)`` items (what its
    ``bleu``/``chrf``/``ter`` metrics hand their aggregation) are scored too, with that metric's
    options: :data:`AGGREGATIONS` holds the registered aggregation of each name.

    >>> f = METRIC_FUNCTIONS["bleukit_chrf"]
    >>> items = [f(references=["a cat"], predictions=["a cat"]), f(references=["dog"], predictions=["cat"])]
    >>> round(corpus_score(items), 4)
    70.9524
    >>> round(corpus_score([("a cat", "a cat"), ("dog", "cat")], "bleukit_chrf"), 4)
    70.9524
    """
    hyps, refs, options = _items(items, metric)
    return float(score_statistics(corpus_statistics(hyps, refs, options=options), options).score)


def bootstrap_stderr(items: Sequence[Any], iters: int, metric: Optional[str] = None) -> float:
    """lm-eval's bootstrap standard error of :func:`corpus_score` with ``iters`` resamples: its
    resampling scheme (chunks of ``min(1000, iters)`` resamples, chunk ``i`` drawn by
    ``random.Random(i)``, ``iters // chunk`` chunks) and its sample standard deviation, so the value
    equals ``lm_eval.api.metrics.bootstrap_stderr`` of sacreBLEU's score with the same ``iters``;
    each resample is scored from summed statistics rows. ``metric`` as for :func:`corpus_score`.

    >>> f = METRIC_FUNCTIONS["bleukit_bleu"]
    >>> pairs = [("a b c d", "a b c d"), ("a b c e", "a b c d"), ("x y z w", "x y z")]
    >>> items = [f(references=[r], predictions=[h]) for h, r in pairs]
    >>> round(bootstrap_stderr(items, 1000), 4)
    14.9062
    """
    hyps, refs, options = _items(items, metric)
    scores = harness_bootstrap_scores(corpus_statistics(hyps, refs, options=options), options, iters)
    # lm-eval's sample_stddev, in its floating-point order
    mu = sum(scores) / len(scores)
    return math.sqrt(sum([(x - mu) ** 2 for x in scores]) / (len(scores) - 1))


def _aggregation(lm_name: str) -> Callable[[Sequence[Any]], float]:
    def aggregate(items: Sequence[Any]) -> float:
        return corpus_score(items, lm_name)

    aggregate.__name__ = aggregate.__qualname__ = lm_name
    aggregate.__doc__ = (
        f"lm-eval aggregation {lm_name!r}: :func:`corpus_score` of its items, lm-eval's own "
        "(reference, prediction) items included."
    )
    return aggregate


#: lm-eval aggregation name -> the aggregation registered under it: :func:`corpus_score` of the
#: items, which may also be lm-eval's own ``(reference, prediction)`` items (a task that keeps
#: lm-eval's ``bleu`` metric and sets ``aggregation: bleukit_bleu``).
AGGREGATIONS: Dict[str, Callable[[Sequence[Any]], float]] = {name: _aggregation(name) for name in METRIC_FUNCTIONS}
_AGGREGATION_NAMES = {function: name for name, function in AGGREGATIONS.items()}


def _stderr_for_metric(original: Callable[..., Any]) -> Callable[..., Any]:
    """lm-eval's ``stderr_for_metric`` that answers :func:`bootstrap_stderr` for :func:`corpus_score`."""

    def stderr_for_metric(metric: Callable[..., Any], bootstrap_iters: int) -> Any:
        if isinstance(bootstrap_iters, int) and bootstrap_iters > 0:
            if metric is corpus_score:
                return lambda items: bootstrap_stderr(items, bootstrap_iters)
            if metric in _AGGREGATION_NAMES:
                return lambda items: bootstrap_stderr(items, bootstrap_iters, _AGGREGATION_NAMES[metric])
        return original(metric, bootstrap_iters)

    stderr_for_metric.bleukit_wraps = original  # type: ignore[attr-defined]
    return stderr_for_metric


def register() -> List[str]:
    """Register the metrics and their aggregation in lm-eval's registries (done on import; calling
    it again changes nothing) and answer their standard error with :func:`bootstrap_stderr`.
    Returns the metric names.

    >>> register()
    ['bleukit_bleu', 'bleukit_chrf', 'bleukit_chrf++'...]
    """
    for name, function in METRIC_FUNCTIONS.items():
        if name not in lm_registry.metric_registry:
            lm_registry.aggregation_registry.register(name, target=AGGREGATIONS[name])
            lm_registry.register_metric(
                metric=name,
                higher_is_better=get_metric(_SPECS[name][0]).higher_is_better,
                output_type="generate_until",
                aggregation=name,
            )(function)
    current = lm_evaluator_utils.stderr_for_metric
    if not hasattr(current, "bleukit_wraps"):
        # lm-eval computes standard errors in evaluator_utils with the stderr_for_metric it imported,
        # whose list of bootstrappable aggregations is fixed: wrapping that name is the one hook.
        lm_evaluator_utils.stderr_for_metric = _stderr_for_metric(current)
    return list(METRIC_FUNCTIONS)


def read_samples(path: Union[str, "os.PathLike[str]"], metric: str = "bleukit_bleu") -> Dict[int, Item]:
    """The items of ``metric`` in an lm-eval ``--log_samples`` file (``samples_<task>_<date>.jsonl``),
    by ``doc_id``.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "samples_mt_2026.jsonl"
    >>> _ = path.write_text(json.dumps({"doc_id": 0, "bleukit_bleu": [["a b"], "a b", {"metric": "bleu"}]}) + "\\n")
    >>> read_samples(path)
    {0: Item(references=['a b'], prediction='a b', options={'metric': 'bleu'})}
    """
    items: Dict[int, Item] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            sample = json.loads(line)
            if metric not in sample:
                raise ValueError(
                    f"{path}:{number} has no {metric!r} value (metrics logged: {sample.get('metrics', '?')}); "
                    "run the task with that metric and --log_samples"
                )
            value = sample[metric]
            if not isinstance(value, list) or len(value) != 3:
                raise ValueError(f"{path}:{number}: {metric!r} is not a bleukit item ({value!r})")
            references, prediction, options = value
            items[int(sample["doc_id"])] = Item(list(references), prediction, dict(options))
    if not items:
        raise ValueError(f"{path} holds no samples")
    return items


def paired_test_samples(
    runs: Mapping[str, Union[str, "os.PathLike[str]"]],
    metric: str = "bleukit_bleu",
    *,
    method: str = "bs",
    n_samples: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
) -> List[PairedResult]:
    """Paired significance test between runs of the same task, from their ``--log_samples`` files
    (``runs`` maps names to files; the first is the baseline): sacreBLEU's paired bootstrap
    (``method="bs"``) or approximate randomization (``"ar"``) on the documents' statistics rows, as
    :func:`bleukit.analysis.significance.paired_test`. Every run must hold the same documents with the same
    references and options.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> refs = ["the cat sat on the mat", "a dog barked", "it is raining today"]
    >>> for name, hyps in [("base", ["the cat sat on a mat", "the dog barked", "it rains today"]),
    ...                    ("new", ["the cat sat on the mat", "a dog barked", "it is raining now"])]:
    ...     items = [[[r], h, {"metric": "bleu"}] for h, r in zip(hyps, refs)]
    ...     lines = [json.dumps({"doc_id": i, "bleukit_bleu": item}) for i, item in enumerate(items)]
    ...     _ = (folder / f"{name}.jsonl").write_text("\\n".join(lines))
    >>> base, new = paired_test_samples({"base": folder / "base.jsonl", "new": folder / "new.jsonl"}, n_samples=200)
    >>> round(new.score, 2), new.p_value
    (85.49, 0.004975124378109453)
    """
    if not isinstance(runs, Mapping) or len(runs) < 2:
        raise TypeError("runs must map at least two run names to their --log_samples files")
    read = {name: read_samples(path, metric) for name, path in runs.items()}
    (base_name, base), *others = read.items()
    doc_ids = sorted(base)
    for name, items in others:
        if sorted(items) != doc_ids:
            raise ValueError(f"runs {base_name!r} and {name!r} hold different documents: pair runs of the same task")
        for doc in doc_ids:
            if items[doc].references != base[doc].references or items[doc].options != base[doc].options:
                raise ValueError(
                    f"document {doc} has different references or options in {base_name!r} and {name!r}"
                )
    _, references, options = _items(base[d] for d in doc_ids)
    systems = {name: [items[d].prediction for d in doc_ids] for name, items in read.items()}
    return paired_test(systems, references, method=method, n_samples=n_samples, seed=seed, options=options)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m bleukit.integrations.lm_eval BASELINE.jsonl SYSTEM.jsonl [...]``: the paired test
    of :func:`paired_test_samples` on ``--log_samples`` files, one line per run (name, score,
    p-value, and the bootstrap mean and interval with ``--method bs``), as JSON with ``--json``.

    >>> main(["--help"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    SystemExit: 0
    """
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bleukit.integrations.lm_eval",
        description="Paired significance test of lm-eval runs from their --log_samples files (the first is the "
        "baseline), on corpus scores as sacreBLEU's --paired-bs/--paired-ar.",
    )
    parser.add_argument("samples", nargs="+", help="samples_<task>_<date>.jsonl files of runs of the same task")
    parser.add_argument("--metric", default="bleukit_bleu", help="the logged bleukit metric (default: %(default)s)")
    parser.add_argument("--method", choices=("bs", "ar"), default="bs", help="paired bootstrap or approximate "
                        "randomization (default: %(default)s)")
    parser.add_argument("--n-samples", type=int, default=None, help="resamples or trials (1000 / 10000)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    args = parser.parse_args(argv)
    if len(args.samples) < 2:
        parser.error("give at least two --log_samples files: a baseline and a run to compare")
    runs = {f"{k}:{path}": path for k, path in enumerate(args.samples)}
    results = paired_test_samples(runs, args.metric, method=args.method, n_samples=args.n_samples, seed=args.seed)
    if args.json:
        print(json.dumps([r.to_dict() for r in results], ensure_ascii=False))
        return 0
    for r in results:
        line = f"{r.name}  {r.result.name} = {r.score:.2f}"
        if r.mean is not None and r.ci is not None:
            line += f" (μ = {r.mean:.2f} ± {r.ci:.2f})"
        line += "  baseline" if r.p_value is None else f"  p = {r.p_value:.4f}"
        print(line)
    print(results[-1].result.signature)
    return 0


register()

if __name__ == "__main__":
    raise SystemExit(main())
