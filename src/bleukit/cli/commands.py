"""The commands of the command line, each for any metric through the metric protocol.

Every command gets the metrics' options in the order sacreBLEU uses for that mode, scores with the
shared machinery (:mod:`bleukit.pipeline`, :mod:`bleukit.analysis.significance`, :mod:`bleukit.analysis.report`) and
prints what sacreBLEU prints (:mod:`.output`). ``--explain`` and ``--variants`` are BLEU's.
"""

from __future__ import annotations

import argparse
import json
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple

from ..defaults import DEFAULT_SAMPLES
from ..inputs import references_from_streams
from ..metrics import metric_for
from ..metrics.base import MetricOptions
from .args import metric_cli
from .io import CliError
from .output import Colors, align_single_results, score_json, score_line

__all__ = ["Log", "check_system", "progress_bar", "reference_entries", "sentence_level", "explain", "variants",
           "paired", "multi", "single", "rank", "report", "documents"]

_PROGRESS_DELAY_S = 2.0


class Log:
    """sacreBLEU's log lines (``sacreBLEU: ...`` there, ``bleukit: ...`` here); info off with --quiet."""

    def __init__(self, stream: IO, quiet: bool) -> None:
        self.stream, self.quiet = stream, quiet
        self.bar: Any = None  # a running progress bar: lines go above it

    def _print(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream)

    def info(self, msg: str) -> None:
        if not self.quiet:
            self._print(f"bleukit: {msg}")

    def warning(self, msg: str) -> None:
        self._print(f"bleukit: {msg}")

    def error(self, msg: str) -> None:
        print(f"bleukit: error: {msg}", file=self.stream)


def check_system(system: Sequence[str], options: MetricOptions, args: argparse.Namespace, log: Log) -> None:
    """The metric's warnings about a system's text (BLEU: text that looks tokenized), given where
    sacreBLEU gives them: each time that metric counts the system."""
    check = getattr(metric_cli()[metric_for(options).name], "check_system", None)
    if check is not None:
        check(system, args, log.warning)


def progress_bar(total: int, args: argparse.Namespace, stderr: IO, desc: str, unit: str = "system"):
    """A tqdm bar on stderr that shows up only after 2 s, only on a terminal, never with --quiet."""
    disable = args.quiet or args.no_progress or not getattr(stderr, "isatty", lambda: False)()
    if disable:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=stderr, delay=_PROGRESS_DELAY_S, leave=False, unit=unit)


def reference_entries(streams: List[List[str]]) -> List[Any]:
    """The reference streams as one entry per segment, without a list per segment: a single
    stream's lines are the entries (each a str), several streams' lines are zipped into tuples.
    (A metric that reads entries in place, BLEU's kernel, then reads the file's lines as they are.)

    >>> reference_entries([["a", "b"]]), reference_entries([["a", "b"], ["A", "B"]])
    (['a', 'b'], [('a', 'A'), ('b', 'B')])
    """
    return streams[0] if len(streams) == 1 else list(zip(*streams))


def _signature(options: MetricOptions, result: Any, args: argparse.Namespace) -> str:
    # each metric's own short field names (TER's tok is t, BLEU's stays tok)
    return options.short_signature(result.signature) if args.short else result.signature


def sentence_level(system: List[str], refs: List[List[str]], options: MetricOptions, args: argparse.Namespace,
                   out: IO) -> None:
    """One line per segment: its sentence score (one metric)."""
    from ..analysis.report import score_report

    report = score_report(system, references_from_streams(refs), options=options)
    lines = [score_line(result, args.width, args.score_only, _signature(options, result, args))
             for result in report.sentence_results()]
    out.write("\n".join(lines) + "\n")


