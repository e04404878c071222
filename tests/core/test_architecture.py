"""The layering CONTRIBUTING.md promises, checked on the source: no import cycle between bleukit's
modules (function-level imports and modules loaded by string included: tools/import_graph.py) and
no back-arrow between its rooms, the facade imports only downward, one place reads BLEUKIT_ENGINE,
every metric package implements the protocol, and the public surface is small. The C kernels
(csrc/) keep the same rules: no circle of includes and calls, no kernel reaching into another's
files (only into csrc/common/), no file over 1,000 lines."""

from __future__ import annotations

import functools
import importlib
import re
import typing
from pathlib import Path
from typing import Dict, Set

import import_graph  # tools/import_graph.py: the graph, string-loaded modules included
import pytest

import bleukit
from bleukit.metrics import available_metrics, get_metric
from bleukit.metrics.base import Metric, MetricOptions, MetricResult, Statistics

SRC = Path(bleukit.__file__).resolve().parent
assert SRC == import_graph.SRC, "the tests must run on this checkout's src/"
_module_name = import_graph.module_name
_graph = functools.lru_cache(maxsize=1)(import_graph.graph)  # ~3 s to read; the tests only read it
_cycles = import_graph.cycles


def test_no_import_cycle_between_modules():
    assert _cycles(_graph()) == []


def test_no_back_arrow_between_rooms():
    """A room (a top-level module or package of bleukit) that imports another is never imported
    back by it, through any path: engine.py once imported metrics.base for a type bound while the
    metrics imported engine's thread contract."""
    assert _cycles(import_graph.room_graph(_graph())) == []


def test_every_room_is_in_one_layer():
    rooms = sorted({import_graph.room(m) for m in import_graph.modules()})
    listed = [r for _, _, members in import_graph.LAYERS for r in members]
    assert sorted(listed) == sorted(set(listed)) == rooms


def test_imports_go_down_the_layers():
    """inputs -> metrics (statistics, formula, result) -> flow -> analyses -> functions -> adapters
    -> facade (tools/import_graph.py's LAYERS): a module imports from its layer or one below."""
    assert import_graph.upward_imports(_graph()) == []


def test_no_python_module_over_600_lines():
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in import_graph.modules().items()}
    assert {name: n for name, n in sizes.items() if n > import_graph.MAX_LINES} == {}


def test_every_library_module_declares_its_public_names():
    """Below the adapters every module has ``__all__`` (an empty one where it has no names for
    others), and a module imports from another room only the names in that module's ``__all__``:
    ``__all__`` is what a room offers the rest of the package and its users, the rest is internal."""
    adapters = next(k for k, (layer, _, _) in enumerate(import_graph.LAYERS) if layer == "adapters")
    missing = sorted(name for name, path in import_graph.modules().items()
                     if import_graph.layer_of(import_graph.room(name)) < adapters and path.name != "__main__.py"
                     and import_graph.exported(path) is None)
    assert missing == []
    assert import_graph.imports_past_all() == []


def test_the_layer_diagram_in_the_docs_is_current():
    """docs/architecture.md's diagram is what tools/architecture_doc.py draws from the code now."""
    import architecture_doc

    text = architecture_doc.DOC.read_text(encoding="utf-8")
    assert architecture_doc.updated(text) == text, "the diagram is stale: run make architecture-doc"


def _string_loads(code: str, name: str = "bleukit.pkg.mod") -> Set[str]:
    known = {"bleukit.pkg", "bleukit.pkg.mod", "bleukit.pkg.a", "bleukit.pkg.b", "bleukit.pkg.sub.cli",
             "bleukit.pkg.other.cli"}
    return import_graph.string_loads(name, _write(code), known, import_graph.LOADERS | {"_Lazy"})


def _write(code: str) -> Path:
    import tempfile
    import textwrap

    path = Path(tempfile.mkdtemp()) / "mod.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


