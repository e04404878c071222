"""bleukit.sacrebleu against live sacreBLEU 2.6.0 on the real MT data: every function and class,
every score field (``vars()`` of the score objects compared whole, with ``==``), the printed
forms (``str``, ``format`` with width, score only, signature, JSON) and the signatures (their
``version:`` field aside). The grids over options run on the first lines of each corpus against
sacreBLEU live; on whole corpora the defaults run live too, and the option grids against
sacreBLEU's stored outputs (``tests/oracles/shim_oracle.py``, ``make refresh-expected ORACLES=shim``)."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any

import pytest
import sacrebleu as sb
import shim_oracle
import stored_oracles
from sacrebleu.significance import PairedTest as SbPairedTest
from shared_data import SHARED_DATA, read_lines
from shim_oracle import (
    BLEU_OPTIONS,
    CHRF_OPTIONS,
    CORPORA,
    TER_OPTIONS,
    WHOLE,
    corpus,
    reference_variants,
    score_outputs,
    with_gaps,
)

from bleukit import sacrebleu as shim
from bleukit.sacrebleu.significance import PairedTest as ShimPairedTest

pytestmark = pytest.mark.skipif(not SHARED_DATA.exists(), reason=f"real MT data not found at {SHARED_DATA}")

_VERSION = re.compile(r'(version:|v:|"version": ")(bleukit-)?[0-9A-Za-z.+]+')

PREFIX = 150  # lines of each corpus in the option grids of the fast run


def normalise(text: str) -> str:
    return _VERSION.sub(r"\1V", text)


def assert_same_score(ours: Any, theirs: Any, bootstrap: bool = False) -> None:
    """Every field of the score objects equal with ``==``, the bootstrap estimate included (bleukit
    does sacreBLEU's float32 bootstrap arithmetic: see bleukit.analysis.significance)."""
    ours_fields, theirs_fields = dict(vars(ours)), dict(vars(theirs))
    assert ours_fields == theirs_fields
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours) == str(theirs)
    for width in (0, 1, 4):
        assert ours.format(width=width) == theirs.format(width=width)
        if not bootstrap:
            assert ours.format(width=width, score_only=True) == theirs.format(width=width, score_only=True)


def assert_same_signature(ours: Any, theirs: Any) -> None:
    """The signatures agree field for field but the version; where BLEU's order is not 4, bleukit's
    says so (``order:N``, an intended difference: sacreBLEU's would be that of order 4)."""
    order = getattr(ours, "max_ngram_order", 4)
    for short in (False, True):
        text = ours.get_signature().format(short=short)
        if order != 4:
            assert f"|order:{order}|" in text
            text = text.replace(f"|order:{order}|", "|")
        assert normalise(text) == normalise(theirs.get_signature().format(short=short))


def assert_same_printout(ours_score: Any, theirs_score: Any, ours_metric: Any, theirs_metric: Any) -> None:
    """The score line and sacreBLEU's JSON with the metric's signature, as its command line prints them."""
    assert_same_signature(ours_metric, theirs_metric)
    ours_sig, theirs_sig = str(ours_metric.get_signature()), str(theirs_metric.get_signature())
    ours_sig = ours_sig.replace(f"|order:{getattr(ours_metric, 'max_ngram_order', 4)}|", "|")
    assert normalise(ours_score.format(signature=ours_sig)) == normalise(theirs_score.format(signature=theirs_sig))
    assert normalise(ours_score.format(signature=ours_sig, is_json=True)) == normalise(
        theirs_score.format(signature=theirs_sig, is_json=True)
    )


TER_PREFIX = 80  # sacreBLEU's TER is pure Python: fewer lines in the fast run


def _grid(corpora, options, lines):
    return [
        pytest.param(c, o, lines, id=f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'defaults'}")
        for c in corpora
        for o in options
    ]


def _whole(metric):
    options_list, corpora = WHOLE[metric]
    return [pytest.param(metric, c, o, id=f"{metric}-{c[0]}-full-{i}")
            for c in corpora for i, o in enumerate(options_list)]


