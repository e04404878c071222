"""The metric functions the task YAML names with ``!function`` (lm-eval loads this file by path)."""

from bleukit.integrations.lm_eval import METRIC_FUNCTIONS, corpus_score

bleu = METRIC_FUNCTIONS["bleukit_bleu"]
chrf = METRIC_FUNCTIONS["bleukit_chrf"]
chrf_plus = METRIC_FUNCTIONS["bleukit_chrf++"]

__all__ = ["bleu", "chrf", "chrf_plus", "corpus_score"]
