"""The shim's last differences from sacreBLEU 2.6 (issue 43, item 6): ``sacrebleu.metrics.helpers``'s
n-gram extractors, chrF's name for ``beta=2.0`` after a ``beta=2`` metric (and back), and
``BLEUScore.ratio`` without references."""

from __future__ import annotations

import pytest
from shared_data import SHARED_DATA, read_lines

sacrebleu = pytest.importorskip("sacrebleu")
import sacrebleu.metrics.helpers as theirs  # noqa: E402

from bleukit.sacrebleu.metrics import BLEU, CHRF, helpers  # noqa: E402


def test_ngram_helpers_are_sacrebleus():
    lines = read_lines(SHARED_DATA / "wmt17-en-de" / "ref.de")[:200] + ["", " ", "a  b\tc", "\u3000x y"]
    for line in lines:
        tokens = line.split()
        assert helpers.extract_all_word_ngrams(line, 1, 4) == theirs.extract_all_word_ngrams(line, 1, 4)
        assert list(helpers.extract_all_word_ngrams(line, 2, 3)[0]) == \
            list(theirs.extract_all_word_ngrams(line, 2, 3)[0])
        for n in (1, 2, 4):
            assert list(helpers.extract_word_ngrams(tokens, n).items()) == \
                list(theirs.extract_word_ngrams(tokens, n).items())
            for ws in (False, True):
                assert list(helpers.extract_char_ngrams(line, n, ws).items()) == \
                    list(theirs.extract_char_ngrams(line, n, ws).items())
        assert helpers.extract_all_char_ngrams(line, 6, True) == theirs.extract_all_char_ngrams(line, 6, True)


def test_installed_helpers_module():
    import importlib
    import sys

    import bleukit.sacrebleu as shim

    saved = {k: v for k, v in sys.modules.items() if k == "sacrebleu" or k.startswith("sacrebleu.")}
    try:
        shim.install()
        assert importlib.import_module("sacrebleu.metrics.helpers") is helpers
    finally:
        for key in [k for k in sys.modules if k == "sacrebleu" or k.startswith("sacrebleu.")]:
            del sys.modules[key]
        sys.modules.update(saved)


def test_chrf_name_follows_beta_as_given_whatever_came_first():
    from sacrebleu.metrics import CHRF as SbCHRF

    for order in ((2, 2.0, 2), (2.0, 2, 2.0), (3, 3.0)):
        for beta in order:
            ours = CHRF(beta=beta).corpus_score(["a b"], [["a b"]]).name
            assert ours == SbCHRF(beta=beta).corpus_score(["a b"], [["a b"]]).name == f"chrF{beta}"


def test_bleu_ratio_without_references_is_sacrebleus_int():
    from sacrebleu.metrics import BLEU as SbBLEU

    ours, sb = BLEU().corpus_score(["a"], [[""]]), SbBLEU().corpus_score(["a"], [[""]])
    assert ours.ratio == sb.ratio == 0 and type(ours.ratio) is type(sb.ratio) is int
    assert str(ours).split("(")[1] == str(sb).split("(")[1]
    ours, sb = BLEU().corpus_score(["a b c d"], [["a b c"]]), SbBLEU().corpus_score(["a b c d"], [["a b c"]])
    assert ours.ratio == sb.ratio and type(ours.ratio) is float
