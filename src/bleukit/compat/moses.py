"""Moses ``multi-bleu.perl`` and ``multi-bleu-detok.perl``: their output line, digit for digit.

Both score 4-gram BLEU with sacreBLEU's clipping and closest reference length (ties to the
shorter), no smoothing, and print ``BLEU = 26.60, 58.9/32.3/20.1/13.0 (BP=1.000, ratio=1.020,
hyp_len=62496, ref_len=61287)``. What differs is what a token is:

* ``multi-bleu.perl`` reads *bytes* and splits on ASCII whitespace only (space, tab, newline,
  CR, form feed, vertical tab): it expects tokenized text, and on detokenized text "mat." and
  "mat" are different words. ``-lc`` lowercases ASCII letters only (``"Ü"`` stays ``"Ü"``).
* ``multi-bleu-detok.perl`` decodes UTF-8 and applies mteval-v13a's rules (bleukit's 13a
  tokenizer), then squeezes Perl's Unicode ``\\s`` (which, unlike Python's ``str.split``, does
  not include U+001C..U+001F). ``-lc`` is Perl's ``lc`` (Unicode, but no final-sigma rule), on the
  hypothesis before tokenizing and on references after.

Both scripts ``chop`` every line they read: on a file without a final newline the last character
of the last line is dropped (a byte in ``multi-bleu.perl``, which may cut a UTF-8 character).
Given file *contents* (``str``/``bytes``) or paths (:func:`multi_bleu_files`), this module
reproduces that; given lists of lines, it takes each line as it is. A hypothesis line with no
reference line gets reference length 9999, as in the scripts.

References are laid out as the scripts take them: ``references[k]`` is the k-th reference file.

>>> multi_bleu(["the cat sat on the mat ."], [["the cat sat on the mat ."]])
'BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=7, ref_len=7)'
>>> multi_bleu_detok("The cat sat on the mat.\\n", ["The cat sat on the mat.\\n"])
'BLEU = 100.00, 100.0/100.0/100.0/100.0 (BP=1.000, ratio=1.000, hyp_len=7, ref_len=7)'
"""

from __future__ import annotations

import math
import os
import re
from typing import Any, List, Sequence, Union

from ..inputs import check_sequence
from ..tokenizers.mteval import mteval_rules, mteval_unescape
from ._common import token_statistics

__all__ = ["multi_bleu", "multi_bleu_detok", "multi_bleu_files"]

Lines = Union[str, bytes, Sequence[Union[str, bytes]]]

# Perl's \s on a decoded (UTF-8 flagged) string.
_PERL_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_PERL_SPACE_RUN = re.compile(f"[{_PERL_SPACE}]+")
_NO_REF_LENGTH = 9999  # the scripts' initial "closest length", kept when a line has no reference


def _chopped_lines(content: Union[str, bytes]) -> list:
    """Lines as ``while (<FH>) { chop; ... }`` sees them (the last character of an unterminated
    last line is dropped)."""
    parts: List[Any] = content.split(b"\n") if isinstance(content, bytes) else content.split("\n")
    lines = parts[:-1]
    if parts[-1]:
        lines.append(parts[-1][:-1])
    return lines


def _lines(source: Lines, as_bytes: bool, what: str) -> list:
    if isinstance(source, (str, bytes)):
        if isinstance(source, bytes) and not as_bytes:
            # the detok script decodes first, so its chop drops a character, not a byte
            source = source.decode("utf-8", "replace")
        lines = _chopped_lines(source)
    else:
        lines = check_sequence(source, what, of="lines (or file contents as str/bytes)")
    out = []
    for i, line in enumerate(lines):
        if isinstance(line, str):
            out.append(line.encode("utf-8") if as_bytes else line)
        elif isinstance(line, bytes):
            # the detok script decodes its input (malformed bytes: U+FFFD here)
            out.append(line if as_bytes else line.decode("utf-8", "replace"))
        else:
            raise TypeError(f"{what}[{i}] must be a line (str or bytes), got {type(line).__name__}")
    return out


def _perl_lc(text: str) -> str:
    # Perl's lc has no final-sigma context: every capital sigma becomes a medial sigma.
    return text.replace("\u03a3", "\u03c3").lower()


def _detok_tokens(line: str) -> List[str]:
    text = mteval_rules(f" {mteval_unescape(line)} ")
    text = _PERL_SPACE_RUN.sub(" ", text).strip(" ")
    return text.split(" ") if text else []


