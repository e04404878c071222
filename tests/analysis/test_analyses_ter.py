"""The analyses with TER (lower is better) through the metric protocol, against sacreBLEU's TER:
scores per group and per document, all pairs ranked lowest first with sacreBLEU's paired p-values,
Self-TER against a loop of sentence scores, the HTML report and the command line's --rank -m ter."""

import io
import json
import statistics

import pytest
from sacrebleu.metrics import TER
from sacrebleu.significance import PairedTest
from shared_data import read_lines

import bleukit
from bleukit.analysis.documents import document_score
from bleukit.analysis.groups import score_by_group
from bleukit.analysis.htmlreport import build_report
from bleukit.analysis.ranking import compare_systems
from bleukit.cli import main
from bleukit.metrics.ter import TerOptions
from bleukit.schemas import validate

WMT17 = ["LIUM-NMT.4900", "online-B.0", "KIT.4950"]
LINES = 200
pytestmark = pytest.mark.usefixtures("sacrebleu_edits_once")


@pytest.fixture(scope="module")
def wmt17(shared_data):
    folder = shared_data / "wmt17-en-de"
    systems = [(name, read_lines(folder / f"hyp.{name}.de")[:LINES]) for name in WMT17]
    return systems, read_lines(folder / "ref.de")[:LINES]


def _subset(items, labels, label):
    return [x for x, lab in zip(items, labels) if lab == label]


@pytest.mark.parametrize("opts", [{}, {"normalized": True, "case_sensitive": True}])
def test_ter_groups_and_documents_equal_sacrebleu(wmt17, opts):
    systems, refs = wmt17
    hyps = systems[0][1]
    ter = TER(**opts)
    labels = [min(len(r.split()) // 10, 3) for r in refs]
    r = score_by_group(hyps, refs, labels, options=TerOptions(**opts))
    assert r.score == ter.corpus_score(hyps, [refs]).score
    for label, group in r.groups.items():
        assert group.score == ter.corpus_score(_subset(hyps, labels, label), [_subset(refs, labels, label)]).score
    api = bleukit.corpus_ter(hyps, refs, group_by=labels, n_bootstrap=100, seed=2, **opts)
    for label, group in api.groups.items():
        alone = bleukit.corpus_ter(_subset(hyps, labels, label), _subset(refs, labels, label), n_bootstrap=100, seed=2,
                                   **opts)
        assert (group.score, group.mean, group.ci) == (r.groups[label].score, alone.mean, alone.ci)
    # documents of three segments (TER's shift search grows fast with the length of a segment)
    hyps, refs = hyps[:60], refs[:60]
    joined = lambda lines: [" ".join(lines[k : k + 3]) for k in range(0, len(lines), 3)]  # noqa: E731
    doc = document_score(hyps, refs, [i // 3 for i in range(len(refs))], options=TerOptions(**opts))
    assert doc.score == ter.corpus_score(joined(hyps), [joined(refs)]).score


@pytest.mark.parametrize("method, n", [("ar", 200), ("bs", 200)])
def test_ter_pairs_equal_sacrebleu_and_rank_the_lowest_first(wmt17, monkeypatch, method, n):
    systems, refs = wmt17
    c = compare_systems(systems, refs, method=method, n_samples=n, options=TerOptions())
    assert c.metric == "ter" and c.higher_is_better is False
    scores = {s.name: s.score for s in c.systems}
    assert [r.name for r in c.ranking] == sorted(scores, key=scores.get)  # the lowest TER ranks first
    assert scores == {name: TER().corpus_score(h, [refs]).score for name, h in systems}
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        _, theirs = PairedTest([systems[a], systems[b]], {"TER": TER(references=[refs])}, None, test_type=method,
                               n_samples=n)()
        pair = c.comparison(systems[a][0], systems[b][0])
        assert pair.p_value == theirs["TER"][1].p_value
        if pair.better is not None:  # significant: the better one has the lower TER
            other = systems[b][0] if pair.better == systems[a][0] else systems[a][0]
            assert scores[pair.better] < scores[other]


@pytest.mark.parametrize(
    "n, opts", [(20, {}), (40, {}), (43, {"normalized": True, "case_sensitive": True}), (2, {})]
)
def test_self_ter_equals_a_loop_of_sacrebleu_sentence_scores(wmt17, n, opts):
    """Any number of texts (a TER table holds at most 20 references a row): each text against the
    n - 1 others, sacreBLEU's average reference length a float (39 and 42 references do not divide
    its table's unit). A repeated text is a reference of its copy."""
    texts = wmt17[0][0][1][: n - 1] + wmt17[0][0][1][:1]
    ter = TER(**opts)
    loop = [ter.sentence_score(t, texts[:i] + texts[i + 1 :]).score for i, t in enumerate(texts)]
    r = bleukit.self_bleu(texts, options=TerOptions(**opts))
    assert r.scores.tolist() == loop and r.score == statistics.mean(loop) and r.n_texts == n
    one = bleukit.corpus_ter(texts[:1], [texts[1:2]], **opts).signature.split("|")
    assert r.signature.split("|") == [f"nrefs:{n - 1}"] + one[1:]
    streams = [texts[:i] + texts[i + 1 :] for i in range(len(texts))]
    corpus = ter.corpus_score(texts, [[s[k] for s in streams] for k in range(len(texts) - 1)])
    got = bleukit.self_bleu(texts, options=TerOptions(**opts), definition="corpus")
    assert (got.score, got.corpus.num_edits, got.corpus.ref_length) == (corpus.score, corpus.num_edits,
                                                                        corpus.ref_length)
    pairwise = [ter.sentence_score(t, [u]).score for i, t in enumerate(texts) for j, u in enumerate(texts) if i != j]
    got = bleukit.self_bleu(texts, options=TerOptions(**opts), definition="pairwise")
    assert got.score == statistics.mean(pairwise)


def test_ter_report_and_command_line(wmt17, tmp_path):
    systems, refs = wmt17
    report = build_report(systems, refs, options=TerOptions(), n_samples=100, n_bootstrap=50)
    validate(report.data, "report")
    m = report.data["metrics"][0]
    assert m["metric"] == "ter" and m["higher_is_better"] is False and report.data["explanations"] == []
    assert [s["score"] for s in m["scores"]] == [TER().corpus_score(h, [refs]).score for _, h in systems]
    one = build_report(systems[0][1], refs, options=TerOptions(), n_bootstrap=20)
    assert one.data["differences"]["kind"] == "highest"
    files = []
    for name, lines in [("ref", refs)] + systems:
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(files[0]), "-i", *map(str, files[1:]), "--rank", "-m", "ter", "-pbsn", "100"], stdout=out,
                stderr=err, stdin=io.BytesIO(b""))
    assert code == 0, err.getvalue()
    expected = compare_systems([(str(p), h) for p, (_, h) in zip(files[1:], systems)], refs, n_samples=100,
                               options=TerOptions())
    assert json.loads(out.getvalue()) == [json.loads(json.dumps(expected.to_dict()))]
    validate(json.loads(out.getvalue()), "cli-rank")