@pytest.mark.parametrize("metric, case, options", _whole("bleu") + _whole("chrf") + _whole("ter"))
def test_whole_corpora_equal_sacrebleus_stored_scores(metric, case, options):
    """The option grids on whole corpora, against sacreBLEU's stored score objects
    (tests/oracles/shim_oracle.py): every field, the type, the printed forms."""
    hyps, streams = corpus(*case)
    function = {"bleu": shim.corpus_bleu, "chrf": shim.corpus_chrf, "ter": shim.corpus_ter}[metric]
    for variant, refs in reference_variants(streams).items():
        ours = score_outputs(function(hyps, refs, **options))
        stored_oracles.check("shim", shim_oracle.case(metric, case[0], options, variant), ours)


@pytest.mark.parametrize("case, options, lines", _grid(CORPORA[:2], BLEU_OPTIONS, PREFIX))
def test_corpus_bleu(case, options, lines):
    hyps, streams = corpus(*case, lines)
    for refs in reference_variants(streams).values():
        assert_same_score(shim.corpus_bleu(hyps, refs, **options), sb.corpus_bleu(hyps, refs, **options))


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c[0], marks=[pytest.mark.slow] if c[0].startswith("wmt22") else []) for c in CORPORA]
)
def test_defaults_on_whole_corpora_and_target_tokenizers(case):
    hyps, streams = corpus(*case)
    assert_same_score(shim.corpus_bleu(hyps, streams), sb.corpus_bleu(hyps, streams))
    trg = case[0][-2:]
    ours, theirs = shim.BLEU(trg_lang=trg), sb.BLEU(trg_lang=trg)
    assert_same_score(ours.corpus_score(hyps, streams), theirs.corpus_score(hyps, streams))
    assert_same_signature(ours, theirs)


@pytest.mark.parametrize("case, options, lines", _grid(CORPORA[:2], CHRF_OPTIONS, PREFIX))
def test_corpus_chrf(case, options, lines):
    hyps, streams = corpus(*case, lines)
    for refs in reference_variants(streams).values():
        assert_same_score(shim.corpus_chrf(hyps, refs, **options), sb.corpus_chrf(hyps, refs, **options))


def _ter_corpora():
    corpora = [CORPORA[1], CORPORA[2]]  # two references; English and Chinese (asian_support)
    return [
        pytest.param(c, o, TER_PREFIX, id=f"{c[0]}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'defaults'}")
        for c in corpora
        for o in TER_OPTIONS
    ]


@lru_cache(maxsize=None)
def _sacrebleu_corpus_ter(case, options_items, lines, variant):
    """sacreBLEU's corpus TER (its shift search: seconds a call on Chinese characters), once per
    process for test_corpus_ter and test_ter_class, which compare with it on the same input."""
    hyps, streams = corpus(*case, lines)
    metric = sb.TER(**dict(options_items))  # what sb.corpus_ter does; the metric signs the printout
    return metric, metric.corpus_score(hyps, reference_variants(streams)[variant])


@pytest.mark.parametrize("case, options, lines", _ter_corpora())
@pytest.mark.xdist_group("shim-ter")  # one worker's _sacrebleu_corpus_ter for both tests
def test_corpus_ter(case, options, lines):
    hyps, streams = corpus(*case, lines)
    for variant, refs in reference_variants(streams).items():
        _, theirs = _sacrebleu_corpus_ter(case, tuple(options.items()), lines, variant)
        assert_same_score(shim.corpus_ter(hyps, refs, **options), theirs)


@pytest.mark.parametrize("options", TER_OPTIONS, ids=str)
def test_sentence_ter(options):
    for case in CORPORA[1:3]:
        hyps, streams = corpus(*case, 40)
        for i, hyp in enumerate(hyps):
            refs = [stream[i] for stream in with_gaps(streams)]
            assert_same_score(shim.sentence_ter(hyp, refs, **options), sb.sentence_ter(hyp, refs, **options))


