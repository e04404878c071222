"""The target language picks the tokenizer (bleukit.tokenizers.languages), as sacreBLEU's trg_lang
does, in the Python API (trg_lang / language_pair on corpus_bleu, sentence_bleu, sentence_bleu_scores),
the command line (-l) and bleukit.sacrebleu; unsegmented scripts get a warning."""

from __future__ import annotations

import logging
import warnings

import pytest
import sacrebleu
from shared_data import SHARED_DATA, read_lines

import bleukit
from bleukit.tokenizers.languages import (
    TARGET_TOKENIZERS,
    UNSEGMENTED_LANGUAGES,
    target_language,
    tokenizer_for_language,
)

LANGUAGES = ["zh", "ja", "ko", "de", "en", "th", "", "zh-Hans"]
TOKENIZERS = [None, "13a", "zh", "char", "intl", "ja-mecab"]
SACREBLEU_NAMES = {
    "Tokenizer13a": "13a",
    "TokenizerZh": "zh",
    "TokenizerChar": "char",
    "TokenizerV14International": "intl",
    "TokenizerJaMecab": "ja-mecab",
    "TokenizerKoMecab": "ko-mecab",
}


def test_the_table_is_sacrebleus():
    assert dict(TARGET_TOKENIZERS) == sacrebleu.BLEU._TOKENIZER_MAP


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("tokenize", TOKENIZERS)
def test_choice_and_advice_equal_sacrebleus(language, tokenize, caplog):
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        theirs = sacrebleu.BLEU(trg_lang=language, tokenize=tokenize)
    advice = [r.getMessage() for r in caplog.records]
    said = []
    chosen = tokenizer_for_language(tokenize, language, warn=said.append)
    assert chosen == SACREBLEU_NAMES[type(theirs.tokenizer).__name__]
    # sacreBLEU's advice, word for word; bleukit adds its own only for unsegmented scripts
    assert [m for m in said if not m.startswith(tuple(UNSEGMENTED_LANGUAGES.values()))] == advice
    if language == "":
        assert tokenizer_for_language(tokenize, None, warn=said.append) == chosen


@pytest.mark.parametrize("code, name", sorted(UNSEGMENTED_LANGUAGES.items()))
def test_unsegmented_scripts_warn_unless_the_tokenizer_segments_them(code, name):
    with pytest.warns(UserWarning, match=f"{name} is written without spaces.*'flores200'.*'char'"):
        bleukit.corpus_bleu(["ก ข"], ["ก ข"], trg_lang=code)
    with pytest.warns(UserWarning, match="'intl' tokenizer counts whole space-separated phrases"):
        bleukit.sentence_bleu("ก ข", ["ก ข"], language_pair=f"en-{code}", tokenize="intl")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bleukit.sentence_bleu_scores(["กข"], ["กข"], trg_lang=code, tokenize="char")


def test_language_pair_and_trg_lang_are_checked():
    assert target_language("en-zh") == "zh"
    with pytest.raises(ValueError, match="SRC-TRG"):
        bleukit.corpus_bleu(["a"], ["a"], language_pair="english")
    with pytest.raises(ValueError, match="contradicts"):
        bleukit.corpus_bleu(["a"], ["a"], language_pair="en-de", trg_lang="zh")
    with pytest.raises(TypeError, match="trg_lang must be a language code"):
        bleukit.corpus_bleu(["a"], ["a"], trg_lang=7)
    with pytest.raises(TypeError, match="language_pair must be a str"):
        bleukit.corpus_bleu(["a"], ["a"], language_pair=("en", "zh"))
    # the same language twice is fine
    assert bleukit.corpus_bleu(["我"], ["我"], language_pair="en-zh", trg_lang="zh").signature.split("|")[3] == "tok:zh"


@pytest.mark.skipif(not SHARED_DATA.exists(), reason=f"real MT data not found at {SHARED_DATA}")
@pytest.mark.parametrize(
    "folder, system, reference, language",
    [
        ("wmt22-en-zh", "hyp.LanguageX.zh", "ref.A.zh", "zh"),
        ("kftt-en-ja", "hyp.ja", "ref.ja", "ja"),
        ("wmt22-de-en", "hyp.LT22.en", "ref.A.en", "en"),
    ],
)
def test_the_python_api_picks_what_sacrebleu_picks(folder, system, reference, language):
    hyps = read_lines(SHARED_DATA / folder / system)[:400]
    refs = read_lines(SHARED_DATA / folder / reference)[:400]
    expected = sacrebleu.BLEU(trg_lang=language)
    theirs = expected.corpus_score(hyps, [refs])
    name = expected.tokenizer_signature
    tokenize = {"zh": "zh", "ja": "ja-mecab"}.get(language, "13a")
    by_language = bleukit.corpus_bleu(hyps, refs, trg_lang=language)
    by_pair = bleukit.corpus_bleu(hyps, refs, language_pair=f"xx-{language}")
    by_name = bleukit.corpus_bleu(hyps, refs, tokenize=tokenize)
    assert by_language == by_pair == by_name
    assert by_language.counts == theirs.counts and by_language.totals == theirs.totals
    assert by_language.signature.split("|")[3] == f"tok:{name}"
    assert (
        bleukit.sentence_bleu_scores(hyps, refs, trg_lang=language)
        == bleukit.sentence_bleu_scores(hyps, refs, tokenize=tokenize)
    ).all()
    assert bleukit.sentence_bleu(hyps[5], refs[5], language_pair=f"xx-{language}") == bleukit.sentence_bleu(
        hyps[5], refs[5], tokenize=tokenize
    )


def test_a_given_tokenizer_wins_and_gets_sacrebleus_advice():
    with pytest.warns(UserWarning, match="Consider using the 'zh' or 'spm' tokenizer for Chinese."):
        result = bleukit.corpus_bleu(["我喜欢猫"], ["我喜欢狗"], trg_lang="zh", tokenize="char")
    assert result.signature.split("|")[3] == "tok:char"
