"""A pytest plugin that lists the distinct oracle cases a run checks: ``(metric, oracle call, options,
input)`` for every call the tests make into sacreBLEU, and a command that compares two runs' lists.

It proves that moving tests (onto the harness, ``harness.py``; onto stored oracles) kept "the same
cases": run the files before and after with it and compare the sets (``after >= before``, per
metric)::

    BLEUKIT_CASE_LOG=/tmp/after.json python -m pytest -p case_count --hypothesis-seed=0 <files>
    python tests/metrics/case_count.py --stored /tmp/stored.json   # the stored oracles' cases
    python tests/metrics/case_count.py /tmp/before.json /tmp/after.json /tmp/stored.json

(``tests/metrics`` on ``PYTHONPATH`` for ``-p case_count``; a fixed Hypothesis seed, so that the
property tests draw the same inputs in both runs.) A test that reads a stored oracle makes no peer
call; ``--stored`` lists the calls behind the stored files by running each oracle's ``compute`` on
its cases. Only the outermost oracle call counts (``corpus_score`` calls
``_extract_corpus_statistics`` inside); the input is a hash of the arguments with sequences made
lists, so a tuple and a list of the same lines are one input. sacreBLEU's command line, in a
subprocess or in this process (``tests/cli/cli_runs.py``), is one case: its flags, the contents of
the files it names and its stdin. The log names the test that made each case first (its node id;
a module's fixtures count for its first test), and the comparison counts the lost cases per test
function, so that each lost group can be traced to the test it came from.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading
from pathlib import Path

_CASES: set = set()
#: the test that made each case first (its node id), for tracing a case one run has and another lacks
_FIRST: dict = {}
_TEST = [""]
_DEPTH = threading.local()


def _add(case: tuple) -> None:
    _CASES.add(case)
    _FIRST.setdefault(case, _TEST[0])


def _plain(value):
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(type(value).__name__)


def _digest(value) -> str:
    return hashlib.sha1(json.dumps(_plain(value), sort_keys=True).encode()).hexdigest()[:16]


#: what a sacreBLEU metric object sets when it scores (not an option): the reference count of its
#: last call, the bootstrap's size and seed; they are part of a signature's input only
STATE = ("num_refs", "n_bootstrap", "seed")


def _options(metric, kind: str = "") -> str:
    fields = {k: v for k, v in vars(metric).items()
              if isinstance(v, (bool, int, float, str, type(None))) and not k.startswith("_ref")
              and (kind == "signature" or k not in STATE)}
    return json.dumps(fields, sort_keys=True, default=str)


def _wrap(owner, name, kind):
    original = getattr(owner, name)
    if getattr(original, "_case_count", False):
        return

    @functools.wraps(original)
    def wrapper(self, *args, **kwargs):
        depth = getattr(_DEPTH, "n", 0)
        if depth == 0:
            _add((type(self).__name__.upper(), kind, _options(self, kind), _digest([args, kwargs])))
        _DEPTH.n = depth + 1
        try:
            return original(self, *args, **kwargs)
        finally:
            _DEPTH.n = depth

    wrapper._case_count = True
    setattr(owner, name, wrapper)


def _wrap_static(owner, name, metric, kind):
    original = owner.__dict__[name]
    function = original.__func__ if isinstance(original, staticmethod) else original
    if getattr(function, "_case_count", False):
        return

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        depth = getattr(_DEPTH, "n", 0)
        if depth == 0:
            _add((metric, kind, "", _digest([args, kwargs])))
        _DEPTH.n = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _DEPTH.n = depth

    wrapper._case_count = True
    setattr(owner, name, staticmethod(wrapper) if isinstance(original, staticmethod) else wrapper)


def pytest_configure(config):
    if os.environ.get("BLEUKIT_CASE_LOG"):
        install()


def install() -> None:
    """Wrap sacreBLEU's entry points so that each outermost call adds its case to the log."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    for cls in (BLEU, CHRF, TER):
        for name, kind in [("corpus_score", "corpus"), ("sentence_score", "sentence"),
                           ("_extract_corpus_statistics", "statistics"), ("get_signature", "signature")]:
            _wrap(cls, name, kind)
    _wrap(CHRF, "_compute_f_score", "formula")
    _wrap(TER, "_compute_score_from_stats", "formula")
    _wrap_static(BLEU, "compute_bleu", "BLEU", "formula")
    original_call = PairedTest.__call__

    @functools.wraps(original_call)  # the shim's tests compare signatures with sacreBLEU's
    def paired(self, *args, **kwargs):
        for metric in self.metrics.values():
            _add((type(metric).__name__.upper(), "paired:" + self.test_type, _options(metric),
                        _digest([self.named_systems, self.n_samples, self._seed])))
        _DEPTH.n = getattr(_DEPTH, "n", 0) + 1
        try:
            return original_call(self, *args, **kwargs)
        finally:
            _DEPTH.n -= 1

    PairedTest.__call__ = paired
    original_init = PairedTest.__init__

    @functools.wraps(original_init)
    def init(self, *args, **kwargs):  # the baseline's statistics: part of the paired case
        _DEPTH.n = getattr(_DEPTH, "n", 0) + 1
        try:
            original_init(self, *args, **kwargs)
        finally:
            _DEPTH.n -= 1

    PairedTest.__init__ = init

    import subprocess

    original_run = subprocess.run

    def run(args, *rest, **kwargs):
        if isinstance(args, (list, tuple)) and "sacrebleu" in [str(a) for a in args[:3]]:
            _add_cli([str(a) for a in args[3:]], kwargs.get("input"))
        return original_run(args, *rest, **kwargs)

    subprocess.run = run
    # sacreBLEU's command line run in this process (tests/cli/cli_runs.py): one case of its own, as
    # a subprocess's, not the metric calls it makes inside
    import sacrebleu.sacrebleu as sacrebleu_cli

    original_main = sacrebleu_cli.main
    if not getattr(original_main, "_case_count", False):

        @functools.wraps(original_main)
        def main():
            stdin = None
            if sys.stdin is not None and hasattr(sys.stdin, "fileno"):
                try:
                    fd = sys.stdin.fileno()
                    try:
                        size = os.fstat(fd).st_size
                        stdin = os.pread(fd, size, 0) if size else None
                    finally:
                        if fd > 2:  # cli_runs' stand-in hands out a duplicate each time
                            os.close(fd)
                except (OSError, ValueError):  # a terminal or pytest's capture: no stdin given
                    stdin = None
            _add_cli(sys.argv[1:], stdin)
            _DEPTH.n = getattr(_DEPTH, "n", 0) + 1
            try:
                return original_main()
            finally:
                _DEPTH.n -= 1

        main._case_count = True
        sacrebleu_cli.main = main


