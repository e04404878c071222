"""``-t`` and the other test-set options of the command line against sacreBLEU 2.6 on the same cache.

Caches are built at test time from ../shared/data in the real raw formats (testset_caches.py);
sacreBLEU runs every case in one process (sacrebleu_oracle.py), with a hash seed where its
reference order is the sorted one bleukit prints. bleukit must print the same stdout, byte for
byte (version numbers aside), with the same exit status: on a raw cache (processing it, to the
same processed files sacreBLEU writes), on the cache sacreBLEU processed, and with sacreBLEU
unimportable. Where sacreBLEU 2.6 crashes, bleukit's answer is checked against what the option
means (docs/sacrebleu.md lists those differences).
"""

from __future__ import annotations

import contextlib
import filecmp
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
import testset_caches
from shared_data import SHARED_DATA, read_lines

from bleukit.cli import main as bleukit_main

pytest.importorskip("sacrebleu")

HERE = Path(__file__).resolve().parent
PY = sys.executable

_W17 = ["-t", "wmt17", "-l", "en-de"]
_W22 = ["-t", "wmt22", "-l", "de-en"]
CASES: List[List[str]] = [
    # the fake SGML pair
    [*_W17, "--echo", "src"],
    [*_W17, "--echo", "ref", "docid", "genre", "origlang"],
    [*_W17, "--echo", "all"],
    [*_W17, "--echo", "src", "--origlang", "de"],
    ["-t", "wmt17,wmt17", "-l", "en-de", "--echo", "ref"],
    [*_W17, "-i", "hyp17a"],
    [*_W17, "-i", "hyp17a", "-m", "bleu", "chrf", "ter", "-f", "text"],
    [*_W17, "-i", "hyp17a", "-m", "chrf", "-sl"],
    [*_W17, "-i", "hyp17a", "-b", "-w", "3", "-tok", "none"],
    [*_W17, "-i", "hyp17a", "--origlang", "de"],
    [*_W17, "-i", "hyp17a", "--origlang", "non-de", "-f", "text", "-m", "bleu", "ter"],
    [*_W17, "-i", "hyp17a", "-d", "-m", "bleu", "chrf"],
    [*_W17, "-i", "hyp17a", "hyp17b", "-m", "bleu", "chrf"],
    [*_W17, "-i", "hyp17a", "hyp17b", "--paired-bs", "-pbsn", "100"],
    [*_W17, "-i", "hyp17a", "hyp17b", "--paired-ar", "-parn", "200", "-f", "latex"],
    [*_W17, "-i", "hyp17a", "--confidence", "-cin", "100", "-f", "text"],
    ["-t", "wmt17,wmt17", "-l", "en-de", "-i", "hyp17aa"],
    ["--list", "-t", "wmt17"],
    ["--list", "-t", "wmt17", "-l", "en-de"],
    # WMT XML: two translators, systems, a testsuite, a segment without references, domains
    [*_W22, "--echo", "src"],
    [*_W22, "--echo", "all"],
    [*_W22, "--echo", "ref"],
    [*_W22, "--echo", "ref:B", "docid", "origlang", "domain", "JDExploreAcademy"],
    [*_W22, "--echo", "src", "--subset", "news"],
    ["--list", "-t", "wmt22", "-l", "de-en"],
    [*_W22, "-i", "hyp22", "-m", "bleu", "chrf", "ter"],
    [*_W22, "-i", "hyp22", "-d"],
    [*_W22, "-i", "hyp22", "-d", "--subset", "social"],
    [*_W22, "-i", "hyp22", "--subset", "news", "-b"],
    [*_W22, "-i", "hyp22", "--subset", "social", "--origlang", "de", "-f", "text"],
    [*_W22, "-i", "hyp22", "--origlang", "xx"],
    ["-t", "wmt22", "-l", "en-zh", "-i", "hypzh", "-f", "text"],
    ["-t", "wmt22", "-l", "cs-en", "--echo", "all"],
    ["-t", "wmt22", "-l", "cs-en", "-i", "hypcs", "-b"],
    # SGML with sacreBLEU's country/domain annotations (wmt19)
    ["-t", "wmt19", "-l", "de-en", "-i", "hyp19", "-d", "-m", "bleu", "chrf"],
    ["-t", "wmt19", "-l", "de-en", "-i", "hyp19", "--subset", "country:US", "-b"],
    ["-t", "wmt19", "-l", "de-en", "-i", "hyp19", "--subset", "politics", "--origlang", "de", "-f", "text"],
    ["-t", "wmt19", "-l", "de-en", "--echo", "docid", "src", "--subset", "world"],
    ["-t", "wmt19", "-l", "de-en", "-i", "hyp19", "-d", "--subset", "crime"],
    # IWSLT XML (read as SGML) and SGML with a plain-text reference (WMT19's paraphrased references)
    ["-t", "iwslt17", "-l", "en-fr", "--echo", "all"],
    ["-t", "iwslt17", "-l", "en-fr", "-i", "hyp17a", "-m", "bleu", "chrf", "-f", "text"],
    ["-t", "wmt19/google/ar", "-l", "en-de", "--echo", "all"],
    ["-t", "wmt19/google/ar", "-l", "en-de", "-i", "hyp17a", "-b"],
    ["--list", "-t", "wmt19/google/ar"],
    # TSV and plain text
    ["-t", "mtnt2019", "-l", "en-fr", "--echo", "src", "ref"],
    ["-t", "mtnt2019", "-l", "en-fr", "-i", "hypmtnt", "-m", "bleu", "chrf"],
    ["-t", "multi30k/2016", "-l", "en-fr", "--echo", "ref", "src"],
    ["-t", "multi30k/2016", "-l", "en-fr", "-i", "hyp17a", "-b"],
    # lists and errors
    ["--list"],
    ["--list", "-l", "en-de"],
    ["--list", "-l", "de-en"],
    ["-t", "nosuch", "-l", "en-de", "-i", "hyp17a"],
    ["-t", "wmt17", "-l", "xx-yy", "-i", "hyp17a"],
    ["-t", "wmt17", "-i", "hyp17a"],
    [*_W17, "--echo", "nosuch"],
    [*_W17, "--echo", "all", "src"],
    [*_W17, "ref17", "-i", "hyp17a"],
    [*_W17, "-nr", "2", "-i", "hyp17a"],
    ["--download", "wmt17", "-l", "en-de"],
    ["ref17", "-i", "hyp17a", "-d"],  # -d without -t: sacreBLEU's "No subset information" line
]


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _normalise(text: str) -> str:
    import re

    return re.sub(r'(version:|v:|"version": ")(bleukit-)?[0-9A-Za-z.+]+', r"\1V", text)