def test_modules_loaded_by_string_are_imports():
    # import_module with a literal, relative to the package, an f-string over one name or __name__
    assert _string_loads("import importlib\nimportlib.import_module('bleukit.pkg.a')") == {"bleukit.pkg.a"}
    assert _string_loads("from importlib import import_module\nimport_module('.b', __package__)") == {"bleukit.pkg.b"}
    assert _string_loads("import importlib\nx = importlib.import_module(f'bleukit.pkg.{n}.cli')") == {
        "bleukit.pkg.sub.cli", "bleukit.pkg.other.cli"}
    assert _string_loads("import importlib\nimportlib.import_module(f'{__name__}.{n}')", name="bleukit.pkg") == {
        "bleukit.pkg.mod", "bleukit.pkg.a", "bleukit.pkg.b"}
    # a registry of "module:attribute" strings narrows the f-string to the modules it names
    assert _string_loads("import importlib\nR = {'x': 'a:X'}\nimportlib.import_module(f'{__name__}.{m}')",
                         name="bleukit.pkg") == {"bleukit.pkg.a"}
    # a lazy-export table, and a loader helper given a module's name (formula.py's former _Lazy)
    assert _string_loads("from bleukit._lazy import lazy_attributes\nT = {'A': 'a', 'B': 'b'}\n"
                         "__getattr__, __dir__ = lazy_attributes(__name__, T)", name="bleukit.pkg") == {
        "bleukit.pkg.a", "bleukit.pkg.b"}
    assert _string_loads("libm = _Lazy('bleukit.pkg.a')") == {"bleukit.pkg.a"}
    # a name that is not loaded (a logger's name) is not an import
    assert _string_loads("import logging\nlogging.getLogger('bleukit.pkg.a')") == set()


def test_loader_helpers_are_found():
    # what hands a name it was given to import_module is a loader (formula.py's _Lazy was one)
    assert {"_Lazy", "load_kernel"} <= import_graph.loaders(import_graph.modules().values())
    code = "import importlib\nclass _Lazy:\n    def __getattr__(self, a):\n" \
           "        return getattr(importlib.import_module(self._name), a)\n"
    assert "_Lazy" in import_graph.loaders([_write(code)])


def test_the_facade_only_imports_downward():
    graph = _graph()
    # nothing inside the package imports the facade module itself (bleukit/__init__.py)
    importers = sorted(name for name, targets in graph.items() if "bleukit" in targets and name != "bleukit")
    assert importers == []


def test_bleukit_engine_is_read_in_one_place():
    reads = re.compile(r"environ(\.get\(|\[)\s*[\"']BLEUKIT_ENGINE")
    readers = sorted(_module_name(p) for p in SRC.rglob("*.py") if reads.search(p.read_text(encoding="utf-8")))
    assert readers == ["bleukit._native"]


def test_import_bleukit_loads_almost_nothing():
    import subprocess
    import sys

    code = "import sys, bleukit; print(sorted(m for m in sys.modules if m.startswith('bleukit') or m == 'numpy'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["bleukit", "bleukit._lazy", "bleukit._version"]


def test_a_metric_package_imports_its_modules_on_first_use():
    """The command line imports every metric's ``cli`` (its argument group): that must not import
    the metric's formula, table and result (the dataclasses cost every run milliseconds)."""
    import subprocess
    import sys

    code = (
        "import sys, bleukit.metrics.chrf.cli, bleukit.metrics.ter.cli\n"
        "before = sorted(m for m in sys.modules if m.startswith(('bleukit.metrics.chrf', 'bleukit.metrics.ter')))\n"
        "from bleukit.metrics.chrf import METRIC, ChrfOptions\n"
        "print(before, METRIC.name, 'bleukit.metrics.chrf.metric' in sys.modules,\n"
        "      'ChrfOptions' in dir(sys.modules['bleukit.metrics.chrf']))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['bleukit.metrics.chrf',", "'bleukit.metrics.chrf.cli',", "'bleukit.metrics.chrf.defaults',",
                   "'bleukit.metrics.ter',", "'bleukit.metrics.ter.cli']", "chrf", "True", "True"]
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = importlib.import_module("bleukit.metrics.ter").nothing


def test_public_surface_is_small_and_every_name_resolves():
    assert len(bleukit.__all__) <= 25
    for name in bleukit.__all__ + list(bleukit._LAZY):
        assert getattr(bleukit, name) is not None


def test_no_public_name_is_also_a_submodule():
    # importing bleukit.<name> sets that attribute to the module, hiding the lazy function for good
    clashes = [name for name in bleukit._LAZY if (SRC / f"{name}.py").exists() or (SRC / name).is_dir()]
    assert clashes == []


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = bleukit.no_such_name


