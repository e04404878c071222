"""COCO captioning's Bleu against pycocoevalcap 1.2 itself with ==: corpus and per-caption scores,
every n, the printed totals, on real data (lowercased, tokenized as the toolkit's PTB tokenizer
leaves it) and on the edge cases of its formula."""

from __future__ import annotations

import pytest

pytest.importorskip("pycocoevalcap", reason="needs pycocoevalcap (the dev extra)")

from pycocoevalcap.bleu.bleu import Bleu as CocoBleu  # noqa: E402
from shared_data import read_lines  # noqa: E402

from bleukit.compat import compare_variants  # noqa: E402
from bleukit.compat.coco import Bleu, coco_bleu  # noqa: E402
from bleukit.tokenizers import get_tokenizer  # noqa: E402

LINES = 400


def ptb_like(line):
    """Lowercased words without punctuation tokens, roughly what the toolkit's PTB step gives."""
    return " ".join(t for t in get_tokenizer("13a")(line).lower().split() if any(c.isalnum() for c in t))


@pytest.fixture(scope="module")
def captions(shared_data):
    folder = shared_data / "wmt22-de-en"
    names = sorted(p.name for p in folder.iterdir() if p.name.startswith("ref."))
    refs = [[ptb_like(x) for x in read_lines(folder / name)[:LINES]] for name in names]
    hyp_file = sorted(p for p in folder.iterdir() if p.name.startswith("hyp."))[0]
    hyps = [ptb_like(x) for x in read_lines(hyp_file)[:LINES]]
    gts = {f"img{i}": [r[i] for r in refs] for i in range(len(hyps))}
    res = {f"img{i}": [h] for i, h in enumerate(hyps)}
    return gts, res


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_real_data_equals_pycocoevalcap(captions, n):
    gts, res = captions
    assert Bleu(n).compute_score(gts, res, verbose=0) == CocoBleu(n).compute_score(gts, res, verbose=0)


EDGES = {
    "empty caption": ({1: ["a b c"], 2: ["x y"]}, {1: [""], 2: ["x y"]}),
    "no 4-gram match": ({1: ["a b c d e"]}, {1: ["a b c x e"]}),
    "longer than refs": ({1: ["a b"], 2: ["c d e"]}, {1: ["a b a b a b"], 2: ["c d e f"]}),
    "tie goes to the shorter": ({1: ["a b c d", "a b c d e f"]}, {1: ["a b c d e"]}),
    "repeated words clipped": ({1: ["the cat", "the the dog"]}, {1: ["the the the the"]}),
    "tabs and odd spaces": ({1: ["a\tb  c\u00a0d"]}, {1: ["a b c\u00a0d"]}),
    "one word": ({7: ["yes"]}, {7: ["yes"]}),
}


@pytest.mark.parametrize("case", list(EDGES))
@pytest.mark.parametrize("n", [1, 4])
def test_edge_cases_equal_pycocoevalcap(case, n):
    gts, res = EDGES[case]
    assert Bleu(n).compute_score(gts, res, verbose=0) == CocoBleu(n).compute_score(gts, res, verbose=0)


def test_printed_totals_are_the_toolkits(captions, capsys):
    gts, res = captions
    CocoBleu(3).compute_score(gts, res)
    theirs = capsys.readouterr().out
    Bleu(3).compute_score(gts, res)
    assert capsys.readouterr().out == theirs


def test_cumulative_bleu4_is_sacrebleus_counts_with_another_formula(captions):
    gts, res = captions
    hyps = [res[k][0] for k in gts]
    refs = [gts[k] for k in gts]
    assert coco_bleu(hyps, refs)[0] == CocoBleu(4).compute_score(gts, res, verbose=0)[0]
    table = compare_variants(hyps, refs)
    row = next(r for r in table.rows if r.name == "COCO caption Bleu_4")
    tok = get_tokenizer("13a")
    tokenized = {k: [tok(r) for r in v] for k, v in gts.items()}
    hyp_tok = {k: [tok(v[0])] for k, v in res.items()}
    assert row.score == 100 * CocoBleu(4).compute_score(tokenized, hyp_tok, verbose=0)[0][3]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="from 1 to 4"):
        Bleu(5)
    with pytest.raises(ValueError, match="same image ids"):
        Bleu().compute_score({1: ["a"]}, {2: ["a"]})
    with pytest.raises(ValueError, match="exactly one caption"):
        Bleu().compute_score({1: ["a"]}, {1: ["a", "b"]})
    with pytest.raises(ValueError, match="non-empty list"):
        Bleu().compute_score({1: []}, {1: ["a"]})
    with pytest.raises(ValueError, match="no images"):
        Bleu().compute_score({}, {})
