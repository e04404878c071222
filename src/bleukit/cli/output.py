"""sacreBLEU 2.6's command-line output, reproduced: score lines, JSON, multi-system tables.

Every string here is built the way sacreBLEU's ``Score.format``, ``print_single_results`` and
``print_results_table`` build theirs, so the output matches byte for byte (the signature's
``version:`` field excepted). Colours are ANSI codes, on only where sacreBLEU's colorama would
let them through: stdout a terminal, no ``NO_COLOR``, no ``--no-color``. ``--short`` signatures
come from each metric's options (``MetricOptions.short_signature``: TER's ``tok`` is ``t``, BLEU's
stays ``tok``, so one flat table cannot serve every metric).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

__all__ = ["Colors", "score_line", "score_json", "align_single_results",
           "results_table", "PAIRED_HEADER"]

_ANSI = {"red": "\x1b[31m", "green": "\x1b[32m", "yellow": "\x1b[33m", "cyan": "\x1b[36m"}
_RESET = "\x1b[0m"


class Colors:
    """sacreBLEU's ``Color.format`` with an explicit on/off switch.

    >>> Colors(False).format("x", "red"), Colors(True).format("x", "red")
    ('x', '\\x1b[31mx\\x1b[0m')
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def format(self, msg: str, color: str) -> str:
        return f"{_ANSI[color]}{msg}{_RESET}" if self.enabled else msg


def _score_and_confidence(score: float, mean: Optional[float], ci: Optional[float], width: int):
    sc = f"{score:.{width}f}"
    confidence = None
    if mean is not None and mean > 0:  # sacreBLEU prints no interval when the mean is 0
        confidence = (f"{mean:.{width}f}", f"{ci:.{width}f}")
        sc += f" (μ = {confidence[0]} ± {confidence[1]})"
    return sc, confidence


def score_line(result: Any, width: int, score_only: bool, signature: str,
               mean: Optional[float] = None, ci: Optional[float] = None) -> str:
    """sacreBLEU's text line: ``NAME|SIG = SCORE VERBOSE``, e.g. ``BLEU|SIG = 36.2 67.4/.../21.0 (BP = ...)``
    (or only the score), for any metric's result.

    >>> from bleukit import corpus_bleu
    >>> score_line(corpus_bleu(["a b c d"], ["a b c d"]), 1, False, "nrefs:1")
    'BLEU|nrefs:1 = 100.0 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 4 ref_len = 4)'
    """
    sc, _ = _score_and_confidence(result.score, mean, ci, width)
    if score_only:
        return sc
    head = f"{result.name}|{signature}" if signature else result.name
    verbose = result.verbose_text()
    return f"{head} = {sc} {verbose}" if verbose else f"{head} = {sc}"


def score_json(result: Any, width: int, signature: str,
               mean: Optional[float] = None, ci: Optional[float] = None) -> str:
    """sacreBLEU's single-system JSON (``indent=1``, rounded score, signature fields as keys).

    >>> from bleukit import corpus_bleu
    >>> print(score_json(corpus_bleu(["a b"], ["a b"]), 1, "nrefs:1|tok:13a"))  # doctest: +ELLIPSIS
    {
     "name": "BLEU",
     "score": 0.0,
     "signature": "nrefs:1|tok:13a",
     "verbose_score": "100.0/100.0/0.0/0.0 (BP = 1.000 ratio = 1.000 hyp_len = 2 ref_len = 2)",
     "nrefs": "1",
     "tok": "13a"
    }
    """
    sc, confidence = _score_and_confidence(result.score, mean, ci, width)
    d: Dict[str, Any] = {"name": result.name, "score": float(f"{result.score:.{width}f}"), "signature": signature}
    if confidence is not None:
        d["confidence_mean"] = float(confidence[0])
        d["confidence_var"] = float(confidence[1])
        d["confidence"] = f"μ = {confidence[0]} ± {confidence[1]}"
    if result.verbose_text():
        d["verbose_score"] = result.verbose_text()
    for param in signature.split("|"):
        key, value = param.split(":", 1)
        d[key] = value
    return json.dumps(d, indent=1, ensure_ascii=False)


def align_single_results(lines: Sequence[str], colors: Colors) -> str:
    """``print_single_results`` for text lines (one per metric): confidence parts in cyan, several
    lines aligned on their ``=``; lines without one (``--score-only``) come first, as sacreBLEU
    prints them while it measures the others.

    >>> align_single_results(["BLEU = 36.2 (μ = 35.0 ± 23.0) 67.4/44.9"], Colors(True))
    'BLEU = 36.2 \\x1b[36m(μ = 35.0 ± 23.0)\\x1b[0m 67.4/44.9'
    >>> print(align_single_results(["BLEU = 36.2", "chrF2 = 61.0"], Colors(False)))
     BLEU = 36.2
    chrF2 = 61.0
    """
    lines = list(lines)
    if "μ" in lines[0]:
        import re

        pattern = re.compile(r"(\(μ = [0-9\.]+ ± [0-9\.]+\))")
        lines = [pattern.sub(lambda m: colors.format(m.group(), "cyan"), line) for line in lines]
    if len(lines) == 1:
        return lines[0]
    first, aligned = [], []
    for line in lines:
        if "=" in line:
            aligned.append((line.index("=") - 1, line))
        else:
            first.append(line)
    width = max((n for n, _ in aligned), default=0)
    return "\n".join(first + [f"{line[:n]:>{width}}{line[n:]}" for n, line in aligned])