@pytest.mark.parametrize("name", available_metrics())
def test_every_metric_package_implements_the_protocol(name):
    metric = get_metric(name)
    assert isinstance(metric, Metric) and metric.name == name
    assert issubclass(metric.options_type, MetricOptions) and metric.options_type.metric == name
    assert issubclass(metric.statistics_type, Statistics)
    options = metric.options_type()
    empty = metric.empty(options)
    assert len(empty) == 0 and empty.rows.shape[1] == len(metric.columns(options))
    stats = metric.statistics(["a b c d"], [["a b c e"]], options)
    assert isinstance(stats, metric.statistics_type) and len(stats) == 1
    result = metric.result(stats, options)
    assert isinstance(result, MetricResult)
    assert float(metric.scores(stats.rows, options)[0]) == result.score
    cli = importlib.import_module(f"bleukit.metrics.{name}.cli")
    assert callable(cli.add_arguments) and callable(cli.options_from_args)


# ---- a narrow protocol (issue 42, item 4) -----------------------------------------------------

#: Most methods the ``Metric`` protocol may define (required and with a default, together).
MAX_PROTOCOL_METHODS = 12
#: What every metric must write: the table's columns and layout, the extractor, the formula, the result.
REQUIRED_METHODS = {"columns", "layout", "statistics", "scores", "result"}


def _protocol_methods():
    import inspect

    return {name for name, value in vars(Metric).items()
            if inspect.isfunction(value) and not (name.startswith("__") and name.endswith("__"))}


def test_the_protocol_is_narrow():
    """``Metric`` holds what every metric defines (at most 12 methods, 5 of them required); the
    speed hooks are fields of the optional ``FastPaths``, each with its table route in
    ``bleukit.metrics.fast``, never methods of the protocol."""
    import dataclasses

    from bleukit.metrics import fast

    methods = _protocol_methods()
    assert len(methods) <= MAX_PROTOCOL_METHODS, sorted(methods)
    assert set(Metric.__abstractmethods__) == REQUIRED_METHODS
    paths = {f.name for f in dataclasses.fields(fast.FastPaths)}
    assert methods & paths == set()
    # one function per path, which takes the metric's path or the table's
    assert set(fast.__all__) - {"FastPaths"} == paths
    assert all(callable(getattr(fast, name)) for name in paths)


@pytest.mark.parametrize("name", available_metrics())
def test_a_metric_adds_no_public_method_beyond_the_protocol(name):
    """A metric's class implements the protocol's methods (and private helpers); its fast paths
    are a ``FastPaths`` in ``fast``, not methods a caller could reach past the shared functions."""
    import inspect

    from bleukit.metrics.fast import FastPaths

    metric = get_metric(name)
    own = {n for n, v in vars(type(metric)).items() if inspect.isfunction(v) and not n.startswith("_")}
    assert own - _protocol_methods() == set()
    assert REQUIRED_METHODS <= own
    assert metric.fast is None or isinstance(metric.fast, FastPaths)


