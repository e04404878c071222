"""The drop-ins for ``evaluate.load("chrf")`` and ``evaluate.load("ter")``, one table per metric:
each module is loaded with ``evaluate.load(bleukit.metric_path(name))`` offline in a fresh
interpreter, takes the Hub metric's arguments (TER's own names for sacreBLEU's ``no_punct`` and
``asian_support``) and returns its result keys, with the numbers the Hub metric gets from
sacreBLEU (computed live here): for every option set of its table, references as strings, in
batches, of different numbers per sentence, and each bad input named.

A metric with an evaluate module adds a :class:`ModuleCase` to ``MODULES``. (BLEU's module and the
Hub ``bleu`` it replaces are test_evaluate_module.py's: its card, widget and packaging differ.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import pytest
from sacrebleu.metrics import CHRF, TER

from bleukit import metric_path

pytest.importorskip("evaluate")

SCRIPT = r"""
import json, sys
import evaluate
import bleukit
metric = evaluate.load(bleukit.metric_path(sys.argv[1]))
out = {"class": [c.__module__ + "." + c.__name__ for c in type(metric).__mro__], "citation": metric.citation,
       "description": metric.description, "inputs": metric.inputs_description,
       "features": [str(f) for f in metric.info.features], "results": [], "types": []}
for case in json.loads(sys.stdin.read()):
    try:
        if case.get("batches"):
            for p, r in case["batches"]:
                metric.add_batch(predictions=p, references=r)
            result = metric.compute(**case.get("kwargs", {}))
        else:
            result = metric.compute(predictions=case["p"], references=case["r"], **case.get("kwargs", {}))
        out["types"].append([type(v).__name__ for v in result.values()])
    except Exception as err:
        result = {"error": type(err).__name__, "message": str(err)}
        out["types"].append(None)
    out["results"].append(result)
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Refusal:
    """A bad call (``kwargs`` on the table's corpus, or ``p``/``r`` of its own) and its error:
    the whole message when ``exact``, else a part of it."""

    error: str
    message: str
    kwargs: Dict[str, Any] = field(default_factory=dict)
    exact: bool = True


@dataclass(frozen=True)
class ModuleCase:
    """One evaluate module: its corpus and option sets, the sacreBLEU metric the Hub module runs
    (``sacrebleu(**options)``, the module's option names) and the result keys it takes from the
    score (``keys(score)``), its card, and its refusals."""

    hyps: List[str]
    refs: List[List[str]]
    options: List[Dict[str, Any]]
    sacrebleu: Callable[..., Any]
    keys: Callable[[Any], Dict[str, Any]]
    card: Tuple[Tuple[str, ...], str, Tuple[str, ...]]  # words of the citation, of the description; inputs
    batch_options: Dict[str, Any]
    refusals: List[Refusal]
    types: Any = None  # the Python types of the result's values, where the module promises them

    def hub(self, predictions: List[str], references: List[Any], **options: Any) -> Dict[str, Any]:
        """What the Hub module returns: sacreBLEU's score on the transposed references (a string
        for a sentence's one reference, ``None`` where a sentence has fewer)."""
        refs = [[r] if isinstance(r, str) else r for r in references]
        width = max(len(r) for r in refs)
        streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
        return self.keys(self.sacrebleu(**options).corpus_score(predictions, streams))

    def calls(self) -> List[Dict[str, Any]]:
        """Every call the fresh interpreter makes, in the order the tests read their results."""
        return (
            [{"p": self.hyps, "r": self.refs, "kwargs": kw} for kw in self.options]
            + [
                {"p": self.hyps, "r": [r[0] for r in self.refs]},  # one reference each, as strings
                {"batches": [[self.hyps[:2], self.refs[:2]], [self.hyps[2:], self.refs[2:]]],
                 "kwargs": self.batch_options},
                {"p": self.hyps[:2], "r": [self.refs[0], self.refs[1][:1]]},  # different numbers of references
                {"p": [], "r": []},
                {"p": self.hyps, "r": self.refs[:2]},
            ]
            + [{"p": self.hyps, "r": self.refs, "kwargs": bad.kwargs} for bad in self.refusals]
            + [{"p": self.hyps[:1], "r": self.refs[:1]}]  # after the failures: only this input is scored
        )


