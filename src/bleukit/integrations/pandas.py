"""pandas adapter: corpus scores of a DataFrame's columns, per group of another column, with CIs.

A DataFrame is in memory, so this is the core itself on its columns: ``score_dataframe(df, "hyp",
"ref", group_by="domain", n_bootstrap=1000)`` is ``bleukit.corpus_bleu(df["hyp"], references,
group_by=df["domain"], n_bootstrap=1000)``, the references read from one or several columns as the
Ray and datasets adapters read them (a string, a list of strings or ``None`` per cell). Any metric
through ``options=``. Needs pandas (``pip install 'bleukit[pandas]'``), imported only when this
module is.

>>> import pandas as pd
>>> df = pd.DataFrame({"hyp": ["The cat sat on the mat.", "It is raining.", "A dog barked."],
...                    "ref": ["The cat sat on the mat.", "It rains.", "A dog barked loudly."],
...                    "domain": ["news", "chat", "news"]})
>>> r = score_dataframe(df, "hyp", "ref", group_by="domain")
>>> round(r.score, 2), {k: round(g.score, 2) for k, g in r.groups.items()}
(71.19, {'chat': 19.0, 'news': 80.68})
>>> add_sentence_bleu(df, "hyp", "ref")["bleu"].round(2).tolist()
[100.0, 19.0, 49.76]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, List, Optional

import numpy as np
import pandas as pd

from bleukit.analysis.groups import score_by_group
from bleukit.analysis.significance import with_bootstrap
from bleukit.defaults import DEFAULT_SEED, DEFAULT_THREADS
from bleukit.metrics import metric_for, resolve_options
from bleukit.metrics.base import MetricOptions, MetricResult
from bleukit.pipeline import corpus_statistics, sentence_scores_from_statistics

from ._columns import Columns, check_column_names, references_of_rows, require_columns

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bleukit.metrics.bleu.options import BleuOptionKeywords

__all__ = ["score_dataframe", "add_sentence_bleu"]


def _frame(df: Any) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    return df


def _cells(column: pd.Series) -> List[Any]:
    """A reference column's cells, a missing one (``None``, ``NaN``, ``pd.NA``: pandas' string
    columns hold ``NaN``) as ``None``."""
    return [None if not isinstance(v, (list, tuple, np.ndarray)) and pd.isna(v) else v for v in column.tolist()]


def _inputs(df: pd.DataFrame, hyp: str, refs: tuple) -> tuple:
    hypotheses: List[Any] = df[hyp].tolist()
    references = references_of_rows([_cells(df[r]) for r in refs])
    return hypotheses, references


def _labels(df: pd.DataFrame, keys: tuple) -> List[Hashable]:
    if len(keys) == 1:
        labels: List[Hashable] = df[keys[0]].tolist()
        return labels
    return list(zip(*(df[k].tolist() for k in keys)))


def score_dataframe(
    df: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    group_by: Optional[Columns] = None,
    *,
    n_bootstrap: Optional[int] = None,
    seed: Optional[int] = DEFAULT_SEED,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """Corpus BLEU (or the metric of ``options``) of a DataFrame's rows; with ``group_by`` (a column
    name or several: tuples of values key the groups) each group's result in ``.groups``, and with
    ``n_bootstrap`` every result's bootstrap ``mean``/``ci``. Equals ``bleukit.corpus_bleu`` on the
    columns.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"hyp": ["a b c d", "x y z"], "r1": ["a b c d", None], "r2": [None, "x y z"]})
    >>> round(score_dataframe(df, "hyp", ["r1", "r2"], tokenize="none").score, 4)
    100.0
    """
    frame = _frame(df)
    opts = resolve_options(options, keywords)
    hyp, refs, keys = check_column_names(hypothesis_column, reference_columns, group_by)
    require_columns(list(frame.columns), (hyp,) + refs + keys)
    hypotheses, references = _inputs(frame, hyp, refs)
    if keys:
        return score_by_group(hypotheses, references, _labels(frame, keys), n_bootstrap=n_bootstrap, seed=seed,
                              threads=threads, options=opts)
    stats = corpus_statistics(hypotheses, references, options=opts, threads=threads)
    result = metric_for(opts).result(stats, opts)
    return result if n_bootstrap is None else with_bootstrap(result, stats, opts, n_bootstrap, seed)


def add_sentence_bleu(
    df: Any,
    hypothesis_column: str,
    reference_columns: Columns,
    output_column: str = "bleu",
    *,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> pd.DataFrame:
    """A copy of ``df`` with each row's sentence BLEU (float64, sentence defaults) in
    ``output_column``, which must not exist yet (``df`` itself is not changed).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"h": ["a b", "c"], "r": ["a b", "d"]})
    >>> add_sentence_bleu(df, "h", "r", tokenize="none").columns.tolist()
    ['h', 'r', 'bleu']
    """
    frame = _frame(df)
    opts = resolve_options(options, keywords, sentence=True)
    hyp, refs, _ = check_column_names(hypothesis_column, reference_columns)
    require_columns(list(frame.columns), (hyp,) + refs)
    if not isinstance(output_column, str):
        raise TypeError(f"output_column must be a column name (str), got {type(output_column).__name__}")
    if output_column in frame.columns:
        raise ValueError(f"column {output_column!r} already exists; pass another output_column")
    hypotheses, references = _inputs(frame, hyp, refs)
    stats = corpus_statistics(hypotheses, references, options=opts, threads=threads)
    out = frame.copy()
    out[output_column] = np.asarray(sentence_scores_from_statistics(stats, opts), dtype=np.float64)
    return out
