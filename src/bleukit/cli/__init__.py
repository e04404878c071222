"""Command line, a drop-in for sacreBLEU 2.6's: ``bleukit REF [REF ...] -i HYP`` or ``cat HYP | bleukit REF``.

Arguments, output (text, JSON, LaTeX, ``--short``, ``-b``, ``--sentence-level``, multi-system
tables, paired tests) and exit codes are sacreBLEU's; the signature says ``version:bleukit-X``.
The positional files are always references, as in sacreBLEU; hypotheses come from ``-i`` or from
stdin, and with neither (stdin a terminal) the command stops with an error instead of guessing.

>>> import io, os, tempfile
>>> d = tempfile.mkdtemp(); ref = os.path.join(d, "ref.txt")
>>> with open(ref, "w") as f:
...     _ = f.write("The cat sat on the mat.\\n")
>>> main([ref, "-b"], stdin=io.BytesIO(b"The cat sat on the mat.\\n"))
100.0
0
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import IO, Any, Dict, List, NoReturn, Optional, Sequence

from .._process import closed_pipe, default_sigpipe, exit_now, utf8_output
from ..defaults import environment_seed, parse_seed
from ..metrics.base import MetricOptions
from . import commands, testsets
from .args import OUTPUT_FORMATS, build_parser, metric_cli, unsupported
from .io import CliError, check_lengths, read_references, read_systems
from .output import Colors, results_table

__all__ = ["main", "run", "build_parser"]


def _seed(arg: Optional[str]) -> Optional[int]:
    """``--seed`` when given, else sacreBLEU's environment variable (both read by :mod:`bleukit.defaults`)."""
    try:
        return environment_seed() if arg is None else parse_seed(arg, "--seed")
    except ValueError as e:
        raise CliError(str(e)) from None


def _metric_options(args: argparse.Namespace, log: commands.Log) -> Dict[str, MetricOptions]:
    """Each requested metric's options, in the order given (sacreBLEU keeps it for paired tests)."""
    modules = metric_cli()
    out: Dict[str, MetricOptions] = {}
    for name in args.metrics:
        if name not in out:
            try:
                out[name] = modules[name].options_from_args(args, log.warning)
            except (ValueError, TypeError) as err:
                raise CliError(str(err)) from None
    return out


def _colors(args: argparse.Namespace, out: IO) -> Colors:
    # sacreBLEU's colorama passes colours through only to a terminal
    return Colors(not (os.environ.get("NO_COLOR") or args.no_color) and getattr(out, "isatty", lambda: False)())


def _run(args: argparse.Namespace, stdin: Any, out: IO, stderr: IO) -> int:
    log = commands.Log(stderr, args.quiet)
    problems = unsupported(args)
    if problems:
        for problem in problems:
            log.error(problem)
        return 1
    if args.width < 0:
        raise CliError(f"-w/--width must be >= 0, got {args.width}")
    done = testsets.early(args, out, log)
    if done is not None:
        return done
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None
    seed = _seed(args.seed)
    colors = _colors(args, out)
    # bleukit's comparison output: all pairs (--rank) or the baseline's with corrected p-values
    ranked = args.rank or (paired is not None and args.correction is not None)

    if args.test_set:
        ref_labels, refs = testsets.references(args, log)
    else:
        ref_labels, refs = list(args.refs), read_references(args)
    names, systems = read_systems(args, stdin, paired is not None and not ranked, log.info)
    if args.sentence_level:
        if len(systems) > 1:
            raise CliError("Only one system can be evaluated in sentence-level mode.")
        if args.confidence or paired:
            raise CliError("Statistical tests are unavailable in sentence-level mode.")
    if paired and len(systems) == 1:
        raise CliError("Paired tests require multiple input systems given to --input (-i).")
    if ranked and len(systems) == 1:
        raise CliError("--rank and --correction compare several systems: give them to --input (-i).")
    if len(systems) > 1 and args.confidence:
        raise CliError("Use paired tests (--paired-bs or --paired-ar) for multiple systems.")
    if args.report is not None and (args.explain is not None or args.variants):
        raise CliError("--report cannot be combined with --explain or --variants")
    full_system, full_refs = systems[0], refs
    if args.test_set:
        systems, refs = testsets.filter_documents(systems, refs, args)
    check_lengths(names, systems, ref_labels, refs)
    if args.documents or args.doc_ids is not None:
        systems, refs = commands.documents(systems, refs, args, log)
    metrics = _metric_options(args, log)
    # sacreBLEU scores one system or a table in the metrics' name order, paired tests in the given order
    by_name = [metrics[name] for name in sorted(metrics)]

    if args.explain is not None:
        if len(systems) > 1:
            raise CliError("--explain works on one system")
        commands.explain(systems[0], refs, by_name[0], args, out)
        return 0
    if args.variants:
        if len(systems) > 1:
            raise CliError("--variants works on one system")
        commands.variants(systems[0], refs, args, out)
        return 0
    if args.sentence_level:
        commands.sentence_level(systems[0], refs, by_name[0], args, out)
    elif len(systems) == 1:
        if args.detail and args.format == "json":  # sacreBLEU: the details would break the JSON
            args.format = "text"
        commands.single(systems[0], refs, by_name, args, seed, log, colors, out)
        if args.detail:
            testsets.detail(full_system, full_refs, list(metrics.values()), args, colors, out)
    elif ranked:
        log.info(f"Found {len(systems)} systems.")
        commands.rank(names, systems, refs, list(metrics.values()), args, paired or "bs", seed, out)
    else:
        _several(names, systems, refs, metrics, by_name, args, paired, seed, log, colors, out, stderr)
    if args.report is not None:
        commands.report(names, systems, refs, list(metrics.values()), args, paired, ranked, seed, log)
    return 0