def explain(system: List[str], refs: List[List[str]], options: MetricOptions, args: argparse.Namespace,
            out: IO) -> None:
    """Why one line gets its score: the n-grams that match its references, per order (BLEU,
    chrF), or its edits to each reference, the shifts and the word operations (TER)."""
    from ..analysis.explain import explain_bleu
    from ..metrics.bleu import METRIC, BleuOptions
    from ..metrics.chrf import ChrfOptions
    from ..metrics.ter import TerOptions

    if not isinstance(options, (BleuOptions, ChrfOptions, TerOptions)):
        raise CliError("--explain works with BLEU, chrF and TER (-m bleu, -m chrf, -m ter)")

    n = args.explain
    if not 1 <= n <= len(system):
        raise CliError(f"--explain {n}: there are {len(system)} lines (numbered from 1)")
    if isinstance(options, ChrfOptions):
        _explain_chrf(n, system[n - 1], [stream[n - 1] for stream in refs], options, args, out)
        return
    if isinstance(options, TerOptions):
        _explain_ter(n, system[n - 1], [stream[n - 1] for stream in refs], options, args, out)
        return
    ex = explain_bleu(system[n - 1], [stream[n - 1] for stream in refs], options=options)
    if args.format == "json":
        out.write(json.dumps(ex.to_dict(), ensure_ascii=False, indent=1) + "\n")
        return
    result = METRIC.result(ex.statistics(), options)
    sig = _signature(options, result, args)
    lines = [f"line {n}: " + score_line(result, args.width, False, sig),
             "hypothesis: " + " ".join(str(t) for t in ex.hypothesis_tokens)]
    for k, ref in enumerate(ex.reference_tokens):
        lines.append(f"reference {k + 1}: " + " ".join(str(t) for t in ref))
    for order in ex.orders:
        matched = [f"{' '.join(map(str, m.ngram))}" + (f" x{m.matched}" if m.matched > 1 else "")
                   for m in order.ngrams if m.matched]
        missed = [f"{' '.join(map(str, m.ngram))}"
                  + (f" x{m.hyp_count - m.matched}" if m.hyp_count - m.matched > 1 else "")
                  for m in order.ngrams if m.hyp_count > m.matched]
        lines.append(f"{order.order}-grams {order.matched}/{order.total} ({order.precision:.1f}%)"
                     f"  matched: {' | '.join(matched) or '-'}  unmatched: {' | '.join(missed) or '-'}")
    out.write("\n".join(lines) + "\n")


def _explain_chrf(n: int, hypothesis: str, references: List[str], options: MetricOptions,
                  args: argparse.Namespace, out: IO) -> None:
    from ..analysis.chrf_explanation import explain_chrf
    from ..metrics.chrf import METRIC, ChrfOptions

    assert isinstance(options, ChrfOptions)
    ex = explain_chrf(hypothesis, [r for r in references if r is not None], options=options)
    if args.format == "json":
        out.write(json.dumps(ex.to_dict(), ensure_ascii=False, indent=1) + "\n")
        return
    result = METRIC.result(ex.statistics(), options)
    sig = _signature(options, result, args)
    lines = [f"line {n}: " + score_line(result, args.width, False, sig), f"hypothesis: {ex.hypothesis}"]
    for k, ref in enumerate(ex.references):
        lines.append(f"reference {k + 1}: {ref}" + ("  (its statistics count)" if k == ex.reference_index else ""))
    for order in ex.orders:
        matched = [m.ngram + (f" x{m.matched}" if m.matched > 1 else "") for m in order.ngrams if m.matched]
        missed = [m.ngram + (f" x{m.hyp_count - m.matched}" if m.hyp_count - m.matched > 1 else "")
                  for m in order.ngrams if m.hyp_count > m.matched]
        lines.append(f"{order.kind} {order.n}-grams {order.matched}/{order.hyp_total} (P {order.precision:.1f}%, "
                     f"R {order.recall:.1f}% of {order.ref_total})  matched: {' | '.join(matched) or '-'}  "
                     f"unmatched: {' | '.join(missed) or '-'}")
    out.write("\n".join(lines) + "\n")


def _explain_ter(n: int, hypothesis: str, references: List[str], options: MetricOptions,
                 args: argparse.Namespace, out: IO) -> None:
    from ..analysis.ter_explanation import explain_ter
    from ..metrics.ter import TerOptions
    from ..pipeline import sentence_result

    assert isinstance(options, TerOptions)
    kept = [r for r in references if r is not None]
    ex = explain_ter(hypothesis, kept, options=options)
    if args.format == "json":
        out.write(json.dumps(ex.to_dict(), ensure_ascii=False, indent=1) + "\n")
        return
    result = sentence_result(hypothesis, kept, options)
    sig = _signature(options, result, args)
    out.write(f"line {n}: " + score_line(result, args.width, False, sig) + "\n" + str(ex) + "\n")


def variants(system: List[str], refs: List[List[str]], args: argparse.Namespace, out: IO) -> None:
    """Every BLEU people report on this system, and why each differs."""
    from ..compat.variants import compare_variants

    table = compare_variants(system, references_from_streams(refs))
    if args.format == "json":
        out.write(json.dumps(table.to_dict(), ensure_ascii=False, indent=1) + "\n")
    else:
        out.write(table.format() + "\n")