@pytest.mark.parametrize("options", TER_OPTIONS, ids=str)
@pytest.mark.xdist_group("shim-ter")
def test_ter_class(options):
    hyps, streams = corpus(*CORPORA[2], TER_PREFIX)
    ours, theirs = shim.TER(**options), sb.TER(**options)
    for variant, refs in reference_variants(streams).items():
        ours_score = ours.corpus_score(hyps, refs)
        scored, theirs_score = _sacrebleu_corpus_ter(CORPORA[2], tuple(options.items()), TER_PREFIX, variant)
        assert_same_score(ours_score, theirs_score)
        assert_same_signature(ours, scored)
        assert_same_printout(ours_score, theirs_score, ours, scored)
    for i in range(0, TER_PREFIX, 8):
        refs = [stream[i] for stream in streams]
        assert_same_score(ours.sentence_score(hyps[i], refs), theirs.sentence_score(hyps[i], refs))
        assert_same_signature(ours, theirs)
    for name in [k for k in vars(theirs) if not k.startswith("_")]:
        if name == "tokenizer":
            for line in hyps[:20] + streams[0][:20]:
                assert ours.tokenizer(line) == theirs.tokenizer(line)
            assert ours.tokenizer.signature() == theirs.tokenizer.signature()
        else:
            assert getattr(ours, name) == getattr(theirs, name), name


def test_tercom_tokenizer_equals_sacrebleus():
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as SbTercom

    from bleukit.sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer as ShimTercom

    lines = [line for case in CORPORA for stream in corpus(*case, 60)[1] for line in stream]
    lines += ["Jim's car.", "4.2 x-1 &quot;a&amp;b&quot;", "りの拳銃を持", "（注意）：全角，句読点。", ""]
    for options in TER_OPTIONS:
        ours, theirs = ShimTercom(**options), SbTercom(**options)
        assert [ours(line) for line in lines] == [theirs(line) for line in lines], options


def test_raw_corpus_bleu():
    hyps, streams = corpus(*CORPORA[1], PREFIX)
    for value in (None, 0.01, 0.1):
        assert_same_score(shim.raw_corpus_bleu(hyps, streams, value), sb.raw_corpus_bleu(hyps, streams, value))
    assert_same_score(shim.raw_corpus_bleu(hyps, streams), sb.raw_corpus_bleu(hyps, streams))


SENTENCE_BLEU_OPTIONS = [o for o in BLEU_OPTIONS if "force" not in o] + [{"use_effective_order": False}]


@pytest.mark.parametrize("options", SENTENCE_BLEU_OPTIONS, ids=str)
def test_sentence_bleu(options):
    for case in CORPORA[:3]:
        hyps, streams = corpus(*case, 100)
        for i, hyp in enumerate(hyps):
            refs = [stream[i] for stream in with_gaps(streams)]
            assert_same_score(shim.sentence_bleu(hyp, refs, **options), sb.sentence_bleu(hyp, refs, **options))


@pytest.mark.parametrize("options", CHRF_OPTIONS, ids=str)
def test_sentence_chrf(options):
    for case in CORPORA[:3]:
        hyps, streams = corpus(*case, 100)
        for i, hyp in enumerate(hyps):
            refs = [stream[i] for stream in with_gaps(streams)]
            assert_same_score(shim.sentence_chrf(hyp, refs, **options), sb.sentence_chrf(hyp, refs, **options))


BLEU_CLASS_OPTIONS = [
    {},
    {"max_ngram_order": 2},
    {"max_ngram_order": 6, "effective_order": True},
    {"tokenize": "intl", "lowercase": True, "smooth_method": "floor", "smooth_value": 0.2},
    {"smooth_method": "add-k", "effective_order": True},
    {"trg_lang": "zh"},
    {"trg_lang": "de", "tokenize": "char"},
]


