"""Coverage-guided differential fuzz target: the TER kernel (csrc/metrics/ter/) against its pure-Python
reference (bleukit.metrics.ter.reference and .tokenizer).

One input (bytes) is a small corpus and its options, so a seed file is readable text:

- byte 0: bits 0-3 TER's four switches (normalized, no_punct, asian_support, case_sensitive),
  bit 4 wraps every string in a ``str`` subclass whose methods lie, bit 5 two threads;
- the rest as for the chrF target (``fuzz_chrf.py``), each string cut to ``MAX_CHARS`` characters:
  UTF-8 (bytes that are not, become lone surrogates), sentences separated by ``\\x01``, within one
  the hypothesis then its references separated by ``\\x00``.

Every input must give the kernel's table equal to the reference's, and the kernel's words of every
line (as a hypothesis and as a reference) equal to the reference tokenizer's; anything else, or a
crash, is a finding.

    python tests/kernel/fuzz/fuzz_ter.py -max_total_time=600 .fuzz-ter tests/kernel/fuzz/corpus_ter   # make fuzz

>>> check(bytes([0x03]) + "The cat, sat.\\x00the cat sat .\\x01a b c d\\x00c d a b".encode())
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_chrf import LyingStr, sentences_of  # noqa: E402  (the shared input format)

SWITCHES = ("normalized", "no_punct", "asian_support", "case_sensitive")
#: Characters kept of each string: the instrumented Python reference's shift search grows fast with
#: length (long sentences, the widened beam and the candidate cap are tests/metrics/ter's hard cases).
MAX_CHARS = 160


def decode(data: bytes):
    """(options keywords, lying, threads, sentences): each sentence (hypothesis, [references])."""
    head = data[0] if data else 0
    options = {name: bool(head & (1 << bit)) for bit, name in enumerate(SWITCHES)}
    sentences = [(h[:MAX_CHARS], [r[:MAX_CHARS] for r in rs]) for h, rs in sentences_of(data[1:])]
    return options, bool(head & 16), 2 if head & 32 else 1, sentences


def check(data: bytes) -> None:
    from bleukit.metrics.ter import extract, reference
    from bleukit.metrics.ter.options import TerOptions
    from bleukit.metrics.ter.tokenizer import TercomTokenizer

    keywords, lying, threads, sentences = decode(data)
    options = TerOptions(**keywords)
    wrap = LyingStr if lying else str
    hyps = [wrap(h) for h, _ in sentences]
    refs = [[wrap(r) for r in rs] for _, rs in sentences]
    if extract.ter_engine() != "native":
        raise RuntimeError("the TER kernel is not built (or BLEUKIT_ENGINE=python): nothing to compare")
    native = extract.ter_statistics(hyps, refs, options, threads=threads)
    expected = reference.ter_statistics(hyps, refs, options)
    if native.tolist() != expected.tolist():
        raise AssertionError(
            f"kernel != reference for {sentences!r} ({options}):\n{native.tolist()}\n{expected.tolist()}"
        )
    tokenizer = TercomTokenizer(options)
    flags = [keywords[name] for name in SWITCHES]
    for line in [h for h, _ in sentences] + [r for _, rs in sentences for r in rs]:
        if extract._kernel.words(line, *flags, False) != tokenizer.hypothesis_words(line) or \
                extract._kernel.words(line, *flags, True) != tokenizer.reference_words(line):
            raise AssertionError(f"kernel words != reference tokenizer for {line!r} ({options})")


def main() -> None:
    import atheris

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src"))
    with atheris.instrument_imports(include=["bleukit"]):
        import bleukit.metrics.ter.extract  # noqa: F401
        import bleukit.metrics.ter.reference  # noqa: F401
        import bleukit.metrics.ter.tokenizer  # noqa: F401
    from bleukit.metrics.ter import extract

    if extract.ter_engine() != "native":
        sys.exit("fuzz_ter: the TER kernel is not built (or BLEUKIT_ENGINE=python)")
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