def _add_cli(args: list, stdin) -> None:
    """A command-line case: its flags, the contents of the files it names, and its stdin."""
    files = [a for a in args if os.path.isfile(a)]
    contents = [Path(f).read_bytes().decode("utf-8", "replace") for f in files]
    flags = [a for a in args if not os.path.isfile(a)]
    if isinstance(stdin, bytes):
        stdin = stdin.decode("utf-8", "replace")
    metrics = [m.upper() for m in ("bleu", "chrf", "ter") if m in flags] or ["BLEU"]
    for metric in metrics:
        _add((metric, "cli", json.dumps(flags), _digest([contents, stdin or None])))


def pytest_runtest_setup(item):  # a module's fixtures count for its first test
    _TEST[0] = item.nodeid


def pytest_unconfigure(config):
    path = os.environ.get("BLEUKIT_CASE_LOG")
    if path:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        # one write and a rename: a worker ended while it writes leaves no half file (two logs of one
        # run, 10 and 33 MB, written by json.dump's many small writes, were found cut short)
        text = json.dumps([[*case, _FIRST.get(case, "")] for case in sorted(_CASES)])
        with open(f"{path}.{worker}.partial", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(f"{path}.{worker}.partial", f"{path}.{worker}")


def load(path: str, tests: dict | None = None) -> set:
    """The cases a run logged (every worker's file ``path.*``); ``tests`` gets the test that made
    each (logs written since 2026-11-30 name it)."""
    import glob

    cases = set()
    for name in glob.glob(glob.escape(path) + ".*"):
        if name.endswith(".partial"):
            continue
        with open(name, encoding="utf-8") as f:
            for metric, kind, options, digest, *test in json.load(f):
                fields = json.loads(options) if options else None
                if isinstance(fields, dict) and kind != "signature":  # logs written before STATE was left out
                    options = json.dumps({k: v for k, v in fields.items() if k not in STATE}, sort_keys=True)
                cases.add((metric, kind, options, digest))
                if tests is not None and test:
                    tests.setdefault((metric, kind, options, digest), test[0])
    return cases


def stored_cases(names=None) -> set:
    """The cases behind the stored oracles (``tests/oracles/stored/``): each oracle's ``compute`` run
    on each of its cases with the wrappers on, as ``make refresh-expected`` runs it.

    TER's edit function is replaced by a stand-in while its cases run: a case is the peer call's
    arguments, which the edits do not change, and the real function takes some 45 minutes.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.dirname(here)
    sys.path[:0] = [tests, os.path.join(tests, "oracles")]
    import stored_oracles

    sys.path[:0] = [str(folder) for folder in stored_oracles._pytest_pythonpath()]
    install()
    for name in names or list(stored_oracles.DEFINITIONS):
        oracle = stored_oracles.definition(name)
        module = sys.modules[oracle.compute.__module__]
        saved = getattr(module, "_edits", None)
        if name == "ter":
            module._edits = lambda hyp, ref: (0, len(ref))
        try:
            for case in oracle.cases():
                oracle.compute(case)
        finally:
            if saved is not None:
                module._edits = saved
        print(f"{name}: {len(oracle.cases())} stored cases run", file=sys.stderr)
    return set(_CASES)


def main(argv=None) -> int:
    """Compare the cases of two runs, or log the stored oracles' cases."""
    import argparse

    parser = argparse.ArgumentParser(description="Compare the oracle cases two test runs checked.")
    parser.add_argument("before", help="the earlier run's BLEUKIT_CASE_LOG")
    parser.add_argument("after", nargs="*", help="the later run's logs (their union: the parallel and serial "
                        "parts, the stored oracles' cases)")
    parser.add_argument("--stored", action="store_true", help="write the stored oracles' cases to BEFORE.main "
                        "and stop")
    args = parser.parse_args(argv)
    if args.stored:
        with open(f"{args.before}.main", "w", encoding="utf-8") as f:
            json.dump(sorted(stored_cases()), f)
        return 0
    made_by: dict = {}
    old, new = load(args.before, made_by), set().union(*(load(path) for path in args.after))
    lost = old - new
    print(f"{'metric':14} {'kind':12} {'before':>8} {'after':>8} {'lost':>6}")
    kinds = sorted({(c[0], c[1].split(":")[0]) for c in old | new})
    for metric, kind in kinds:
        old_n, new_n, lost_n = (sum(c[0] == metric and c[1].split(":")[0] == kind for c in s) for s in (old, new, lost))
        print(f"{metric:14} {kind:12} {old_n:8} {new_n:8} {lost_n:6}")
    for metric in sorted({c[0] for c in old | new}):
        old_n, new_n, lost_n = (sum(c[0] == metric for c in s) for s in (old, new, lost))
        print(f"{metric:14} {'all':12} {old_n:8} {new_n:8} {lost_n:6}")
    by_test: dict = {}
    for case in lost:  # by test function (its parameters left out), where the log names the tests
        test = made_by.get(case, "?").split("[")[0]
        by_test[test] = by_test.get(test, 0) + 1
    for test, count in sorted(by_test.items(), key=lambda kv: -kv[1]):
        print(f"lost {count:6} made by {test}")
    for case in sorted(lost)[:20]:
        print("lost:", case)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
