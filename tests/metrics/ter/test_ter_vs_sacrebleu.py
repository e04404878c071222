"""TER on all the shared MT data against live sacreBLEU 2.6.0, every option combination, both engines.

For every dataset, every system and every reference set (each reference file alone and, where
there are two, both together) and all 16 combinations of (normalized, no_punct, asian_support,
case_sensitive), the per-sentence statistics must equal sacreBLEU's (fewest edits as an int,
average reference length as a float), and the corpus and sentence scores must be equal with ``==``;
the words of every line, as a hypothesis and as a reference, must be sacreBLEU's too.

Cost: the same (hypothesis words, reference words) pair recurs across systems and option
combinations (580k pairs, 193k distinct), so sacreBLEU's edit function
``sacrebleu.metrics.ter.translation_edit_rate`` and the Python engine's ``reference.edits`` are
memoized for the run (both are pure functions of the two word lists); everything around them
(tokenizers, statistics, formulas) runs as is. The compiled engine is never memoized. Even so
the test runs for some 20 minutes on two cores, most of it in sacreBLEU's edit function.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
import sacrebleu.metrics.ter as sacrebleu_ter
from sacrebleu.metrics import TER
from shared_data import read_lines

from bleukit.metrics.ter import extract, reference
from bleukit.metrics.ter.formula import corpus_ter, corpus_totals, sentence_ters
from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions
from bleukit.metrics.ter.statistics import from_counts
from bleukit.metrics.ter.tokenizer import TercomTokenizer

COMBOS = [dict(zip(TER_OPTION_NAMES, flags)) for flags in itertools.product([False, True], repeat=4)]
DATASETS = ["wmt17-en-de", "wmt22-de-en", "wmt22-en-zh", "kftt-en-ja"]


def _combo_id(combo):
    return "-".join(name for name, on in combo.items() if on) or "defaults"


def _reference_sets(folder):
    names = sorted(p.name for p in folder.glob("ref*"))
    return [[name] for name in names] + ([names] if len(names) > 1 else [])


def _memoized(function):
    @functools.lru_cache(maxsize=None)
    def by_tuples(hyp, ref):
        return function(list(hyp), list(ref))

    return lambda hyp, ref: by_tuples(tuple(hyp), tuple(ref))


@pytest.fixture(scope="module")
def memoized_edits():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sacrebleu_ter, "translation_edit_rate", _memoized(sacrebleu_ter.translation_edit_rate))
        mp.setattr(reference, "edits", _memoized(reference.edits))
        yield


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    if request.param == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param


@pytest.mark.slow
@pytest.mark.parametrize("combo", COMBOS, ids=_combo_id)
@pytest.mark.parametrize("dataset", DATASETS)
def test_statistics_and_scores_equal_sacrebleu(shared_data, memoized_edits, engine, dataset, combo):
    folder = shared_data / dataset
    options = TerOptions(**combo)
    metric = TER(**combo)  # one instance: its tokenizer cache serves every system and the word checks
    lines = set()
    for ref_names in _reference_sets(folder):
        streams = [read_lines(folder / name) for name in ref_names]
        per_hypothesis = [list(refs) for refs in zip(*streams)]
        for system in sorted(folder.glob("hyp.*")):
            hyps = read_lines(system)
            lines.update(hyps)
            lines.update(line for stream in streams for line in stream)
            expected = metric._extract_corpus_statistics(hyps, streams)
            table = extract.ter_statistics(hyps, per_hypothesis, options)
            where = f"{system.name} vs {'+'.join(ref_names)}"
            assert table[:, 0].tolist() == [row[0] for row in expected], where
            assert (table[:, 1] / table[:, 2]).tolist() == [row[1] for row in expected], where
            assert table[:, 2].tolist() == [len(ref_names)] * len(hyps)
            corpus = metric.corpus_score(hyps, streams)
            assert corpus_ter(from_counts(table).rows) == corpus.score, where
            assert corpus_totals(from_counts(table).rows) == (corpus.num_edits, corpus.ref_length), where
            sentences = sentence_ters(from_counts(table).rows)
            assert sentences.tolist() == [metric._compute_score_from_stats(row).score for row in expected], where
            for i in range(0, len(hyps), 97):  # the public per-sentence call on a sample
                assert sentences[i] == metric.sentence_score(hyps[i], [s[i] for s in streams]).score, (where, i)
            assert options.signature(len(ref_names)).rsplit("|version:", 1)[0] == \
                str(metric.get_signature()).rsplit("|version:", 1)[0]
    # The words themselves, for every line as a hypothesis (tokenized once) and as a reference
    # (twice): the engine's tokenizer, Python's or the kernel's, gives sacreBLEU's.
    if engine == "native":
        flags = [combo[name] for name in TER_OPTION_NAMES]
        hyp_words = lambda line: extract._kernel.words(line, *flags, False)  # noqa: E731
        ref_words = lambda line: extract._kernel.words(line, *flags, True)  # noqa: E731
    else:
        tokenizer = TercomTokenizer(options)
        hyp_words, ref_words = tokenizer.hypothesis_words, tokenizer.reference_words
    for line in sorted(lines):
        assert hyp_words(line) == metric._preprocess_segment(line).split(), line
        assert ref_words(line) == metric._preprocess_segment(metric._preprocess_segment(line)).split(), line


def test_missing_and_empty_references_as_sacrebleu(engine):
    """sacreBLEU drops a missing reference (None) from its sentence and scores an empty one as
    zero words; bleukit's per-hypothesis lists hold the references that are there."""
    hyps = ["the cat sat on the mat", "a dog", "", "words here", ""]
    streams = [["the cat sat on a mat", None, "", "", ""],
               [None, "the dog barked", "something", "", None]]
    per_hypothesis = [[r for r in refs if r is not None] for refs in zip(*streams)]
    for combo in (COMBOS[0], COMBOS[-1]):
        metric = TER(**combo)
        expected = metric._extract_corpus_statistics(hyps, streams)
        table = extract.ter_statistics(hyps, per_hypothesis, TerOptions(**combo))
        assert table[:, 0].tolist() == [row[0] for row in expected]
        assert (table[:, 1] / table[:, 2]).tolist() == [row[1] for row in expected]
        assert corpus_ter(from_counts(table).rows) == metric.corpus_score(hyps, streams).score
        for i, refs in enumerate(per_hypothesis):
            assert sentence_ters(from_counts(table).rows)[i] == metric.sentence_score(hyps[i], refs).score
    # a corpus whose references are all empty: 100 with edits, 0 without
    for hyps in (["a b", ""], ["", ""]):
        table = extract.ter_statistics(hyps, [[""], [""]])
        assert corpus_ter(from_counts(table).rows) == TER().corpus_score(hyps, [["", ""]]).score


def test_variable_reference_counts_sum_averages_in_sentence_order(engine):
    """With 1, 2 and 3 references per sentence the averages are not integers: the float sum must
    be sacreBLEU's, in sentence order."""
    rng = np.random.default_rng(7)
    vocab = ["a", "b", "c", "d", "e"]
    hyps, streams = [], [[], [], []]
    for _ in range(400):
        hyps.append(" ".join(rng.choice(vocab, rng.integers(0, 9))))
        for k in range(3):
            keep = k == 0 or rng.random() < 0.5
            streams[k].append(" ".join(rng.choice(vocab, rng.integers(1, 12))) if keep else None)
    per_hypothesis = [[r for r in refs if r is not None] for refs in zip(*streams)]
    metric = TER()
    table = extract.ter_statistics(hyps, per_hypothesis)
    corpus = metric.corpus_score(hyps, streams)
    assert corpus_ter(from_counts(table).rows) == corpus.score
    assert corpus_totals(from_counts(table).rows) == (corpus.num_edits, corpus.ref_length)
    assert TerOptions().signature("var").rsplit("|version:", 1)[0] == \
        str(metric.get_signature()).rsplit("|version:", 1)[0]
