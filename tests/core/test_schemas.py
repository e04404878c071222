"""The JSON schemas: valid schemas, shipped in the package, and every JSON bleukit writes follows
them (the command line in every mode, the app's download, the report's data); broken documents fail."""

import copy
import io
import json
from pathlib import Path

import jsonschema
import pytest
from shared_data import REPO

import bleukit
from bleukit.cli import main
from bleukit.metrics.chrf import ChrfOptions
from bleukit.metrics.ter import TerOptions
from bleukit.schemas import SCHEMAS, schema, validate

EXAMPLES = REPO / "examples"
HYP, REF_A, REF_B = (str(EXAMPLES / n) for n in ("hyps.txt", "refs.a.txt", "refs.b.txt"))


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err, stdin=io.BytesIO(b""))
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_schema_is_a_valid_draft_2020_12_schema_with_an_id(name):
    document = schema(name)
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$id"].endswith(f"/{name}.schema.json") and document["$schema"].endswith("2020-12/schema")


def test_every_schema_file_is_listed_and_shipped_as_package_data():
    folder = Path(bleukit.schemas.__file__).parent
    assert sorted(p.name for p in folder.glob("*.schema.json")) == sorted(f"{n}.schema.json" for n in SCHEMAS)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"bleukit.schemas" = ["*.schema.json"]' in pyproject
    with pytest.raises(ValueError, match="unknown schema"):
        schema("nope")


@pytest.mark.parametrize(
    "args",
    [
        [REF_A, "-i", HYP],
        [REF_A, REF_B, "-i", HYP, "-w", "4"],
        [REF_A, "-i", HYP, "-m", "bleu", "chrf"],
        [REF_A, REF_B, "-i", HYP, "-m", "ter", "chrf", "bleu"],
        [REF_A, "-i", HYP, "--confidence", "-cin", "50"],
        [REF_A, "-i", HYP, "-b"],
        [REF_A, "-i", HYP, "--documents"],
    ],
)
def test_single_system_output(args):
    validate(run(*args), "cli-score")


@pytest.mark.parametrize(
    "extra",
    [[], ["-m", "bleu", "chrf"], ["--paired-bs", "-pbsn", "50"], ["--paired-ar", "-parn", "50", "-m", "chrf", "bleu"],
     ["--paired-bs", "-pbsn", "50", "-m", "ter"]],
)
def test_several_systems_output(extra):
    validate(run(REF_A, "-i", HYP, REF_B, *extra), "cli-systems")


@pytest.mark.parametrize(
    "extra",
    [
        ["--rank"],
        ["--rank", "--paired-ar", "-parn", "50", "-m", "bleu", "chrf"],
        ["--paired-bs", "--correction", "holm"],
        ["--rank", "--correction", "none"],
        ["--rank", "-m", "ter", "chrf"],
    ],
)
def test_rank_output(extra):
    validate(run(REF_A, "-i", HYP, REF_B, "-pbsn", "50", *extra), "cli-rank")


def test_explain_and_variants_output():
    validate(run(REF_A, REF_B, "-i", HYP, "--explain", "2", "-f", "json"), "cli-explain")
    chrf = run(REF_A, REF_B, "-i", HYP, "-m", "chrf", "--chrf-word-order", "2", "--explain", "2", "-f", "json")
    validate(chrf, "cli-explain")
    validate(chrf, "chrf-explanation")
    ter = run(REF_A, REF_B, "-i", HYP, "-m", "ter", "--explain", "2", "-f", "json")
    validate(ter, "cli-explain")
    validate(ter, "ter-explanation")
    with pytest.raises(Exception, match="is not valid under any of the given schemas"):
        validate({**chrf, "orders": [{**chrf["orders"][0], "kind": "byte"}]}, "cli-explain")
    validate(run(REF_A, "-i", HYP, "--variants", "-f", "json"), "cli-variants")


@pytest.mark.parametrize(
    "options", [bleukit.BleuOptions(), bleukit.BleuOptions(smooth_method="floor"), ChrfOptions(), TerOptions()]
)
def test_the_apps_download_is_a_corpus_report(options):
    hyps = Path(HYP).read_text(encoding="utf-8").splitlines()
    refs = bleukit.references_from_streams([Path(p).read_text(encoding="utf-8").splitlines() for p in (REF_A, REF_B)])
    report = json.loads(json.dumps(bleukit.score_report(hyps, refs, options=options).to_dict()))
    validate(report, "corpus-report")


def test_results_with_groups_and_estimates():
    r = bleukit.corpus_bleu(["a b c d", "x y"], ["a b c d", "x z"], group_by=["p", ("q", 1)], n_bootstrap=20)
    validate(json.loads(json.dumps(r.to_dict())), "result")


def test_the_reports_data():
    report = bleukit.build_report({"a": ["a b c d", "x y"], "b": ["a b", "x y z"]}, ["a b c d", "x y z"],
                                  n_bootstrap=20, n_samples=20)
    validate(json.loads(json.dumps(report.data)), "report")


def _broken(document, path, value):
    out = copy.deepcopy(document)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    "name, args, path, value",
    [
        ("cli-score", [REF_A, "-i", HYP], ["score"], "36.2"),
        ("cli-score", [REF_A, "-i", HYP], ["signature"], KeyError),
        ("cli-systems", [REF_A, "-i", HYP, REF_B, "--paired-bs", "-pbsn", "20"], [1, "BLEU", "p_value"], 1.5),
        ("cli-systems", [REF_A, "-i", HYP, REF_B], [0, "BLEU"], "high"),
        ("cli-rank", [REF_A, "-i", HYP, REF_B, "--rank", "-pbsn", "20"], [0, "ranking", 0, "cluster"], 0),
        ("cli-rank", [REF_A, "-i", HYP, REF_B, "--rank", "-pbsn", "20"], [0, "method"], "t-test"),
        ("cli-explain", [REF_A, "-i", HYP, "--explain", "1", "-f", "json"], ["orders", 0, "matched"], -1),
    ],
)
def test_broken_documents_fail(name, args, path, value):
    document = run(*args)
    validate(document, name)
    with pytest.raises(jsonschema.ValidationError):
        validate(_broken(document, path, value), name)