def _several(names: List[str], systems: List[List[str]], refs: List[List[str]], metrics: Dict[str, MetricOptions],
             by_name: List[MetricOptions], args: argparse.Namespace, paired: Optional[str], seed: Optional[int],
             log: commands.Log, colors: Colors, out: IO, stderr: IO) -> None:
    """sacreBLEU's multi-system table, with its paired tests when asked."""
    log.info(f"Found {len(systems)} systems.")
    if paired:
        columns, signatures = commands.paired(names, systems, refs, list(metrics.values()), args, paired, seed, log,
                                              stderr)
        n_header = args.paired_bs_n if paired == "bs" else args.paired_ar_n
    else:
        columns, signatures = commands.multi(names, systems, refs, by_name, args, log, stderr)
        n_header = 0
    out.write(results_table(names, columns, signatures, args.format, args.width, colors, paired, n_header) + "\n")


def main(argv: Optional[Sequence[str]] = None, stdin: Optional[Any] = None, stdout: Optional[IO] = None,
         stderr: Optional[IO] = None) -> int:
    """Run the command line; returns the exit status (sacreBLEU's: 1 for bad input, 2 for bad arguments).

    ``stdin`` may be a binary or text stream (default ``sys.stdin``); errors are one line on stderr.
    """
    from_shell = argv is None and stdout is None
    if from_shell:
        default_sigpipe()
        _one_blas_thread()
    args = build_parser().parse_args(argv)
    if os.environ.get("SACREBLEU_FORMAT", "").lower() in OUTPUT_FORMATS:
        args.format = os.environ["SACREBLEU_FORMAT"].lower()
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else utf8_output(sys.stdout)
    err = stderr if stderr is not None else sys.stderr
    try:
        with warnings.catch_warnings():
            # bleukit's own warnings (e.g. no compiled kernel) as one line, like the other messages
            warnings.showwarning = lambda message, *_, **__: print(str(message), file=err)
            code = _run(args, stdin, out, err)
        out.flush()
        return code
    except CliError as e:
        print(f"bleukit: error: {e}", file=err)
        return e.code
    except testsets.TESTSET_ERRORS as e:
        print(f"bleukit: error: {e}", file=err)
        return 1
    except (ImportError, FileNotFoundError) as e:  # an optional package or a tokenizer's model file
        print(f"bleukit: error: {e}", file=err)
        return 1
    except MemoryError:  # input too large for this machine (the failed allocation is freed by now)
        print("bleukit: error: out of memory; the input is too large to score on this machine", file=err)
        return 1
    except BrokenPipeError:
        return closed_pipe()
    finally:
        if _colors(args, out).enabled:  # colorama's reset at exit, which sacreBLEU's output ends with
            try:
                out.write("\x1b[0m")
                out.flush()
            except (OSError, ValueError):
                pass


def run() -> NoReturn:
    """The ``bleukit`` console script (and ``python -m bleukit``): :func:`main` on the shell's
    arguments, then the process ends with its exit status, without the interpreter's teardown
    (:func:`bleukit._process.exit_now`)."""
    exit_now(main())


def _one_blas_thread() -> None:
    # The command line's matrix products (bootstrap resamples, randomization trials) are a few
    # thousand rows by tens of columns: BLAS threads that wait for work cost a busy machine ten
    # times the product itself. The process is ours, numpy not yet imported: one thread, unless
    # the user says otherwise.
    if "numpy" not in sys.modules:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")


if __name__ == "__main__":  # pragma: no cover
    run()
