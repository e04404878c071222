"""Coverage-guided differential fuzz target: the native kernel against the Python reference engine.

One input (bytes) is a small corpus and its options, so a seed file is readable text:

- byte 0 picks the options: bits 0-2 the tokenizer (0 13a, 1 intl, 2 zh, 3 char, 4 none; 5-6 the
  token-id entry point instead, ids taken from the code points; 7 the libm vector functions),
  bit 3 lowercase, bits 4-6 the max n-gram order minus one, bit 7 wraps every string in a ``str``
  subclass whose methods lie;
- the rest is UTF-8 (bytes that are not, become lone surrogates): sentences separated by ``\\x01``,
  within one the hypothesis then its references separated by ``\\x00``; for the libm functions it
  is float64 values (8 bytes each, native order).

Every input must give the kernel's statistics rows equal to the Python engine's (text) or to
``bleukit.metrics.bleu.statistics.count_statistics`` (ids), and the kernel's vector
``exp``/``log`` (BLEU's formula, ``bleukit.metrics.bleu.libm``) must give ``math.exp``/``math.log``
of every value, in place and out of place, on slices of the values too, with their arguments
checked (an overlap that is not in place, a size that differs: ``ValueError``);
``libm.python_sum`` must equal the built-in ``sum`` of the values. Anything else, or a crash, is a finding.

    python tests/kernel/fuzz/fuzz_kernel.py -max_total_time=600 .fuzz-corpus tests/kernel/fuzz/corpus   # make fuzz
    python tests/kernel/fuzz/fuzz_kernel.py -runs=2000 /tmp/new tests/kernel/fuzz/corpus              # brief run

New inputs go to the first directory (keep tests/kernel/fuzz/corpus, the seed corpus, second so the run
does not write into it). Needs ``atheris`` (the ``dev`` extra). Coverage guidance comes from the
Python code atheris instruments (the reference tokenizers and counter, the glue); the kernel
itself is built by gcc without coverage hooks, so the differential check and the seeds do the
rest. ``check(data)`` is also called on every seed by ``tests/kernel/test_fuzz.py``.

>>> check(bytes([0x30]) + "The cat sat.\\x00the cat sat .".encode())
"""

from __future__ import annotations

import os
import sys

TOKENIZERS = ("13a", "intl", "zh", "char", "none")
MAX_SENTENCES = 8
LIBM = 7  # byte 0's low bits selecting the libm vector functions
MAX_VALUES = 4096


class LyingStr(str):
    """A str subclass whose methods return something else: both engines must ignore them."""

    def lower(self):
        return 0

    def split(self, *args):
        return ["?"]

    def rstrip(self, *args):
        return self + "!"

    def __str__(self):
        return "lie"


def decode(data: bytes):
    """(options byte fields, sentences): each sentence a (hypothesis, [references]) pair."""
    head = data[0] if data else 0
    text = data[1:].decode("utf-8", "surrogateescape")
    sentences = []
    for chunk in text.split("\x01")[:MAX_SENTENCES]:
        parts = chunk.split("\x00")
        sentences.append((parts[0], parts[1:] or [""]))
    return head & 7, bool(head & 8), 1 + ((head >> 4) & 7), bool(head & 128), sentences


def check(data: bytes) -> None:
    import numpy as np

    from bleukit import BleuOptions
    from bleukit.metrics.bleu import kernel as _native
    from bleukit.metrics.bleu.statistics import count_statistics

    if data and data[0] & 7 == LIBM:
        check_libm(data[1:])
        return
    code, lowercase, order, lying, sentences = decode(data)
    if code >= len(TOKENIZERS):
        # token ids: code points become ids, a few of them mapped to the extremes of int64
        special = {1: -1, 2: 2**63 - 1, 3: -(2**63)}
        as_ids = lambda s: [special.get(ord(c) % 64, ord(c) % 64) for c in s]  # noqa: E731
        hyps = [as_ids(h) for h, _ in sentences]
        refs = [[as_ids(r) for r in rs] for _, rs in sentences]
        seqs = [s for h, rs in zip(hyps, refs) for s in [h, *rs]]
        tokens = np.array([t for s in seqs for t in s], dtype=np.int64)
        owner = np.array([i for i, rs in enumerate(refs) for _ in range(1 + len(rs))], dtype=np.int64)
        native = _native.native_flat_ids_statistics(tokens, np.array([len(s) for s in seqs]), owner, len(hyps), order)
        expected = count_statistics(hyps, refs, order)
    else:
        options = BleuOptions(tokenize=TOKENIZERS[code], lowercase=lowercase, max_ngram_order=order)
        wrap = LyingStr if lying else str
        hyps = [wrap(h) for h, _ in sentences]
        refs = [[wrap(r) for r in rs] for _, rs in sentences]
        native = _native.native_text_statistics(hyps, refs, options)
        # the Python engine applies the mteval rules one by one: this also checks the kernel's
        # one-pass form (13a, zh) against them
        expected = _python_statistics(hyps, refs, options)
    if native.rows.tolist() != expected.rows.tolist() or native.nrefs.tolist() != expected.nrefs.tolist():
        raise AssertionError(
            f"kernel != reference for {sentences!r} (code {code}, lowercase {lowercase}, order {order}):\n"
            f"{native.rows.tolist()}\n{expected.rows.tolist()}"
        )


