"""``python -m bleukit`` and the ``bleukit`` console script: the command line (:mod:`bleukit.cli`).

sacreBLEU's way to fetch the text a system translates, ``-t NAME[,NAME...] -l PAIR --echo FIELD...``
and nothing else, is answered here from the test-set cache before the command line's modules (the
metrics and their options, argparse) are imported: they are two thirds of such a run. Any other
argument, any spelling argparse would also accept (``--test-set=NAME``, an abbreviation), a
terminal as output (sacreBLEU's colour reset) or any error goes to :func:`bleukit.cli.run`, which
gives the same output, or the error.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 5 ms of a --echo run)
if TYPE_CHECKING:
    from typing import List, Optional, Sequence, Tuple

_VALUE = {"-t": "sets", "--test-set": "sets", "-l": "pair", "--language-pair": "pair"}


def echo_request(argv: Sequence[str]) -> Optional[Tuple[List[str], str, List[str]]]:
    """``(test sets, language pair, fields)`` of an ``--echo`` on its own, else ``None``.

    >>> echo_request(["-t", "wmt17,wmt18", "-l", "en-de", "--echo", "src", "ref"])
    (['wmt17', 'wmt18'], 'en-de', ['src', 'ref'])
    >>> echo_request(["-t", "wmt17", "-l", "en-de", "--echo", "src", "-i", "out.txt"]) is None
    True
    """
    got: dict = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in _VALUE and _VALUE[arg] not in got and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            got[_VALUE[arg]] = argv[i + 1]
            i += 2
        elif arg == "--echo" and "fields" not in got:
            j = i + 1
            while j < len(argv) and not argv[j].startswith("-"):
                j += 1
            got["fields"] = list(argv[i + 1 : j])
            i = j
        else:
            return None
    if len(got) != 3 or not got["fields"]:
        return None
    return got["sets"].split(","), got["pair"], got["fields"]


def quick_echo(argv: Sequence[str]) -> Optional[int]:
    """Write an ``--echo`` request's lines to stdout and return the exit status; ``None``, having
    written nothing, for anything else, which the command line then answers."""
    request = echo_request(argv)
    if request is None or sys.stdout.isatty():
        return None
    sets, pair, fields = request
    from .testsets import CacheError, RegistryError, echo, langpairs, testsets

    try:
        if any(name not in testsets() or pair not in langpairs(name) for name in sets):
            return None
        text = "".join(echo(name, pair, fields) for name in sets)  # all of it first: an error writes nothing
    except (CacheError, RegistryError, OSError, ValueError):
        return None
    from ._process import closed_pipe, utf8_output

    try:
        out = utf8_output(sys.stdout)
        out.write(text)
        out.flush()
    except BrokenPipeError:
        return closed_pipe()
    return 0


def main() -> None:
    """The ``bleukit`` console script and ``python -m bleukit``."""
    from ._process import default_sigpipe, exit_now

    default_sigpipe()
    code = quick_echo(sys.argv[1:])
    if code is not None:
        exit_now(code)
    from .cli import run

    run()


if __name__ == "__main__":
    main()