def _write_hyps(work: Path) -> None:
    n = testset_caches.N
    hyps = {"hyp17a": read_lines(SHARED_DATA / "wmt17-en-de" / "hyp.LIUM-NMT.4900.de")[:n],
            "hyp17b": read_lines(SHARED_DATA / "wmt17-en-de" / "hyp.uedin-nmt.4722.de")[:n],
            "ref17": read_lines(SHARED_DATA / "wmt17-en-de" / "ref.de")[:n],
            "hyp22": [s for k, s in enumerate(read_lines(SHARED_DATA / "wmt22-de-en" / "hyp.Online-A.en")[:n])
                      if k != 4],
            "hypzh": [s for k, s in enumerate(read_lines(SHARED_DATA / "wmt22-en-zh" / "hyp.Online-B.zh")[:60])
                      if k != 4],
            "hypcs": [s for k, s in enumerate(read_lines(SHARED_DATA / "wmt22-de-en" / "hyp.LT22.en")[:60])
                      if k != 4],
            "hyp19": read_lines(SHARED_DATA / "wmt22-de-en" / "hyp.JDExploreAcademy.en")[:n],
            "hypmtnt": read_lines(SHARED_DATA / "kftt-en-ja" / "ref.ja")[1:n + 1]}
    hyps["hyp17aa"] = hyps["hyp17a"] * 2
    for name, lines in hyps.items():
        (work / name).write_text("".join(f"{s}\n" for s in lines), encoding="utf-8")


