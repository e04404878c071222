"""Command line, a drop-in for sacreBLEU 2.6's for BLEU: ``bleukit REF [REF ...] -i HYP`` or ``cat HYP | bleukit REF``.

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
import json
import os
import sys
import warnings
from typing import IO, Any, List, Optional, Sequence, Tuple

from .cli_args import OUTPUT_FORMATS, build_parser, unsupported
from .cli_io import CliError, read_lines, read_stdin_systems, split_num_refs
from .cli_output import Colors, align_single_results, results_table, score_json, score_line, short_signature
from .options import BleuOptions

__all__ = ["main", "build_parser"]

_TOKENIZER_MAP = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}
_LANG_NAMES = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}
_PROGRESS_DELAY_S = 2.0


class _Log:
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


def _resolve_seed(arg: Optional[str]) -> Tuple[Optional[int], str]:
    raw = arg if arg is not None else os.environ.get("SACREBLEU_SEED", "12345")
    if raw.strip().lower() == "none":
        return None, "none"
    try:
        return int(raw), str(int(raw))
    except ValueError:
        where = "--seed" if arg is not None else "SACREBLEU_SEED"
        raise CliError(f"{where}={raw!r} is not an integer or 'none'") from None


def _read_systems(args: argparse.Namespace, stdin: Any, paired: bool, log: _Log) -> Tuple[List[str], List[List[str]]]:
    if args.input is None:
        if getattr(stdin, "isatty", lambda: False)():
            raise CliError(
                "no hypotheses: pipe them on stdin or name them with -i (the positional files are "
                "references, as in sacreBLEU): bleukit REF [REF ...] -i HYP"
            )
        systems = read_stdin_systems(getattr(stdin, "buffer", stdin), args.encoding)
        names = [f"System {i + 1}" for i in range(len(systems))]
        if paired:
            names = ["Baseline"] + [f"System {i + 1}" for i in range(len(systems) - 1)]
        return names, systems
    if not args.input:
        raise CliError("-i/--input needs at least one hypothesis file")
    names: List[str] = []
    systems: List[List[str]] = []
    for fname in args.input:
        if fname in names:
            if paired and fname == names[0]:
                log.info(f"Ignoring {fname!r} as it was also given as the baseline.")
                continue
            raise CliError(f"{fname!r} already used to name a system; give each system a different file name")
        if fname == "-":  # bleukit addition: '-' is stdin
            systems.append(_stdin_column(stdin, args.encoding))
        else:
            systems.append(read_lines(fname, args.encoding))
        names.append(fname)
    if paired:
        names[0] = f"Baseline: {names[0]}"
    return names, systems


def _stdin_column(stdin: Any, encoding: str) -> List[str]:
    raw = getattr(stdin, "buffer", stdin).read()
    from .cli_io import _decode, _split

    text = raw if isinstance(raw, str) else _decode(raw, encoding, "stdin")
    return [line.rstrip() for line in _split(text.replace("\r\n", "\n").replace("\r", "\n"))]


def _read_references(args: argparse.Namespace) -> List[List[str]]:
    if not args.refs:
        raise CliError("no reference files: give them before -i (bleukit REF [REF ...] -i HYP); "
                       "sacreBLEU's downloadable test sets (-t) are not supported")
    if args.num_refs < 1:
        raise CliError(f"--num-refs must be >= 1, got {args.num_refs}")
    if args.num_refs != 1 and len(args.refs) > 1:
        raise CliError("--num-refs splits the tab-separated references of ONE reference file; "
                       "you cannot also give several reference files")
    streams = [read_lines(path, args.encoding) for path in args.refs]
    if args.num_refs != 1:
        streams = split_num_refs(streams[0], args.num_refs, args.refs[0])
    return streams


def _check_lengths(names: Sequence[str], systems: Sequence[List[str]], ref_paths: Sequence[str],
                   refs: Sequence[List[str]]) -> None:
    for name, system in zip(names, systems):
        if not system:
            raise CliError(f"{name}: no segments (the hypothesis file is empty)")
        if any(len(stream) != len(system) for stream in refs):
            counts = ", ".join(f"{p}: {len(s)}" for p, s in zip(ref_paths, refs)) if len(ref_paths) == len(refs) \
                else ", ".join(f"reference {k + 1}: {len(s)}" for k, s in enumerate(refs))
            hint = ""
            if name in ("System 1", "Baseline") and len(system) == 1 and system[0] == "":
                hint = ("; stdin was empty: the positional files are all references (as in sacreBLEU), "
                        "name the hypotheses with -i")
            raise CliError(f"System and reference streams have different lengths ({name}: {len(system)} lines; "
                           f"{counts} lines): every file needs one line per segment{hint}")


def _options(args: argparse.Namespace, log: _Log) -> BleuOptions:
    tokenize = args.tokenize
    if args.langpair is not None:
        parts = args.langpair.split("-")
        if len(parts) < 2:
            raise CliError(f"-l/--language-pair must look like SRC-TRG (e.g. en-de), got {args.langpair!r}")
        trg = parts[1]
        if tokenize is None:
            tokenize = _TOKENIZER_MAP.get(trg)
        elif trg in _TOKENIZER_MAP and tokenize != _TOKENIZER_MAP[trg]:
            log.warning(f"Consider using the '{_TOKENIZER_MAP[trg]}' or 'spm' tokenizer for {_LANG_NAMES[trg]}.")
    try:
        return BleuOptions(
            tokenize=tokenize or "13a", lowercase=args.lowercase, smooth_method=args.smooth_method,
            smooth_value=args.smooth_value, max_ngram_order=args.max_ngram_order,
            weights=tuple(args.weights) if args.weights else None,
            effective_order=args.effective_order or args.sentence_level,
        )
    except (ValueError, TypeError) as err:
        raise CliError(str(err)) from None


def _warn_tokenized(system: Sequence[str], args: argparse.Namespace, log: _Log) -> None:
    # sacreBLEU's check, same threshold and words (its `force` parameter is our --force)
    if not args.force and sum(1 for h in system if h.endswith(" .")) >= 100:
        log.warning("That's 100 lines that end in a tokenized period ('.')")
        log.warning("It looks like you forgot to detokenize your test data, which may hurt your score.")
        log.warning("If you insist your data is detokenized, or don't care, you can suppress this message "
                    "with the `force` parameter.")


def _progress(total: int, args: argparse.Namespace, stderr: IO, desc: str, unit: str = "system"):
    """A tqdm bar on stderr that shows up only after 2 s, only on a terminal, never with --quiet."""
    disable = args.quiet or args.no_progress or not getattr(stderr, "isatty", lambda: False)()
    if disable:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, file=stderr, delay=_PROGRESS_DELAY_S, leave=False, unit=unit)


def _sentence_level(system: List[str], refs: List[List[str]], options: BleuOptions, args: argparse.Namespace,
                    out: IO) -> None:
    from .inputs import references_from_streams
    from .report import score_report

    report = score_report(system, references_from_streams(refs), options)
    lines = [
        score_line(result, args.width, args.score_only, short_signature(result.signature) if args.short else result.signature)
        for result in report.sentence_results()
    ]
    out.write("\n".join(lines) + "\n")


def _explain(system: List[str], refs: List[List[str]], options: BleuOptions, args: argparse.Namespace,
             out: IO) -> None:
    from .bleu import score_statistics
    from .explain import explain_sentence

    n = args.explain
    if not 1 <= n <= len(system):
        raise CliError(f"--explain {n}: there are {len(system)} lines (numbered from 1)")
    ex = explain_sentence(system[n - 1], [stream[n - 1] for stream in refs], options)
    if args.format == "json":
        out.write(json.dumps(ex.to_dict(), ensure_ascii=False, indent=1) + "\n")
        return
    result = score_statistics(ex.statistics(), options)
    sig = short_signature(result.signature) if args.short else result.signature
    lines = [f"line {n}: " + score_line(result, args.width, False, sig),
             "hypothesis: " + " ".join(str(t) for t in ex.hypothesis_tokens)]
    for k, ref in enumerate(ex.reference_tokens):
        lines.append(f"reference {k + 1}: " + " ".join(str(t) for t in ref))
    for order in ex.orders:
        matched = [f"{' '.join(map(str, m.ngram))}" + (f" x{m.matched}" if m.matched > 1 else "")
                   for m in order.ngrams if m.matched]
        missed = [f"{' '.join(map(str, m.ngram))}" + (f" x{m.hyp_count - m.matched}" if m.hyp_count - m.matched > 1 else "")
                  for m in order.ngrams if m.hyp_count > m.matched]
        lines.append(f"{order.order}-grams {order.matched}/{order.total} ({order.precision:.1f}%)"
                     f"  matched: {' | '.join(matched) or '-'}  unmatched: {' | '.join(missed) or '-'}")
    out.write("\n".join(lines) + "\n")


def _variants(system: List[str], refs: List[List[str]], args: argparse.Namespace, out: IO) -> None:
    from .compat.variants import compare_variants
    from .inputs import references_from_streams

    table = compare_variants(system, references_from_streams(refs))
    if args.format == "json":
        out.write(json.dumps(table.to_dict(), ensure_ascii=False, indent=1) + "\n")
    else:
        out.write(table.format() + "\n")


def _paired(names: List[str], systems: List[List[str]], refs: List[List[str]], options: BleuOptions,
            args: argparse.Namespace, method: str, seed: Optional[int], log: _Log, stderr: IO) -> Tuple[list, str]:
    from .inputs import references_from_streams

    from .significance import paired_test

    references = references_from_streams(refs)
    n = args.paired_bs_n if method == "bs" else args.paired_ar_n
    kwargs = dict(method=method, n_samples=n if n > 0 else None, seed=seed, **options.to_dict())
    n_used = n if n > 0 else (1000 if method == "bs" else 10000)  # sacreBLEU's defaults, its messages
    step = (f" > Performing paired bootstrap resampling test (# resamples: {n_used})" if method == "bs"
            else f" > Performing approximate randomization test (# trials: {n_used})")
    # sacreBLEU's messages, in its order (it computes between them; bleukit tests all systems at once)
    log.info(f"Pre-computing BLEU statistics for {names[0]!r}")
    _warn_tokenized(systems[0], args, log)
    for i in range(1, len(systems)):
        log.info(f"Computing BLEU for {names[i]!r} and extracting sufficient statistics")
        _warn_tokenized(systems[i], args, log)
        log.info(step)
    bar = _progress(n_used, args, stderr, "paired bootstrap" if method == "bs" else "randomization",
                    "resample" if method == "bs" else "trial")
    if bar is not None:
        kwargs["progress"] = bar.update
    try:
        records = paired_test(list(zip(names, systems)), references, **kwargs)
    finally:
        if bar is not None:
            bar.close()
    return records, records[0].result.signature


def _multi(names: List[str], systems: List[List[str]], refs: List[List[str]], options: BleuOptions,
           args: argparse.Namespace, log: _Log, stderr: IO) -> Tuple[List[str], str]:
    from .bleu import corpus_statistics, score_statistics
    from .inputs import references_from_streams

    references = references_from_streams(refs)
    bar = log.bar = _progress(len(systems), args, stderr, "scoring")
    cells, signature = [], ""
    try:
        for system in systems:
            _warn_tokenized(system, args, log)
            result = score_statistics(corpus_statistics(system, references, options), options)
            cells.append(f"{result.score:.{args.width}f}")
            signature = result.signature
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
        log.bar = None
    return cells, signature


def _single(system: List[str], refs: List[List[str]], options: BleuOptions, args: argparse.Namespace,
            seed: Optional[int], log: _Log, colors: Colors, out: IO) -> None:
    from .inputs import references_from_streams

    references = references_from_streams(refs)
    _warn_tokenized(system, args, log)
    from .bleu import corpus_bleu

    n_bootstrap = args.confidence_n if args.confidence and args.confidence_n > 1 else None
    result = corpus_bleu(system, references, n_bootstrap=n_bootstrap, seed=seed, **options.to_dict())
    mean, ci = result.mean, result.ci
    if args.format == "json":
        out.write((args.score_only and score_line(result, args.width, True, "", mean, ci)
                   or score_json(result, args.width, result.signature, mean, ci)) + "\n")
        return
    sig = short_signature(result.signature) if args.short else result.signature
    out.write(align_single_results(score_line(result, args.width, args.score_only, sig, mean, ci), colors) + "\n")


def _colors(args: argparse.Namespace, out: IO) -> Colors:
    # sacreBLEU's colorama passes colours through only to a terminal
    return Colors(not (os.environ.get("NO_COLOR") or args.no_color) and getattr(out, "isatty", lambda: False)())


def _run(args: argparse.Namespace, stdin: Any, out: IO, stderr: IO) -> int:
    log = _Log(stderr, args.quiet)
    problems = unsupported(args)
    if problems:
        for problem in problems:
            log.error(problem)
        return 1
    if args.width < 0:
        raise CliError(f"-w/--width must be >= 0, got {args.width}")
    paired = "bs" if args.paired_bs else "ar" if args.paired_ar else None
    seed, _ = _resolve_seed(args.seed)
    colors = _colors(args, out)

    if args.sentence_level and len(args.metrics) > 1:
        raise CliError("Only one metric can be used in sentence-level mode.")
    refs = _read_references(args)
    names, systems = _read_systems(args, stdin, paired is not None, log)
    if args.sentence_level:
        if len(systems) > 1:
            raise CliError("Only one system can be evaluated in sentence-level mode.")
        if args.confidence or paired:
            raise CliError("Statistical tests are unavailable in sentence-level mode.")
    if paired and len(systems) == 1:
        raise CliError("Paired tests require multiple input systems given to --input (-i).")
    if len(systems) > 1 and args.confidence:
        raise CliError("Use paired tests (--paired-bs or --paired-ar) for multiple systems.")
    _check_lengths(names, systems, args.refs, refs)
    options = _options(args, log)

    if args.explain is not None:
        if len(systems) > 1:
            raise CliError("--explain works on one system")
        _explain(systems[0], refs, options, args, out)
        return 0
    if args.variants:
        if len(systems) > 1:
            raise CliError("--variants works on one system")
        _variants(systems[0], refs, args, out)
        return 0
    if args.sentence_level:
        _sentence_level(systems[0], refs, options, args, out)
        return 0
    if len(systems) == 1:
        _single(systems[0], refs, options, args, seed, log, colors, out)
        return 0
    log.info(f"Found {len(systems)} systems.")
    if paired:
        records, signature = _paired(names, systems, refs, options, args, paired, seed, log, stderr)
        n_header = args.paired_bs_n if paired == "bs" else args.paired_ar_n
    else:
        records, signature = _multi(names, systems, refs, options, args, log, stderr)
        n_header = 0
    sig = short_signature(signature) if args.short else signature
    out.write(results_table(names, records, sig, args.format, args.width, colors, paired, n_header) + "\n")
    return 0


def main(argv: Optional[Sequence[str]] = None, stdin: Optional[Any] = None, stdout: Optional[IO] = None,
         stderr: Optional[IO] = None) -> int:
    """Run the command line; returns the exit status (sacreBLEU's: 1 for bad input, 2 for bad arguments).

    ``stdin`` may be a binary or text stream (default ``sys.stdin``); errors are one line on stderr.
    """
    from_shell = argv is None and stdout is None
    if from_shell:
        _default_sigpipe()
    args = build_parser().parse_args(argv)
    if os.environ.get("SACREBLEU_FORMAT", "").lower() in OUTPUT_FORMATS:
        args.format = os.environ["SACREBLEU_FORMAT"].lower()
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else _utf8(sys.stdout)
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
    except (ImportError, FileNotFoundError) as e:  # an optional package or a tokenizer's model file
        print(f"bleukit: error: {e}", file=err)
        return 1
    except BrokenPipeError:  # where SIGPIPE cannot end us (Windows): quiet, like a killed process
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    finally:
        if _colors(args, out).enabled:  # colorama's reset at exit, which sacreBLEU's output ends with
            try:
                out.write("\x1b[0m")
                out.flush()
            except (OSError, ValueError):
                pass


def _utf8(stream: IO) -> IO:
    # sacreBLEU writes UTF-8 whatever the locale says
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if encoding.lower().replace("-", "") != "utf8" and hasattr(stream, "reconfigure"):
        stream.reconfigure(encoding="utf-8")
    return stream


def _default_sigpipe() -> None:
    # As sacreBLEU: a closed pipe (`bleukit ... | head`) ends the process quietly, no traceback.
    try:
        from signal import SIG_DFL, SIGPIPE, signal

        signal(SIGPIPE, SIG_DFL)
    except (ImportError, ValueError):  # no SIGPIPE on Windows; not the main thread
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