#: Modules outside ``bleukit/metrics/`` that import a concrete metric's package, and why. The
#: shared machinery (the flow layer, significance, groups, ranking, reports, the data adapters)
#: reaches every metric through the protocol and is not here; a new entry needs a reason.
NAMES_A_METRIC = {
    "bleukit": "the facade: every metric's options and functions",
    "bleukit.bleu": "BLEU's sacreBLEU-shaped functions", "bleukit.chrf": "chrF's functions",
    "bleukit.ter": "TER's functions", "bleukit.textbook": "textbook BLEU",
    "bleukit.sacrebleu.metrics.bleu": "sacreBLEU's BLEU class", "bleukit.sacrebleu.metrics.chrf": "sacreBLEU's CHRF",
    "bleukit.sacrebleu.metrics.ter": "sacreBLEU's TER", "bleukit.sacrebleu.tokenizers.tokenizer_ter": "TER's tokenizer",
    "bleukit.compat._common": "other BLEUs", "bleukit.compat.nltk": "NLTK's BLEU",
    "bleukit.compat.presets": "BLEU presets",
    "bleukit.ids.api": "token ids are counted by BLEU's kernel", "bleukit.ids.backends": "BLEU on token ids",
    "bleukit.pairwise": "BLEU's compiled pair loop", "bleukit.pairwise.api": "BLEU's id pairs, chrF's keywords",
    "bleukit.pairwise.mbr": "MBR's BLEU keywords and exact scaling",
    "bleukit.analysis.explain": "BLEU's explanation", "bleukit.analysis.chrf_explanation": "chrF's explanation",
    "bleukit.analysis.ter_explanation": "TER's explanation",
    "bleukit.analysis.diversity": "Self-BLEU's exact pairwise sum, Self-TER's counts",
    "bleukit.analysis.documents": "BLEU's keywords as the default", "bleukit.analysis.htmlreport.data": "the report's "
    "BLEU and chrF columns",
    "bleukit.cli.args": "each metric's arguments", "bleukit.cli.commands": "each metric's command",
    "bleukit.cli.scores": "each metric's scores command",
    "bleukit.app.api": "the app's BLEU form", "bleukit.app.forms": "the app's BLEU form",
    "bleukit.app.page": "the app's metric choice", "bleukit.app.reports": "the app's BLEU tokens",
    "bleukit.app.state": "the app's BLEU defaults", "bleukit.app.views": "the app's BLEU views",
    "bleukit.integrations._samples": "chrF's options by name", "bleukit.integrations.rewards": "each metric's reward",
    "bleukit.integrations.transformers": "the Trainer's BLEU callback",
}
#: The shared machinery: modules that serve every metric alike and name none.
SHARED_MACHINERY = ("bleukit.pipeline", "bleukit.accumulator", "bleukit.engine", "bleukit.resampling",
                    "bleukit.inputs", "bleukit.analysis.significance", "bleukit.analysis.groups",
                    "bleukit.analysis.ranking", "bleukit.analysis.report", "bleukit.integrations.datasets",
                    "bleukit.integrations.ray", "bleukit.integrations.pandas", "bleukit.integrations._columns")


def test_nothing_outside_the_metric_folders_names_a_metric_unless_listed():
    names = set(available_metrics())
    naming = {module for module, targets in _graph().items() if not module.startswith("bleukit.metrics")
              and any(t.startswith("bleukit.metrics.") and t.split(".")[2] in names for t in targets)}
    assert naming == set(NAMES_A_METRIC)
    assert sorted(m for m in naming if m.startswith(SHARED_MACHINERY)) == []


def test_no_fast_path_is_called_as_a_metric_method():
    """Outside the metric folders a fast path is reached through ``bleukit.metrics.fast`` (which
    takes the metric's path or the table's), never as ``metric.summed_row(...)``,
    ``METRIC.sentence_row(...)`` or ``metric_for(options).pairwise_scores(...)``."""
    import ast
    import dataclasses

    from bleukit.metrics.fast import FastPaths

    paths = {f.name for f in dataclasses.fields(FastPaths)}

    def a_metric(node):
        if isinstance(node, ast.Name):
            return node.id in ("metric", "METRIC")
        if isinstance(node, ast.Attribute):
            return node.attr == "metric"
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("metric_for", "get_metric")

    found = sorted(
        f"{name}:{node.lineno} {ast.unparse(node.func)}"
        for name, path in import_graph.modules().items() if not name.startswith("bleukit.metrics")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in paths
        and a_metric(node.func.value)
    )
    assert found == []


def test_option_keywords_typed_dict_matches_the_options():
    from bleukit.metrics.bleu.options import OPTION_NAMES, BleuOptionKeywords

    assert set(typing.get_type_hints(BleuOptionKeywords)) == set(OPTION_NAMES)


# --------------------------------------------------------------------------------------------
# The C kernels (csrc/): the same rules for their files. A file depends on each header it
# includes ("..." includes, resolved beside it, then from csrc/ as setup.py's include path) and
# on each .c file that defines an external function it names (a call, or a method table's
# entry); a header's prototypes name nothing, its inline code does. No circle may run through
# these arrows, and a metric's kernel (csrc/metrics/<name>/) depends on nothing but itself and
# csrc/common/.

CSRC = SRC.parent.parent / "csrc"
needs_csrc = pytest.mark.skipif(not CSRC.is_dir(), reason="the C sources are not beside this package")

_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_C_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_C_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
# a function's head at the start of a line: its return type, its name, its parameter list
_C_FUNCTION = re.compile(r"^(?!static\b|typedef\b|return\b|else\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)[ \t]*\(", re.M)