def paired(names: List[str], systems: List[List[str]], refs: List[List[str]], metrics: Sequence[MetricOptions],
           args: argparse.Namespace, method: str, seed: Optional[int], log: Log, stderr: IO,
           ) -> Tuple[Dict[str, list], Dict[str, str]]:
    """sacreBLEU's ``--paired-bs``/``--paired-ar``: each metric's records per system, and signatures."""
    from ..analysis.significance import paired_test

    references = reference_entries(refs)
    n = args.paired_bs_n if method == "bs" else args.paired_ar_n
    n_used = n if n > 0 else DEFAULT_SAMPLES[method]  # sacreBLEU's defaults, its messages
    step = (f" > Performing paired bootstrap resampling test (# resamples: {n_used})" if method == "bs"
            else f" > Performing approximate randomization test (# trials: {n_used})")
    # sacreBLEU's messages, in its order (it computes between them; bleukit tests all systems at
    # once): the baseline's statistics per metric, then per system and metric its statistics and test
    for options in metrics:
        log.info(f"Pre-computing {_label(options)} statistics for {names[0]!r}")
        check_system(systems[0], options, args, log)
    for i in range(1, len(systems)):
        for options in metrics:
            log.info(f"Computing {metric_for(options).score_name(options)} for {names[i]!r} and extracting "
                     "sufficient statistics")
            check_system(systems[i], options, args, log)
            log.info(step)
    bar = progress_bar(n_used * len(metrics), args, stderr, "paired bootstrap" if method == "bs" else "randomization",
                       "resample" if method == "bs" else "trial")
    columns: Dict[str, list] = {}
    signatures: Dict[str, str] = {}
    try:
        for options in metrics:
            records = paired_test(list(zip(names, systems)), references, method=method,
                                  n_samples=n if n > 0 else None, seed=seed, options=options,
                                  progress=None if bar is None else bar.update)
            name = records[0].result.name
            columns[name] = records
            signatures[name] = _signature(options, records[0].result, args)
    finally:
        if bar is not None:
            bar.close()
    return columns, signatures


def multi(names: List[str], systems: List[List[str]], refs: List[List[str]], metrics: Sequence[MetricOptions],
          args: argparse.Namespace, log: Log, stderr: IO) -> Tuple[Dict[str, list], Dict[str, str]]:
    """Several systems, no test: each metric's score strings per system, and signatures."""
    from ..pipeline import corpus_result

    references = reference_entries(refs)
    bar = log.bar = progress_bar(len(systems), args, stderr, "scoring")
    columns: Dict[str, list] = {}
    signatures: Dict[str, str] = {}
    try:
        for system in systems:
            for options in metrics:
                check_system(system, options, args, log)
                result = corpus_result(system, references, options)
                columns.setdefault(result.name, []).append(f"{result.score:.{args.width}f}")
                signatures[result.name] = _signature(options, result, args)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
        log.bar = None
    return columns, signatures


def single(system: List[str], refs: List[List[str]], metrics: Sequence[MetricOptions], args: argparse.Namespace,
           seed: Optional[int], log: Log, colors: Colors, out: IO) -> None:
    """One system: one line (or JSON object) per metric, with ``--confidence`` the bootstrap estimate."""
    from ..pipeline import corpus_result

    references = reference_entries(refs)
    n_bootstrap = args.confidence_n if args.confidence and args.confidence_n > 1 else None
    lines = []
    for options in metrics:
        check_system(system, options, args, log)
        if n_bootstrap is None:
            result = corpus_result(system, references, options)  # the column sums: no table
        else:
            from ..analysis.significance import bootstrap_result

            result = bootstrap_result(system, references, options, n_bootstrap, seed)
        mean, ci = result.mean, result.ci
        if args.format == "json":
            # sacreBLEU's JSON carries the full signature, never the short one
            lines.append(args.score_only and score_line(result, args.width, True, "", mean, ci)
                         or score_json(result, args.width, result.signature, mean, ci))
        else:
            lines.append(score_line(result, args.width, args.score_only, _signature(options, result, args), mean, ci))
    if args.format == "json":
        out.write((lines[0] if len(lines) == 1 else "[\n" + ",\n".join(lines) + "\n]") + "\n")
        return
    out.write(align_single_results(lines, colors) + "\n")


def _label(options: MetricOptions) -> str:
    # sacreBLEU's metric keys in its log lines: the upper-case -m name
    return metric_for(options).name.upper()


