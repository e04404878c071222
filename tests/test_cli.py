"""The command line, run as a user would (subprocess), against sacreBLEU's own command line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bleukit
from bleukit.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
HYP, REF_A, REF_B = (str(EXAMPLES / n) for n in ("hyps.txt", "refs.a.txt", "refs.b.txt"))


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "bleukit", *args], input=stdin, capture_output=True, text=True, encoding="utf-8"
    )


def sacrebleu_cli(*args):
    out = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *args], capture_output=True, text=True, encoding="utf-8", check=True
    )
    return out.stdout.strip()


def test_text_output_equals_sacrebleu_cli_apart_from_version():
    ours = run(HYP, REF_A, REF_B, "-f", "text")
    assert ours.returncode == 0, ours.stderr
    theirs = sacrebleu_cli(REF_A, REF_B, "-i", HYP, "-f", "text")
    ours_sig, ours_rest = ours.stdout.strip().split(" = ", 1)
    theirs_sig, theirs_rest = theirs.split(" = ", 1)
    assert ours_rest == theirs_rest
    assert ours_sig.split("|")[:-1] == theirs_sig.split("|")[:-1]


@pytest.mark.parametrize("opts", [["-tok", "intl", "-lc"], ["-s", "floor", "--smooth-value", "0.2"], ["-s", "add-k", "-w", "3"], ["-tok", "char"]])
def test_options_equal_sacrebleu_cli(opts):
    ours = run(HYP, REF_A, *opts, "-f", "text")
    assert ours.returncode == 0, ours.stderr
    theirs = sacrebleu_cli(REF_A, "-i", HYP, *opts, "-f", "text")
    assert ours.stdout.strip().split(" = ", 1)[1] == theirs.split(" = ", 1)[1]


def test_json_output_and_stdin():
    hyp_text = Path(HYP).read_text(encoding="utf-8")
    out = run(REF_A, "--max-ngram-order", "2", stdin=hyp_text)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    expected = bleukit.corpus_bleu(hyp_text.splitlines(), Path(REF_A).read_text(encoding="utf-8").splitlines(), max_ngram_order=2)
    assert d["score"] == expected.score and d["counts"] == expected.counts
    assert d["signature"] == expected.signature and "order:2" in d["signature"]
    same = run("-i", "-", REF_A, "--max-ngram-order", "2", stdin=hyp_text)
    assert json.loads(same.stdout) == d


def test_sentence_level():
    out = run(HYP, REF_A, REF_B, "--sentence-level", "-f", "text", "-w", "6")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    hyps = Path(HYP).read_text(encoding="utf-8").splitlines()
    refs = bleukit.references_from_streams([Path(p).read_text(encoding="utf-8").splitlines() for p in (REF_A, REF_B)])
    scores = bleukit.sentence_scores(hyps, refs)
    assert len(lines) == len(hyps) + 1
    for i, line in enumerate(lines[:-1]):
        assert line == f"{i + 1}\t{scores[i]:.6f}"
    assert lines[-1].startswith("BLEU|nrefs:2|")


def test_line_count_mismatch_is_a_clear_error(tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    out = run(HYP, str(short))
    assert out.returncode == 2
    assert "line counts differ" in out.stderr and "short.txt: 1 lines" in out.stderr and "8 lines" in out.stderr


def test_bad_option_values():
    out = run(HYP, REF_A, "--max-ngram-order", "0")
    assert out.returncode == 2 and "max_ngram_order must be >= 1" in out.stderr
    out = run(HYP, REF_A, "--weights", "1", "1")
    assert out.returncode == 2 and "weights has 2 values" in out.stderr
    out = run(HYP, REF_A, "-tok", "moses")
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_reads_only_newline_as_segment_separator(tmp_path):
    """A U+2028 inside a line must not split it (str.splitlines would)."""
    hyp = tmp_path / "h.txt"
    ref = tmp_path / "r.txt"
    hyp.write_text("a b\u2028c d\ne f\n", encoding="utf-8")
    ref.write_text("a b c d\ne f\n", encoding="utf-8")
    import io

    buf = io.StringIO()
    assert main([str(hyp), str(ref), "-f", "json"], stdout=buf) == 0
    assert json.loads(buf.getvalue())["sys_len"] == 6


def test_console_script_installed():
    exe = Path(sys.executable).parent / "bleukit"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"bleukit {bleukit.__version__}"
