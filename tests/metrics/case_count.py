"""A pytest plugin that lists the distinct oracle cases a run checks: ``(metric, oracle call, options,
input)`` for every call the tests make into sacreBLEU (live oracle) or read from a stored oracle.

It proves that moving tests onto the harness (``harness.py``) kept "the same cases": run the files
before and after with it and compare the sets (``after >= before``, per metric)::

    BLEUKIT_CASE_LOG=/tmp/after.json python -m pytest -p case_count <files>
    python tests/metrics/case_count.py /tmp/before.json /tmp/after.json

(``tests/metrics`` on ``PYTHONPATH`` for ``-p case_count``.) Only the outermost oracle call counts
(``corpus_score`` calls ``_extract_corpus_statistics`` inside); the input is a hash of the
arguments with sequences made lists, so a tuple and a list of the same lines are one input. Calls
through ``python -m sacrebleu`` subprocesses count by their arguments and the files they read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading

_CASES: set = set()
_DEPTH = threading.local()


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
            _CASES.add((type(self).__name__.upper(), kind, _options(self, kind), _digest([args, kwargs])))
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
            _CASES.add((metric, kind, "", _digest([args, kwargs])))
        _DEPTH.n = depth + 1
        try:
            return function(*args, **kwargs)
        finally:
            _DEPTH.n = depth

    wrapper._case_count = True
    setattr(owner, name, staticmethod(wrapper) if isinstance(original, staticmethod) else wrapper)


def pytest_configure(config):
    if not os.environ.get("BLEUKIT_CASE_LOG"):
        return
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
            _CASES.add((type(metric).__name__.upper(), "paired:" + self.test_type, _options(metric),
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
            files = [a for a in map(str, args) if os.path.isfile(a)]
            contents = [open(f, "rb").read().decode("utf-8", "replace") for f in files]
            flags = [a for a in map(str, args[3:]) if not os.path.isfile(a)]
            metrics = [m.upper() for m in ("bleu", "chrf", "ter") if m in flags] or ["BLEU"]
            for metric in metrics:
                _CASES.add((metric, "cli", json.dumps(flags), _digest([contents, kwargs.get("input")])))
        return original_run(args, *rest, **kwargs)

    subprocess.run = run


def pytest_unconfigure(config):
    path = os.environ.get("BLEUKIT_CASE_LOG")
    if path:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{path}.{worker}", "w", encoding="utf-8") as f:
            json.dump(sorted(_CASES), f)


def load(path: str) -> set:
    """The cases a run logged (every worker's file ``path.*``)."""
    import glob

    cases = set()
    for name in glob.glob(glob.escape(path) + ".*"):
        with open(name, encoding="utf-8") as f:
            for metric, kind, options, digest in json.load(f):
                fields = json.loads(options) if options else None
                if isinstance(fields, dict) and kind != "signature":  # logs written before STATE was left out
                    options = json.dumps({k: v for k, v in fields.items() if k not in STATE}, sort_keys=True)
                cases.add((metric, kind, options, digest))
    return cases


def per_metric(cases: set) -> dict:
    counts: dict = {}
    for case in cases:
        counts[case[0]] = counts.get(case[0], 0) + 1
    return dict(sorted(counts.items()))


def main(before: str, after: str) -> int:
    old, new = load(before), load(after)
    lost = old - new
    print(f"{'metric':8} {'before':>8} {'after':>8} {'lost':>6}")
    for metric in sorted({c[0] for c in old | new}):
        old_n, new_n, lost_n = (sum(c[0] == metric for c in s) for s in (old, new, lost))
        print(f"{metric:8} {old_n:8} {new_n:8} {lost_n:6}")
    for case in sorted(lost)[:20]:
        print("lost:", case)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
