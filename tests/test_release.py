"""What a release is made of: the sdist and wheel (built, checked by twine, carrying the kernels and
giving sacreBLEU's scores), the cibuildwheel configuration and workflow, the changelog and version,
and the documentation site (mkdocs --strict)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from shared_data import REPO

import bleukit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.9/3.10 test runs read it with the same parser's backport
    tomllib = pytest.importorskip("tomli")

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"
WHEEL_CHECK = REPO / ".github" / "wheel_check.py"


def _supported_minors() -> list:
    classifiers = PYPROJECT["project"]["classifiers"]
    found = re.findall(r"Programming Language :: Python :: 3\.(\d+)$", "\n".join(classifiers), re.M)
    return sorted(int(m) for m in found)


def test_wheels_are_built_for_every_supported_python():
    minors = _supported_minors()
    assert minors == list(range(minors[0], minors[-1] + 1)), "the classifiers name a contiguous range"
    assert PYPROJECT["project"]["requires-python"] == f">=3.{minors[0]}"
    built = PYPROJECT["tool"]["cibuildwheel"]["build"].split()
    assert built == [f"cp3{m}-*" for m in minors]
    # each wheel is tested by the script the workflow's checkout has, on both engines
    commands = PYPROJECT["tool"]["cibuildwheel"]["test-command"]
    script = f"python {{project}}/{WHEEL_CHECK.relative_to(REPO).as_posix()}"
    assert commands == [script, script + " --engine python"]
    assert WHEEL_CHECK.is_file()


def test_wheel_check_requires_every_kernel():
    import runpy

    check = runpy.run_path(str(WHEEL_CHECK))  # defines, runs nothing (its main is behind __name__)
    assert check["METRIC_KERNELS"] == sorted(p.name for p in (REPO / "csrc" / "metrics").iterdir() if p.is_dir())


def test_release_workflow_builds_on_every_platform_and_publishes_only_tags():
    yaml = pytest.importorskip("yaml")
    flow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    jobs = flow["jobs"]
    oses = {entry["os"].split("-")[0] for entry in jobs["wheels"]["strategy"]["matrix"]["include"]}
    assert oses == {"ubuntu", "macos", "windows"}
    assert any(step.get("uses", "").startswith("pypa/cibuildwheel@") for step in jobs["wheels"]["steps"])
    assert set(jobs["publish"]["needs"]) == {"sdist", "wheels"}
    assert "refs/tags/v" in jobs["publish"]["if"] and jobs["publish"]["permissions"] == {"id-token": "write"}


def test_release_workflow_matches_githubs_schema():
    here = str(Path(sys.executable).parent)
    checker = shutil.which("check-jsonschema", path=here) or shutil.which("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed (the 'release' extra)")
    out = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_changelog_has_a_section_for_the_version():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    # the release workflow refuses a tag whose version has no section: the same pattern
    assert re.search(rf"^## \[{re.escape(bleukit.__version__)}\]", changelog, re.M)
    assert re.fullmatch(r"\d+\.\d+\.\d+", bleukit.__version__)


@pytest.mark.slow
@pytest.mark.xdist_group("package")  # the session's one build (built_dist, tests/conftest.py)
def test_sdist_and_wheel_build_pass_twine_and_the_wheel_check(built_dist, tmp_path):
    pytest.importorskip("twine")
    # the wheel is built from the sdist, without isolation (the environment's setuptools, no download)
    sdist, wheel = built_dist
    assert sdist.name == f"bleukit-{bleukit.__version__}.tar.gz"
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    # every kernel source and header the sdist's own build needs
    wanted = {p.relative_to(REPO).as_posix() for p in (REPO / "csrc").rglob("*") if p.suffix in (".c", ".h")}
    assert wanted <= names, sorted(wanted - names)
    # the wheel carries the compiled kernels and gives sacreBLEU's scores from its own files alone
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("BLEUKIT_ENGINE", None)
    for args in ([], ["--engine", "python"]):
        run = subprocess.run(
            [sys.executable, str(WHEEL_CHECK), *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert "scores equal sacreBLEU's" in run.stdout and f"from {site}" in run.stdout


@pytest.mark.slow
def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
    scoring = (tmp_path / "site" / "api" / "scoring" / "index.html").read_text(encoding="utf-8")
    # the page opens with what a user calls first (it opened with the statistics functions bleukit.bleu
    # re-exports), and signatures show default values, not the constants' names
    headings = re.findall(r'<h3 id="bleukit\.bleu\.(\w+)"', scoring)
    assert headings == ["corpus_bleu", "sentence_bleu", "sentence_bleu_scores"], headings
    signature = re.sub(r"<[^>]+>", "", scoring.split('id="bleukit.bleu.corpus_bleu"', 1)[1])
    assert 'smooth_method: str = "exp",' in signature and "max_ngram_order: int = 4," in signature
    for page in (tmp_path / "site" / "api").rglob("index.html"):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        assert not re.findall(r"\w+: [^=\n]+ = DEFAULT_\w+", text), page


@pytest.mark.parametrize("name", ["doctest_fences", "constant_defaults"])
def test_docs_extensions_doctests(name, monkeypatch):
    # docs/_ext is not a test path: the site's griffe extensions' examples run here
    import doctest
    import importlib

    pytest.importorskip("griffe")
    monkeypatch.chdir(REPO)  # the examples load the package from src/
    monkeypatch.syspath_prepend(str(REPO / "docs" / "_ext"))
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_every_docs_page_is_in_the_site_navigation():
    # mkdocs only notes a page left out of the navigation; a page nobody can reach is a bug here
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(entry):
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from pages(value)
        else:
            for item in entry:
                yield from pages(item)

    listed = set(pages(config["nav"]))
    docs = REPO / "docs"
    on_disk = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md") if "_ext" not in p.parts}
    assert listed == on_disk


def test_readme_is_a_landing_page():
    # what it is, install, a quick start and links: the rest is in docs/ (the site)
    text = (REPO / "README.md").read_text(encoding="utf-8")
    # it opens with the project's name, not the Space's metadata (GitHub showed it as a table of keys)
    assert text.startswith("# bleukit\n")
    assert len(text.splitlines()) <= 200
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (REPO / target).exists(), target
    for command in ("make demo", "make test", "pip install"):
        assert command in text


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_make_space_puts_the_space_metadata_on_the_readme(tmp_path):
    # A Space reads its metadata from the front matter of its root README.md: make space writes that
    # README from space.yml and the repository's README, next to what the Space runs.
    yaml = pytest.importorskip("yaml")
    from bleukit.evaluate_module.hub import GRADIO_SDK_VERSION

    space = tmp_path / "space"
    out = subprocess.run(["make", "-s", "space", f"SPACE_DIR={space}"], cwd=REPO, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    readme = (space / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("---\n")
    _, front, body = readme.split("---\n", 2)
    meta = yaml.safe_load(front)
    assert meta == yaml.safe_load((REPO / "space.yml").read_text(encoding="utf-8"))
    assert meta["sdk"] == "gradio" and meta["sdk_version"] == GRADIO_SDK_VERSION
    assert (space / meta["app_file"]).is_file() and (space / "requirements.txt").is_file()
    assert (space / "src" / "bleukit" / "app" / "__init__.py").is_file()
    assert not list((space / "src").rglob("*.so"))  # only tracked files: no local build output
    assert body.lstrip("\n") == (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("target, extra", [("app", "app"), ("docs", "docs")])
def test_make_app_and_docs_install_only_their_extra(target, extra, tmp_path):
    # they installed the whole developer environment (torch and every extra) first
    if shutil.which("make") is None:
        pytest.skip("needs make")
    out = subprocess.run(["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    installs = [line.split(" install ", 1)[1] for line in out.stdout.splitlines() if " -m pip install " in line]
    assert installs == ["-q --upgrade pip", f"-q -e '.[{extra}]'"], out.stdout