def _ter(normalized=False, ignore_punct=False, support_zh_ja_chars=False, case_sensitive=False):
    """sacreBLEU's TER under the Hub module's option names."""
    return TER(normalized=normalized, no_punct=ignore_punct, asian_support=support_zh_ja_chars,
               case_sensitive=case_sensitive)


EMPTY = Refusal("ValueError", "empty corpus: hypotheses is empty, at least one sentence is needed")

MODULES = {
    # The Hub metric's own examples, and what trips scorers.
    "chrf": ModuleCase(
        hyps=[
            "The relationship between cats and dogs is not exactly friendly.",
            "a good bookshop is just a genteel black hole that knows how to read.",
            "Das ist 1,000.5 Euro teuer!",
            "",
            "東京は日本の首都です。",
        ],
        refs=[
            ["The relationship between dogs and cats is not exactly friendly.", "Cats and dogs: not friends."],
            ["A good bookshop is just a genteel Black Hole that knows how to read.", "A bookshop reads."],
            ["Das ist 1.000,5 Euro teuer.", "Es kostet 1000,5 Euro!"],
            ["", "nothing"],
            ["日本の首都は東京です。", "東京"],
        ],
        options=[
            {},
            {"word_order": 2},
            {"word_order": 2, "lowercase": True},
            {"char_order": 4, "beta": 1, "whitespace": True},
            {"eps_smoothing": True, "beta": 3, "word_order": 1},
        ],
        sacrebleu=CHRF,
        keys=lambda out: {"score": out.score, "char_order": out.char_order, "word_order": out.word_order,
                          "beta": out.beta},
        card=(("Popovi", "Post, Matt"), "chrF++",
              ("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing")),
        batch_options={"word_order": 2},
        refusals=[
            Refusal("ValueError", "char_order must be between 1 and 1000, got 0", {"char_order": 0}),
            Refusal("TypeError", "unknown CHRF option(s): order", {"order": 3}, exact=False),
        ],
    ),
    # The Hub metric card's example, and what TER's options act on.
    "ter": ModuleCase(
        hyps=[
            "does this sentence match??",
            "what about this sentence?",
            "What did the TER metric user say to the developer?",
            "The cat sat on the mat.",
            "",
            "我们 今天 去 北京。 東京は日本の首都です、ね！",
            "a &amp; b &lt;c&gt; e-mail's (quoted) \"text\"",
        ],
        refs=[
            ["does this sentence match", "does this sentence match!?!"],
            ["wHaT aBoUt ThIs SeNtEnCe?", "wHaT aBoUt ThIs SeNtEnCe?"],
            ["Your jokes are...", "...TERrible"],
            ["on the mat the cat sat.", "The cat is on the mat"],
            ["", "nothing"],
            ["我们 今天 去 北京 日本の首都は東京です。", "北京"],
            ["a & b <c> email's quoted text", "a &amp; b (c) e-mail 's text"],
        ],
        options=[
            {},
            {"case_sensitive": True},
            {"normalized": True},
            {"ignore_punct": True},
            {"ignore_punct": True, "support_zh_ja_chars": True},
            {"normalized": True, "support_zh_ja_chars": True, "case_sensitive": True},
            {"normalized": True, "ignore_punct": True, "support_zh_ja_chars": True, "case_sensitive": True},
        ],
        sacrebleu=_ter,
        keys=lambda out: {"score": out.score, "num_edits": out.num_edits, "ref_length": out.ref_length},
        card=(("Snover", "Post, Matt"), "TER", ("normalized", "ignore_punct", "support_zh_ja_chars", "case_sensitive")),
        batch_options={"ignore_punct": True},
        refusals=[
            Refusal("TypeError", "TER option normalized must be a bool (True or False), got int", {"normalized": 1}),
            Refusal("TypeError",  # sacreBLEU's name, not the Hub's
                    "unknown TER option(s): no_punct; known: normalized, ignore_punct, support_zh_ja_chars, "
                    "case_sensitive", {"no_punct": True}),
        ],
        types=["float", "int", "float"],
    ),
}

