"""The golden run: what bleukit prints and returns on the real data in ../shared/data, recorded once
and compared byte for byte by tests/core/test_golden_run.py.

Why: a refactoring that moves code must not change one digit of any output. The other tests check
bleukit against sacreBLEU case by case; this run pins the whole surface at once (scores, JSON, the
command line's text and JSON, the paired tests, the ranking, the HTML report's JSON) on a few
representative corpora, so that a move that changes anything shows up as a diff of a stored file.

Record it again (only when an output is meant to change, and say why in the commit)::

    make golden          # or: PYTHONPATH=src python tests/core/golden_run.py

Recording writes every case's output to tests/golden/ and tests/golden/PROVENANCE.json: the commit
and environment it was recorded at. Outputs depend on two properties of the environment, kept in
PROVENANCE.json as ``numerics``: whether Python's ``sum`` of floats is compensated (3.12+) and
whether numpy computes float32 scalars in float32 (numpy 2); the test skips where they differ.

Every case reads its files by relative name from its dataset's folder (so paths in the output do
not depend on the machine), uses the default engine and writes ``bleukit-VERSION`` for the version.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # shared_data, when run as a script

from shared_data import REPO, SHARED_DATA, read_lines  # noqa: E402

GOLDEN = REPO / "tests" / "golden"
PROVENANCE = GOLDEN / "PROVENANCE.json"

#: the lines of each sentence-level case (all lines go into a digest)
SHOWN_LINES = 60


def numerics() -> Dict[str, Any]:
    """The properties of this environment that outputs depend on (see the module's text)."""
    from bleukit.metrics.bleu.formula import numpy_weak_scalars
    from bleukit.metrics.bleu.libm import COMPENSATED_SUM

    return {"compensated_sum": bool(COMPENSATED_SUM), "numpy_weak_scalars": numpy_weak_scalars()}


def _version_free(text: str) -> str:
    import bleukit

    return text.replace(f"bleukit-{bleukit.__version__}", "bleukit-VERSION").replace(
        f'"{bleukit.__version__}"', '"VERSION"')


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _lines(dataset: str, name: str) -> List[str]:
    return read_lines(SHARED_DATA / dataset / name)


def _refs(dataset: str, names: Sequence[str]) -> List[List[str]]:
    streams = [_lines(dataset, n) for n in names]
    return [list(r) for r in zip(*streams)]


@contextlib.contextmanager
def _in(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _cli(dataset: str, args: List[str]) -> str:
    """The command line run in this process from the dataset's folder: exit code, stdout, stderr."""
    from bleukit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _in(SHARED_DATA / dataset):
        code = main(args + ["--no-progress"], stdin=io.BytesIO(b""), stdout=out, stderr=err)
    return _version_free(f"exit {code}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}")


def _sliced(dataset: str, names: Sequence[str], n: int, folder: Path) -> None:
    """The first ``n`` lines of the dataset's files, written under ``folder`` (same names)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        with open(folder / name, "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(line + "\n" for line in _lines(dataset, name)[:n]))


# --- the corpora: (dataset, system, references) -------------------------------------------------
WMT17 = ("wmt17-en-de", "hyp.online-A.0.de", ["ref.de"])  # line 1 starts with a BOM
WMT22_DE_EN = ("wmt22-de-en", "hyp.JDExploreAcademy.en", ["ref.A.en", "ref.B.en"])
WMT22_EN_ZH = ("wmt22-en-zh", "hyp.LanguageX.zh", ["ref.A.zh", "ref.B.zh"])
KFTT = ("kftt-en-ja", "hyp.ja", ["ref.ja"])
CORPORA = {"wmt17": WMT17, "wmt22-de-en": WMT22_DE_EN, "wmt22-en-zh": WMT22_EN_ZH, "kftt": KFTT}
WMT17_SYSTEMS = ["hyp.LIUM-NMT.4900.de", "hyp.online-B.0.de", "hyp.uedin-nmt.4722.de", "hyp.KIT.4950.de",
                 "hyp.online-A.0.de"]

#: per corpus: (label, metric function name, keywords)
METRICS = {
    "wmt17": [("bleu", "bleu", {}), ("bleu-lc-floor", "bleu", {"lowercase": True, "smooth_method": "floor"}),
              ("chrf", "chrf", {}), ("chrf++", "chrf", {"word_order": 2}), ("ter", "ter", {}),
              ("ter-norm-cs", "ter", {"normalized": True, "case_sensitive": True})],
    "wmt22-de-en": [("bleu", "bleu", {}), ("bleu-intl", "bleu", {"tokenize": "intl"}), ("chrf", "chrf", {}),
                    ("ter", "ter", {})],
    "wmt22-en-zh": [("bleu-zh", "bleu", {"tokenize": "zh"}), ("chrf", "chrf", {}),
                    ("ter-asian", "ter", {"asian_support": True})],
    "kftt": [("bleu-char", "bleu", {"tokenize": "char"}), ("chrf-ws", "chrf", {"whitespace": True}),
             ("ter-punct", "ter", {"no_punct": True})],
}


def _scores_text(scores: Any) -> str:
    values = [repr(float(v)) for v in scores]
    digest = hashlib.sha256("\n".join(values).encode()).hexdigest()
    return "".join(v + "\n" for v in values[:SHOWN_LINES]) + f"... {len(values)} scores, sha256 {digest}\n"


def api_corpus() -> str:
    """Corpus results (``to_dict()``, with a 200-resample CI on the first of each metric) and the
    sentence scores of every corpus and option set above."""
    import bleukit

    out: Dict[str, Any] = {}
    for corpus, (dataset, hyp, refs) in CORPORA.items():
        hyps, references = _lines(dataset, hyp), _refs(dataset, refs)
        seen = set()
        for label, metric, keywords in METRICS[corpus]:
            extra = {} if metric in seen else {"n_bootstrap": 200}
            seen.add(metric)
            result = getattr(bleukit, f"corpus_{metric}")(hyps, references, **keywords, **extra)
            scores = getattr(bleukit, f"sentence_{metric}_scores")(hyps, references, **keywords)
            out[f"{corpus}/{label}"] = {"corpus": result.to_dict(), "format": result.format(),
                                        "sentences": _scores_text(scores).splitlines()}
    return _version_free(_json(out))


def api_significance() -> str:
    """bootstrap_ci, paired tests (bootstrap and randomization, corrected) and the ranking on WMT17."""
    import bleukit
    from bleukit.metrics.chrf import ChrfOptions

    refs = _refs("wmt17-en-de", ["ref.de"])
    systems = [(name, _lines("wmt17-en-de", name)) for name in WMT17_SYSTEMS]
    ci = bleukit.bootstrap_ci(systems[0][1], refs, n_bootstrap=300)
    out: Dict[str, Any] = {"bootstrap_ci": list(ci)}
    out["paired_bs"] = [r.to_dict() for r in bleukit.paired_test(systems[:3], refs, n_samples=300)]
    out["paired_ar_chrf_holm"] = [r.to_dict() for r in bleukit.paired_test(
        systems[:3], refs, method="ar", n_samples=500, correction="holm", options=ChrfOptions())]
    out["ranking"] = bleukit.compare_systems(systems, refs, n_samples=200).to_dict()
    return _version_free(_json(out))


def api_analyses() -> str:
    """Groups, documents, Self-BLEU, explanations, the corpus report, pairwise and MBR on slices."""
    import bleukit
    from bleukit.metrics.chrf import ChrfOptions
    from bleukit.metrics.ter import TerOptions

    dataset, hyp, refs = WMT22_DE_EN
    hyps, references = _lines(dataset, hyp)[:400], _refs(dataset, refs)[:400]
    groups = [len(h.split()) // 10 for h in hyps]
    docs = [i // 7 for i in range(len(hyps))]
    out: Dict[str, Any] = {
        "by_group": bleukit.score_by_group(hyps, references, groups, n_bootstrap=100).to_dict(),
        "documents_bleu": bleukit.document_bleu(hyps, references, docs).to_dict(),
        "documents_chrf": bleukit.document_score(hyps, references, docs, options=ChrfOptions()).to_dict(),
        "self_bleu": repr(bleukit.self_bleu(hyps[:80])),
        "self_ter_corpus": repr(bleukit.self_bleu(hyps[:40], definition="corpus", options=TerOptions())),
        "explain_bleu": str(bleukit.explain_bleu(hyps[3], references[3])),
        "explain_chrf": str(bleukit.explain_chrf(hyps[3], references[3], options=ChrfOptions(word_order=2))),
        "report_ter": bleukit.score_report(hyps[:40], references[:40], options=TerOptions()).to_dict(),
        "pairwise_bleu": bleukit.pairwise_bleu(hyps[:12], hyps[:12]).tolist(),
        "pairwise_chrf": bleukit.pairwise_chrf(hyps[:12], hyps[:12]).tolist(),
    }
    mbr = bleukit.mbr_select(hyps[:16], nbest=3)
    out["mbr"] = {"indices": mbr.indices, "selected": mbr.selected, "utilities": mbr.utilities.tolist()}
    return _version_free(_json(out))


def html_report_json() -> str:
    """The HTML report's embedded JSON (bleukit/schemas/report.schema.json) for three WMT17 systems,
    BLEU and chrF, ranked; and a digest of its page."""
    import bleukit
    from bleukit.metrics.bleu import BleuOptions
    from bleukit.metrics.chrf import ChrfOptions

    refs = _refs("wmt17-en-de", ["ref.de"])[:500]
    systems = [(name, _lines("wmt17-en-de", name)[:500]) for name in WMT17_SYSTEMS[:3]]
    report = bleukit.build_report(systems, refs, options=[BleuOptions(), ChrfOptions()], n_samples=200,
                                  n_bootstrap=200)
    html = _version_free(report.html)
    page = {"html_sha256": hashlib.sha256(html.encode()).hexdigest(), "html_chars": len(html)}
    return _version_free(_json({"data": report.data, "page": page}))


def _cli_case(dataset: str, args: List[str]) -> Callable[[], str]:
    return lambda: _cli(dataset, args)


def _sentence_cli(dataset: str, hyp: str, refs: List[str], args: List[str]) -> Callable[[], str]:
    def run() -> str:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            _sliced(dataset, [hyp] + refs, SHOWN_LINES, Path(tmp))
            from bleukit.cli import main

            out, err = io.StringIO(), io.StringIO()
            with _in(Path(tmp)):
                code = main(refs + ["-i", hyp, "--no-progress"] + args, stdin=io.BytesIO(b""), stdout=out,
                            stderr=err)
            return _version_free(f"exit {code}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}")

    return run


ALL3 = ["-m", "bleu", "chrf", "ter"]
#: name (the stored file's) -> the function that makes its text
CASES: Dict[str, Callable[[], str]] = {
    "api_corpus.json": api_corpus,
    "api_significance.json": api_significance,
    "api_analyses.json": api_analyses,
    "html_report.json": html_report_json,
    "cli_wmt17_json.txt": _cli_case("wmt17-en-de", ["ref.de", "-i", "hyp.online-A.0.de"] + ALL3 + ["-f", "json"]),
    "cli_wmt17_text.txt": _cli_case("wmt17-en-de", ["ref.de", "-i", "hyp.online-A.0.de"] + ALL3 + ["-f", "text"]),
    "cli_wmt17_score_only.txt": _cli_case("wmt17-en-de", ["ref.de", "-i", "hyp.KIT.4950.de", "-b", "-w", "4"]),
    "cli_wmt22_de_en_ci_json.txt": _cli_case(
        "wmt22-de-en", ["ref.A.en", "ref.B.en", "-i", "hyp.LT22.en", "-ci", "-cin", "200"] + ALL3 + ["-f", "json"]),
    "cli_wmt22_en_zh_text.txt": _cli_case(
        "wmt22-en-zh", ["ref.A.zh", "ref.B.zh", "-i", "hyp.Online-B.zh", "-l", "en-zh", "-m", "bleu", "chrf",
                        "-cw", "2", "-f", "text", "-w", "3"]),
    "cli_kftt_short_text.txt": _cli_case("kftt-en-ja", ["ref.ja", "-i", "hyp.ja", "-tok", "char", "-sh"] + ALL3
                                         + ["-f", "text"]),
    "cli_sentence_chrf_json.txt": _sentence_cli("wmt22-de-en", "hyp.Online-A.en", ["ref.A.en", "ref.B.en"],
                                                ["-m", "chrf", "-sl", "-f", "json"]),
    "cli_sentence_bleu_text.txt": _sentence_cli("wmt17-en-de", "hyp.online-A.0.de", ["ref.de"],
                                                ["-sl", "-f", "text"]),
    "cli_sentence_ter_json.txt": _sentence_cli("wmt22-en-zh", "hyp.LanguageX.zh", ["ref.A.zh"],
                                               ["-m", "ter", "--ter-asian-support", "--ter-normalized", "-sl",
                                                "-f", "json"]),
    "cli_paired_bs_text.txt": _cli_case(
        "wmt17-en-de", ["ref.de", "-i"] + WMT17_SYSTEMS[:3] + ["-m", "bleu", "chrf", "--paired-bs", "-pbsn", "300"]),
    "cli_paired_ar_latex.txt": _cli_case(
        "wmt17-en-de", ["ref.de", "-i"] + WMT17_SYSTEMS[:3] + ["-m", "bleu", "ter", "--paired-ar", "-parn", "300",
                                                               "-f", "latex"]),
    "cli_paired_bs_holm_json.txt": _cli_case(
        "wmt17-en-de", ["ref.de", "-i"] + WMT17_SYSTEMS[:3] + ["--paired-bs", "-pbsn", "300", "--correction",
                                                               "holm", "-f", "json"]),
    "cli_rank_json.txt": _cli_case("wmt17-en-de", ["ref.de", "-i"] + WMT17_SYSTEMS + ["--rank", "-pbsn", "200",
                                                                                      "-f", "json"]),
    "cli_rank_text.txt": _cli_case("wmt17-en-de", ["ref.de", "-i"] + WMT17_SYSTEMS + ["--rank", "--paired-ar",
                                                                                      "-parn", "200", "-f", "text"]),
    "cli_explain.txt": _cli_case("wmt22-de-en", ["ref.A.en", "ref.B.en", "-i", "hyp.LT22.en", "--explain", "5"]),
    "cli_explain_chrf.txt": _cli_case("wmt22-de-en", ["ref.A.en", "-i", "hyp.LT22.en", "-m", "chrf", "--explain",
                                                      "7"]),
}


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True).stdout.strip()


def record() -> None:
    """Write every case's output and PROVENANCE.json (see the module's text)."""
    import numpy

    import bleukit

    GOLDEN.mkdir(exist_ok=True)
    for name, make in CASES.items():
        (GOLDEN / name).write_text(make(), encoding="utf-8", newline="\n")
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", "src", "csrc", "setup.py")
    provenance = {
        "commit": _git("rev-parse", "HEAD") + (" (with uncommitted changes to src/)" if dirty else ""),
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "bleukit": bleukit.__version__,
        "engine": bleukit.engine_name(),
        "numerics": numerics(),
        "data": str(SHARED_DATA.name),
        "cases": sorted(CASES),
    }
    PROVENANCE.write_text(_json(provenance), encoding="utf-8", newline="\n")
    print(f"recorded {len(CASES)} cases in {GOLDEN.relative_to(REPO)} at {provenance['commit']}")


if __name__ == "__main__":
    if not (SHARED_DATA / "expected_scores.jsonl").exists():
        sys.exit(f"the real MT data is not at {SHARED_DATA}")
    record()
