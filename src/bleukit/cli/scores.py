"""``bleukit-scores`` (also ``python -m bleukit.cli.scores``): any metric's segment-score files, and
optionally BLEU/chrF/TER from hypothesis and reference files, as one table system × metric with
each score's 95% CI and significance cluster, paired tests on the same resamples for every metric,
WMT's AutoRank if asked, and a signature per metric.

    bleukit-scores comet.txt metricx/*.jsonl judge.tsv
    bleukit-scores wmt25-scores/ --language-pair en-ar_EG --autorank wmt25 --missing drop
    bleukit-scores comet.json -i sysA.txt sysB.txt -r ref.txt --lexical bleu chrf ter --format json

Score files (format told from name and content, or ``--score-format``): ``comet-score`` text and
``--to_json`` output, MetricX JSONL, WMT25 ``automatic_scores/*.jsonl`` (or their folder),
mt-metrics-eval ``*.seg.score``, one number per line (the file names the system), TSV/CSV.
Systems are matched across files by name, ignoring a directory and a ``.txt``/``.jsonl``-like
ending (COMET prints the translation file's path, MetricX's file is the system's).
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Callable, Dict, List, NoReturn, Optional, Sequence

from ..analysis.score_files import FORMATS
from ..analysis.score_table import read_score_files, score_table, system_name
from ..analysis.segment_scores import ScoreInputError, SegmentScores
from ..defaults import DEFAULT_SAMPLES, DEFAULT_SEED, environment_seed, parse_seed
from ..metrics.base import MetricOptions

__all__ = ["main", "run", "build_parser"]

_LEXICAL = ("bleu", "chrf", "chrf++", "ter")
_PROGRESS_DELAY_S = 2.0  # as bleukit's bar: a quick run shows none


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bleukit-scores",
        description="Score, 95% CI and significance cluster of every system by every metric: segment-score "
                    "files (COMET, MetricX, WMT25, mt-metrics-eval, one number per line, TSV/CSV) and "
                    "optionally BLEU/chrF/TER from text, tested on the same resamples; optional AutoRank.")
    p.add_argument("files", nargs="*", help="segment-score files (or a folder of WMT25 automatic_scores files)")
    p.add_argument("--score-format", choices=("auto",) + FORMATS, default="auto",
                   help="format of the score files (default: told from each file's name and content)")
    p.add_argument("--metric", help="metric name for files that do not name it (default: the format's)")
    p.add_argument("--metrics", nargs="+", help="only these metrics of the score files")
    p.add_argument("--model", help="model name/version recorded in the signature of files that do not say it")
    p.add_argument("--lower-is-better", nargs="+", default=[], metavar="METRIC",
                   help="metrics where a lower score is better (MetricX files and TER are already)")
    p.add_argument("--language-pair", help="WMT25 files: the language pair (e.g. en-ar_EG)")
    p.add_argument("-i", "--input", nargs="+", default=[], metavar="HYP", help="hypothesis files, one per system")
    p.add_argument("-r", "--references", nargs="+", default=[], metavar="REF", help="reference files")
    p.add_argument("--lexical", nargs="+", default=[], choices=_LEXICAL, help="lexical metrics from -i/-r")
    p.add_argument("--method", choices=("bs", "ar"), default="bs",
                   help="paired bootstrap (bs, default; with CIs) or approximate randomization (ar)")
    p.add_argument("--n-samples", type=int, default=None,
                   help="resamples (bs, default 1000) or trials (ar, default 10000)")
    p.add_argument("--seed", default=None, help=f"random seed, or 'none' (default: $SACREBLEU_SEED or {DEFAULT_SEED})")
    p.add_argument("--correction", choices=("holm", "bonferroni", "none"), default="holm",
                   help="multiple-comparison correction of the p-values (default holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the clusters (default 0.05)")
    p.add_argument("--missing", choices=("error", "drop"), default="error",
                   help="a segment without a score for some system: an error (default) or left out for all")
    p.add_argument("--autorank", choices=("wmt25", "wmt24"), default=None, help="add WMT's AutoRank column")
    p.add_argument("--format", "-f", choices=("text", "json", "latex", "html"), default="text",
                   help="output format (html: a self-contained page, e.g. > scores.html)")
    p.add_argument("--title", default="Systems × metrics", help="the HTML page's title (--format html)")
    p.add_argument("--progress", action="store_true",
                   help="print the count of resamples done on stderr, even when it is not a terminal")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (by default one shows on stderr when it is a terminal and the run "
                        "takes over 2 s; never in the output)")
    return p


def _read_lines(path: str) -> List[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n") for line in f]


def _lexical(names: Sequence[str]) -> List[MetricOptions]:
    from ..metrics.bleu.options import BleuOptions
    from ..metrics.chrf.options import ChrfOptions
    from ..metrics.ter.options import TerOptions

    made: Dict[str, Callable[[], MetricOptions]] = {
        "bleu": BleuOptions, "chrf": ChrfOptions, "chrf++": lambda: ChrfOptions(word_order=2), "ter": TerOptions}
    return [made[n]() for n in dict.fromkeys(names)]


def _run(args: argparse.Namespace, out: IO, err: IO) -> int:
    try:
        seed = environment_seed() if args.seed is None else parse_seed(args.seed, "--seed")
    except ValueError as e:
        raise ScoreInputError(str(e)) from None
    table: Optional[SegmentScores] = None
    if args.files:
        table = read_score_files(args.files, format=args.score_format, metric=args.metric, model=args.model,
                                 language_pair=args.language_pair, lower_is_better=args.lower_is_better)
    hypotheses: Optional[Dict[str, List[str]]] = None
    references: Optional[List[List[str]]] = None
    if args.lexical:
        if not args.input or not args.references:
            raise ScoreInputError("--lexical needs hypothesis files (-i) and reference files (-r)")
        hypotheses = {}
        for path in args.input:
            name = system_name(path)
            if name in hypotheses:
                raise ScoreInputError(f"{path}: system {name!r} twice")
            hypotheses[name] = _read_lines(path)
        streams = [_read_lines(p) for p in args.references]
        n = len(next(iter(hypotheses.values())))
        for p, s in list(zip(args.references, streams)) + [(k, v) for k, v in hypotheses.items()]:
            if len(s) != n:
                raise ScoreInputError(f"{p}: {len(s)} lines but {args.input[0]} has {n}")
        if table is not None and table.n_segments != n:
            raise ScoreInputError(f"the score files have {table.n_segments} segments but the hypothesis files "
                                  f"{n} lines")
        references = [list(r) for r in zip(*streams)]
    elif args.input or args.references:
        raise ScoreInputError("-i/-r are for lexical metrics: add --lexical bleu chrf ter (or some of them)")
    if table is None and not args.lexical:
        raise ScoreInputError("give segment-score files, or -i/-r with --lexical")
    progress: Optional[Callable[[int], None]] = None
    bar = None
    if args.progress:
        done = [0]

        def progress(k: int) -> None:
            done[0] += k
            print(f"\rresampled: {done[0]}", end="", file=err, flush=True)

    elif not args.no_progress and getattr(err, "isatty", lambda: False)():
        # a bar over every metric's resamples (or trials), as bleukit's own: on a terminal only,
        # after 2 s, gone when done; the table goes to stdout untouched
        from tqdm import tqdm

        n_metrics = len(args.metrics if args.metrics else table.metrics if table is not None else ()) + len(
            dict.fromkeys(args.lexical))
        n = args.n_samples if args.n_samples is not None else DEFAULT_SAMPLES[args.method]
        bar = tqdm(total=n * n_metrics, desc="resampling", unit="sample", file=err, delay=_PROGRESS_DELAY_S,
                   leave=False)
        progress = bar.update
    try:
        result = score_table(
            table, metrics=args.metrics, hypotheses=hypotheses, references=references,
            lexical=_lexical(args.lexical), method=args.method, n_samples=args.n_samples, seed=seed,
            correction=None if args.correction == "none" else args.correction, alpha=args.alpha, missing=args.missing,
            autorank=args.autorank, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if args.progress:
        print(file=err)
    print(result.to_html(title=args.title) if args.format == "html" else result.format(args.format), file=out)
    return 0


def main(argv: Optional[Sequence[str]] = None, stdout: Optional[IO] = None, stderr: Optional[IO] = None) -> int:
    """Run ``bleukit-scores``; the exit status: 0, 1 for input that cannot be read, 2 for bad arguments."""
    args = build_parser().parse_args(argv)
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        return _run(args, out, err)
    except (ScoreInputError, ValueError, KeyError, OSError) as e:
        message = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"bleukit-scores: error: {message}", file=err)
        return 1


def run() -> NoReturn:
    """The ``bleukit-scores`` console script (a closed pipe ends it quietly, as ``bleukit``)."""
    from .._process import default_sigpipe

    default_sigpipe()
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
