"""Command line: ``bleukit HYP REF [REF ...]`` (or hypotheses on stdin), sacreBLEU's option names.

>>> main(["--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import List, Optional, Sequence, TextIO

from ._version import __version__
from .bleu import corpus_statistics, score_statistics, sentence_scores_from_statistics
from .inputs import references_from_streams
from .options import DEFAULT_CORPUS_SMOOTH, DEFAULT_MAX_NGRAM_ORDER, SMOOTH_DEFAULTS, BleuOptions
from .tokenizers import DEFAULT_TOKENIZER, TOKENIZERS

__all__ = ["main", "build_parser", "read_segments"]


def read_segments(handle: TextIO) -> List[str]:
    """Lines of a segment file without their line ends (only ``\\n`` separates segments).

    >>> import io
    >>> read_segments(io.StringIO("a b\\n\\u2028c\\n"))
    ['a b', '\\u2028c']
    """
    return [line[:-1] if line.endswith("\n") else line for line in handle]


def _read_file(path: str, stdin: TextIO) -> List[str]:
    if path == "-":
        return read_segments(stdin)
    with open(path, encoding="utf-8", newline="\n") as f:
        return read_segments(f)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (``bleukit --help``)."""
    p = argparse.ArgumentParser(
        prog="bleukit",
        description=(
            "sacreBLEU-exact BLEU. Usage: bleukit HYP REF [REF ...]  |  bleukit -i HYP REF ...  |  "
            "cat HYP | bleukit REF [REF ...]. One segment per line; several reference files give "
            "several references per segment (an empty line is an empty reference)."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="hypothesis file then reference files, or only reference files with -i or stdin")
    p.add_argument("-i", "--input", metavar="HYP", help="hypothesis file ('-' for stdin)")
    p.add_argument("-tok", "--tokenize", default=DEFAULT_TOKENIZER, choices=sorted(TOKENIZERS),
                   help=f"tokenizer (default {DEFAULT_TOKENIZER})")
    p.add_argument("-lc", "--lowercase", action="store_true", help="case-insensitive BLEU")
    p.add_argument("-s", "--smooth-method", default=DEFAULT_CORPUS_SMOOTH, choices=list(SMOOTH_DEFAULTS),
                   help=f"smoothing (default {DEFAULT_CORPUS_SMOOTH})")
    p.add_argument("--smooth-value", type=float, default=None,
                   help="value for floor (default 0.1) or add-k (default 1)")
    p.add_argument("--max-ngram-order", type=int, default=DEFAULT_MAX_NGRAM_ORDER,
                   help=f"largest n-gram order (default {DEFAULT_MAX_NGRAM_ORDER})")
    p.add_argument("--weights", type=float, nargs="+", default=None,
                   help="one weight per n-gram order (default uniform)")
    p.add_argument("-e", "--effective-order", action="store_true",
                   help="drop n-gram orders without any n-gram (on by default with --sentence-level)")
    p.add_argument("-w", "--width", type=int, default=1, help="decimals of the printed score (default 1)")
    p.add_argument("-f", "--format", default="json", choices=["json", "text"], help="output format")
    p.add_argument("--sentence-level", action="store_true",
                   help="one sentence BLEU per line (effective order on), then the corpus score")
    p.add_argument("-V", "--version", action="version", version=f"bleukit {__version__}")
    return p


def main(argv: Optional[Sequence[str]] = None, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Run the command line; returns the exit status (2 for bad input, with a message on stderr)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    if args.input is not None:
        hyp_path, ref_paths = args.input, args.files
    elif len(args.files) >= 2:
        hyp_path, ref_paths = args.files[0], args.files[1:]
    else:
        hyp_path, ref_paths = "-", args.files
    try:
        options = BleuOptions(
            tokenize=args.tokenize,
            lowercase=args.lowercase,
            smooth_method=args.smooth_method,
            smooth_value=args.smooth_value,
            max_ngram_order=args.max_ngram_order,
            weights=args.weights,
            effective_order=args.effective_order,
        )
        hyps = _read_file(hyp_path, stdin)
        streams = [_read_file(path, stdin) for path in ref_paths]
        counts = [len(hyps)] + [len(s) for s in streams]
        if len(set(counts)) != 1:
            names = ["hypotheses " + hyp_path] + list(ref_paths)
            detail = ", ".join(f"{n}: {c} lines" for n, c in zip(names, counts))
            raise ValueError(f"line counts differ ({detail}); every file needs one line per segment")
        stats = corpus_statistics(hyps, references_from_streams(streams), options)
        result = score_statistics(stats, options)
        if args.sentence_level:
            sent_options = dataclasses.replace(options, effective_order=True)
            scores = sentence_scores_from_statistics(stats, sent_options)
            for i, score in enumerate(scores):
                if args.format == "json":
                    out.write(json.dumps({"line": i + 1, "score": float(score)}) + "\n")
                else:
                    out.write(f"{i + 1}\t{score:.{args.width}f}\n")
    except (ValueError, TypeError, ImportError, OSError) as err:
        print(f"bleukit: error: {err}", file=sys.stderr)
        return 2
    if args.format == "json":
        d = result.to_dict()
        d["verbose_score"] = result.format(width=args.width, signature=False)
        out.write(json.dumps(d, ensure_ascii=False, indent=1) + "\n")
    else:
        out.write(result.format(width=args.width) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
