"""bleukit: sacreBLEU-exact BLEU, fast, with statistics you can sum, slice and resample.

>>> import bleukit
>>> result = bleukit.corpus_bleu(["The cat sat on the mat."], ["The cat sat on the mat."])
>>> round(result.score, 6)
100.0
"""

from ._version import __version__
from .accumulator import StatisticsAccumulator
from .bleu import (
    corpus_bleu,
    corpus_statistics,
    score_statistics,
    sentence_bleu,
    sentence_scores,
    sentence_scores_from_statistics,
)
from ._native import engine_name
from .compat.variants import VariantTable, compare_variants
from .explain import explain_sentence, explain_tokens
from .inputs import references_from_streams
from .mbr import MBRSelection, mbr_select
from .metric import metric_path
from .options import OPTION_NAMES, SMOOTH_DEFAULTS, BleuOptions
from .pairwise import pairwise_bleu, pairwise_bleu_ids, pairwise_statistics
from .report import CorpusReport, score_report
from .result import BLEUResult
from .significance import BootstrapCI, PairedResult, bootstrap_ci, bootstrap_scores, paired_test
from .statistics import BleuStatistics
from .textbook import bleu_score, bleu_unigram
from .tokenizers import TOKENIZERS, get_tokenizer

__all__ = [
    "__version__",
    "corpus_bleu",
    "sentence_bleu",
    "sentence_scores",
    "corpus_statistics",
    "score_statistics",
    "sentence_scores_from_statistics",
    "references_from_streams",
    "BleuOptions",
    "OPTION_NAMES",
    "StatisticsAccumulator",
    "CorpusReport",
    "score_report",
    "BLEUResult",
    "BleuStatistics",
    "SMOOTH_DEFAULTS",
    "TOKENIZERS",
    "get_tokenizer",
    "explain_sentence",
    "explain_tokens",
    "bleu_score",
    "bleu_unigram",
    "engine_name",
    "bootstrap_ci",
    "bootstrap_scores",
    "paired_test",
    "BootstrapCI",
    "PairedResult",
    "pairwise_bleu",
    "pairwise_bleu_ids",
    "pairwise_statistics",
    "mbr_select",
    "MBRSelection",
    "compare_variants",
    "VariantTable",
    "metric_path",
]
