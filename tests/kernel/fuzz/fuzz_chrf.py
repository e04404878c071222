"""Coverage-guided differential fuzz target: the chrF kernel (csrc/metrics/chrf/) against its
pure-Python reference (bleukit.metrics.chrf.reference).

One input (bytes) is a small corpus and its options, so a seed file is readable text:

- byte 0 picks the options: bits 0-2 the character order minus one, bits 3-4 the word order,
  bit 5 lowercase, bit 6 whitespace, bit 7 eps_smoothing;
- byte 1: bits 0-2 beta (0, 1, 2, 3, 0.5, 2.5, 10, 1e-3), bit 3 wraps every string in a ``str``
  subclass whose methods lie, bit 4 the pairwise entry point (every hypothesis against every
  reference of the corpus) instead of the corpus table, bit 5 two threads;
- the rest is UTF-8 (bytes that are not, become lone surrogates): sentences separated by ``\\x01``,
  within one the hypothesis then its references separated by ``\\x00``.

Every input must give the kernel's table (or pairwise rows and scores) equal to the reference's,
and the formula (on int64 rows) and its float32 twin (on float32 sums, as the bootstrap scores
them) equal sacreBLEU's ``CHRF._compute_f_score`` in value and type; anything else, or a crash, is
a finding.

    python tests/kernel/fuzz/fuzz_chrf.py -max_total_time=600 .fuzz-chrf tests/kernel/fuzz/corpus_chrf   # make fuzz
    python tests/kernel/fuzz/fuzz_chrf.py -runs=2000 /tmp/new tests/kernel/fuzz/corpus_chrf             # brief run

New inputs go to the first directory (keep the seed corpus second). Needs ``atheris`` (the ``dev``
extra); as for the BLEU target, coverage guidance comes from the instrumented Python reference
and glue, the compiled kernel is checked by the differential test. ``check(data)`` is also called
on every seed by ``tests/kernel/test_fuzz.py``.

>>> check(bytes([0x15, 0x02]) + "The cat sat.\\x00the cat sat .\\x01(hi)\\x00hi".encode())
"""

from __future__ import annotations

import os
import sys

BETAS = (0, 1, 2, 3, 0.5, 2.5, 10, 1e-3)
MAX_SENTENCES = 8


class LyingStr(str):
    """A str subclass whose methods return something else: both engines must ignore them."""

    def lower(self):
        return "LIE"

    def split(self, *args):
        return ["?"]

    def __iter__(self):
        return iter("lie")

    def __len__(self):
        return 0

    def __str__(self):
        return "lie"


def sentences_of(data: bytes):
    """The sentences of an input's text part: [(hypothesis, [references])] (the TER target's too)."""
    text = data.decode("utf-8", "surrogateescape")
    sentences = []
    for chunk in text.split("\x01")[:MAX_SENTENCES]:
        parts = chunk.split("\x00")
        sentences.append((parts[0], parts[1:] or [""]))
    return sentences


def decode(data: bytes):
    """(options keywords, lying, pairwise, threads, sentences): each sentence (hypothesis, [references])."""
    head = data[0] if data else 0
    extra = data[1] if len(data) > 1 else 0
    sentences = sentences_of(data[2:])
    options = dict(
        char_order=1 + (head & 7),
        word_order=(head >> 3) & 3,
        lowercase=bool(head & 32),
        whitespace=bool(head & 64),
        eps_smoothing=bool(head & 128),
        beta=BETAS[extra & 7],
    )
    return options, bool(extra & 8), bool(extra & 16), 2 if extra & 32 else 1, sentences


def check(data: bytes) -> None:
    from bleukit.metrics.chrf import extract, reference
    from bleukit.metrics.chrf.formula import sentence_scores
    from bleukit.metrics.chrf.options import ChrfOptions

    keywords, lying, pairwise, threads, sentences = decode(data)
    options = ChrfOptions(**keywords)
    wrap = LyingStr if lying else str
    hyps = [wrap(h) for h, _ in sentences]
    refs = [[wrap(r) for r in rs] for _, rs in sentences]
    kernel = extract.available() and extract.engine_name() == "native"
    if not kernel:
        raise RuntimeError("the chrF kernel is not built (or BLEUKIT_ENGINE=python): nothing to compare")
    if pairwise:
        flat = [r for rs in refs for r in rs]
        native_rows = extract.pairwise_chrf_statistics(hyps, flat, options, threads=threads)
        native_scores = extract.pairwise_chrf(hyps, flat, options, threads=threads)
        expected = reference.pairwise_chrf_statistics(hyps, flat, options)
        if native_rows.tolist() != expected.tolist():
            raise AssertionError(f"pairwise kernel != reference for {sentences!r} ({options})")
        scores = sentence_scores(expected.reshape(-1, options.columns), options).reshape(len(hyps), len(flat))
        if native_scores.tolist() != scores.tolist():
            raise AssertionError(f"pairwise kernel scores != formula for {sentences!r} ({options})")
        return
    native = extract.chrf_statistics(hyps, refs, options, threads=threads)
    expected = reference.chrf_statistics(hyps, refs, options)
    if native.tolist() != expected.tolist():
        raise AssertionError(
            f"kernel != reference for {sentences!r} ({options}):\n{native.tolist()}\n{expected.tolist()}"
        )
    check_formulas(expected, keywords, options)


def check_formulas(table, keywords, options) -> None:
    """The formula on the table's rows and on its sum, and its float32 twin (what the bootstrap
    scores) on them as float32 sums, against sacreBLEU's ``_compute_f_score``: value and type."""
    import numpy as np
    from sacrebleu.metrics import CHRF

    from bleukit.metrics.chrf.float32 import float32_sums_scores
    from bleukit.metrics.chrf.formula import sentence_scores

    theirs = CHRF(**keywords)
    rows = np.concatenate([table, table.sum(0, keepdims=True)])
    want = [theirs._compute_f_score(row) for row in rows.tolist()]
    if sentence_scores(rows, options).tolist() != want:
        raise AssertionError(f"formula != sacreBLEU's for {rows.tolist()} ({options})")
    rows32 = rows.astype(np.float32)
    for row in rows32:
        got = float32_sums_scores(row[None, :], options)
        want32 = theirs._compute_f_score(list(row))
        if got[0] != want32 or (got.dtype == np.float32) != isinstance(want32, np.float32):
            raise AssertionError(f"float32 formula {got!r} != sacreBLEU's {want32!r} for {row.tolist()} ({options})")


def main() -> None:
    import atheris

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src"))
    with atheris.instrument_imports(include=["bleukit"]):
        import bleukit.metrics.chrf.extract  # noqa: F401
        import bleukit.metrics.chrf.float32  # noqa: F401
        import bleukit.metrics.chrf.formula  # noqa: F401
        import bleukit.metrics.chrf.reference  # noqa: F401
    from bleukit.metrics.chrf import extract

    if extract.engine_name() != "native":
        sys.exit("fuzz_chrf: the chrF kernel is not built (or BLEUKIT_ENGINE=python)")
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
