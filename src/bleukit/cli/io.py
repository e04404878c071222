"""Reading segment files and stdin for the command line exactly as sacreBLEU's does.

sacreBLEU strips trailing whitespace from every line (``line.rstrip()``); files split only on
``\\n`` (``newline="\\n"``) while stdin is read with universal newlines (``\\r`` and ``\\r\\n``
end lines too); ``.gz`` files are decompressed. Errors name the file and the line.

>>> import io
>>> read_stdin_systems(io.BytesIO(b"a b \\tc\\r\\nd\\te \\n"), "utf-8")
[['a b ', 'd'], ['c', 'e']]
"""

from __future__ import annotations

import argparse
import codecs
from typing import IO, Any, Callable, List, Sequence, Tuple

__all__ = ["CliError", "read_lines", "read_stdin_systems", "split_num_refs", "read_systems", "read_references",
           "check_lengths", "stdin_column"]


class CliError(Exception):
    """An error the command line reports in one line and exits with ``code`` (sacreBLEU's codes)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _decode(data: bytes, encoding: str, where: str) -> str:
    # The incremental decoder, as sacreBLEU's text-mode files use: "utf-16" then requires a
    # byte-order mark ("UTF-16 stream does not start with BOM") where bytes.decode would guess.
    try:
        decoder = codecs.getincrementaldecoder(encoding)()
    except LookupError:
        raise CliError(f"unknown encoding {encoding!r} (-e/--encoding)") from None
    try:
        return decoder.decode(data, final=True)
    except UnicodeDecodeError as err:
        nul = data.find(b"\0")
        if nul >= 0:
            # No text file in an 8-bit encoding or UTF-8 holds a NUL byte: an image, an archive, a
            # compressed file, or UTF-16/32 text. Another 8-bit -e would "decode" it into garbage.
            raise CliError(
                f"{where}: not a text file in {encoding} (a NUL byte at byte {nul}); give a text file with "
                "one segment per line (for UTF-16 text, -e utf-16)"
            ) from None
        line = data[: err.start].count(b"\n") + 1
        raise CliError(
            f"{where}, line {line}: not valid {encoding} ({err.reason} at byte {err.start}); "
            "give the file's encoding with -e/--encoding"
        ) from None
    except UnicodeError as err:
        raise CliError(f"{where}: {err} (-e {encoding})") from None


def _split(text: str) -> List[str]:
    # Same lines as iterating over a file opened with newline="\n": the text after the last
    # "\n" is a line only when it is not empty.
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str, encoding: str = "utf-8") -> List[str]:
    """The segments of a file (``.gz`` decompressed), trailing whitespace stripped as sacreBLEU does.

    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
    ...     _ = f.write(b"one \\xe2\\x80\\xa8x\\ntwo\\r\\n")
    >>> read_lines(f.name)
    ['one \\u2028x', 'two']
    >>> os.unlink(f.name)
    """
    try:
        if path.endswith(".gz"):
            import gzip  # here: importing it costs every run ~1 ms

            with gzip.open(path, "rb") as f:
                data = f.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a segment file") from None
    except (OSError, EOFError) as err:
        raise CliError(f"{path}: cannot read it ({err})") from None
    except MemoryError:
        # /dev/zero, a gzip bomb: the buffer that failed is gone, a message fits.
        raise CliError(f"{path}: out of memory reading it (is it a segment file?)") from None
    return [line.rstrip() for line in _split(_decode(data, encoding, path))]


def read_stdin_systems(stream: IO, encoding: str = "utf-8") -> List[List[str]]:
    """Systems from stdin: tab-separated columns are systems (sacreBLEU's stdin format).

    The number of systems is read off the first line; a later line with another number of
    columns is an error (exit code 17, as sacreBLEU). Empty input is one system of one empty line.

    >>> import io
    >>> read_stdin_systems(io.BytesIO(b""), "utf-8")
    [['']]
    """
    raw = stream.read()
    text = raw if isinstance(raw, str) else _decode(raw, encoding, "stdin")
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as TextIOWrapper
    lines = _split(text) or [""]
    # sacreBLEU's exact stripping: the first line is stripped as a whole, later ones per column
    systems = [[s] for s in lines[0].rstrip().split("\t")]
    for number, line in enumerate(lines[1:], 2):
        fields = line.rstrip().split("\t")
        if len(fields) != len(systems):
            raise CliError(
                f"stdin, line {number}: {len(fields)} tab-separated systems, but the first line has "
                f"{len(systems)} (the number of tab-delimited fields in the input stream differ across lines)",
                code=17,
            )
        for column, sent in zip(systems, fields):
            column.append(sent.rstrip())
    return systems


def split_num_refs(lines: List[str], num_refs: int, path: str) -> List[List[str]]:
    """Reference streams from one file of ``num_refs`` tab-separated references per line (``-nr``).

    >>> split_num_refs(["a\\tb", "c\\td\\te"], 2, "refs.tsv")
    [['a', 'c'], ['b', 'd\\te']]
    """
    streams: List[List[str]] = [[] for _ in range(num_refs)]
    for number, line in enumerate(lines, 1):
        refs = line.split("\t", num_refs - 1)
        if len(refs) != num_refs:
            raise CliError(
                f"{path}, line {number}: expected {num_refs} tab-separated references (-nr), found {len(refs)}",
                code=17,
            )
        for stream, ref in zip(streams, refs):
            stream.append(ref)
    return streams


def read_systems(
    args: argparse.Namespace, stdin: Any, paired: bool, info: Callable[[str], object]
) -> Tuple[List[str], List[List[str]]]:
    """The systems' names and lines: from ``-i`` files (``-`` is stdin) or tab-separated stdin columns."""
    if args.input is None:
        if getattr(stdin, "isatty", lambda: False)():
            raise CliError(
                "no hypotheses: pipe them on stdin or name them with -i (the positional files are "
                "references, as in sacreBLEU): bleukit REF [REF ...] -i HYP"
            )
        columns = read_stdin_systems(getattr(stdin, "buffer", stdin), args.encoding)
        labels = [f"System {i + 1}" for i in range(len(columns))]
        if paired:
            labels = ["Baseline"] + [f"System {i + 1}" for i in range(len(columns) - 1)]
        return labels, columns
    if not args.input:
        raise CliError("-i/--input needs at least one hypothesis file")
    names: List[str] = []
    systems: List[List[str]] = []
    for fname in args.input:
        if fname in names:
            if paired and fname == names[0]:
                info(f"Ignoring {fname!r} as it was also given as the baseline.")
                continue
            raise CliError(f"{fname!r} already used to name a system; give each system a different file name")
        if fname == "-":  # bleukit addition: '-' is stdin
            systems.append(stdin_column(stdin, args.encoding))
        else:
            systems.append(read_lines(fname, args.encoding))
        names.append(fname)
    if paired:
        names[0] = f"Baseline: {names[0]}"
    return names, systems


def stdin_column(stdin: Any, encoding: str) -> List[str]:
    """One system from stdin (``-i -``), read as a file."""
    raw = getattr(stdin, "buffer", stdin).read()
    text = raw if isinstance(raw, str) else _decode(raw, encoding, "stdin")
    return [line.rstrip() for line in _split(text.replace("\r\n", "\n").replace("\r", "\n"))]


def read_references(args: argparse.Namespace) -> List[List[str]]:
    """The reference streams of the positional files (``--num-refs`` splits one file on tabs)."""
    if not args.refs:
        raise CliError("no reference files: give them before -i (bleukit REF [REF ...] -i HYP), "
                       "or a test set (-t wmt22 -l de-en)")
    if args.num_refs < 1:
        raise CliError(f"--num-refs must be >= 1, got {args.num_refs}")
    # --num-refs with several reference files: sacreBLEU's error, in cli.testsets.early
    if "-" in args.refs:
        raise CliError("'-' is not a reference file: '-' means STDIN, which holds the hypotheses (piped in "
                       "without -i, or -i -); give every reference as a file (bleukit REF [REF ...] -i HYP)")
    streams = [read_lines(path, args.encoding) for path in args.refs]
    if args.num_refs != 1:
        streams = split_num_refs(streams[0], args.num_refs, args.refs[0])
    return streams


def check_lengths(names: Sequence[str], systems: Sequence[List[str]], ref_paths: Sequence[str],
                   refs: Sequence[List[str]]) -> None:
    """Every system and reference stream has one line per segment, or a ``CliError`` saying which."""
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
