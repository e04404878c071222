"""TER on all the shared MT data against sacreBLEU 2.6.0, every option combination.

For every dataset, every system and every reference set (each reference file alone and, where
there are two, both together) and all 16 combinations of (normalized, no_punct, asian_support,
case_sensitive), the per-sentence statistics must equal sacreBLEU's (fewest edits as an int,
average reference length as a float), and the corpus and sentence scores must be equal with ``==``;
the words of every line, as a hypothesis and as a reference, must be sacreBLEU's too.

sacreBLEU's statistics and words on that grid are a stored oracle (``ter_oracle.py``,
``tests/oracles/stored/ter.json``): its edit function on 193k distinct word-list pairs took some
20 minutes a run. Everything sacreBLEU computes from the statistics (corpus score and totals,
sentence scores, the signature) runs live, on statistics first checked against the stored ones.
``test_live_cross_check`` runs sacreBLEU live, edit function included, on the first lines of every
dataset for each option alone, none and all: a changed peer is caught without a refresh.

The compiled engine runs the whole grid; the Python engine a designed subset of it (``PYTHON_DESIGN``:
every pair of option values, and every option value with every dataset; one system per case, the
first and the last of each dataset; ``BLEUKIT_FULL_GRIDS=1`` runs it whole). The Python engine's
``reference.edits`` is memoized for the run (a pure function of the two word
lists, and the pairs recur across systems and combinations); the compiled engine never is.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
import stored_oracles
from designs import FULL_GRIDS
from metrics.ter.ter_oracle import (
    COMBOS,
    DATASETS,
    combo_id,
    folder_lines,
    reference_sets,
    statistics_case,
    systems,
    words_case,
)
from sacrebleu.metrics import TER
from shared_data import read_lines

from bleukit.metrics.ter import extract, reference
from bleukit.metrics.ter.formula import corpus_ter, corpus_totals, sentence_ters
from bleukit.metrics.ter.options import TER_OPTION_NAMES, TerOptions
from bleukit.metrics.ter.statistics import from_counts
from bleukit.metrics.ter.tokenizer import TercomTokenizer

#: each option alone, none and all: the live cross-check's option families
LIVE_COMBOS = [c for c in COMBOS if sum(c.values()) in (0, 1, len(c))]
LIVE_LINES = 60


def _memoized(function):
    @functools.lru_cache(maxsize=None)
    def by_tuples(hyp, ref):
        return function(list(hyp), list(ref))

    return lambda hyp, ref: by_tuples(tuple(hyp), tuple(ref))


@pytest.fixture(scope="module")
def memoized_edits():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference, "edits", _memoized(reference.edits))
        yield


@pytest.fixture(params=["native", "python"])
def engine(request, monkeypatch):
    if request.param == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", request.param)
    return request.param


def _word_functions(engine, combo):
    """The engine's tokenizer, Python's or the kernel's: (hypothesis words, reference words)."""
    if engine == "native":
        flags = [combo[name] for name in TER_OPTION_NAMES]
        return (lambda line: extract._kernel.words(line, *flags, False),
                lambda line: extract._kernel.words(line, *flags, True))
    tokenizer = TercomTokenizer(TerOptions(**combo))
    return tokenizer.hypothesis_words, tokenizer.reference_words


def _check_scores(metric, options, ref_names, hyps, streams, table, stats, where, public_sample=()):
    """Everything sacreBLEU derives from its statistics ``stats``, live, against bleukit's table."""
    assert table[:, 2].tolist() == [len(ref_names)] * len(hyps)
    corpus = metric._aggregate_and_compute(stats)  # what corpus_score does after the statistics
    assert corpus_ter(from_counts(table).rows) == corpus.score, where
    assert corpus_totals(from_counts(table).rows) == (corpus.num_edits, corpus.ref_length), where
    sentences = sentence_ters(from_counts(table).rows)
    assert sentences.tolist() == [metric._compute_score_from_stats(row).score for row in stats], where
    for i in public_sample:  # the public calls, edit function included
        assert sentences[i] == metric.sentence_score(hyps[i], [s[i] for s in streams]).score, (where, i)
    if public_sample:
        assert corpus.score == metric.corpus_score(hyps, streams).score, where
    assert options.signature(len(ref_names)).rsplit("|version:", 1)[0] == \
        str(metric.get_signature()).rsplit("|version:", 1)[0]


# The pure-Python engine (the reference and fallback) runs the grid on a designed subset: per
# dataset, one flag pattern and its complement, the four patterns chosen so that every value pair of
# every two flags, and both values of every flag with every dataset, occur (a strength-2 covering
# array, checked by test_python_engine_design_covers_every_pair). The compiled engine runs every case;
# both are checked against the same stored sacreBLEU outputs. The Python engine on all 64 (dataset,
# combination) cases took some 12 CPU minutes, most of it in its edit search on CJK characters.
# Each designed case scores one of the dataset's systems, against every reference set: the pattern
# the first system, its complement the last, so that the dataset's first and last systems both go
# through the Python engine (every system goes through the compiled one; the engines' tables are
# compared with each other on random corpora in test_ter_kernel.py).
_PATTERNS = [(0, 0, 0, 0), (0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0)]
#: (dataset, combination) -> the index of the system the Python engine scores there
PYTHON_DESIGN = {
    (dataset, combo_id(dict(zip(TER_OPTION_NAMES, [bool(b ^ flip) for b in pattern])))): -flip
    for dataset, pattern in zip(DATASETS, _PATTERNS)
    for flip in (0, 1)
}
GRID = [
    pytest.param(engine, dataset, combo, id=f"{engine}-{dataset}-{combo_id(combo)}",
                 marks=pytest.mark.xdist_group(f"ter-grid-{dataset}"))  # one worker's memoized edits per dataset
    for dataset in DATASETS
    for combo in COMBOS
    for engine in ("native", "python")
    if engine == "native" or FULL_GRIDS or (dataset, combo_id(combo)) in PYTHON_DESIGN
]