def run_bleukit(args: List[str]) -> Dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    try:
        code = bleukit_main(args, stdin=io.BytesIO(b""), stdout=out, stderr=err)
    except SystemExit as e:
        code = e.code
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> Dict[str, object]:
    """Raw caches for each tool, sacreBLEU's answers (one process) and bleukit's (raw cache)."""
    top = tmp_path_factory.mktemp("testsets")
    extra = testset_caches.build(top / "raw")
    oracle_root = testset_caches.copy(top / "raw", top / "sacrebleu")
    ours_root = testset_caches.copy(top / "raw", top / "bleukit")
    work = top / "work"
    work.mkdir()
    _write_hyps(work)
    env = testset_caches.environment(oracle_root, extra)
    proc = subprocess.run([PY, str(HERE / "sacrebleu_oracle.py")], input=json.dumps(CASES).encode(), cwd=work,
                          env=env, capture_output=True, check=True)
    oracle = json.loads(proc.stdout)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        with _env(**{k: env[k] for k in ("BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE", "NO_COLOR")},
                  SACREBLEU=str(ours_root)):
            ours = [run_bleukit(args) for args in CASES]
        with _env(**{k: env[k] for k in ("BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE", "NO_COLOR")},
                  SACREBLEU=str(oracle_root)):
            on_theirs = [run_bleukit(args) for args in CASES]
    finally:
        os.chdir(cwd)
    return {"top": top, "extra": extra, "work": work, "oracle_root": oracle_root, "ours_root": ours_root,
            "oracle": oracle, "ours": ours, "on_theirs": on_theirs, "env": env}


def _ids() -> List[str]:
    return [" ".join(c) for c in CASES]


@pytest.mark.parametrize("k", range(len(CASES)), ids=_ids())
def test_same_stdout_and_status_as_sacrebleu(world, k):
    """On a raw cache (bleukit processes it) and on the cache sacreBLEU processed."""
    expected = world["oracle"][k]
    for got in (world["ours"][k], world["on_theirs"][k]):
        assert got["code"] == expected["code"], (CASES[k], got["stderr"])
        assert _normalise(got["stdout"]) == _normalise(expected["stdout"]), CASES[k]
        if got["code"] != 0:  # a clean error: one line, no traceback
            assert len(got["stderr"].strip().splitlines()) == 1, got["stderr"]
            assert got["stderr"].startswith("bleukit: error: ")


def test_every_case_ran_in_sacrebleu(world):
    assert all(not str(r["code"]).startswith("crash") for r in world["oracle"])
    # and printed something wherever it succeeded (the fake caches are read, not skipped)
    assert [c for c, r in zip(CASES, world["oracle"]) if r["code"] == 0 and not r["stdout"]] == \
        [["--download", "wmt17", "-l", "en-de"]]


def test_processed_files_are_sacrebleus(world):
    """bleukit writes the processed files sacreBLEU writes, byte for byte, in the same places."""
    theirs, ours = world["oracle_root"], world["ours_root"]
    names = sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file() and "raw" not in p.parts)
    assert names == sorted(p.relative_to(ours) for p in ours.rglob("*")
                           if p.is_file() and "raw" not in p.parts and not p.name.endswith(".bleukit.json"))
    assert len(names) > 20
    for name in names:
        assert filecmp.cmp(theirs / name, ours / name, shallow=False), name