# One xdist worker per module: its one evaluate run (``run``) serves all its tests.
NAMES = [pytest.param(name, marks=pytest.mark.xdist_group(f"{name}-module")) for name in MODULES]
OPTION_CASES = [pytest.param(name, k, id=f"{name}-{k}", marks=pytest.mark.xdist_group(f"{name}-module"))
                for name, case in MODULES.items() for k in range(len(case.options))]

_RUNS: Dict[str, Dict[str, Any]] = {}


@pytest.fixture
def run(tmp_path_factory):
    """``run(name)``: the fresh interpreter's output for that module's calls, made once per process."""
    def get(name: str) -> Dict[str, Any]:
        if name not in _RUNS:
            env = dict(os.environ, HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                       HF_HOME=str(tmp_path_factory.mktemp("hf")), PYTHONPATH=os.pathsep.join(sys.path))
            proc = subprocess.run([sys.executable, "-c", SCRIPT, name], input=json.dumps(MODULES[name].calls()),
                                  capture_output=True, text=True, env=env,
                                  cwd=str(tmp_path_factory.mktemp("cwd")), timeout=300)
            assert proc.returncode == 0, proc.stderr[-3000:]
            _RUNS[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        return _RUNS[name]

    return get


@pytest.mark.parametrize("name", NAMES)
def test_is_an_evaluate_metric_with_the_hub_card(run, name):
    out, (citation, description, inputs) = run(name), MODULES[name].card
    assert "evaluate.module.Metric" in out["class"] and "bleukit.evaluate_module.base.TextMetric" in out["class"]
    assert all(word in out["citation"] for word in citation)
    assert description in out["description"]
    for option in inputs:
        assert option in out["inputs"]
    assert len(out["features"]) == 2


@pytest.mark.parametrize("name, k", OPTION_CASES)
def test_same_keys_and_numbers_as_the_hub_metric(run, name, k):
    case, out = MODULES[name], run(name)
    assert out["results"][k] == case.hub(case.hyps, case.refs, **case.options[k])
    if case.types is not None:
        assert out["types"][k] == case.types


@pytest.mark.parametrize("name", NAMES)
def test_the_options_change_the_numbers(run, name):
    """Each option set scores differently, so a dropped option could not pass unnoticed."""
    results = run(name)["results"][: len(MODULES[name].options)]
    assert len({json.dumps(r) for r in results}) == len(results)


@pytest.mark.parametrize("name", NAMES)
def test_string_references_and_batches(run, name):
    case = MODULES[name]
    strings, batched = run(name)["results"][len(case.options) : len(case.options) + 2]
    assert strings == case.hub(case.hyps, [r[0] for r in case.refs])
    assert batched == case.hub(case.hyps, case.refs, **case.batch_options)


@pytest.mark.parametrize("name", NAMES)
def test_different_numbers_of_references_are_scored_as_sacrebleu_does(run, name):
    """The Hub metric refuses them; here a missing reference is sacreBLEU's None."""
    case = MODULES[name]
    got = run(name)["results"][len(case.options) + 2]
    assert got == case.hub(case.hyps[:2], [case.refs[0], case.refs[1][:1]])


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_and_options_are_named(run, name):
    case = MODULES[name]
    empty, mismatch, *refused, after = run(name)["results"][len(case.options) + 3 :]
    assert empty == {"error": EMPTY.error, "message": EMPTY.message}
    assert mismatch["error"] == "ValueError"
    assert f"{len(case.hyps)} hypotheses but 2 reference entries" in mismatch["message"]
    assert len(refused) == len(case.refusals)
    for got, want in zip(refused, case.refusals):
        if want.exact:
            assert got == {"error": want.error, "message": want.message}
        else:
            assert got["error"] == want.error and want.message in got["message"]
    assert after == case.hub(case.hyps[:1], case.refs[:1])


@pytest.mark.parametrize("name", NAMES)
def test_module_file_ships_with_the_package(name):
    path = metric_path(name)
    assert os.path.isfile(path) and path.endswith(f"{name}.py")
