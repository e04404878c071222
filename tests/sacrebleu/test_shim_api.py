"""The shape of bleukit.sacrebleu against sacreBLEU 2.6.0's own API (names, argument names, order,
defaults, class constants), its intended difference (reference streams of another length are a
ValueError naming the stream) and its other behaviours: cached references, attributes changed
after construction, errors, inputs left alone, install()."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
import sacrebleu as sb
import sacrebleu.compat
import sacrebleu.significance

from bleukit import sacrebleu as shim
from bleukit.sacrebleu.significance import PairedTest

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]


def _parameters(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize(
    "name",
    ["corpus_bleu", "raw_corpus_bleu", "sentence_bleu", "corpus_chrf", "sentence_chrf", "corpus_ter", "sentence_ter"],
)
def test_functions_take_sacrebleus_arguments(name):
    assert _parameters(getattr(shim, name)) == _parameters(getattr(sb, name))
    assert getattr(shim.compat, name) is getattr(shim, name)


@pytest.mark.parametrize(
    "cls, method",
    [
        (cls, method)
        for cls in ("BLEU", "CHRF", "TER")
        for method in ("__init__", "corpus_score", "sentence_score", "get_signature")
    ]
    + [("BLEU", "compute_bleu")],
)
def test_classes_take_sacrebleus_arguments(cls, method):
    assert _parameters(getattr(getattr(shim, cls), method)) == _parameters(getattr(getattr(sb, cls), method))
    assert getattr(shim.metrics, cls) is getattr(shim, cls)


def test_score_and_signature_methods_and_paired_test_take_sacrebleus_arguments():
    from sacrebleu.metrics.base import Score, Signature

    assert _parameters(shim.metrics.base.Score.format) == _parameters(Score.format)
    assert _parameters(shim.metrics.base.Signature.format) == _parameters(Signature.format)
    assert _parameters(PairedTest.__init__) == _parameters(sb.significance.PairedTest.__init__)
    assert _parameters(shim.significance.Result.__init__) == _parameters(sb.significance.Result.__init__)
    assert _parameters(shim.metrics.BLEUScore.__init__) == _parameters(sb.metrics.BLEUScore.__init__)
    assert _parameters(shim.metrics.CHRFScore.__init__) == _parameters(sb.metrics.CHRFScore.__init__)
    assert _parameters(shim.metrics.TERScore.__init__) == _parameters(sb.metrics.TERScore.__init__)
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

    from bleukit.sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as ShimTercom

    assert _parameters(ShimTercom.__init__) == _parameters(TercomTokenizer.__init__)


def test_class_constants_and_tokenizer_introspection():
    assert shim.BLEU.SMOOTH_DEFAULTS == sb.BLEU.SMOOTH_DEFAULTS
    assert shim.BLEU.TOKENIZER_DEFAULT == sb.BLEU.TOKENIZER_DEFAULT
    assert dict(shim.BLEU._TOKENIZER_MAP) == sb.BLEU._TOKENIZER_MAP
    # every sacreBLEU tokenizer (the SentencePiece ones with their models in $SACREBLEU/models)
    assert set(shim.BLEU.TOKENIZERS) == set(sb.BLEU.TOKENIZERS)
    assert (shim.CHRF.CHAR_ORDER, shim.CHRF.WORD_ORDER, shim.CHRF.BETA) == (
        sb.CHRF.CHAR_ORDER,
        sb.CHRF.WORD_ORDER,
        sb.CHRF.BETA,
    )
    assert shim.metrics.bleu.MAX_NGRAM_ORDER == sb.metrics.bleu.MAX_NGRAM_ORDER
    assert sorted(shim.metrics.METRICS) == sorted(sb.metrics.METRICS)
    assert shim.__version__ == sb.__version__


@pytest.mark.parametrize("function", [shim.corpus_bleu, shim.corpus_chrf, shim.corpus_ter])
def test_a_short_reference_stream_is_an_error_that_names_it(function):
    short = [REFS[0], REFS[1][:2]]
    with pytest.raises(ValueError, match="reference stream 1 is too short: it has 2 lines for 3 hypotheses"):
        function(HYPS, short)
    with pytest.raises(ValueError, match="reference stream 0 is too long: it has 3 lines for 2 hypotheses"):
        function(HYPS[:2], REFS[:1])
    # what sacreBLEU does instead: its zip drops the third sentence and scores two
    theirs = getattr(sb, function.__name__)(HYPS, short)
    assert theirs.score == getattr(sb, function.__name__)(HYPS[:2], [REFS[0][:2], REFS[1][:2]]).score


@pytest.mark.parametrize("cls", [shim.BLEU, shim.CHRF, shim.TER])
def test_cached_references_of_another_length(cls):
    with pytest.raises(ValueError, match=r"different lengths: \[3, 2\]; stream 1 is shorter than stream 0"):
        cls(references=[REFS[0], REFS[1][:2]])
    metric = cls(references=REFS)
    with pytest.raises(ValueError, match=r"references=\.\.\.\) are for 3 sentences, got 2 hypotheses"):
        metric.corpus_score(HYPS[:2], None)
    with pytest.raises(RuntimeError, match="No references provided and the cache is empty"):
        cls().corpus_score(HYPS, None)
    with pytest.raises(RuntimeError, match="No references provided and the cache is empty"):
        cls().corpus_score(HYPS, [])


@pytest.mark.parametrize(
    "pair", [(shim.BLEU, sb.BLEU), (shim.CHRF, sb.CHRF), (shim.TER, sb.TER)], ids=["BLEU", "CHRF", "TER"]
)
def test_bad_input(pair):
    ours, theirs = pair
    with pytest.raises(ValueError, match="Number of references unknown"):
        ours().get_signature()
    with pytest.raises(ValueError, match="Number of references unknown"):
        theirs().get_signature()
    with pytest.raises(TypeError, match="references must be a list of reference strings, got a str"):
        ours().sentence_score("a b", "a b")
    with pytest.raises(TypeError):
        theirs().sentence_score("a b", "a b")
    with pytest.raises(TypeError, match="hypothesis must be a str"):
        ours().sentence_score(["a b"], ["a b"])
    with pytest.raises(ValueError, match="empty corpus"):
        ours().corpus_score([], [[]])
    with pytest.raises(TypeError, match=r"hypotheses\[1\] must be a str"):
        ours().corpus_score(["a", None], [["a", "b"]])
    with pytest.raises(ValueError, match=r"references\[0\] holds no reference"):
        ours().corpus_score(["a"], [[None]])


def test_bad_options_fail_at_construction():
    with pytest.raises(ValueError, match="unknown smooth_method='laplace'"):
        shim.BLEU(smooth_method="laplace")
    with pytest.raises(ValueError, match="unknown tokenize='moses'"):
        shim.BLEU(tokenize="moses")
    with pytest.raises(ValueError, match="char_order must be between 1"):
        shim.CHRF(char_order=0)
    with pytest.raises(TypeError, match="TER option normalized must be a bool"):
        shim.TER(normalized="yes")
    with pytest.raises(TypeError, match="smooth_value must be a number"):
        shim.sentence_bleu("a", ["a"], smooth_method="floor", smooth_value=[0.1])  # unhashable: not kept
    with pytest.raises(ValueError, match="n_ar_confidence .* is not supported"):
        PairedTest([("a", HYPS), ("b", HYPS)], {"BLEU": shim.BLEU()}, REFS, n_ar_confidence=0)
    with pytest.raises(ValueError, match="unknown test_type='t'"):
        PairedTest([("a", HYPS), ("b", HYPS)], {"BLEU": shim.BLEU()}, REFS, test_type="t")


@pytest.mark.parametrize(
    "pair, changes",
    [
        ((shim.BLEU, sb.BLEU), {"lowercase": True, "smooth_method": "floor", "effective_order": True}),
        # (not word_order: sacreBLEU's CHRF keeps the order count of its construction)
        ((shim.CHRF, sb.CHRF), {"beta": 1, "lowercase": True, "whitespace": True}),
        # (sacreBLEU's TER reads its options through the tokenizer built at construction: only
        # case_sensitive is read again, by the signature; bleukit's reads every attribute)
    ],
    ids=["BLEU", "CHRF"],
)
def test_attributes_changed_after_construction_are_used(pair, changes):
    ours, theirs = pair[0](), pair[1]()
    for name, value in changes.items():
        setattr(ours, name, value)
        setattr(theirs, name, value)
    hyps = [h.upper() for h in HYPS]
    assert ours.corpus_score(hyps, REFS).score == theirs.corpus_score(hyps, REFS).score
    assert ours.get_signature().format().split("|")[:-1] == theirs.get_signature().format().split("|")[:-1]


def test_inputs_are_not_modified():
    correct, total = [3, 1, 0, 0], [5, 4, 3, 2]
    shim.BLEU.compute_bleu(correct, total, 5, 9, smooth_method="add-k")
    assert (correct, total) == ([3, 1, 0, 0], [5, 4, 3, 2])  # sacreBLEU's adds k to the caller's lists
    refs = [list(r) for r in REFS]
    shim.BLEU(references=refs).corpus_score(HYPS, None)
    shim.corpus_chrf(HYPS, refs)
    assert refs == REFS
    with pytest.raises(ValueError, match="integer statistics"):
        shim.BLEU.compute_bleu([1.5, 0, 0, 0], [2, 1, 0, 0], 2, 2)


def test_signature_object():
    bleu = shim.BLEU()
    bleu.corpus_score(HYPS, [REFS[0], [None, *REFS[1][1:]]])
    signature = bleu.get_signature()
    assert signature.info["nrefs"] == "var" and signature.info["case"] == "mixed"
    signature.update("ar", 10000)
    signature.update("seed", "12345")
    assert signature.format().startswith("nrefs:var|ar:10000|seed:12345|case:mixed|")
    assert signature.format(short=True).startswith("#:var|ar:10000|rs:12345|c:mixed|e:no|tok:13a|s:exp|v:bleukit-")
    assert repr(signature) == str(signature) == signature.format()


def test_score_json_needs_a_signature_as_in_sacrebleu():
    with pytest.raises(ValueError):
        shim.corpus_bleu(HYPS, REFS).format(is_json=True)
    with pytest.raises(ValueError):
        sb.corpus_bleu(HYPS, REFS).format(is_json=True)
    assert shim.corpus_bleu(HYPS, REFS).format(is_json=True, score_only=True) == "48.53"


def test_install_makes_import_sacrebleu_give_the_shim():
    code = (
        "import bleukit.sacrebleu as shim; shim.install()\n"
        "import sacrebleu, sacrebleu.metrics, sacrebleu.compat\n"
        "from sacrebleu.metrics import BLEU\n"
        "from sacrebleu.significance import PairedTest\n"
        "from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer\n"
        "assert TercomTokenizer.__module__ == 'bleukit.sacrebleu.tokenizers.tokenizer_ter'\n"
        "assert sacrebleu is shim and BLEU is shim.BLEU and sacrebleu.compat is shim.compat\n"
        "assert PairedTest.__module__ == 'bleukit.sacrebleu.significance'\n"
        "print(sacrebleu.corpus_bleu(['a b c d'], [['a b c d']]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == str(sb.corpus_bleu(["a b c d"], [["a b c d"]])) + "\n"