def _numbers(hyps: List[list], refs: List[List[list]]) -> dict:
    """The script's numbers for tokenized lines; ``refs[i]`` may be empty (reference length 9999)."""
    stats = token_statistics(hyps, [r if r else [[]] for r in refs], 4)
    ref_lens = [int(x) if r else _NO_REF_LENGTH for x, r in zip(stats.ref_len, refs)]
    hyp_len, ref_len = int(stats.sys_len.sum()), sum(ref_lens)
    correct = stats.counts.sum(axis=0).tolist()
    total = stats.totals.sum(axis=0).tolist()
    if ref_len == 0:
        return {"bleu": 0.0, "precisions": [0, 0, 0, 0], "bp": 0, "ratio": 0, "hyp_len": 0, "ref_len": 0}
    if hyp_len == 0:
        raise ValueError("every hypothesis line is empty: the Moses scripts die with 'Illegal division by zero'")
    prec = [c / t if t else 0 for c, t in zip(correct, total)]
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1
    logs = [math.log(p) if p else -9999999999 for p in prec]
    bleu = bp * math.exp((logs[0] + logs[1] + logs[2] + logs[3]) / 4)
    return {
        "bleu": bleu, "precisions": prec, "bp": bp, "ratio": hyp_len / ref_len, "hyp_len": hyp_len, "ref_len": ref_len,
    }


def _format(n: dict) -> str:
    if n["ref_len"] == 0:
        return "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)"
    p = n["precisions"]
    return "BLEU = %.2f, %.1f/%.1f/%.1f/%.1f (BP=%.3f, ratio=%.3f, hyp_len=%d, ref_len=%d)" % (
        100 * n["bleu"], 100 * p[0], 100 * p[1], 100 * p[2], 100 * p[3],
        n["bp"], n["ratio"], n["hyp_len"], n["ref_len"],
    )


def _score_line(hyps: List[list], ref_streams: List[List[list]]) -> str:
    refs = [[stream[i] for stream in ref_streams if i < len(stream)] for i in range(len(hyps))]
    return _format(_numbers(hyps, refs))


def _plain_tokens(line: str, lowercase: bool = False) -> list:
    """multi-bleu.perl's words of one line (used by compare_variants)."""
    data = line.encode("utf-8")
    return (data.lower() if lowercase else data).split()


def _check_refs(references: Sequence[Lines]) -> list:
    refs = check_sequence(references, "references", of="reference files (contents or lists of lines)")
    if not refs:
        raise ValueError("no reference file given")
    return refs


def multi_bleu(hypotheses: Lines, references: Sequence[Lines], lowercase: bool = False) -> str:
    """``multi-bleu.perl [-lc] ref0 ref1 ... < hyp``: its output line (without the newline).

    >>> multi_bleu(["Über die Brücke ."], [["über die brücke ."]], lowercase=True)[:12]
    'BLEU = 0.00,'
    """
    def tokens(line: bytes) -> list:
        return (line.lower() if lowercase else line).split()  # bytes: ASCII case and whitespace only

    hyps = [tokens(h) for h in _lines(hypotheses, True, "hypotheses")]
    streams = [
        [tokens(r) for r in _lines(ref, True, f"references[{k}]")] for k, ref in enumerate(_check_refs(references))
    ]
    return _score_line(hyps, streams)


def multi_bleu_detok(hypotheses: Lines, references: Sequence[Lines], lowercase: bool = False) -> str:
    """``multi-bleu-detok.perl [-lc] ref0 ref1 ... < hyp``: its output line (without the newline).

    >>> multi_bleu_detok(["ΟΔΟΣ ΠΡΟΣ ΤΗΝ ΠΟΛΗ."], [["οδοσ προσ την πολη."]], lowercase=True)[:14]
    'BLEU = 100.00,'
    """
    hyps = [_detok_tokens(_perl_lc(h) if lowercase else h) for h in _lines(hypotheses, False, "hypotheses")]
    streams = []
    for k, ref in enumerate(_check_refs(references)):
        toks = [_detok_tokens(r) for r in _lines(ref, False, f"references[{k}]")]
        if lowercase:
            # the script lowercases the tokenized reference
            toks = [_perl_lc(" ".join(t)).split(" ") if t else [] for t in toks]
        streams.append(toks)
    return _score_line(hyps, streams)


def multi_bleu_files(
    hypothesis_path: Union[str, os.PathLike],
    reference_paths: Sequence[Union[str, os.PathLike]],
    lowercase: bool = False,
    detok: bool = False,
) -> str:
    """Run either script's computation on files, read exactly as the script reads them.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "hyp").write_text("a b c d\\n"); _ = (d / "ref").write_text("a b c d")
    >>> multi_bleu_files(d / "hyp", [d / "ref"])  # the unterminated reference loses its "d"
    'BLEU = 0.00, 75.0/66.7/50.0/0.0 (BP=1.000, ratio=1.333, hyp_len=4, ref_len=3)'
    """
    def read(path: Any) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    score = multi_bleu_detok if detok else multi_bleu
    return score(read(hypothesis_path), [read(p) for p in reference_paths], lowercase)
