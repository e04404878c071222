"""The command line's arguments: sacreBLEU 2.6's, with the same names, defaults and exit codes.

Each metric package adds its own argument group (its ``cli`` module, see :mod:`bleukit.metrics`);
:func:`unsupported` names a ``-m`` metric that has no package here in a one-line error. The
test-set options (``-t``, ``--echo``, ...) are :mod:`.testsets`'.

>>> args = build_parser().parse_args(["ref.txt", "-i", "hyp.txt", "-tok", "intl", "-b"])
>>> args.refs, args.input, args.tokenize, args.score_only, unsupported(args)
(['ref.txt'], ['hyp.txt'], 'intl', True, [])
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType
from typing import Dict, List

from .._version import __version__
from ..defaults import DEFAULT_SAMPLES, DEFAULT_SEED, SEED_ENVIRONMENT_VARIABLE
from ..metrics import available_metrics
from . import testsets

__all__ = ["build_parser", "unsupported", "metric_cli", "OUTPUT_FORMATS", "SACREBLEU_METRICS"]

OUTPUT_FORMATS = ["json", "text", "latex"]
#: sacreBLEU 2.6's ``-m`` choices.
SACREBLEU_METRICS = ["bleu", "chrf", "ter"]

_DESCRIPTION = """\
bleukit: sacreBLEU-exact metrics, a drop-in for the `sacrebleu` command.
Quick usage (the positional files are references, as in sacreBLEU):
    bleukit REF [REF ...] -i HYP            score HYP
    cat HYP | bleukit REF [REF ...]         the same, hypotheses on stdin
    bleukit REF -i SYS1 SYS2 --paired-bs    compare systems (first = baseline)
Output is sacreBLEU 2.6's, byte for byte, except `version:bleukit-X` in the signature."""

_METRIC_NAMES = {"chrf": "chrF", "ter": "TER"}


def metric_cli() -> Dict[str, ModuleType]:
    """Every metric's command-line module (``bleukit.metrics.<name>.cli``), by metric name.

    >>> sorted(metric_cli())[:1]
    ['bleu']
    """
    return {name: importlib.import_module(f"bleukit.metrics.{name}.cli") for name in available_metrics()}


