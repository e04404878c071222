"""bleukit: sacreBLEU-exact MT metrics, fast, with statistics you can sum, slice and resample.

The names here are the ones a user types; everything else is one attribute away and imported only
when it is first used (PEP 562), so ``import bleukit`` costs almost nothing.

>>> import bleukit
>>> result = bleukit.corpus_bleu(["The cat sat on the mat."], ["The cat sat on the mat."])
>>> round(result.score, 6)
100.0
"""

from __future__ import annotations

from ._lazy import lazy_attributes
from ._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from typing import Dict

    from ._native import engine_name
    from .accumulator import StatisticsAccumulator
    from .analysis.autorank import AutoRank, autorank
    from .analysis.chrf_explanation import explain_chrf
    from .analysis.diversity import SelfScore, self_bleu, self_bleu_ids
    from .analysis.documents import document_bleu, document_score
    from .analysis.explain import explain_bleu, explain_tokens
    from .analysis.groups import paired_test_by_group, score_by_group
    from .analysis.htmlreport import build_report, write_html_report
    from .analysis.ranking import SystemComparison, compare_systems
    from .analysis.report import CorpusReport, score_report
    from .analysis.score_files import read_scores
    from .analysis.score_table import ScoreTable, score_table
    from .analysis.score_tests import compare_scores
    from .analysis.segment_scores import SegmentScores
    from .analysis.significance import BootstrapCI, PairedResult, bootstrap_ci, bootstrap_scores, paired_test
    from .analysis.ter_explanation import explain_ter
    from .bleu import corpus_bleu, sentence_bleu, sentence_bleu_scores
    from .chrf import corpus_chrf, sentence_chrf, sentence_chrf_scores
    from .compat.variants import VariantTable, compare_variants
    from .evaluate_module import metric_path
    from .inputs import references_from_streams
    from .metrics.base import MetricOptions, MetricResult, Statistics
    from .metrics.bleu.options import OPTION_NAMES, SMOOTH_DEFAULTS, BleuOptions
    from .metrics.bleu.result import BleuResult
    from .metrics.bleu.statistics import BleuStatistics
    from .metrics.chrf.options import ChrfOptions
    from .metrics.chrf.result import ChrfResult
    from .metrics.chrf.statistics import ChrfStatistics
    from .metrics.ter.options import TerOptions
    from .metrics.ter.result import TerResult
    from .metrics.ter.statistics import TerStatistics
    from .pairwise import (
        MBRSelection,
        mbr_select,
        pairwise_bleu,
        pairwise_bleu_ids,
        pairwise_chrf,
        pairwise_scores,
        pairwise_statistics,
    )
    from .pipeline import corpus_statistics, score_statistics, sentence_scores_from_statistics
    from .ter import corpus_ter, sentence_ter, sentence_ter_scores
    from .textbook import bleu_score, bleu_unigram
    from .tokenizers import TOKENIZERS, get_tokenizer

#: The names a user types (``from bleukit import *``).
__all__ = [
    "__version__",
    "corpus_bleu",
    "sentence_bleu",
    "sentence_bleu_scores",
    "BleuOptions",
    "BleuResult",
    "corpus_chrf",
    "sentence_chrf",
    "sentence_chrf_scores",
    "corpus_ter",
    "sentence_ter",
    "sentence_ter_scores",
    "corpus_statistics",
    "score_statistics",
    "StatisticsAccumulator",
    "references_from_streams",
    "bootstrap_ci",
    "paired_test",
    "pairwise_bleu",
    "mbr_select",
    "explain_bleu",
    "score_report",
    "compare_variants",
    "metric_path",
    "engine_name",
]

# name -> module that defines it: the facade imports only downward, and only on first use.
_LAZY: Dict[str, str] = {
    "corpus_bleu": "bleu",
    "sentence_bleu": "bleu",
    "sentence_bleu_scores": "bleu",
    "BleuOptions": "metrics.bleu.options",
    "OPTION_NAMES": "metrics.bleu.options",
    "SMOOTH_DEFAULTS": "metrics.bleu.options",
    "BleuResult": "metrics.bleu.result",
    "BleuStatistics": "metrics.bleu.statistics",
    "corpus_chrf": "chrf",
    "sentence_chrf": "chrf",
    "sentence_chrf_scores": "chrf",
    "ChrfOptions": "metrics.chrf.options",
    "ChrfResult": "metrics.chrf.result",
    "ChrfStatistics": "metrics.chrf.statistics",
    "corpus_ter": "ter",
    "sentence_ter": "ter",
    "sentence_ter_scores": "ter",
    "TerOptions": "metrics.ter.options",
    "TerResult": "metrics.ter.result",
    "TerStatistics": "metrics.ter.statistics",
    "MetricOptions": "metrics.base",
    "MetricResult": "metrics.base",
    "Statistics": "metrics.base",
    "corpus_statistics": "pipeline",
    "score_statistics": "pipeline",
    "sentence_scores_from_statistics": "pipeline",
    "StatisticsAccumulator": "accumulator",
    "references_from_streams": "inputs",
    "bootstrap_ci": "analysis.significance",
    "bootstrap_scores": "analysis.significance",
    "paired_test": "analysis.significance",
    "BootstrapCI": "analysis.significance",
    "PairedResult": "analysis.significance",
    "pairwise_scores": "pairwise",
    "pairwise_bleu": "pairwise",
    "pairwise_bleu_ids": "pairwise",
    "pairwise_chrf": "pairwise",
    "pairwise_statistics": "pairwise",
    "mbr_select": "pairwise",
    "MBRSelection": "pairwise",
    "explain_bleu": "analysis.explain",
    "explain_tokens": "analysis.explain",
    "explain_chrf": "analysis.chrf_explanation",
    "explain_ter": "analysis.ter_explanation",
    "score_report": "analysis.report",
    "CorpusReport": "analysis.report",
    "compare_variants": "compat.variants",
    "self_bleu": "analysis.diversity",
    "self_bleu_ids": "analysis.diversity",
    "SelfScore": "analysis.diversity",
    "compare_systems": "analysis.ranking",
    "SystemComparison": "analysis.ranking",
    "autorank": "analysis.autorank",
    "AutoRank": "analysis.autorank",
    "SegmentScores": "analysis.segment_scores",
    "read_scores": "analysis.score_files",
    "compare_scores": "analysis.score_tests",
    "score_table": "analysis.score_table",
    "ScoreTable": "analysis.score_table",
    "score_by_group": "analysis.groups",
    "paired_test_by_group": "analysis.groups",
    "document_bleu": "analysis.documents",
    "document_score": "analysis.documents",
    "build_report": "analysis.htmlreport",
    "write_html_report": "analysis.htmlreport",
    "VariantTable": "compat.variants",
    "metric_path": "evaluate_module",
    "engine_name": "_native",
    "bleu_score": "textbook",
    "bleu_unigram": "textbook",
    "TOKENIZERS": "tokenizers",
    "get_tokenizer": "tokenizers",
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
