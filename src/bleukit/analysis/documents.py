"""Document-level scores: each document's segments joined into one segment, then scored as a corpus.

Document-level MT papers report **d-BLEU** (Liu et al. 2020, mBART, §5; Bao et al. 2021,
G-Transformer; Sun et al. 2022, "Rethinking Document-level Neural Machine Translation"): the
segments of each document, hypotheses and references alike, are concatenated into one long
segment, and corpus BLEU is computed over documents instead of sentences. N-grams may then match
across segment boundaries, and the brevity penalty and reference choice work per document, so a
system whose sentence split differs from the reference's (LLM output, merged or split sentences)
is scored fairly. :func:`document_score` computes exactly that: ``sacrebleu.corpus_bleu`` of the
joined documents (``sacrebleu.corpus_chrf`` for ``options=ChrfOptions()``: document-level chrF).

Documents are given by a document id per segment (segments of one document need not be adjacent;
they are joined in corpus order, documents listed by first appearance), or, on the command line,
by blank lines between documents (``bleukit REF -i HYP --documents``).

>>> hyps = ["The cat sat.", "It was happy.", "Rain fell."]
>>> refs = ["The cat sat.", "It was glad.", "Rain fell."]
>>> round(document_bleu(hyps, refs, ["d1", "d1", "d2"]).score, 4)
74.1945
>>> join_documents(hyps, refs, ["d1", "d1", "d2"])
(['The cat sat. It was happy.', 'Rain fell.'], [['The cat sat. It was glad.'], ['Rain fell.']])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple

from ..defaults import DEFAULT_THREADS
from ..inputs import check_hypotheses, check_references
from ..metrics import metric_for, resolve_options
from ..metrics.base import MetricOptions, MetricResult
from ..metrics.bleu.options import BleuOptions
from ..pipeline import corpus_statistics
from .groups import check_labels

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..metrics.bleu.options import BleuOptionKeywords

__all__ = ["DEFAULT_SEPARATOR", "join_documents", "document_score", "document_bleu", "split_documents"]

#: What joins the segments of a document (the papers' concatenation with a space).
DEFAULT_SEPARATOR = " "


def join_documents(
    hypotheses: Sequence[str], references: Sequence[Any], doc_ids: Any, separator: str = DEFAULT_SEPARATOR
) -> Tuple[List[str], List[List[Optional[str]]]]:
    """The documents: each document's hypotheses joined with ``separator``, and its references,
    reference ``k`` of a document being the join of reference ``k`` of its segments.

    ``references[i]`` is a string or a list of strings (``None`` for a missing one) as everywhere;
    every segment of a document must have the same number of references, and a reference may be
    missing for a whole document only (``None`` there), never for part of it.

    >>> join_documents(["a", "b"], [["x", "y"], ["z", "w"]], [7, 7])
    (['a b'], [['x z', 'y w']])
    """
    if not isinstance(separator, str):
        raise TypeError(f"separator must be a str, got {type(separator).__name__}")
    hyps = check_hypotheses(hypotheses)
    if isinstance(references, Iterator):  # read a generator once: it is checked, then joined
        references = list(references)
    check_references(references, len(hyps))  # the layout and types, with the usual messages
    ids = check_labels(doc_ids, len(hyps), "doc_ids")
    members: Dict[Hashable, List[int]] = {}
    for i, doc in enumerate(ids):
        members.setdefault(doc, []).append(i)
    doc_hyps: List[str] = []
    doc_refs: List[List[Optional[str]]] = []
    for doc, rows in members.items():
        doc_hyps.append(separator.join(hyps[i] for i in rows))
        sets = [[references[i]] if isinstance(references[i], str) else list(references[i]) for i in rows]
        widths = {len(s) for s in sets}
        if len(widths) != 1:
            raise ValueError(
                f"document {doc!r}: its segments have different numbers of references ({sorted(widths)}); "
                "every segment of a document needs the same reference sets"
            )
        joined: List[Optional[str]] = []
        for k in range(widths.pop()):
            parts = [s[k] for s in sets]
            missing = [p is None for p in parts]
            if all(missing):
                joined.append(None)
            elif any(missing):
                raise ValueError(
                    f"document {doc!r}: reference {k + 1} is missing (None) for some of its segments but not all; "
                    "a reference set must cover a whole document"
                )
            else:
                joined.append(separator.join(p for p in parts if p is not None))
        doc_refs.append(joined)
    return doc_hyps, doc_refs


def document_score(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    doc_ids: Any,
    *,
    separator: str = DEFAULT_SEPARATOR,
    threads: int = DEFAULT_THREADS,
    options: Optional[MetricOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """Document-level score (d-BLEU, see the module) of any metric: BLEU with the option
    ``keywords`` (corpus defaults), or the metric of ``options``. Equal to the metric's corpus score
    of :func:`join_documents`'s documents.

    >>> from bleukit.metrics.chrf import ChrfOptions
    >>> r = document_score(["a cat", "sat"], ["a cat", "sat down"], [1, 1], options=ChrfOptions())
    >>> r.name, round(r.score, 4)
    ('chrF2', 56.4398)
    """
    opts = resolve_options(options, keywords)
    doc_hyps, doc_refs = join_documents(hypotheses, references, doc_ids, separator)
    return metric_for(opts).result(corpus_statistics(doc_hyps, doc_refs, options=opts, threads=threads), opts)


def document_bleu(
    hypotheses: Sequence[str],
    references: Sequence[Any],
    doc_ids: Any,
    *,
    separator: str = DEFAULT_SEPARATOR,
    threads: int = DEFAULT_THREADS,
    options: Optional[BleuOptions] = None,
    **keywords: Unpack[BleuOptionKeywords],
) -> MetricResult:
    """d-BLEU: corpus BLEU over documents, each the concatenation of its segments (see the module):
    :func:`document_score` with BLEU's ``options`` or option ``keywords``.

    >>> document_bleu(["a b", "c d"], ["a b", "c d"], ["x", "x"]).counts
    [4, 3, 2, 1]
    """
    opts = resolve_options(options, keywords)
    if not isinstance(opts, BleuOptions):
        raise TypeError(f"options must be a BleuOptions, got {type(opts).__name__} (document_score takes any metric's)")
    return document_score(hypotheses, references, doc_ids, separator=separator, threads=threads, options=opts)


def split_documents(lines: Sequence[str], what: str = "file") -> Tuple[List[str], List[int]]:
    """Segments and their document numbers (from 0) from lines where blank lines separate documents
    (a run of blank lines is one separator; leading and trailing ones are ignored).

    >>> split_documents(["a", "b", "", "c", "", ""])
    (['a', 'b', 'c'], [0, 0, 1])
    """
    segments: List[str] = []
    docs: List[int] = []
    doc, pending = 0, False
    for line in lines:
        if not line.strip():
            pending = bool(segments)
            continue
        if pending:
            doc, pending = doc + 1, False
        segments.append(line)
        docs.append(doc)
    if not segments:
        raise ValueError(f"{what} holds no segment (only blank lines)")
    return segments, docs