def check_libm(data: bytes) -> None:
    """The vector exp/log against math's on the values in ``data`` (and derived ones in BLEU's range)."""
    import math

    import numpy as np

    from bleukit import _native
    from bleukit.metrics.bleu import libm

    kernel = _native.load_kernel(libm.KERNEL)
    raw = np.frombuffer(data[: len(data) // 8 * 8], dtype=np.float64)[:MAX_VALUES]
    finite = np.nan_to_num(raw, nan=0.0, posinf=1e308, neginf=-1e308)
    values = np.concatenate([raw, np.fmod(finite, 800.0), np.abs(np.fmod(finite, 101.0))])
    for name, ref in (("exp", libm._py_exp), ("log", libm._py_log)):
        want = np.array([ref(v) for v in values.tolist()], dtype=np.float64)
        fn = getattr(kernel, name)
        out = np.empty_like(values)
        fn(values, out)
        _same(out, want, name, values)
        inplace = values.copy()
        fn(inplace, inplace)
        _same(inplace, want, f"{name} in place", values)
        if len(values) > 2:
            part = np.empty(len(values) - 2)
            fn(values[1:-1], part)  # a view into the middle of a buffer
            _same(part, want[1:-1], f"{name} of a slice", values)
            shifted = values.copy()
            try:
                fn(shifted[:-1], shifted[1:])
            except ValueError:
                pass
            else:
                raise AssertionError(f"{name}: an overlapping out was accepted")
            try:
                fn(values, np.empty(len(values) - 1))
            except ValueError:
                pass
            else:
                raise AssertionError(f"{name}: an out of another size was accepted")
        _same(getattr(libm, name)(values), want, f"libm.{name}", values)
    if len(raw) and np.isfinite(raw).all():
        got = float(libm.python_sum(raw[:, None])[0])
        want_sum = sum(raw.tolist())
        if not (got == want_sum or (math.isnan(got) and math.isnan(want_sum))):
            raise AssertionError(f"python_sum {got!r} != sum {want_sum!r} of {raw.tolist()!r}")


def _same(got, want, what: str, values) -> None:
    import numpy as np

    if not np.array_equal(got, want, equal_nan=True):
        bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))[0]
        raise AssertionError(f"{what}({values[bad]!r}) = {got[bad]!r}, math gives {want[bad]!r}")


def _python_statistics(hyps, refs, options):
    from bleukit.metrics.bleu.extract import text_statistics

    old = os.environ.get("BLEUKIT_ENGINE")
    os.environ["BLEUKIT_ENGINE"] = "python"
    try:
        return text_statistics(hyps, refs, options)
    finally:
        if old is None:
            del os.environ["BLEUKIT_ENGINE"]
        else:
            os.environ["BLEUKIT_ENGINE"] = old


def main() -> None:
    import atheris

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src"))
    with atheris.instrument_imports(include=["bleukit"]):
        import bleukit.metrics.bleu.extract  # noqa: F401
        import bleukit.metrics.bleu.libm  # noqa: F401
        import bleukit.metrics.bleu.statistics  # noqa: F401
        import bleukit.tokenizers  # noqa: F401
    from bleukit import _native as loader
    from bleukit.metrics.bleu import kernel as _native
    from bleukit.metrics.bleu import libm

    if not _native.available():
        sys.exit(f"fuzz_kernel: {_native.unavailable_reason}")
    if loader.load_kernel(libm.KERNEL) is None:
        sys.exit(f"fuzz_kernel: {loader.kernel_error(libm.KERNEL)}")
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
