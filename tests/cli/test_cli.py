"""The command line's own behaviour (the sacreBLEU comparison is in test_cli_vs_sacrebleu.py)."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import REPO

import bleukit
from bleukit.cli import main

EXAMPLES = REPO / "examples"
HYP, REF_A, REF_B = (str(EXAMPLES / n) for n in ("hyps.txt", "refs.a.txt", "refs.b.txt"))


def run(*args, stdin=b""):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def lines(path):
    return Path(path).read_text(encoding="utf-8").splitlines()


def test_json_equals_the_api_and_stdin_equals_dash_i():
    code, out, err = run(REF_A, "-i", HYP, "--max-ngram-order", "2", "-w", "4")
    assert code == 0, err
    d = json.loads(out)
    expected = bleukit.corpus_bleu(lines(HYP), lines(REF_A), max_ngram_order=2)
    assert d["score"] == round(expected.score, 4) and d["signature"] == expected.signature
    assert "order:2" in d["signature"]
    hyp = Path(HYP).read_bytes()
    assert run(REF_A, "--max-ngram-order", "2", "-w", "4", stdin=hyp)[1] == out
    assert run(REF_A, "-i", "-", "--max-ngram-order", "2", "-w", "4", stdin=hyp)[1] == out


def test_sentence_level_lines_are_sentence_bleu():
    code, out, err = run(REF_A, REF_B, "-i", HYP, "--sentence-level", "-b", "-w", "6")
    assert code == 0, err
    refs = bleukit.references_from_streams([lines(REF_A), lines(REF_B)])
    scores = bleukit.sentence_bleu_scores(lines(HYP), refs)
    assert out.splitlines() == [f"{s:.6f}" for s in scores]


def test_weights_and_effective_order_are_bleukit_additions():
    code, out, err = run(
        REF_A, "-i", HYP, "--weights", "0.4", "0.3", "0.2", "0.1", "--effective-order", "-b", "-w", "6"
    )
    assert code == 0, err
    expected = bleukit.corpus_bleu(lines(HYP), lines(REF_A), weights=[0.4, 0.3, 0.2, 0.1], effective_order=True)
    assert out == f"{expected.score:.6f}\n"


def test_bad_option_values_are_one_line_errors():
    code, out, err = run(REF_A, "-i", HYP, "--max-ngram-order", "0")
    assert code == 1 and "max_ngram_order must be >= 1" in err and out == ""
    code, out, err = run(REF_A, "-i", HYP, "--weights", "1", "1")
    assert code == 1 and "weights has 2 values" in err
    code, out, err = run(REF_A, "-i", HYP, "-l", "english")
    assert code == 1 and "SRC-TRG" in err
    code, out, err = run(REF_A, "-i", HYP, "-e", "no-such-codec")
    assert code == 1 and "unknown encoding" in err
    code, out, err = run(REF_A, "-i", HYP, "--seed", "abc", "-ci")
    assert code == 1 and "--seed='abc'" in err


def test_encoding_option(tmp_path):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("Grüße aus dem schönen Köln am Rhein\n", encoding="latin-1")
    ref.write_text("Grüße aus dem schönen Köln am Rhein\n", encoding="latin-1")
    assert run(str(ref), "-i", str(hyp), "-b")[0] == 1  # not UTF-8
    assert run(str(ref), "-i", str(hyp), "-b", "-e", "latin-1")[1] == "100.0\n"


@pytest.mark.parametrize(
    "content, encoding, nul",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "utf-8", 8),  # an image
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "utf-8", 3),  # a gzip file without .gz
        ("Grüße aus dem schönen Köln am Rhein\n".encode("utf-16"), "utf-8", 3),  # UTF-16 text read as UTF-8
    ],
)
def test_a_binary_file_is_named_as_not_text(tmp_path, content, encoding, nul):
    # not "give the file's encoding": no encoding makes an image a segment file
    bad = tmp_path / "bad.de"
    bad.write_bytes(content)
    for args in ([str(bad), "-i", HYP], [REF_A, "-i", str(bad)]):
        code, out, err = run(*args, "-b", "-e", encoding)
        assert code == 1 and out == ""
        assert f"bad.de: not a text file in {encoding} (a NUL byte at byte {nul})" in err, err
        assert "give the file's encoding" not in err and len(err.strip().splitlines()) == 1
    # UTF-16 text is read with its encoding, as the message says
    if content.startswith(b"\xff\xfe"):
        assert run(str(bad), "-i", str(bad), "-b", "-e", "utf-16")[1] == "100.0\n"


def test_gzip_files_are_read(tmp_path):
    import gzip

    ref = tmp_path / "r.txt.gz"
    with gzip.open(ref, "wt", encoding="utf-8") as f:
        f.write(Path(REF_A).read_text(encoding="utf-8"))
    assert run(str(ref), "-i", HYP, "-b", "-w", "6") == run(REF_A, "-i", HYP, "-b", "-w", "6")


def test_reads_only_newline_as_segment_separator(tmp_path):
    """A U+2028 inside a line must not split it (str.splitlines would)."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b\u2028c d\ne f\n", encoding="utf-8")
    ref.write_text("a b c d\ne f\n", encoding="utf-8")
    code, out, err = run(str(ref), "-i", str(hyp), "-f", "text")
    assert code == 0 and "hyp_len = 6" in out


