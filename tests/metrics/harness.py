"""One harness for every metric: a case table per metric, checked the same way against sacreBLEU.

A :class:`MetricCase` names a metric (``"bleu"``, ``"chrf"``, ``"ter"``: a package of
``bleukit.metrics``), its inputs (literal lines, or a slice of a corpus of ``../shared/data``) and
its option keywords. :class:`MetricTester` runs one case through bleukit (by the metric protocol,
``bleukit.metrics.get_metric``, and the public functions named after the metric) and through its
oracle, sacreBLEU run live (:class:`LiveOracle`), and compares with ``==``:

- ``check_corpus``: the corpus score, the summed statistics and the signature (version aside);
- ``check_sentences``: each sentence's score and signature, and the vector of sentence scores;
- ``check_accumulator``: the rows streamed in chunks add up to the corpus result;
- ``check_bootstrap`` / ``check_paired``: sacreBLEU's bootstrap estimates and paired tests;
- ``check_pairwise``: every (hypothesis, reference) pair's sentence score;
- ``check_cli``: ``python -m bleukit`` prints what ``python -m sacrebleu`` prints.

The oracle runs once per case; the tester takes the ``each_engine`` fixture of
``tests/conftest.py`` and runs bleukit's side of each check on both engines inside one test.
Adding a metric to the harness means a row in ``PROFILES`` (its sacreBLEU class and how to read
its totals) and a table of cases.
Shaped after torchmetrics' ``TextTester`` (tests/unittests/text/_helpers.py): one tester, many
tables; the code is this project's own.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest
from shared_data import SHARED_DATA, read_lines

import bleukit
from bleukit.metrics import get_metric


@dataclass(frozen=True)
class Corpus:
    """A slice of a corpus of ``../shared/data``: the first ``lines`` lines of a system and its
    '+'-joined reference files; ``missing`` maps a reference stream's index to a step: that stream
    has no reference (None) on every line whose index is a multiple of the step."""

    dataset: str
    hyp: str
    refs: str
    lines: Optional[int] = None
    missing: Tuple[Tuple[int, int], ...] = ()

    def load(self) -> Tuple[List[str], List[List[Optional[str]]]]:
        if not (SHARED_DATA / self.dataset).exists():
            pytest.skip(f"real MT data not found at {SHARED_DATA}")
        return _load(self)


@lru_cache(maxsize=None)
def _load(corpus: Corpus):
    folder = SHARED_DATA / corpus.dataset
    hyps = read_lines(folder / corpus.hyp)[: corpus.lines]
    streams = [read_lines(folder / name)[: corpus.lines] for name in corpus.refs.split("+")]
    for index, step in corpus.missing:
        streams[index] = [None if i % step == 0 else r for i, r in enumerate(streams[index])]
    return hyps, streams


#: literal lines shared by the tables and the metric folders' own tests: a missing reference, an
#: empty pair, a bare-string reference, CJK, case and space variants (references per hypothesis)
LINES_HYPS = (
    "The cat sat on the mat.", "It is raining, isn't it?", "", "Hello WORLD ", "東京は日本の首都です。", "x y z",
)
LINES_REFS = (
    ["The cat is on the mat.", "A cat sat on a mat."],
    ["It rains, doesn't it?", None],
    ["", "nothing"],
    "hello world",
    ["日本の首都は東京です。"],
    [None, "x y"],
)
#: candidates and single references for pairwise scores: repeated and empty candidates, punctuation, case
PAIR_CANDS = (
    "the cat sat on the mat",
    "a cat sat on the mat",
    "the cat is on a mat",
    "dogs run",
    "",
    "the cat sat on the mat",
)
PAIR_REFS = ("the cat sat on a mat", "Dogs run.", "a cat, on the mat!", "the cat sat on the mat")


def streams_of(refs: Sequence[Any]) -> List[List[Optional[str]]]:
    """sacreBLEU's layout (reference streams, None where a line has fewer) of bleukit's
    (references per hypothesis: a str, or a list that may hold None)."""
    per_hyp = [[r] if isinstance(r, str) else list(r) for r in refs]
    width = max(len(r) for r in per_hyp)
    return [[r[k] if k < len(r) else None for r in per_hyp] for k in range(width)]


@dataclass(frozen=True)
class MetricCase:
    """One row of a metric's case table: inputs, option keywords and the oracle that checks them.

    ``hyps``/``refs`` give literal lines (``refs`` in bleukit's layout: per hypothesis a str or a
    list, None for a missing one), or ``corpus`` a slice of the real data. ``ref_layout`` says how
    the references of a corpus reach bleukit: ``"streams"`` (per hypothesis, None kept),
    ``"present"`` (per hypothesis, the present ones only) or ``"from_streams"`` (what
    ``bleukit.references_from_streams`` makes of the streams).
    """

    metric: str
    options: Dict[str, Any] = field(default_factory=dict)
    hyps: Tuple[str, ...] = ()
    refs: Tuple[Any, ...] = ()
    corpus: Optional[Corpus] = None
    ref_layout: str = "streams"
    #: "live": sacreBLEU run now (the one the harness has; the stored oracles of
    #: tests/oracles/stored/ check the large grids in the metric folders)
    oracle: str = "live"
    name: str = ""
    #: "both": the compiled engine (where built) and the pure-Python one; "default": the engine a
    #: user gets (a table of slow pure-Python cases whose Python engine other tests cover)
    engines: str = "both"

    @property
    def id(self) -> str:
        options = ",".join(f"{k}={v}" for k, v in self.options.items()) or "defaults"
        return f"{self.metric}-{self.name or (self.corpus.hyp if self.corpus else 'lines')}-{options}"

    def inputs(self) -> Tuple[List[str], List[Any], List[List[Optional[str]]]]:
        """(hypotheses, references as bleukit gets them, sacreBLEU's reference streams)."""
        if self.corpus is None:
            return list(self.hyps), list(self.refs), streams_of(self.refs)
        hyps, streams = self.corpus.load()
        per_hyp = [list(r) for r in zip(*streams)]
        if self.ref_layout == "present":
            per_hyp = [[r for r in refs if r is not None] for refs in per_hyp]
        elif self.ref_layout == "from_streams":
            per_hyp = bleukit.references_from_streams(streams)
        return hyps, per_hyp, streams


def params(cases: Sequence[MetricCase]) -> List[Any]:
    """``pytest.param`` per case, with its id: ``@pytest.mark.parametrize("case", params(TABLE))``."""
    return [pytest.param(case, id=case.id) for case in cases]


def present(refs: Any) -> List[str]:
    return [refs] if isinstance(refs, str) else [r for r in refs if r is not None]


def version_free(signature: str) -> str:
    return signature.rsplit("|version:", 1)[0]


@dataclass(frozen=True)
class Profile:
    """What the harness needs to know of a metric beyond the protocol: sacreBLEU's class, and the
    totals of a corpus result (ours from the result, sacreBLEU's from its score or, where the
    score does not hold them, from its per-sentence statistics: ``oracle.rows``)."""

    sacrebleu: type
    ours_totals: Callable[[Any], Any]
    their_totals: Callable[[Any, Any], Any]
    sentence_defaults: Dict[str, Any] = field(default_factory=dict)


PROFILES: Dict[str, Profile] = {
    "bleu": Profile(
        BLEU,
        lambda r: (list(r.counts), list(r.totals), r.sys_len, r.ref_len),
        lambda score, oracle: (list(score.counts), list(score.totals), score.sys_len, score.ref_len),
        sentence_defaults={"effective_order": True},
    ),
    "chrf": Profile(
        CHRF,
        lambda r: (list(r.hyp_ngrams), list(r.ref_ngrams), list(r.matches)),
        lambda score, oracle: (lambda s: (s[0::3], s[1::3], s[2::3]))(np.sum(oracle.rows, axis=0).tolist()),
    ),
    "ter": Profile(
        TER,
        lambda r: (r.num_edits, r.ref_length),
        lambda score, oracle: (score.num_edits, score.ref_length),
    ),
}


class LiveOracle:
    """sacreBLEU 2.6 run now on a case's inputs; each answer computed once and kept (one oracle a
    case for the whole run: :func:`live_oracle`)."""

    def __init__(self, case: MetricCase):
        self.case = case
        self.profile = PROFILES[case.metric]

    def metric(self, sentence: bool = False, **extra: Any):
        options = {**(self.profile.sentence_defaults if sentence else {}), **self.case.options, **extra}
        return self.profile.sacrebleu(**options)

    @cached_property
    def corpus(self):
        """sacreBLEU's corpus score, and the metric object that made it (for its signature)."""
        hyps, _, streams = self.case.inputs()
        metric = self.metric()
        return metric.corpus_score(hyps, streams), metric

    @cached_property
    def rows(self):
        """sacreBLEU's per-sentence statistics (only where the totals need them: a second pass)."""
        hyps, _, streams = self.case.inputs()
        return self.metric()._extract_corpus_statistics(hyps, streams)

    def sentences(self, indices: Sequence[int]) -> List[Tuple[Any, str]]:
        """(score, signature) of each line of ``indices`` scored alone."""
        hyps, refs, _ = self.case.inputs()
        metric = self.metric(sentence=True)
        return [(metric.sentence_score(hyps[i], present(refs[i])), metric.get_signature().format()) for i in indices]

    def bootstrap(self, n: int) -> Tuple[Any, str]:
        """The corpus score with ``n`` bootstrap resamples, and its signature (with ``bs`` and ``seed``)."""
        hyps, _, streams = self.case.inputs()
        metric = self.metric()
        return metric.corpus_score(hyps, streams, n_bootstrap=n), metric.get_signature().format()

    def pair_matrix(self, hyps: Sequence[str], refs: Sequence[str], rows: Sequence[int]) -> Dict[int, List[float]]:
        metric = self.metric(sentence=True)
        return {i: [metric.sentence_score(hyps[i], [r]).score for r in refs] for i in rows}


_ORACLES: Dict[str, LiveOracle] = {}


def live_oracle(case: MetricCase) -> LiveOracle:
    """The oracle of ``case``, shared by every test of the run that checks the same case."""
    key = repr(case)
    if key not in _ORACLES:
        _ORACLES[key] = LiveOracle(case)
    return _ORACLES[key]


def _default_engine() -> Any:
    yield "default"


class MetricTester:
    """Runs one :class:`MetricCase` through bleukit and compares it with its oracle; ``engines`` is
    the ``each_engine`` fixture (each check runs once per engine the case asks for)."""

    def __init__(self, case: MetricCase, engines: Callable[[], Any]):
        if case.oracle != "live":
            raise ValueError(f"unknown oracle {case.oracle!r} (stored oracles: tests/oracles/stored_oracles.py)")
        self.case = case
        self.engines = engines if case.engines == "both" else _default_engine
        self.metric = get_metric(case.metric)
        self.options = self.metric.options_type.from_keywords(case.options)
        self.oracle = live_oracle(case)
        self.profile = PROFILES[case.metric]

    def function(self, kind: str) -> Callable[..., Any]:
        """The public function of this metric: ``corpus``, ``sentence`` or ``sentence_scores``."""
        name = f"{kind.split('_')[0]}_{self.case.metric}" + ("_scores" if kind == "sentence_scores" else "")
        return getattr(bleukit, name)

    def check_corpus(self) -> None:
        hyps, refs, _ = self.case.inputs()
        theirs, metric = self.oracle.corpus
        signature = version_free(metric.get_signature().format())
        for engine in self.engines():
            ours = self.function("corpus")(hyps, refs, **self.case.options)
            assert ours.score == theirs.score, engine
            assert ours.name == theirs.name, engine
            assert self.profile.ours_totals(ours) == self.profile.their_totals(theirs, self.oracle), engine
            assert version_free(ours.signature) == signature, engine
            assert ours.to_dict()["score"] == ours.score == float(ours)
            assert ours.format(signature=False) == theirs.format()

    def check_sentences(self, step: int = 1) -> None:
        hyps, refs, _ = self.case.inputs()
        indices = range(0, len(hyps), step)
        theirs = self.oracle.sentences(indices)
        for engine in self.engines():
            scores = self.function("sentence_scores")(hyps, refs, **self.case.options)
            assert scores.dtype == np.float64 and len(scores) == len(hyps), engine
            for i, (their, signature) in zip(indices, theirs):
                ours = self.function("sentence")(hyps[i], refs[i], **self.case.options)
                assert ours.score == their.score == scores[i], (engine, i)
                assert version_free(ours.signature) == version_free(signature), (engine, i)

    def check_accumulator(self, chunk: int) -> None:
        """The rows added in chunks of ``chunk`` lines (with a counter) are the one-pass corpus result."""
        hyps, refs, _ = self.case.inputs()
        theirs = self.oracle.corpus[0]
        for engine in self.engines():
            acc = bleukit.StatisticsAccumulator(self.options, extras=["lines"])
            for start in range(0, len(hyps), chunk):
                part = slice(start, start + chunk)
                acc.add_text(hyps[part], refs[part], lines=len(hyps[part]))
            result = acc.result()
            assert result == self.function("corpus")(hyps, refs, **self.case.options), engine
            assert result.score == theirs.score, engine
            assert acc.n_rows == len(hyps) and acc.counters == {"lines": len(hyps)}
            widths = {len(present(r)) for r in refs}
            assert result.signature.startswith("nrefs:var|" if len(widths) > 1 else f"nrefs:{widths.pop()}|")

    def check_bootstrap(self, n: int) -> None:
        """sacreBLEU's ``--confidence`` estimate (its float32 arithmetic), the same line and signature."""
        hyps, refs, _ = self.case.inputs()
        theirs, signature = self.oracle.bootstrap(n)
        estimate = None
        for engine in self.engines():
            ours = self.function("corpus")(hyps, refs, n_bootstrap=n, **self.case.options)
            assert (ours.score, ours.mean, ours.ci) == (theirs.score, float(theirs._mean), float(theirs._ci)), engine
            assert version_free(ours.signature) == version_free(signature), engine
            assert f"|bs:{n}|seed:12345|" in ours.signature
            assert ours.format(1).replace(ours.signature, "S") == theirs.format(1, signature="S")
            if estimate is None:  # the public bootstrap_ci gives the same estimate (on the first engine)
                estimate = bleukit.bootstrap_ci(hyps, refs, n_bootstrap=n, options=self.options)
                assert (ours.mean, ours.ci) == tuple(estimate)

    def check_paired(self, systems: Dict[str, List[str]], method: str, n_samples: int) -> None:
        """bleukit.paired_test of ``systems`` (the first is the baseline, the case's hypotheses) is
        sacreBLEU's PairedTest: scores, p-values and the bootstrap estimates. sacreBLEU's metric
        holds the case's reference streams (its PairedTest caches their statistics)."""
        _, refs, streams = self.case.inputs()
        metric = self.oracle.metric(references=streams)
        _, theirs = PairedTest(list(systems.items()), {"m": metric}, None, test_type=method, n_samples=n_samples)()
        expected = [(t.score, t.p_value, None if t.mean is None else float(t.mean),
                     None if t.ci is None else float(t.ci)) for k, v in theirs.items() if k != "System" for t in v]
        for engine in self.engines():
            ours = bleukit.paired_test(systems, refs, method=method, n_samples=n_samples, options=self.options)
            assert [(r.result.score, r.p_value, r.mean, r.ci) for r in ours] == expected, engine
            assert [r.score for r in ours] == [r.result.score for r in ours]

    def check_pairwise(self, hyps: Sequence[str], refs: Sequence[str], step: int = 1, threads: int = 1) -> np.ndarray:
        """Every hypothesis against every single reference: sacreBLEU's sentence score of the pair
        (rows ``0, step, 2 * step, ...``); returns the matrix of the last engine."""
        expected = self.oracle.pair_matrix(hyps, refs, range(0, len(hyps), step))
        named = getattr(bleukit, f"pairwise_{self.case.metric}", None)  # pairwise_bleu, pairwise_chrf
        for engine in self.engines():
            matrix = bleukit.pairwise_scores(hyps, refs, options=self.options.sentence_level(), threads=threads)
            assert matrix.dtype == np.float64 and matrix.shape == (len(hyps), len(refs)), engine
            for i, row in expected.items():
                assert matrix[i].tolist() == row, (engine, i)
            if named is not None:
                assert named(hyps, refs, threads=threads, **self.case.options).tolist() == matrix.tolist(), engine
        return matrix

    def check_cli(self, tmp_path, argument_sets: Sequence[Sequence[str]]) -> None:
        """``python -m bleukit`` prints what ``python -m sacrebleu`` prints for each argument list,
        on the case's hypotheses and first-present references written to files."""
        hyps, refs, _ = self.case.inputs()
        (tmp_path / "hyp").write_text("\n".join(hyps) + "\n", encoding="utf-8")
        (tmp_path / "ref").write_text("\n".join(present(r)[-1] for r in refs) + "\n", encoding="utf-8")
        for args in argument_sets:
            def run(tool: str, args: Sequence[str] = args) -> str:
                proc = subprocess.run([sys.executable, "-m", tool, str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                                       *args], capture_output=True, text=True, check=True)
                return proc.stdout.replace("bleukit-" + bleukit.__version__, "V").replace("2.6.0", "V")

            assert run("bleukit") == run("sacrebleu"), args