def rank(names: List[str], systems: List[List[str]], refs: List[List[str]], metrics: Sequence[MetricOptions],
         args: argparse.Namespace, method: str, seed: Optional[int], out: IO) -> None:
    """``--rank`` (all pairs) or ``--paired-bs/-ar --correction`` (against the first): for each metric,
    the paired tests with corrected p-values and, for all pairs, the ranking with clusters."""
    from ..analysis.ranking import compare_systems

    n = args.paired_bs_n if method == "bs" else args.paired_ar_n
    correction = _correction(args)
    baseline = None if args.rank else names[0]
    comparisons = [
        compare_systems(list(zip(names, systems)), references_from_streams(refs), baseline=baseline, method=method,
                        n_samples=n if n > 0 else None, seed=seed, correction=correction, alpha=args.alpha,
                        options=options)
        for options in metrics
    ]
    if args.format == "json":
        out.write(json.dumps([c.to_dict() for c in comparisons], indent=1, ensure_ascii=False) + "\n")
    else:
        out.write("\n\n".join(c.format(args.format, args.width) for c in comparisons) + "\n")


def _correction(args: argparse.Namespace) -> Optional[str]:
    if args.correction is None:
        return "holm"
    return None if args.correction == "none" else str(args.correction)


def report(names: List[str], systems: List[List[str]], refs: List[List[str]], metrics: Sequence[MetricOptions],
           args: argparse.Namespace, paired: Optional[str], ranked: bool, seed: Optional[int], log: Log) -> None:
    """``--report FILE``: the HTML report of what was scored, with the same metrics and tests."""
    from ..analysis.htmlreport import write_html_report

    prefix = "Baseline: "
    clean = [name[len(prefix):] if k == 0 and name.startswith(prefix) else name for k, name in enumerate(names)]
    method = paired or "bs"
    n = args.paired_bs_n if method == "bs" else args.paired_ar_n
    comparison = "baseline" if paired and not args.rank else "rank"
    write_html_report(
        args.report, list(zip(clean, systems)), references_from_streams(refs), options=list(metrics),
        comparison=comparison, method=method, n_samples=n if n > 0 else None, seed=seed,
        correction=_correction(args), alpha=args.alpha,
        n_bootstrap=args.confidence_n if args.confidence_n > 0 else DEFAULT_SAMPLES["bs"],
        title="bleukit report: " + ", ".join(args.refs),
    )
    log.info(f"HTML report written to {args.report}")


def documents(systems: List[List[str]], refs: List[List[str]], args: argparse.Namespace, log: Log,
              ) -> Tuple[List[List[str]], List[List[str]]]:
    """``--documents`` (blank lines between documents) or ``--doc-ids FILE``: every system and
    reference stream as one line per document, its segments joined with a space (d-BLEU)."""
    from ..analysis.documents import DEFAULT_SEPARATOR, split_documents
    from .io import read_lines

    if args.documents and args.doc_ids is not None:
        raise CliError("give either --documents (blank lines between documents) or --doc-ids FILE, not both")
    streams = systems + refs
    if args.documents:
        blank = [k for k, line in enumerate(refs[0]) if not line.strip()]
        for k, stream in enumerate(streams):
            if [i for i, line in enumerate(stream) if not line.strip()] != blank:
                what = f"system {k + 1}" if k < len(systems) else f"reference {k - len(systems) + 1}"
                raise CliError(f"--documents: the blank lines of {what} are not where the first reference's are; "
                               "every file needs its blank lines (document breaks) on the same lines, and no empty "
                               "segment")
        try:
            _, numbers = split_documents(refs[0], "the first reference file")
        except ValueError as err:
            raise CliError(f"--documents: {err}") from None
        ids: List[Any] = list(numbers)
        kept = [i for i, line in enumerate(refs[0]) if line.strip()]
        streams = [[stream[i] for i in kept] for stream in streams]
    else:
        ids = list(read_lines(args.doc_ids, args.encoding))
        if len(ids) != len(refs[0]):
            raise CliError(f"--doc-ids {args.doc_ids}: {len(ids)} lines but there are {len(refs[0])} segments; "
                           "give one document id per segment")
    order: Dict[Any, List[int]] = {}
    for i, doc in enumerate(ids):
        order.setdefault(doc, []).append(i)
    joined = [[DEFAULT_SEPARATOR.join(stream[i] for i in rows) for rows in order.values()] for stream in streams]
    log.info(f"Document level: {len(order)} documents of {len(ids)} segments")
    return joined[: len(systems)], joined[len(systems):]