def test_without_sacrebleu_importable(world, tmp_path):
    """A poisoned ``sacrebleu`` first on the path: bleukit never imports it."""
    poison = tmp_path / "poison" / "sacrebleu"
    poison.mkdir(parents=True)
    (poison / "__init__.py").write_text("raise ImportError('sacrebleu must not be imported')\n")
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(world["env"], SACREBLEU=str(world["ours_root"]),
               PYTHONPATH=os.pathsep.join([str(poison.parent), str(src)]))
    for k in (CASES.index([*_W22, "--echo", "all"]), CASES.index([*_W22, "-i", "hyp22", "-d"])):
        proc = subprocess.run([PY, "-m", "bleukit", *CASES[k]], cwd=world["work"], env=env, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        assert _normalise(proc.stdout.decode()) == _normalise(world["oracle"][k]["stdout"])


def test_a_bare_echo_is_answered_before_the_command_line_is_imported(world, monkeypatch):
    """``-t ... -l ... --echo ...`` and nothing else is answered by ``bleukit.__main__`` from the
    cache, without importing the command line: sacreBLEU's stdout for every such case; every other
    case (a filter, an error, any other option) is declined with nothing written, and the command
    line answers it (the test above)."""
    from bleukit import __main__ as entry

    monkeypatch.chdir(world["work"])
    for k in ("BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE", "NO_COLOR"):
        monkeypatch.setenv(k, world["env"][k])
    monkeypatch.setenv("SACREBLEU", str(world["ours_root"]))
    answered = []
    for k, args in enumerate(CASES):
        out = io.StringIO()  # not a terminal (a terminal gets the command line's colour reset)
        monkeypatch.setattr(sys, "stdout", out)
        code = entry.quick_echo(args)
        monkeypatch.setattr(sys, "stdout", sys.__stdout__)
        if code is None:
            assert out.getvalue() == "", args
        else:
            answered.append(args)
            assert (code, _normalise(out.getvalue())) == (0, _normalise(world["oracle"][k]["stdout"])), args
    bare = [args for k, args in enumerate(CASES) if world["oracle"][k]["code"] == 0 and "--echo" in args
            and {a for a in args if a.startswith("-")} <= {"-t", "-l", "--echo"}]
    assert answered == bare and len(bare) >= 8
    k = CASES.index([*_W22, "--echo", "all"])
    proc = subprocess.run([PY, "-X", "importtime", "-m", "bleukit", *CASES[k]], cwd=world["work"],
                          env=dict(world["env"], SACREBLEU=str(world["ours_root"])), capture_output=True)
    assert proc.returncode == 0 and _normalise(proc.stdout.decode()) == _normalise(world["oracle"][k]["stdout"])
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines()}
    assert "bleukit.testsets" in imported and not {"bleukit.cli", "argparse", "typing"} & imported


def test_where_sacrebleu_crashes_bleukit_is_right(world):
    """2.6's --citation TypeError, --download without -l KeyError, --origlang on a pair that names
    its references KeyError: bleukit prints the citation, downloads every pair, filters."""
    env = world["env"]
    cwd = os.getcwd()
    os.chdir(world["work"])
    try:
        with _env(**{k: env[k] for k in ("BLEUKIT_TESTSETS_EXTRA", "BLEUKIT_TESTSETS_OFFLINE", "NO_COLOR")},
                  SACREBLEU=str(world["ours_root"])):
            cite = run_bleukit(["--citation", "-t", "wmt17"])
            none = run_bleukit(["--citation", "-t", "wmt17,mtnt2019"])
            download = run_bleukit(["--download", "mtnt2019"])
            cs = run_bleukit(["-t", "wmt22", "-l", "cs-en", "--echo", "src", "--origlang", "cs"])
            cs_all = run_bleukit(["-t", "wmt22", "-l", "cs-en", "--echo", "src", "origlang"])
            cs_d = run_bleukit(["-t", "wmt22", "-l", "cs-en", "-i", "hypcs", "-d"])
            empty = run_bleukit([*_W22, "-i", "hyp22", "--subset", "nothing"])
    finally:
        os.chdir(cwd)
    from bleukit.testsets.registry import get

    assert cite["code"] == 0 and cite["stdout"] == get("wmt17").citation + "\n"
    assert none["code"] == 0 and none["stderr"] == "bleukit: error: No citation found for mtnt2019\n"
    # every pair, not a KeyError: the fake cache has en-fr only, so the next pair's file is missing
    assert download["code"] == 1 and download["stderr"].count("\n") == 1
    assert "MTNT2019/fr-en.final.tsv" in download["stderr"], download["stderr"]
    assert cs["code"] == 0
    assert cs["stdout"].splitlines() == [row.split("\t")[0] for row in cs_all["stdout"].splitlines()
                                         if row.split("\t")[1] == "cs"]
    assert cs_d["code"] == 0 and "origlang=cs domain=ALL : sentences=" in cs_d["stdout"]
    assert empty["stderr"] == "bleukit: error: Test set 'wmt22' contains no sentence with subset=nothing\n"
