"""The statistics kernel reads the caller's reference entries in place, sums as it counts, counts
on its own threads, counts paired systems against references tokenized once, and scores one
sentence in one call: every way gives the table of the plain one-thread call, exactly."""

from __future__ import annotations

import gc
import random
import subprocess
import sys

import pytest
from shared_data import REPO, read_lines

import bleukit
from bleukit.inputs import check_references
from bleukit.metrics.bleu import METRIC, kernel
from bleukit.metrics.bleu.options import BleuOptions

needs_kernel = pytest.mark.skipif(not kernel.available(), reason=f"kernel not built: {kernel.unavailable_reason}")


def _wmt(shared_data, n=3004):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")[:n]
    a, b = read_lines(folder / "ref.A.en")[:n], read_lines(folder / "ref.B.en")[:n]
    rng = random.Random(0)
    # every kind of entry: a str, a list, a tuple, with missing (None) references
    entries = [rng.choice([x, [x], (x, y), [None, y, x], (y, None)]) for x, y in zip(a, b)]
    return hyps, entries


@needs_kernel
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh"])
def test_entries_threads_and_sums_give_the_plain_table(shared_data, tokenize):
    hyps, entries = _wmt(shared_data)
    options = BleuOptions(tokenize=tokenize, lowercase=tokenize == "intl")
    plain = kernel.native_text_statistics(hyps, check_references(entries, len(hyps)), options)
    for threads in (1, 2, 3, 7):
        table = kernel.native_text_statistics(hyps, entries, options, threads)
        assert table == plain
        row, nrefs = kernel.native_summed_row(hyps, entries, options, threads)
        summed = plain.summed()
        assert row == summed.rows[0].tolist() and nrefs == summed.nrefs[0] == -1
    python = METRIC.statistics(hyps[:300], entries[:300], options)  # the engine's reference twin
    assert kernel.native_text_statistics(hyps[:300], entries[:300], options) == python


@needs_kernel
def test_systems_against_references_tokenized_once(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = [read_lines(folder / f"hyp.{n}.de") for n in ("LIUM-NMT.4900", "online-B.0", "KIT.4950")]
    refs = read_lines(folder / "ref.de")
    entries = [r if i % 4 else [r, None, systems[0][i]] for i, r in enumerate(refs)]
    for options in (BleuOptions(), BleuOptions(tokenize="intl", lowercase=True, max_ngram_order=3)):
        for threads in (1, 2):
            tables = kernel.native_systems_statistics(systems, entries, options, threads)
            assert tables == [kernel.native_text_statistics(s, entries, options) for s in systems]
    with pytest.raises(ValueError, match="every system needs 3004 hypotheses, one has 3"):
        kernel.native_systems_statistics([systems[0], systems[1][:3]], entries, BleuOptions())


@needs_kernel
def test_one_sentence_long_or_short_equals_the_table():
    hyp = "The quick brown fox , 1,000.5 jumps over the lazy dog - again ; ok ?"
    ref = "A quick brown fox jumps over a lazy dog again , 1,000.5 and again ."
    for h, r in ((hyp, ref), (hyp * 800, [ref * 700, None, hyp * 600]), ("", ""), ("Ab", ("ab", "AB"))):
        for options in (BleuOptions(), BleuOptions(lowercase=True, tokenize="none", max_ngram_order=12)):
            table = kernel.native_text_statistics([h], [r], options)
            assert kernel.native_sentence_row(h, r, options) == (table.rows[0].tolist(), int(table.nrefs[0]))


@needs_kernel
def test_the_entry_checks_are_the_python_checks():
    bad = [None, [], (None,), 3, b"x", ["a", 3], ("a", None, 2.0), {"a": 1}]
    for entry in bad:
        with pytest.raises((TypeError, ValueError)) as python:
            check_references(["a", entry], 2)
        for call in (kernel.native_text_statistics, kernel.native_summed_row):
            with pytest.raises(python.type) as ours:
                call(["a", "b"], ["a", entry], BleuOptions())
            assert str(ours.value) == str(python.value)
    # the first bad hypothesis is reported before any reference
    with pytest.raises(TypeError, match=r"^hypotheses\[1\] must be a str, got int$"):
        kernel.native_text_statistics(["a", 1], [None, None], BleuOptions())


@needs_kernel
def test_a_corpus_sets_off_no_garbage_collection(shared_data):
    """The input checks make O(1) Python objects per sentence: no list per hypothesis, so no
    cascade of collections through a heap that grows with the corpus."""
    hyps, refs = read_lines(shared_data / "wmt17-en-de" / "hyp.KIT.4950.de"), read_lines(
        shared_data / "wmt17-en-de" / "ref.de")
    hyps, refs = hyps * 30, refs * 30  # 90k pairs: a list per pair would run ~130 collections
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        bleukit.corpus_bleu(hyps, refs)
        bleukit.corpus_bleu(hyps, [[r, None] for r in refs[:10]] + refs[10:])
    finally:
        gc.callbacks.remove(count)
    assert len(collections) <= 4, collections


NUMPY_FREE = """
import sys
from bleukit.cli import main
code = main([sys.argv[1], "-i", sys.argv[2], "-b"])
others = [m for m in sys.modules if m.startswith(("bleukit.metrics.chrf.", "bleukit.metrics.ter."))]
print(code, "numpy" in sys.modules, "gzip" in sys.modules, "shutil" in sys.modules,
      sorted(m.rsplit(".", 1)[1] for m in others))
"""


def test_the_command_line_scores_a_file_without_numpy(shared_data, tmp_path):
    """`bleukit REF -i HYP -b` starts faster than numpy imports: nothing on its path imports it, nor
    gzip (for .gz files only), nor shutil (argparse's terminal width, for help only), nor anything
    of the other metrics but their command-line arguments."""
    folder = shared_data / "wmt17-en-de"
    proc = subprocess.run([sys.executable, "-c", NUMPY_FREE, str(folder / "ref.de"), str(folder / "hyp.KIT.4950.de")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    score, status = proc.stdout.strip().split("\n")
    assert status == "0 False False False ['cli', 'cli', 'defaults']", proc.stdout
    expected = bleukit.corpus_bleu(read_lines(folder / "hyp.KIT.4950.de"), read_lines(folder / "ref.de"))
    assert score == expected.score_text(1)
