"""Tokenizers against sacreBLEU's on targeted inputs (random inputs are in the property tests)."""

import pytest
from sacrebleu.metrics.bleu import _get_tokenizer

import bleukit
from bleukit import BleuOptions
from bleukit.tokenizers import CHINESE_RANGES, TOKENIZERS, is_chinese_char

LINES = [
    "",
    "   ",
    'Hello, world! It\'s 3.5 percent (really) -- "quoted" &amp; done.',
    "&quot;entities&quot; &lt;b&gt; <skipped> co-\nop line\nbreak",
    "1,000,000.5 and 1990-2000, a.b,c.",
    "Größe: 3,5 m²! ½ ٣٤ «x» ¿Qué? — “curly” ‘quotes’ … €5",
    "北京欢迎你，Alice！ＡＢＣ１２３　全角、標点。",
    "日本語のテキストです。カタカナ",
    "𠀀𠀁 𪛔 😀👍🏽 \u2028 \u3000 \x1c\x1d\x1e\x1f \x85 \u00a0 \u200b tab\tsep",
    "İstanbul ΣΊΣΥΦΟΣ ǅ ﬁ",
    ".,;:!?",
    "0123456789 9-9 9.9 9,9",
]


@pytest.mark.parametrize("name", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("line", LINES)
def test_same_tokens_as_sacrebleu(name, line):
    assert bleukit.get_tokenizer(name)(line) == _get_tokenizer(name)()(line)


def test_every_chinese_range_end_is_sacrebleus():
    """Each end of every range, and the code points beside it, classed as sacreBLEU's zh tokenizer
    classes them: mutation testing (tools/mutation.py) found a range end moved by one unnoticed."""
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh as SacreZh

    points = sorted({cp + d for lo, hi in CHINESE_RANGES for cp in (lo, hi) for d in (-1, 0, 1)})
    assert [is_chinese_char(chr(cp)) for cp in points] == [SacreZh._is_chinese_char(chr(cp)) for cp in points]


def test_zh_range_quirk_is_reproduced():
    """sacreBLEU's '\\u20000' bound is U+2000 then '0': U+2001..U+2A6D count as Chinese."""
    assert not is_chinese_char("\u2000") and is_chinese_char("\u2001") and is_chinese_char("\u2a6d")
    assert not is_chinese_char("\u2a6e")
    assert is_chinese_char("\u2019") and is_chinese_char("€")  # punctuation and currency in that range
    assert not is_chinese_char("\U00020000")  # Extension B itself is *not* split by sacreBLEU
    theirs = _get_tokenizer("zh")()
    for cp in list(range(0x1FF0, 0x2B00)) + list(range(0x2F70, 0x2FB0)) + [0x20000, 0x2A6D6, 0x2F800]:
        assert bleukit.get_tokenizer("zh")(f"a{chr(cp)}b") == theirs(f"a{chr(cp)}b"), hex(cp)
    assert (0x2001, 0x2A6D) in CHINESE_RANGES


def test_no_unbounded_caches():
    for name in ("13a", "intl", "zh", "char", "none"):
        tok = bleukit.get_tokenizer(name)
        assert not hasattr(type(tok).__call__, "cache_info")


def test_tokenizer_registry_and_signature():
    assert set(TOKENIZERS) == {"13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab", "flores101", "flores200",
                               "spm", "spBLEU-1K"}
    assert bleukit.get_tokenizer("13a").signature() == "13a"


@pytest.mark.parametrize(
    "name, text",
    [
        ("ja-mecab", "日本語のテキストを形態素解析します。東京都に住んでいます。"),
        ("ko-mecab", "한국어 형태소 분석기를 사용합니다. 서울에 살고 있어요."),
    ],
)
def test_mecab_tokenizers_match_sacrebleu(name, text):
    pytest.importorskip("MeCab" if name == "ja-mecab" else "mecab_ko")
    ours, theirs = bleukit.get_tokenizer(name), _get_tokenizer(name)()
    assert ours(text) == theirs(text)
    assert ours(" " + text + "  ") == theirs(" " + text + "  ")
    assert ours.signature() == theirs.signature()
    hyp, ref = text, text.replace("。", "").replace(".", "")
    score = bleukit.corpus_bleu([hyp], [ref], tokenize=name)
    from sacrebleu.metrics import BLEU

    metric = BLEU(tokenize=name)
    assert score.score == pytest.approx(metric.corpus_score([hyp], [[ref]]).score, abs=1e-9)
    assert score.signature.split("|")[:-1] == str(metric.get_signature()).split("|")[:-1]


def test_tokenizer_signature_always_comes_from_the_tokenizer():
    mecab = pytest.importorskip("MeCab")  # noqa: F841
    opts = BleuOptions(tokenize="ja-mecab")
    sig = bleukit.get_tokenizer("ja-mecab").signature()
    assert sig != "ja-mecab" and f"tok:{sig}|" in opts.signature(1)
    assert f"tok:{sig}|" in bleukit.score_report(["猫"], ["猫"], options=opts).sentence_signature