@pytest.mark.parametrize("value, start", [(None, "{"), ("text", "BLEU|"), ("LaTeX", "BLEU|"), ("yaml", "{")])
def test_sacrebleu_format_variable(monkeypatch, value, start):
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    if value is not None:
        monkeypatch.setenv("SACREBLEU_FORMAT", value)
    assert run(REF_A, "-i", HYP)[1].startswith(start)


def test_console_script_installed():
    exe = Path(sys.executable).parent / "bleukit"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().startswith("bleukit ")


RUN_WITH_EXTRAS = """
import atexit, sys, threading, time
atexit.register(lambda: print("atexit ran", file=sys.stderr))
if sys.argv[1] == "thread":  # a user's thread still running: the usual exit waits for it
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread finished", file=sys.stderr))).start()
sys.argv = ["bleukit", *sys.argv[2:]]
from bleukit.cli import run
run()
print("never here")
"""


@pytest.mark.parametrize("thread", [False, True], ids=["alone", "with-a-thread"])
def test_the_console_script_ends_at_once_after_the_exit_duties(thread, tmp_path):
    """`run` (the console script) skips the interpreter's teardown, but its output is all there,
    the exit status is main's, atexit handlers run, and a user's thread is still waited for."""
    for args, code in (([REF_A, "-i", HYP], 0), ([REF_A, "-i", str(tmp_path / "missing")], 1)):
        done = subprocess.run([sys.executable, "-c", RUN_WITH_EXTRAS, "thread" if thread else "-", *args],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == code, done.stderr
        assert "never here" not in done.stdout and "atexit ran" in done.stderr
        assert ("thread finished" in done.stderr) is thread
        if code == 0:
            assert json.loads(done.stdout) == json.loads(run(REF_A, "-i", HYP)[1])
        else:
            assert "no such file" in done.stderr
    exe = Path(sys.executable).parent / "bleukit"  # the installed script, its output into a pipe
    done = subprocess.run([str(exe), REF_A, "-i", HYP, "-b"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == run(REF_A, "-i", HYP, "-b")[1]
    done = subprocess.run([sys.executable, "-m", "bleukit", REF_A, "-i", HYP, "-b"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == run(REF_A, "-i", HYP, "-b")[1]


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGPIPE"), reason="no SIGPIPE (Windows)")
def test_a_closed_pipe_ends_the_console_script_quietly(shared_data):
    """`bleukit ... | head -1`: as sacreBLEU, the process ends by SIGPIPE, with no traceback (Python
    ignores SIGPIPE, and a write would raise BrokenPipeError)."""
    import signal

    folder = shared_data / "wmt17-en-de"
    exe = Path(sys.executable).parent / "bleukit"  # ~400 KB of sentence scores: more than a pipe holds
    proc = subprocess.Popen([str(exe), str(folder / "ref.de"), "-i", str(folder / "hyp.KIT.4950.de"), "-sl"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"BLEU|nrefs:1|")
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == -signal.SIGPIPE and err == b""


def test_help_is_argparses_at_the_terminals_width(monkeypatch, capsys):
    """The parser is built with a fixed-width formatter (argparse builds one per argument to check
    its metavar: the terminal's width would import shutil on every run); help is still formatted
    at the width argparse's own formatter takes."""
    import argparse

    from bleukit.cli.args import build_parser

    texts = []
    for columns in ("60", "140"):
        monkeypatch.setenv("COLUMNS", columns)
        parser = build_parser()
        assert parser.formatter_class is argparse.RawDescriptionHelpFormatter
        with pytest.raises(SystemExit):
            main(["--help"])
        texts.append(capsys.readouterr().out)
        assert texts[-1] == parser.format_help()
    assert texts[0] != texts[1]  # the terminal's width is used, not a fixed one


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("extra, shown", [([], True), (["--quiet"], False), (["--no-progress"], False)])
def test_progress_bar_on_a_terminal_only(monkeypatch, extra, shown):
    import bleukit.cli as cli

    monkeypatch.setattr(cli.commands, "_PROGRESS_DELAY_S", 0)  # the real bar waits 2 s before it appears
    args = [REF_A, "-i", HYP, REF_B, "-f", "text", *extra]
    err = _Terminal()
    assert main(args, stdin=io.BytesIO(), stdout=io.StringIO(), stderr=err) == 0
    assert ("scoring" in err.getvalue()) is shown
    plain = io.StringIO()  # not a terminal: never a bar
    assert main(args, stdin=io.BytesIO(), stdout=io.StringIO(), stderr=plain) == 0
    assert "scoring" not in plain.getvalue()


def test_a_metric_without_its_package_and_no_references_are_one_line_errors(monkeypatch):
    import bleukit.cli.args as cli_args

    # a metric is a package (bleukit.metrics.<name>): -m names one that this install lacks
    monkeypatch.setattr(cli_args, "available_metrics", lambda: ["bleu", "chrf"])
    code, out, err = run(REF_A, "-i", HYP, "-m", "bleu", "ter")
    assert (code, out) == (1, "") and err.strip().splitlines() == [
        "bleukit: error: -m ter: bleukit does not compute TER (it has bleu, chrf)"]
    monkeypatch.undo()
    code, out, err = run("-i", HYP)
    assert code == 1 and "no reference files" in err and "-t wmt22 -l de-en" in err


def test_empty_stdin_explains_that_positional_files_are_references():
    code, out, err = run(HYP, REF_A, stdin=b"")
    assert code == 1 and "stdin was empty" in err and "-i" in err


def test_progress_bar_of_the_paired_tests(monkeypatch):
    import bleukit.cli as cli

    monkeypatch.setattr(cli.commands, "_PROGRESS_DELAY_S", 0)
    err = _Terminal()
    args = [REF_A, "-i", HYP, REF_B, "-f", "text", "--paired-bs", "--paired-bs-n", "50"]
    assert main(args, stdin=io.BytesIO(), stdout=io.StringIO(), stderr=err) == 0
    assert "paired bootstrap" in err.getvalue() and "/50 " in err.getvalue()  # a bar over the resamples


def test_variants_prints_the_table_of_every_bleu():
    refs = [[a, b] for a, b in zip(lines(REF_A), lines(REF_B))]
    table = bleukit.compare_variants(lines(HYP), refs)
    code, out, err = run(REF_A, REF_B, "-i", HYP, "--variants", "-f", "text")
    assert code == 0, err
    assert out == table.format() + "\n"
    code, out, err = run(REF_A, REF_B, "-i", HYP, "--variants")  # JSON, sacreBLEU's default format
    assert code == 0 and json.loads(out) == json.loads(json.dumps(table.to_dict()))
    sacre = next(r for r in json.loads(out)["rows"] if r["name"] == "sacreBLEU")
    assert sacre["score"] == bleukit.corpus_bleu(lines(HYP), refs).score
    code, out, err = run(REF_A, "-i", HYP, REF_B, "--variants")
    assert code == 1 and "--variants works on one system" in err


MEMORY_LIMITED = """
import resource, sys
limit = int(sys.argv[1]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from bleukit.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /dev/zero")
def test_out_of_memory_is_a_one_line_error(tmp_path):
    # /dev/zero as input or a gzip bomb printed a MemoryError traceback. The child's address space
    # is capped, so the machine's memory is never at stake.
    import gzip
    import os

    bomb = tmp_path / "bomb.txt.gz"
    # 1 GiB of zeros in 1.2 MB: 64 gzip members of 16 MiB each (a gzip file may hold several, and
    # readers join them), compressed once rather than 64 times (5.6 s)
    bomb.write_bytes(gzip.compress(b"\0" * (1 << 24), compresslevel=9) * 64)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    for args, stdin, where in (
        ([REF_A, "-i", "/dev/zero"], None, "/dev/zero: out of memory"),
        ([str(bomb), "-i", HYP], None, f"{bomb}: out of memory"),
        ([REF_A], "/dev/zero", "out of memory"),
    ):
        with open(stdin or os.devnull, "rb") as source:
            done = subprocess.run(
                [sys.executable, "-c", MEMORY_LIMITED, "700", *args], stdin=source, capture_output=True, text=True,
                env=env, timeout=120,
            )
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("bleukit: error: ") and where in done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""
