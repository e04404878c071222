"""Document-level scores (d-BLEU): sacreBLEU's corpus score of the documents, each the concatenation
of its segments; for BLEU and chrF, one and two references, ids in any order, and bad input."""

import pytest
import sacrebleu
from sacrebleu.metrics import CHRF
from shared_data import read_lines

import bleukit
from bleukit.analysis.documents import document_bleu, document_score, join_documents, split_documents
from bleukit.metrics.chrf import ChrfOptions


@pytest.fixture(scope="module")
def wmt22(shared_data):
    folder = shared_data / "wmt22-de-en"
    hyps = read_lines(folder / "hyp.Online-A.en")
    streams = [read_lines(folder / "ref.A.en"), read_lines(folder / "ref.B.en")]
    # the data has no document ids: documents of 1 to 12 consecutive segments, deterministic
    ids, doc, left = [], 0, 0
    for i in range(len(hyps)):
        if left == 0:
            doc, left = doc + 1, 1 + (i * 7) % 12
        ids.append(f"doc{doc}")
        left -= 1
    return hyps, streams, ids


def _joined(lines, ids):
    docs = {}
    for line, doc in zip(lines, ids):
        docs.setdefault(doc, []).append(line)
    return [" ".join(parts) for parts in docs.values()]


def test_d_bleu_is_sacrebleu_corpus_bleu_of_the_joined_documents(wmt22):
    hyps, streams, ids = wmt22
    theirs = sacrebleu.corpus_bleu(_joined(hyps, ids), [_joined(s, ids) for s in streams])
    ours = document_bleu(hyps, bleukit.references_from_streams(streams), ids)
    assert ours.counts == theirs.counts and ours.totals == theirs.totals
    assert (ours.sys_len, ours.ref_len) == (theirs.sys_len, theirs.ref_len)
    assert ours.score == pytest.approx(theirs.score, abs=1e-9, rel=0)  # numpy's exp/log: the last bit
    assert ours.signature.startswith("nrefs:2|")
    # not the sentence-level corpus score: n-grams now match across segment boundaries
    assert ours.score != bleukit.corpus_bleu(hyps, bleukit.references_from_streams(streams)).score


@pytest.mark.parametrize("opts", [{}, {"word_order": 2}, {"whitespace": True}])
def test_document_chrf_equals_sacrebleu(wmt22, opts):
    hyps, streams, ids = wmt22
    theirs = CHRF(**opts).corpus_score(_joined(hyps, ids), [_joined(s, ids) for s in streams])
    ours = document_score(hyps, bleukit.references_from_streams(streams), ids, options=ChrfOptions(**opts))
    assert ours.score == theirs.score


def test_ids_need_not_be_adjacent_and_documents_keep_first_appearance_order():
    hyps, refs = ["a", "b", "c", "d"], ["A", "B", "C", "D"]
    assert join_documents(hyps, refs, [2, 1, 2, 1]) == (["a c", "b d"], [["A C"], ["B D"]])
    assert join_documents(hyps, refs, [0, 0, 0, 0], separator="\n") == (["a\nb\nc\nd"], [["A\nB\nC\nD"]])


def test_a_reference_missing_for_a_whole_document_is_missing_there():
    hyps = ["a b", "c d", "e f"]
    refs = [["a b", None], ["c d", None], ["e f", "e g"]]
    docs, doc_refs = join_documents(hyps, refs, [1, 1, 2])
    assert doc_refs == [["a b c d", None], ["e f", "e g"]]
    ours = document_bleu(hyps, refs, [1, 1, 2])
    assert ours.signature.startswith("nrefs:var|")
    assert ours == bleukit.corpus_bleu(docs, doc_refs)


@pytest.mark.parametrize(
    "refs, ids, error, message",
    [
        ([["a", None], ["b", "x"]], [1, 1], ValueError, "reference 2 is missing .* for some of its segments"),
        ([["a", "y"], "b"], [1, 1], ValueError, "different numbers of references"),
        (["a", "b"], [1], ValueError, "doc_ids has 1 labels but there are 2 sentences"),
        (["a", "b"], "ab", TypeError, "doc_ids must be a list of labels"),
        (["a"], [1, 1], ValueError, "got 2 hypotheses but 1 reference entries"),
    ],
)
def test_bad_input_is_named(refs, ids, error, message):
    with pytest.raises(error, match=message):
        document_bleu(["a", "b"], refs, ids)


def test_separator_must_be_text():
    with pytest.raises(TypeError, match="separator must be a str"):
        join_documents(["a"], ["a"], [1], separator=None)


def test_blank_lines_separate_documents():
    assert split_documents(["", "a", "b", "", "", "c", ""]) == (["a", "b", "c"], [0, 0, 1])
    with pytest.raises(ValueError, match="holds no segment"):
        split_documents(["", " "])