def _c_files() -> Dict[str, str]:
    """Every .c and .h file under csrc/ (by its path from the repository) with its comments removed."""
    return {
        p.relative_to(CSRC.parent).as_posix(): _C_COMMENT.sub(" ", p.read_text(encoding="utf-8"))
        for p in sorted(CSRC.rglob("*")) if p.suffix in (".c", ".h")
    }


def _c_includes(path: str, text: str, files: Dict[str, str]) -> Set[str]:
    found = set()
    for name in _C_INCLUDE.findall(text):
        beside = (Path(path).parent / name).as_posix()
        target = beside if beside in files else f"csrc/{name}"
        assert target in files, f"{path} includes {name}, which is not under csrc/"
        found.add(target)
    return found


def _c_home(path: str) -> str:
    """The folder a C file belongs to: csrc/common, csrc/metrics/<name>, another folder of csrc/, or
    csrc itself."""
    parts = path.split("/")[:-1]
    return "/".join(parts[:3] if parts[1:2] == ["metrics"] else parts[:2])


def _c_external_functions(files: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    """Per folder (one compiled module, csrc/common/ in each): function name -> the .c file that
    defines it, for every function not declared static."""
    defined: Dict[str, Dict[str, str]] = {}
    for path, text in files.items():
        if not path.endswith(".c"):
            continue
        code = _C_STRING.sub('""', text)
        for match in _C_FUNCTION.finditer(code):
            rest = code[match.end():]
            brace, semicolon = rest.find("{"), rest.find(";")
            if brace >= 0 and (semicolon < 0 or brace < semicolon):  # a definition, not a prototype
                names = defined.setdefault(_c_home(path), {})
                # one file may define a function twice (#if alternatives), two files may not
                assert names.setdefault(match.group(1), path) == path, f"{match.group(1)} is defined twice"
    return defined


def _c_graph() -> Dict[str, Set[str]]:
    files = _c_files()
    defined = _c_external_functions(files)
    graph = {}
    for path, text in files.items():
        # what this file's module links with: its own folder's functions and csrc/common/'s
        visible = {**defined.get("csrc/common", {}), **defined.get(_c_home(path), {})}
        code = _C_STRING.sub('""', text)
        if path.endswith(".h"):  # prototypes are the interface, not a use
            code = re.sub(r"^[A-Za-z_][\w \t*]*?\b\w+[ \t]*\([^;{}]*\)[ \t]*;", " ", code, flags=re.M)
        uses = {visible[name] for name in re.findall(r"\b[A-Za-z_]\w*\b", code) if name in visible}
        graph[path] = (_c_includes(path, text, files) | uses) - {path}
    return graph


@needs_csrc
def test_the_c_graph_sees_the_arrows_it_checks():
    graph = _c_graph()
    assert "csrc/metrics/bleu/text.c" in graph["csrc/metrics/bleu/module.c"]  # a method table's entry
    assert "csrc/metrics/ter/work.c" in graph["csrc/metrics/ter/edits.c"]  # a call
    assert "csrc/common/buffers.c" in graph["csrc/metrics/bleu/bleu.h"]  # a header's inline code
    assert "csrc/common/hash.h" in graph["csrc/metrics/chrf/chrf.h"]  # an include


@needs_csrc
def test_no_include_or_call_circle_in_the_kernels():
    assert _cycles(_c_graph()) == []


@needs_csrc
def test_no_kernel_includes_another_kernels_private_header():
    wrong = sorted(
        f"{path} -> {target}"
        for path, targets in _c_graph().items()
        for target in targets
        if _c_home(target) not in (_c_home(path), "csrc/common")
    )
    assert wrong == []


@needs_csrc
def test_no_c_file_is_over_a_thousand_lines():
    lines = {p.relative_to(CSRC.parent).as_posix(): len(p.read_text().splitlines()) for p in CSRC.rglob("*.[ch]")}
    assert sorted(f"{p}: {n}" for p, n in lines.items() if n > 1000) == []
# ---- one spelling per concept (docs/architecture.md, "Naming rules") -------------------------

#: Rooms whose names are another program's (sacreBLEU's API and command line, NLTK, torchmetrics,
#: evaluate's modules, the app's form and HTTP fields): their signatures follow upstream.
UPSTREAM_ROOMS = ("sacrebleu", "compat", "cli", "app", "evaluate_module")
#: Public callables whose signature a framework dictates (or whose keywords are not options), with why.
UPSTREAM_SIGNATURES = {
    "bleukit.accumulator.StatisticsAccumulator.add": "**counts: the named int counters given as extras=",
    "bleukit.accumulator.StatisticsAccumulator.add_text": "**counts: the named int counters given as extras=",
    "bleukit.metrics.base.MetricResult.to_json": "**kwargs go to json.dumps",
    "bleukit.integrations.hub.eval_result_entry": "**fields: free-form fields of a Hub .eval_results entry",
    "bleukit.integrations.lighteval.NltkBleu.compute": "lighteval calls compute(**kwargs)",
    "bleukit.integrations.lighteval.corpus_metric": "lighteval's metric name and its corpus-level config",
    "bleukit.integrations.lighteval.CorpusMetric.__init__": "lighteval's CorpusLevelComputation of one options object",
    "bleukit.integrations.lm_eval.corpus_score": "metric: an lm-eval metric name (bleukit_bleu, ...)",
    "bleukit.integrations.lm_eval.bootstrap_stderr": "metric: an lm-eval metric name",
    "bleukit.integrations.lm_eval.read_samples": "metric: an lm-eval metric name",
    "bleukit.integrations.lm_eval.paired_test_samples": "metric: an lm-eval metric name",
    "bleukit.integrations.lm_eval.stderr_for_metric": "lm-eval's hook: stderr_for_metric(metric, bootstrap_iters)",
    "bleukit.integrations.openrlhf.RewardFunction.__init__": "metric and **config: OpenRLHF's reward config",
    "bleukit.integrations.rewards.bleu_reward": "TRL passes the dataset's columns as **kwargs",
    "bleukit.integrations.verl.compute_score": "verl passes its reward config as **kwargs",
    "bleukit.integrations.torchmetrics.MetricScore.__init__": "**kwargs go to torchmetrics.Metric",
    "bleukit.integrations.torchmetrics.BLEUScore.__init__": "**kwargs go to torchmetrics.Metric",
    "bleukit.integrations.torchmetrics.CHRFScore.__init__": "**kwargs go to torchmetrics.Metric",
    "bleukit.integrations.torchmetrics.TERScore.__init__": "**kwargs go to torchmetrics.Metric",
    "bleukit.integrations.transformers.BleuComputeMetrics.__init__": "num_samples: logged sentences, not resamples",
    "bleukit.integrations.transformers.BleuCallback.__init__": "metric: the BleuComputeMetrics it runs",
    "bleukit.integrations.transformers.BleuCallback.on_prediction_step": "transformers' TrainerCallback hook",
    "bleukit.integrations.transformers.BleuCallback.on_evaluate": "transformers' TrainerCallback hook",
}
#: A resample count's names: anything else that looks like one is a second spelling.
RESAMPLE_COUNT = re.compile(
    r"^(n|num)_(boot\w*|bs|resamples?|samples|trials|draws|iters?)$|^bootstrap_\w+$|^(resamples|trials)$"
)
#: The functions layer: sacreBLEU's functions with sacreBLEU's explicit keywords.
SACREBLEU_PARITY = ("bleukit.bleu", "bleukit.chrf", "bleukit.ter")


@functools.lru_cache(maxsize=1)
def _public_signatures():
    """name -> (ast function, on the facade): every function and public method of a class in a
    module's ``__all__``, outside the upstream rooms and private modules, read from the source."""
    import ast

    facade = {getattr(getattr(bleukit, n), "__module__", None) + "." + n for n in bleukit._LAZY
              if callable(getattr(bleukit, n)) and hasattr(getattr(bleukit, n), "__module__")}
    out = {}
    for name, path in sorted(import_graph.modules().items()):
        if import_graph.room(name) in UPSTREAM_ROOMS or name.rsplit(".", 1)[-1].startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        public = set()
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                public = set(ast.literal_eval(node.value))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in public:
                out[f"{name}.{node.name}"] = (node, f"{name}.{node.name}" in facade)
            elif isinstance(node, ast.ClassDef) and node.name in public:
                for f in node.body:
                    if isinstance(f, ast.FunctionDef) and (not f.name.startswith("_") or f.name == "__init__"):
                        out[f"{name}.{node.name}.{f.name}"] = (f, False)
    return {k: v for k, v in out.items() if k not in UPSTREAM_SIGNATURES}


def _parameters(fn):
    args = fn.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]