def test_python_engine_design_covers_every_pair():
    assert len(PYTHON_DESIGN) == 8 and {d for d, _ in PYTHON_DESIGN} == set(DATASETS)
    rows = [(dataset, *(name in combo.split("-") for name in TER_OPTION_NAMES)) for dataset, combo in PYTHON_DESIGN]
    factors = len(rows[0])
    for i, j in itertools.combinations(range(factors), 2):
        levels_i = DATASETS if i == 0 else [False, True]
        assert {(row[i], row[j]) for row in rows} == set(itertools.product(levels_i, [False, True])), (i, j)


@pytest.mark.slow
@pytest.mark.parametrize("engine_name, dataset, combo", GRID)
def test_statistics_and_scores_equal_sacrebleu(shared_data, memoized_edits, monkeypatch, engine_name, dataset, combo):
    if engine_name == "native" and not extract.kernel_available():
        pytest.skip("the TER kernel is not built")
    monkeypatch.setenv("BLEUKIT_ENGINE", engine_name)
    engine = engine_name
    folder = shared_data / dataset
    options = TerOptions(**combo)
    metric = TER(**combo)
    scored = systems(folder)
    if engine == "python" and not FULL_GRIDS:
        scored = [scored[PYTHON_DESIGN[dataset, combo_id(combo)]]]
    for ref_names in reference_sets(folder):
        streams = [read_lines(folder / name) for name in ref_names]
        per_hypothesis = [list(refs) for refs in zip(*streams)]
        metric._cache_references(streams)  # sacreBLEU's reference side, which sets its signature's nrefs
        for system in scored:
            hyps = read_lines(folder / system)
            table = extract.ter_statistics(hyps, per_hypothesis, options)
            case = statistics_case(dataset, combo, ref_names, system)
            ours = {"edits": table[:, 0].tolist(), "ref_lengths": (table[:, 1] / table[:, 2]).tolist()}
            stored_oracles.check("ter", case, ours)
            stats = [list(row) for row in zip(ours["edits"], ours["ref_lengths"])]  # sacreBLEU's, checked
            _check_scores(metric, options, ref_names, hyps, streams, table, stats, case)
    # The words themselves, for every line as a hypothesis (tokenized once) and as a reference
    # (twice): the engine's tokenizer, Python's or the kernel's, gives sacreBLEU's.
    hyp_words, ref_words = _word_functions(engine, combo)
    lines = folder_lines(folder)
    stored_oracles.check("ter", words_case(dataset, combo), {
        "hypothesis_words": [list(hyp_words(line)) for line in lines],
        "reference_words": [list(ref_words(line)) for line in lines],
    })


def _engines():
    return ["native", "python"] if extract.kernel_available() else ["python"]


@pytest.mark.parametrize("combo", LIVE_COMBOS, ids=combo_id)
@pytest.mark.parametrize("dataset", DATASETS)
def test_live_cross_check(shared_data, monkeypatch, dataset, combo):
    """The grid's checks against sacreBLEU run live (its edit function, tokenizer and public calls)
    on the first lines of each dataset's first system, with all of the dataset's references (the
    stored grid has each reference alone too; one reference is live on WMT17, whose set has one):
    what the stored oracle stands for still holds for the installed sacreBLEU. sacreBLEU runs once
    per case; each engine's table must equal the other's, and the first one's is checked against
    sacreBLEU."""
    folder = shared_data / dataset
    options = TerOptions(**combo)
    metric = TER(**combo)
    system = systems(folder)[0]
    hyps = read_lines(folder / system)[:LIVE_LINES]
    for ref_names in reference_sets(folder)[-1:]:
        streams = [read_lines(folder / name)[:LIVE_LINES] for name in ref_names]
        tables = []
        for engine in _engines():
            monkeypatch.setenv("BLEUKIT_ENGINE", engine)
            tables.append(extract.ter_statistics(hyps, [list(refs) for refs in zip(*streams)], options))
        for other in tables[1:]:
            np.testing.assert_array_equal(other, tables[0])
        table = tables[0]
        stats = metric._extract_corpus_statistics(hyps, streams)
        assert table[:, 0].tolist() == [row[0] for row in stats]
        assert (table[:, 1] / table[:, 2]).tolist() == [row[1] for row in stats]
        _check_scores(metric, options, ref_names, hyps, streams, table, stats, f"{system} {ref_names}",
                      public_sample=range(0, LIVE_LINES, 7))
    theirs = {line: (metric._preprocess_segment(line).split(),
                     metric._preprocess_segment(metric._preprocess_segment(line)).split())
              for line in hyps + streams[0]}
    for engine in _engines():
        hyp_words, ref_words = _word_functions(engine, combo)
        for line, (as_hypothesis, as_reference) in theirs.items():
            assert hyp_words(line) == as_hypothesis, (engine, line)
            assert ref_words(line) == as_reference, (engine, line)


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