@pytest.mark.parametrize("options", BLEU_CLASS_OPTIONS, ids=str)
def test_bleu_class(options):
    hyps, streams = corpus(*CORPORA[1], PREFIX)
    ours, theirs = shim.BLEU(**options), sb.BLEU(**options)
    for refs in reference_variants(streams).values():
        ours_score, theirs_score = ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs)
        assert_same_score(ours_score, theirs_score)
        assert_same_signature(ours, theirs)
        assert_same_printout(ours_score, theirs_score, ours, theirs)
    for i in range(0, PREFIX, 10):
        refs = [stream[i] for stream in streams]
        assert_same_score(ours.sentence_score(hyps[i], refs), theirs.sentence_score(hyps[i], refs))
        assert_same_signature(ours, theirs)
    for name in [k for k in vars(theirs) if not k.startswith("_")]:
        if name == "tokenizer":
            assert ours.tokenizer(hyps[0]) == theirs.tokenizer(hyps[0])
        else:
            assert getattr(ours, name) == getattr(theirs, name), name


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"word_order": 2, "beta": 1},
        {"lowercase": True, "whitespace": True},
        {"eps_smoothing": True, "char_order": 3},
    ],
    ids=str,
)
def test_chrf_class(options):
    hyps, streams = corpus(*CORPORA[2], PREFIX)
    ours, theirs = shim.CHRF(**options), sb.CHRF(**options)
    for refs in reference_variants(streams).values():
        ours_score, theirs_score = ours.corpus_score(hyps, refs), theirs.corpus_score(hyps, refs)
        assert_same_score(ours_score, theirs_score)
        assert_same_signature(ours, theirs)
        assert_same_printout(ours_score, theirs_score, ours, theirs)
    for i in range(0, PREFIX, 10):
        refs = [stream[i] for stream in streams]
        assert_same_score(ours.sentence_score(hyps[i], refs), theirs.sentence_score(hyps[i], refs))
    assert {k: v for k, v in vars(ours).items() if not k.startswith("_")} == {
        k: v for k, v in vars(theirs).items() if not k.startswith("_")
    }


@pytest.mark.parametrize(
    "make",
    [
        lambda **k: (shim.BLEU(**k), sb.BLEU(**k)),
        lambda **k: (shim.CHRF(**k), sb.CHRF(**k)),
        lambda **k: (shim.TER(**k), sb.TER(**k)),
    ],
    ids=["BLEU", "CHRF", "TER"],
)
def test_cached_references_score_several_systems(make):
    folder = "wmt17-en-de"
    lines = PREFIX if not isinstance(make()[0], shim.TER) else TER_PREFIX
    streams = [read_lines(SHARED_DATA / folder / "ref.de")[:lines]]
    ours, theirs = make(references=streams)
    assert_same_signature(ours, theirs)  # known before anything is scored
    for system in sorted(p.name for p in (SHARED_DATA / folder).glob("hyp.*")):
        hyps = read_lines(SHARED_DATA / folder / system)[:lines]
        assert_same_score(ours.corpus_score(hyps, None), theirs.corpus_score(hyps, None))
        assert_same_signature(ours, theirs)
    # references given at the call replace the cache for that call, and the signature follows them
    hyps, two = corpus(*CORPORA[1], lines)
    assert_same_score(ours.corpus_score(hyps, two), theirs.corpus_score(hyps, two))
    assert_same_signature(ours, theirs)


@pytest.mark.parametrize("seed", [None, "7", "none"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: (shim.BLEU(), sb.BLEU()),
        lambda: (shim.CHRF(word_order=2), sb.CHRF(word_order=2)),
        lambda: (shim.TER(), sb.TER()),
    ],
    ids=["BLEU", "CHRF", "TER"],
)
def test_corpus_score_with_bootstrap(make, seed, monkeypatch):
    if seed is not None:
        monkeypatch.setenv("SACREBLEU_SEED", seed)
    hyps, streams = corpus(*CORPORA[0], PREFIX)
    ours, theirs = make()
    ours_score, theirs_score = (
        ours.corpus_score(hyps, streams, n_bootstrap=200),
        theirs.corpus_score(hyps, streams, n_bootstrap=200),
    )
    assert_same_signature(ours, theirs)  # bs:200|seed:... in sacreBLEU's place
    if seed == "none":  # unseeded: only the score and the signature can agree
        assert ours_score.score == theirs_score.score and ours_score._mean > 0
        return
    assert_same_score(ours_score, theirs_score, bootstrap=True)
    assert ours.n_bootstrap == theirs.n_bootstrap and ours.seed == theirs.seed