class _MetavarCheckFormatter(argparse.RawDescriptionHelpFormatter):
    # ``add_argument`` builds a formatter for each argument only to check its metavar, and
    # argparse's own asks the terminal for its width each time (importing shutil, ~2 ms of every
    # run). The parser is built with this one and given the real one for help and errors.
    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (``bleukit --help``).

    >>> build_parser().parse_args(["r.txt", "-l", "en-ja"]).langpair
    'en-ja'
    """
    p = argparse.ArgumentParser(prog="bleukit", description=_DESCRIPTION,
                                usage="%(prog)s [OPTIONS] REF [REF ...] -i HYP [HYP ...]\n"
                                      "       cat HYP | %(prog)s [OPTIONS] REF [REF ...]",
                                formatter_class=_MetavarCheckFormatter)
    p.add_argument("--input", "-i", nargs="*", default=None, metavar="HYP",
                   help="Read input from file(s) instead of STDIN; several files are several systems "
                        "('-' reads STDIN: a bleukit addition).")
    p.add_argument("refs", nargs="*", default=[],
                   help="Reference files. If given, they should precede the -i/--input argument.")
    p.add_argument("--num-refs", "-nr", type=int, default=1,
                   help="Split the reference stream on tabs, and expect this many references. (Default: %(default)s)")
    p.add_argument("--encoding", "-e", default="utf-8",
                   help="Open text files with specified encoding (Default: %(default)s)")
    p.add_argument("--language-pair", "-l", dest="langpair", default=None,
                   help="Source-target language pair: its target picks the tokenizer (zh: zh, ja: ja-mecab, "
                        "ko: ko-mecab) when -tok is not given; with -t, the test set's pair.")
    testsets.add_arguments(p)
    choices = sorted(set(SACREBLEU_METRICS) | set(available_metrics()))
    p.add_argument("--metrics", "-m", choices=choices, nargs="+", default=["bleu"],
                   help=f"Metrics to compute (bleukit has {', '.join(available_metrics())}; Default: bleu)")
    p.add_argument("--sentence-level", "-sl", action="store_true", help="Compute metric for each sentence.")

    for module in metric_cli().values():
        module.add_arguments(p)

    c = p.add_argument_group("Confidence interval (CI) estimation for single-system evaluation")
    c.add_argument("--confidence", "-ci", action="store_true",
                   help="Report confidence interval using bootstrap resampling.")
    c.add_argument("--confidence-n", "-cin", type=int, default=DEFAULT_SAMPLES["bs"],
                   help="Set the number of bootstrap resamples for CI estimation (Default: %(default)s).")

    t = p.add_argument_group("Paired significance testing for multi-system evaluation")
    choice = t.add_mutually_exclusive_group()
    choice.add_argument("--paired-ar", "-par", action="store_true",
                        help="Perform paired test using approximate randomization (AR). This option is "
                             "mutually exclusive with --paired-bs (Default: %(default)s).")
    choice.add_argument("--paired-bs", "-pbs", action="store_true",
                        help="Perform paired test using bootstrap resampling. This option is mutually "
                             "exclusive with --paired-ar (Default: %(default)s).")
    t.add_argument("--paired-ar-n", "-parn", type=int, default=DEFAULT_SAMPLES["ar"],
                   help="Number of trials for approximate randomization test (Default: %(default)s).")
    t.add_argument("--paired-bs-n", "-pbsn", type=int, default=DEFAULT_SAMPLES["bs"],
                   help="Number of bootstrap resamples for paired bootstrap resampling test (Default: %(default)s).")
    t.add_argument("--paired-jobs", "-j", type=int, default=1,
                   help="Accepted for compatibility; bleukit needs no worker processes.")

    r = p.add_argument_group("Reporting related arguments")
    r.add_argument("--quiet", "-q", action="store_true", help="Suppress verbose messages (and the progress bar).")
    r.add_argument("--short", "-sh", action="store_true", help="Produce a shorter (less human readable) signature.")
    r.add_argument("--score-only", "-b", action="store_true", help="Print only the computed score.")
    r.add_argument("--width", "-w", type=int, default=1, help="Floating point width (Default: %(default)s).")
    r.add_argument("--no-color", "-nc", action="store_true", help="Disable the occasional use of terminal colors.")
    r.add_argument("--format", "-f", default="json", choices=OUTPUT_FORMATS,
                   help="Set the output format. `latex` is only valid for multi-system mode whereas `json` and "
                        "`text` apply to single-system mode only. This flag is overridden if the SACREBLEU_FORMAT "
                        "environment variable is set to one of the valid choices (Default: %(default)s).")
    r.add_argument("--no-progress", action="store_true",
                   help="No progress bar (it appears on a terminal for runs over 2 s; also off with --quiet).")

    a = p.add_argument_group("bleukit additions (not in sacreBLEU)")
    a.add_argument("--explain", type=int, metavar="N", default=None,
                   help="Print why line N (1-based) gets its score, then exit: the n-grams that match its "
                        "references, per order (BLEU, chrF), or its shifts and edits (TER).")
    a.add_argument("--variants", action="store_true",
                   help="Score the system with every BLEU people report (sacreBLEU, evaluate 'bleu', NLTK, Moses "
                        "multi-bleu, torchmetrics, T5, GLEU; spBLEU with a FLORES model) and say why each differs, "
                        "then exit (-f json for JSON).")
    a.add_argument("--rank", action="store_true",
                   help="Rank several systems: paired tests of all pairs (the test of --paired-bs/--paired-ar, "
                        "bootstrap by default), p-values corrected for the number of pairs (--correction, Holm by "
                        "default), significance clusters (WMT's rule) and rank ranges; -f text, json or latex.")
    a.add_argument("--correction", choices=["holm", "bonferroni", "none"], default=None,
                   help="Correct the p-values for multiple comparisons (--rank: default holm). With --paired-bs/"
                        "--paired-ar it turns the baseline comparison into bleukit's format with corrected p-values.")
    a.add_argument("--alpha", type=float, default=0.05,
                   help="Significance level of --rank's clusters and of 'significant' (Default: %(default)s).")
    a.add_argument("--report", metavar="FILE", default=None,
                   help="Also write an HTML report (one self-contained file): scores, signatures and CIs, the paired "
                        "tests or the ranking, scores by sentence length, the sentences where systems differ most "
                        "and BLEU's explanation of a few of them.")
    a.add_argument("--documents", action="store_true",
                   help="Document-level scores: in every file, blank lines separate documents; each document's "
                        "segments are joined with a space and scored as one segment (d-BLEU).")
    a.add_argument("--doc-ids", metavar="FILE", default=None,
                   help="Document-level scores with one document id per line of FILE (segments of a document are "
                        "joined with a space, in order).")
    a.add_argument("--seed", default=None, metavar="SEED",
                   help=f"Seed of the bootstrap/randomization tests (Default: ${SEED_ENVIRONMENT_VARIABLE}, "
                        f"else {DEFAULT_SEED}; "
                        "'none' for an unseeded run). Unlike sacreBLEU, seed 0 seeds the paired tests too.")
    a.add_argument("--version", "-V", action="version", version=f"bleukit {__version__}")

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    return p


def unsupported(args: argparse.Namespace) -> List[str]:
    """One message per ``-m`` metric given that has no package here (none in a full install).

    >>> unsupported(build_parser().parse_args(["r", "-tok", "spm"]))
    []
    """
    available = available_metrics()
    return [f"-m {m}: bleukit does not compute {_METRIC_NAMES.get(m, m)} (it has {', '.join(available)})"
            for m in args.metrics if m not in available]
