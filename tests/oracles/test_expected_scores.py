"""Every row of ../shared/data/expected_scores.jsonl (sacreBLEU 2.6.0 on real WMT/KFTT outputs), with ``==``.

The file was made on a Python whose ``sum`` of floats adds left to right (before 3.12). From 3.12
``sum`` is compensated, and sacreBLEU itself then gives other last bits for some rows (50 of 176):
there the score is compared with sacreBLEU run here, every other field with the file.
"""

import json

import pytest
from shared_data import SHARED_DATA, load_corpus

import bleukit
from bleukit.metrics.bleu.libm import COMPENSATED_SUM


def _rows():
    path = SHARED_DATA / "expected_scores.jsonl"
    if not path.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{path} not found (CI has ../shared)"))]
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [
        pytest.param(
            r,
            id=f"{r['dataset']}-{r['hyp']}-{r['refs']}-{r['tokenize']}-"
            f"{'lc' if r['lowercase'] else 'mixed'}-{r['smooth']}",
        )
        for r in rows
    ]


def test_expected_rows_present(expected_rows):
    assert len(expected_rows) == 176


ENGINES = [
    pytest.param("native", id="native"),
    # The pure-Python reference engine, on every row too (about 40 s).
    pytest.param("python", id="python", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("row", _rows())
def test_expected_score(row, engine, shared_data, monkeypatch):
    if engine == "native" and bleukit.engine_name() != "native":
        pytest.skip("the native kernel is not built here")
    monkeypatch.setenv("BLEUKIT_ENGINE", engine)
    hyps, refs, _ = load_corpus(shared_data, row["dataset"], row["hyp"], row["refs"])
    result = bleukit.corpus_bleu(
        hyps, refs, tokenize=row["tokenize"], lowercase=row["lowercase"], smooth_method=row["smooth"]
    )
    if COMPENSATED_SUM:
        import sacrebleu

        _, _, streams = load_corpus(shared_data, row["dataset"], row["hyp"], row["refs"])
        theirs = sacrebleu.corpus_bleu(
            hyps, streams, tokenize=row["tokenize"], lowercase=row["lowercase"], smooth_method=row["smooth"]
        )
        assert result.score == theirs.score
    else:
        assert result.score == row["score"]
    assert result.counts == row["counts"]
    assert result.totals == row["totals"]
    assert result.sys_len == row["sys_len"]
    assert result.ref_len == row["ref_len"]
    assert result.bp == row["bp"]
    # Every signature field but the version (ours names bleukit) equals sacreBLEU's.
    ours, theirs = result.signature.split("|"), row["signature"].split("|")
    assert ours[:-1] == theirs[:-1]
    assert ours[-1].startswith("version:bleukit-")


def test_published_wmt17_figures(shared_data):
    """The Moses mteval-v13a figures published with sacreBLEU, to the printed digit."""
    published = {
        "LIUM-NMT.4900": 26.60,
        "online-B.0": 26.65,
        "uedin-nmt.4722": 28.30,
        "KIT.4950": 26.08,
        "online-A.0": 20.80,
    }
    for system, score in published.items():
        hyps, refs, _ = load_corpus(shared_data, "wmt17-en-de", f"hyp.{system}.de", "ref.de")
        assert round(bleukit.corpus_bleu(hyps, refs).score, 2) == score
