"""tercom's normalisation and tokenisation, as sacreBLEU's TER applies it (the pure-Python reference).

A line becomes words in four steps, each switched by a :class:`~.options.TerOptions` flag:

1. lowercase (unless ``case_sensitive``), with ``str.lower``;
2. ``normalized``: join hyphenated line breaks and lines, decode four XML entities, pad with
   spaces, isolate ASCII punctuation and symbols, split ``'s`` off, split ``.`` and ``,`` off
   unless they sit between digits, split ``-`` after a digit; with ``asian_support`` also every
   CJK ideograph, stroke, radical, compatibility form and CJK or full-width punctuation mark
   becomes a token of its own;
3. ``no_punct``: delete ``.,?:;!"()`` (with ``asian_support`` also the CJK and full-width
   punctuation of step 2);
4. split on whitespace (``str.split``).

sacreBLEU strips the right end of every line first, and it runs references through these steps
twice (its reference cache preprocesses a line, then the TER reference step preprocesses the
result again). The second pass changes nothing except with ``normalized``, where a possessive
that the first pass split off a final period (``x's.`` -> ``x's .``) is split again (``x 's .``):
:meth:`TercomTokenizer.reference_words` repeats the pass exactly in that case.

>>> from bleukit.metrics.ter.options import TerOptions
>>> tok = TercomTokenizer(TerOptions(normalized=True))
>>> tok("The cat's 3.5 kg, &quot;fine&quot;!")
'the cat \\'s 3.5 kg , " fine " !'
>>> tok.hypothesis_words("Bob's."), tok.reference_words("Bob's.")
(["bob's", '.'], ['bob', "'s", '.'])
"""

from __future__ import annotations

import re
from typing import List, Optional

from .options import TOKENIZER_SIGNATURE, TerOptions

__all__ = ["TercomTokenizer"]

# Step 2, the language-independent part: literal replacements, in this order (so "&amp;lt;"
# becomes "&lt;", not "<").
_JOIN_LINES = (("\n-", ""), ("\n", " "))
_XML_ENTITIES = (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))

# Step 2, the Western part. tercom's ASCII punctuation and symbols class, spelled out: space
# through '&', '(' through '+', '/', ':' through '@', '[' through '`', '{' through '~'. Note that
# '-', '.', ',' and "'" are not in it: they have rules of their own below.
_ASCII_SYMBOLS = " !\"#$%&()*+/:;<=>?@[\\]^_`{|}~"
_ISOLATE_SYMBOL = re.compile("([" + re.escape(_ASCII_SYMBOLS) + "])")
# These rules consume both characters of a match, so in "a.." only the first period is split
# off by the first rule: the substitutions must scan left to right without overlaps, as re.sub does.
_PERIOD_COMMA_AFTER_NON_DIGIT = re.compile(r"([^0-9])([.,])")
_PERIOD_COMMA_BEFORE_NON_DIGIT = re.compile(r"([.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")
# tercom also splits a possessive 's at the very end of the line; after the padding with spaces
# the line always ends with a space, so only the "'s " form can ever match.
_POSSESSIVE = ("'s ", " 's ")

# Step 2 with asian_support: characters that become tokens of their own. tercom's rules isolate
# several blocks one after another; isolating characters only adds spaces around them, so one
# pass over the union gives the same words. (tercom's Hiragana/Katakana rules are anchored at
# the start of the line, which after the padding is always a space: they never apply.)
_CJK_PUNCTUATION = "\u3001\u3002\u3008-\u3011\u3014-\u301f\uff61-\uff65\u30fb"
_FULL_WIDTH_PUNCTUATION = "\uff0e\uff0c\uff1f\uff1a\uff1b\uff01\uff02\uff08\uff09"
_CJK_CHARACTERS = (
    "\u4e00-\u9fff\u3400-\u4dbf"  # CJK Unified Ideographs and Extension A
    "\u31c0-\u31ef\u2e80-\u2eff"  # CJK Strokes, CJK Radicals Supplement
    "\u3300-\u33ff\uf900-\ufaff\ufe30-\ufe4f"  # CJK Compatibility, its Ideographs and Forms
    "\u3200-\u3f22"  # tercom's range for Enclosed CJK Letters and Months (it runs past that block)
)
_ISOLATE_CJK = re.compile("([" + _CJK_CHARACTERS + _CJK_PUNCTUATION + _FULL_WIDTH_PUNCTUATION + "])")