PAIRED_HEADER = """\
{rule}
{msg}
{rule}
 - Each system is pairwise compared to {bline_name}.
{what}

 - {null_hyp}: the system and the {bline} translations are essentially
   generated by the same underlying process. For a given system and the {bline},
   the p-value is roughly the probability of the absolute score difference (delta)
   or higher occurring due to chance, under the assumption that the {null_hyp_lower} is correct.

 - Assuming a significance threshold of 0.05, the {null_hyp_lower} can be rejected
   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be attributed
   to chance, hence the system is significantly "different" than the {bline}.
   Otherwise, the p-values are {pval_color}.

 - NOTE: Significance does not tell whether a system is "better" than the {bline} but rather
   emphasizes the "difference" of the systems in terms of the replicability of the delta.
"""


def _cell(record: Any, width: int, multiline: bool, colors: Colors) -> str:
    if isinstance(record, str):
        return record
    text = f"{record.score:.{width}f}"
    if record.mean is not None:
        text += f" ({record.mean:.{width}f} ± {record.ci:.{width}f})"
    if record.p_value is not None:
        msg = f"(p = {record.p_value:.4f})"
        text += ("\n" if multiline else " ") + (colors.format(msg, "red") if record.p_value > 0.05 else msg + "*")
    return text


def results_table(names: Sequence[str], columns: Mapping[str, Sequence[Any]], signatures: Mapping[str, str],
                  fmt: str, width: int, colors: Colors, paired: Optional[str] = None, n_samples: int = 0) -> str:
    """The multi-system output (``print_results_table``): JSON list, or table, header and signatures.

    ``columns`` maps each metric's name (``BLEU``, ``chrF2``, ...) to one record per system: a
    score string (plain multi-system mode) or an object with ``score``, ``p_value``, ``mean`` and
    ``ci`` (paired tests, ``paired`` is ``"bs"`` or ``"ar"``); ``signatures`` maps the same names
    to their signatures.

    >>> print(results_table(["a", "b"], {"BLEU": ["36.2", "19.8"]}, {"BLEU": "nrefs:1"}, "json", 1, Colors(False)))
    [
        {
            "system": "a",
            "BLEU": "36.2"
        },
        {
            "system": "b",
            "BLEU": "19.8"
        }
    ]
    """
    if fmt == "json":
        out = []
        for i, name in enumerate(names):
            row: Dict[str, Any] = {"system": name}
            for metric, records in columns.items():
                record = records[i]
                row[metric] = record if isinstance(record, str) else {
                    key: None if getattr(record, key) is None else float(getattr(record, key))
                    for key in ("score", "p_value", "mean", "ci")}
            out.append(row)
        return json.dumps(out, indent=4)

    from tabulate import tabulate  # only the table formats need it

    tablefmt = "fancy_grid" if fmt == "text" else "latex_booktabs"
    table_columns: Dict[str, List[str]] = {"System": list(names)}
    for metric, records in columns.items():
        cells = [_cell(r, width, tablefmt == "fancy_grid", colors) for r in records]
        bootstrap = any(not isinstance(r, str) and r.mean is not None for r in records)
        table_columns[f"{metric} (μ ± 95% CI)" if bootstrap else metric] = cells
    baseline_name = ""
    table: Dict[str, List[str]] = {}
    has_baseline = False
    for name, values in table_columns.items():
        if values[0].startswith("Baseline:") or has_baseline:
            if values[0].startswith("Baseline:"):
                baseline_name = values[0]
            has_baseline = True
            values[0] = colors.format(values[0], "yellow")
        table[colors.format(name, "cyan")] = values
    lines = [tabulate(table, headers="keys", tablefmt=tablefmt, colalign=("right",), stralign="center",
                      numalign="center", floatfmt=f".{width}f"), ""]
    if paired:
        test_type = "bootstrap resampling" if paired == "bs" else "approximate randomization"
        sample_type = "resampling trials" if paired == "bs" else "trials"
        msg = f"Paired {test_type} test with {n_samples} {sample_type}"
        null_hyp = colors.format("Null hypothesis", "green")
        what = ("   Actual system score / bootstrap estimated true mean / 95% CI are provided for each metric."
                if paired == "bs" else "   Actual system score is provided for each metric.")
        lines.append(PAIRED_HEADER.format(
            rule="-" * len(msg), msg=msg, bline_name=colors.format(baseline_name, "yellow"), what=what,
            bline=colors.format("baseline", "yellow"), null_hyp=null_hyp, null_hyp_lower=null_hyp.lower(),
            pval_color=colors.format("highlighted in red", "red")))
    lines += ["-----------------", "Metric signatures", "-----------------"]
    lines += [f" - {metric:<10} {signature}" for metric, signature in signatures.items()]
    return "\n".join(lines)