def test_the_upstream_signatures_exist():
    """The exemptions name real functions (a renamed one must leave the list)."""
    import ast

    names = set()
    for name, path in import_graph.modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names.update(f"{name}.{node.name}.{f.name}" for f in node.body if isinstance(f, ast.FunctionDef))
            elif isinstance(node, ast.FunctionDef):
                names.add(f"{name}.{node.name}")
    assert sorted(set(UPSTREAM_SIGNATURES) - names) == []


def test_one_name_per_resample_count():
    """``n_bootstrap`` is the resamples of a confidence interval, ``n_samples`` the resamples (or
    randomization trials) of a paired test, in every public signature: no other spelling of
    either, and ``n_samples`` only beside the test's ``method`` (a function with both counts, as
    ``build_report``, has both meanings)."""
    other = {q: n for q, (fn, _) in _public_signatures().items() for n in _parameters(fn)
             if RESAMPLE_COUNT.match(n) and n not in ("n_bootstrap", "n_samples")}
    assert other == {}
    without_test = [q for q, (fn, _) in _public_signatures().items()
                    if "n_samples" in _parameters(fn) and "method" not in _parameters(fn)]
    assert without_test == []
    with_method = [q for q, (fn, _) in _public_signatures().items()
                   if {"n_bootstrap", "method"} <= set(_parameters(fn)) and "n_samples" not in _parameters(fn)]
    assert with_method == []


