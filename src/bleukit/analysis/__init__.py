"""What is done with scores once a metric has made them: the analyses. Each works on any metric
through its statistics table (:mod:`bleukit.metrics.base`) and imports only the layers below it
(the metrics, the flow of :mod:`bleukit.pipeline`, the checks of :mod:`bleukit.inputs`).

- :mod:`.significance`: bootstrap confidence intervals, paired tests (bootstrap, approximate
  randomization) and corrections for multiple comparisons, sacreBLEU's numbers;
- :mod:`.ranking`: all pairs of systems tested, significance clusters and rank ranges;
- :mod:`.groups`: scores and paired tests per group of sentences; :mod:`.documents`: document-level
  scores; :mod:`.diversity`: Self-BLEU and its kin;
- :mod:`.report`: a corpus with one row per sentence; :mod:`.explain`, :mod:`.chrf_explanation`
  and :mod:`.ter_explanation`: why one sentence gets its score (``explain_bleu``, ``explain_chrf``:
  the matched n-grams; ``explain_ter``: the shifts and edits);
- :mod:`.htmlreport`: all of it as one self-contained HTML page.

The package imports nothing itself: ``import bleukit.analysis.groups`` loads what groups need.
The names most people use are on the facade (``bleukit.paired_test``, ``bleukit.compare_systems``, ...).
"""

from typing import List

__all__: List[str] = []