def test_compute_bleu_equals_sacrebleus():
    cases = [
        ([9, 7, 5, 3], [10, 8, 6, 4], 11, 11),
        ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1),
        ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6),
        ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0),
        ([3, 1, 0, 0], [5, 4, 3, 2], 5, 9),
        ([1, 0, 0, 0], [1, 0, 0, 0], 1, 5),
    ]
    for correct, total, sys_len, ref_len in cases:
        for kwargs in [
            {},
            {"smooth_method": "exp"},
            {"smooth_method": "floor", "smooth_value": 0.0},
            {"smooth_method": "floor"},
            {"smooth_method": "add-k"},
            {"effective_order": True},
            {"smooth_method": "add-k", "smooth_value": 3, "effective_order": True},
        ]:
            ours = shim.BLEU.compute_bleu(list(correct), list(total), sys_len, ref_len, **kwargs)
            theirs = sb.BLEU.compute_bleu(list(correct), list(total), sys_len, ref_len, **kwargs)
            assert_same_score(ours, theirs)


@pytest.mark.parametrize(
    "test_type, n_samples", [("bs", 1000), ("ar", 2000), pytest.param("bs", 0, marks=pytest.mark.slow)]
)
def test_paired_test(test_type, n_samples):
    folder = "wmt17-en-de"
    lines = 2 * PREFIX
    refs = [read_lines(SHARED_DATA / folder / "ref.de")[:lines]]
    systems = [(p.name, read_lines(p)[:lines]) for p in sorted((SHARED_DATA / folder).glob("hyp.*"))]
    ours_signatures, ours = ShimPairedTest(
        systems,
        {"BLEU": shim.BLEU(references=refs), "chrF2": shim.CHRF(references=refs), "TER": shim.TER(references=refs)},
        None if test_type == "ar" else refs,
        test_type,
        n_samples,
    )()
    theirs_signatures, theirs = SbPairedTest(
        systems,
        {"BLEU": sb.BLEU(references=refs), "chrF2": sb.CHRF(references=refs), "TER": sb.TER(references=refs)},
        None if test_type == "ar" else refs,
        test_type,
        n_samples,
    )()
    assert list(ours) == list(theirs) and ours["System"] == theirs["System"]
    for name in ours_signatures:
        assert normalise(str(ours_signatures[name])) == normalise(str(theirs_signatures[name]))
    for metric in list(ours)[1:]:
        for a, b in zip(ours[metric], theirs[metric]):
            assert (a.score, a.p_value) == (b.score, b.p_value)
            assert (a.mean is None) == (b.mean is None)
            if a.mean is not None:
                assert (a.mean, a.ci) == (b.mean, b.ci)


def test_warnings_go_to_sacrebleus_logger(caplog):
    hyps = ["a tokenized line ."] * 100
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        shim.corpus_bleu(hyps, [hyps])
        shim.corpus_bleu(hyps, [hyps], force=True)
        shim.BLEU(trg_lang="ja", tokenize="13a")
        shim.BLEU().sentence_score("a b", ["a b"])
        for _ in range(2):  # the per-sentence functions keep their metric object: still one warning per call
            shim.sentence_bleu("a b", ["a b"], use_effective_order=False)
    ours = [r.getMessage() for r in caplog.records]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        sb.corpus_bleu(hyps, [hyps])
        sb.corpus_bleu(hyps, [hyps], force=True)
        sb.BLEU(trg_lang="ja", tokenize="13a")
        sb.BLEU().sentence_score("a b", ["a b"])
        for _ in range(2):
            sb.sentence_bleu("a b", ["a b"], use_effective_order=False)
    assert ours == [r.getMessage() for r in caplog.records] and len(ours) == 7