# Step 3: deletions, as str.translate tables.
_PUNCTUATION = '.,?:;!"()'
_DELETE_PUNCTUATION = str.maketrans("", "", _PUNCTUATION)


def _expand_ranges(spec: str) -> str:
    # "a-c" -> "abc": the character-class syntax above, expanded for a translate table
    out: List[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


_DELETE_CJK_PUNCTUATION = str.maketrans("", "", _expand_ranges(_CJK_PUNCTUATION + _FULL_WIDTH_PUNCTUATION))


class TercomTokenizer:
    """Turns a line into TER's words; ``__call__`` gives them space-joined, like sacreBLEU's tokenizer.

    A ``str`` subclass is read as its ``str`` value (its own methods are never called), as
    everywhere in bleukit.

    >>> from bleukit.metrics.ter.options import TerOptions
    >>> tok = TercomTokenizer(TerOptions())
    >>> tok("  Hello,   World!  ")
    'hello, world!'
    >>> tok.signature()
    'tercom'
    """

    def __init__(self, options: Optional[TerOptions] = None) -> None:
        self.options = TerOptions() if options is None else options
        if not isinstance(self.options, TerOptions):
            raise TypeError(f"options must be a TerOptions, got {type(self.options).__name__}")

    def signature(self) -> str:
        """The ``tok:`` field of the signature.

        >>> TercomTokenizer().signature()
        'tercom'
        """
        return TOKENIZER_SIGNATURE

    def __call__(self, line: str) -> str:
        """The words of ``line`` joined by single spaces (no stripping of the line first)."""
        return " ".join(self._words(line))

    def hypothesis_words(self, line: str) -> List[str]:
        """The words of a hypothesis: the right end stripped, then tokenized.

        >>> TercomTokenizer().hypothesis_words("A  b\\t")
        ['a', 'b']
        """
        return self._words(_as_str(line).rstrip())

    def reference_words(self, line: str) -> List[str]:
        """The words of a reference: as a hypothesis, then (with ``normalized``) tokenized again.

        Without ``normalized`` the second pass is the identity (``str.lower`` is idempotent,
        deleting punctuation twice deletes nothing more), so it is skipped.

        >>> TercomTokenizer(TerOptions(normalized=True)).reference_words("x's.")
        ['x', "'s", '.']
        """
        words = self._words(_as_str(line).rstrip())
        if self.options.normalized:
            words = self._words(" ".join(words))
        return words

    def _words(self, text: str) -> List[str]:
        text = _as_str(text)
        opts = self.options
        if not opts.case_sensitive:
            text = text.lower()
        if opts.normalized:
            text = _normalize(text, opts.asian_support)
        if opts.no_punct:
            text = text.translate(_DELETE_PUNCTUATION)
            if opts.asian_support:
                text = text.translate(_DELETE_CJK_PUNCTUATION)
        return text.split()


def _as_str(line: str) -> str:
    return line if type(line) is str else str.__str__(line)


def _normalize(text: str, asian_support: bool) -> str:
    for old, new in _JOIN_LINES + _XML_ENTITIES:
        text = text.replace(old, new)
    text = _ISOLATE_SYMBOL.sub(r" \1 ", f" {text} ")
    text = text.replace(*_POSSESSIVE)
    text = _PERIOD_COMMA_AFTER_NON_DIGIT.sub(r"\1 \2 ", text)
    text = _PERIOD_COMMA_BEFORE_NON_DIGIT.sub(r" \1 \2", text)
    text = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", text)
    if asian_support:
        text = _ISOLATE_CJK.sub(r" \1 ", text)
    return text
