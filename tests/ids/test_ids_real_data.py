"""Token-id BLEU on the real MT data: the text tokenized by the core, tokens mapped to ids.

Every row of ``expected_scores.jsonl`` (sacreBLEU 2.6.0 corpus scores for every system,
tokenizer, lowercasing, smoothing and one or two references) is reproduced by
``corpus_bleu_ids`` on the ids, and sentence scores by ``sentence_bleu_ids`` equal the core's
text path.
"""

from __future__ import annotations

import numpy as np
import pytest
from shared_data import load_corpus

import bleukit
from bleukit.ids import corpus_bleu_ids, sentence_bleu_ids
from bleukit.metrics.bleu.extract import preprocess
from bleukit.metrics.bleu.libm import COMPENSATED_SUM

_VOCAB: dict = {}
_IDS: dict = {}


def ids_of(dataset: str, name: str, lines, tokenize: str, lowercase: bool):
    key = (dataset, name, tokenize, lowercase)
    if key not in _IDS:
        tokenizer = bleukit.get_tokenizer(tokenize)
        # Ids spread up to ~2**31 so the dense-code path for large ids is used too.
        _IDS[key] = [
            [_VOCAB.setdefault(tok, len(_VOCAB) * 7919 % (2**31 - 1)) for tok in preprocess(line, tokenizer, lowercase)]
            for line in lines
        ]
    return _IDS[key]


def test_every_expected_corpus_score_from_ids(shared_data, expected_rows):
    checked = 0
    for row in expected_rows:
        try:
            bleukit.get_tokenizer(row["tokenize"])
        except (ImportError, RuntimeError) as err:  # pragma: no cover - MeCab missing
            pytest.skip(f"tokenizer {row['tokenize']} unavailable: {err}")
        hyps, refs, streams = load_corpus(shared_data, row["dataset"], row["hyp"], row["refs"])
        hyp_ids = ids_of(row["dataset"], row["hyp"], hyps, row["tokenize"], row["lowercase"])
        ref_streams = [
            ids_of(row["dataset"], name, stream, row["tokenize"], row["lowercase"])
            for name, stream in zip(row["refs"].split("+"), streams)
        ]
        ref_ids = [list(r) for r in zip(*ref_streams)]
        result = corpus_bleu_ids(hyp_ids, ref_ids, smooth_method=row["smooth"])
        where = f"{row['dataset']} {row['hyp']} {row['refs']} {row['tokenize']} lc={row['lowercase']} {row['smooth']}"
        want = row["score"]
        if COMPENSATED_SUM:  # the file was made with a sum() that adds left to right: the text path, then
            opts = dict(tokenize=row["tokenize"], lowercase=row["lowercase"], smooth_method=row["smooth"])
            want = bleukit.corpus_bleu(hyps, refs, **opts).score
        assert result.score == want, where
        assert result.counts == row["counts"] and result.totals == row["totals"], where
        assert (result.sys_len, result.ref_len) == (row["sys_len"], row["ref_len"]), where
        checked += 1
    assert checked == len(expected_rows) > 100


def test_sentence_scores_from_ids_equal_the_text_path(shared_data):
    hyps, refs, streams = load_corpus(shared_data, "wmt22-de-en", "hyp.JDExploreAcademy.en", "ref.A.en+ref.B.en")
    hyp_ids = ids_of("wmt22-de-en", "hyp.JDExploreAcademy.en", hyps, "13a", False)
    ref_streams = [ids_of("wmt22-de-en", n, s, "13a", False) for n, s in zip(("ref.A.en", "ref.B.en"), streams)]
    width = max(len(x) for x in hyp_ids + ref_streams[0] + ref_streams[1]) + 3
    pad = -1  # never a real id here
    dense = lambda seqs: np.array([s + [pad] * (width - len(s)) for s in seqs], dtype=np.int64)  # noqa: E731
    got = sentence_bleu_ids(dense(hyp_ids), np.stack([dense(s) for s in ref_streams], 1), pad_id=pad)
    want = bleukit.sentence_bleu_scores(hyps, refs)
    assert got.tolist() == want.tolist()