def test_no_public_var_keywords_without_a_typed_dict():
    """A public ``**keywords`` is a metric's option keywords, typed: ``Unpack[BleuOptionKeywords]``
    (``ChrfOptionKeywords``, ``TerOptionKeywords``, ...), never ``**kwargs: Any``."""
    import ast

    untyped = {}
    for q, (fn, _) in _public_signatures().items():
        kwarg = fn.args.kwarg
        if kwarg is not None:
            annotation = ast.unparse(kwarg.annotation) if kwarg.annotation is not None else ""
            if not re.fullmatch(r"Unpack\[\w+OptionKeywords\]", annotation) or kwarg.arg != "keywords":
                untyped[q] = f"**{kwarg.arg}: {annotation}"
    assert untyped == {}


def test_options_are_passed_one_of_two_ways():
    """sacreBLEU's functions (``corpus_bleu``, ``sentence_chrf``, ...) take sacreBLEU's keywords;
    every other public function that takes a metric's options takes ``options=`` (keyword-only,
    default ``None``: any metric's options object) and its metric's typed ``**keywords``. A function
    on a statistics table takes the options the table was made with, after the table. Nothing takes
    ``metric=`` or ``metrics=`` for them. (A function that maps options to options takes them first.)"""
    import ast

    wrong = {}
    for q, (fn, on_facade) in _public_signatures().items():
        names = _parameters(fn)
        if q.rsplit(".", 1)[0] in SACREBLEU_PARITY:
            assert "options" not in names and fn.args.kwarg is None, q
            continue
        for arg in fn.args.args + fn.args.kwonlyargs:  # a metric's name (a column of scores) is not its options
            if arg.arg in ("metric", "metrics") and "str" not in ast.unparse(arg.annotation or ast.Constant(None)):
                wrong[q] = "metric(s)="
        if "options" not in names:
            continue
        keyword_only = [a.arg for a in fn.args.kwonlyargs]
        defaults = dict(zip(keyword_only, fn.args.kw_defaults))
        typed = "options" in keyword_only and isinstance(defaults["options"], ast.Constant) \
            and defaults["options"].value is None and fn.args.kwarg is not None
        first = (fn.args.posonlyargs + fn.args.args)[:1]
        on_table = bool(first) and first[0].annotation is not None and "Statistics" in ast.unparse(first[0].annotation)
        maps_options = fn.returns is not None and "Options" in ast.unparse(fn.returns)
        if (on_facade or q.startswith("bleukit.integrations.")) and not (typed or on_table or maps_options):
            wrong[q] = "options positional"
        if fn.args.kwarg is not None and not typed:
            wrong[q] = "**keywords without options="
    assert wrong == {}


def test_the_mutation_targets_name_test_files_that_exist():
    """tools/mutation.py runs each module's tests by path; a test file moved or merged since would
    make pytest fail on the path, which counts as a killed mutant (tools/mutation.py refuses to start)."""
    import mutation

    assert mutation.missing_paths() == []
    assert all(Path(module).exists() for module, _ in mutation.TARGETS.values())
