"""Both command lines on the same files with the same arguments: output, messages and exit codes.

sacreBLEU's ``main`` and ours run in this process (sacreBLEU's through real file descriptors, as
it reopens stdin and stdout by number), so dozens of combinations stay cheap; a few real
subprocesses check what only a process shows (a pipe into ``head``, stdin a terminal).
The only difference allowed in stdout is the signature's version field.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import cli_oracle
import pytest
from cli_runs import compare, compare_stored, normalise, run_bleukit, run_sacrebleu
from shared_data import REPO, SHARED_DATA

from bleukit.metrics.bleu.formula import NUMPY_WEAK_SCALARS
from bleukit.metrics.bleu.libm import COMPENSATED_SUM

# A small corpus with what trips scorers: punctuation, numbers, case, Chinese, Japanese, Korean,
# empty lines, trailing blanks, a BOM-free U+2028 inside a line, a "\r" inside a line.
HYPS = [
    "The cat sat on the mat.",
    "It is raining, isn't it?",
    "Das ist 1,000.5 Euro teuer!",
    "",
    "Hello WORLD ",
    "我们今天去北京。",
    "東京は日本の首都です。",
    "안녕하세요 세계",
    "a\u2028b c",
    "Numbers: 3.14, -2, 1e10.",
    "x\ry z",
    "THE END.",
]
REFS = [
    [
        "The cat is on the mat.",
        "It rains, doesn't it?",
        "Das ist 1.000,5 Euro teuer.",
        "",
        "hello world",
        "我们今天去北京。",
        "東京は日本の首都だ。",
        "안녕 세계",
        "a b c",
        "Numbers: 3.14, -2, 1e10.",
        "x y z",
        "the end.",
    ],
    [
        "A cat sat on a mat.",
        "It is raining, is it not?",
        "Es kostet 1000,5 Euro!",
        "nothing",
        "Hello, World!",
        "今天我们去北京。",
        "日本の首都は東京です。",
        "안녕하세요, 세계",
        "a\u2028b c",
        "Numbers 3.14 -2 1e10",
        "x\ry z",
        "The end",
    ],
    [
        "The cat sat on the mat",
        "Raining, isn't it?",
        "1,000.5 Euro!",
        "",
        "HELLO WORLD",
        "北京",
        "東京",
        "세계",
        "ab c",
        "3.14",
        "xy z",
        "END.",
    ],
    ["cat mat", "it is raining", "Das ist teuer", "x", "world", "我们", "首都", "안녕하세요", "c", "1e10", "z", "the"],
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    paths = {}

    def write(name, lines, end="\n"):
        p = d / name
        p.write_bytes("".join(line + end for line in lines).encode("utf-8"))
        paths[name] = str(p)

    write("hyp.txt", HYPS)
    for k, refs in enumerate(REFS):
        write(f"ref{k}.txt", refs)
    write("sys2.txt", [h.lower() for h in HYPS])
    write("sys3.txt", REFS[2])
    write("refs.tsv", [a + "\t" + b for a, b in zip(REFS[0], REFS[1])])
    write("short.txt", HYPS[:3])
    write("empty.txt", [])
    write("crlf.txt", HYPS, end="\r\n")
    (d / "bad.txt").write_bytes(b"fine\n\xff\xfe broken\n" + b"x\n" * (len(HYPS) - 2))
    paths["bad.txt"] = str(d / "bad.txt")
    return paths


def refs_args(files, n: int) -> List[str]:
    return [files[f"ref{k}.txt"] for k in range(n)]


@pytest.mark.parametrize("nrefs", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "fmt",
    [
        ["-f", "json"],
        ["-f", "text"],
        ["-f", "latex"],
        ["-f", "text", "--short"],
        ["-b"],
        ["-f", "text", "-b", "-w", "3"],
        ["--short"],
    ],
)
def test_single_system_formats_and_reference_counts(files, nrefs, fmt):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], *fmt])


@pytest.mark.parametrize("tok", ["13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab"])
@pytest.mark.parametrize("lc", [[], ["-lc"]])
def test_every_tokenizer(files, tok, lc):
    if tok.endswith("mecab"):
        from bleukit.tokenizers import get_tokenizer

        try:
            get_tokenizer(tok)
        except ImportError as err:
            pytest.skip(str(err))
    compare([*refs_args(files, 2), "-i", files["hyp.txt"], "-tok", tok, *lc, "-f", "text"])


@pytest.mark.parametrize(
    "smooth",
    [
        ["-s", "exp"],
        ["-s", "floor"],
        ["-s", "floor", "-sv", "0.5"],
        ["-s", "add-k"],
        ["-s", "add-k", "--smooth-value", "2"],
        ["-s", "none"],
        ["-s", "exp", "-sv", "0.3"],
        ["--smooth-method", "none", "-w", "0"],
        ["-m", "bleu", "-w", "4"],
    ],
)
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_smoothing_and_width(files, smooth, fmt):
    compare([*refs_args(files, 1), "-i", files["hyp.txt"], *smooth, "-f", fmt])


@pytest.mark.parametrize(
    "extra",
    [[], ["--short"], ["-b"], ["-tok", "char", "-w", "3"], ["-s", "floor", "-lc"], ["-f", "json"], ["-s", "none"]],
)
@pytest.mark.parametrize("nrefs", [1, 3])
def test_sentence_level(files, extra, nrefs):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], "--sentence-level", *extra])


@pytest.mark.parametrize(
    "fmt",
    [["-f", "text"], ["-f", "json"], ["-f", "latex"], ["-f", "text", "--short"], ["-f", "latex", "-w", "2"], ["-b"]],
)
def test_several_systems(files, fmt):
    compare([*refs_args(files, 2), "-i", files["hyp.txt"], files["sys2.txt"], files["sys3.txt"], *fmt], messages=True)


def test_stdin_is_the_hypothesis_and_files_are_references(files):
    raw = Path(files["hyp.txt"]).read_bytes()
    assert compare([*refs_args(files, 2), "-b"], stdin=raw)[0] == 1  # its "\r" ends a line on stdin
    hyp = raw.replace(b"\r", b" ")
    code, out = compare([*refs_args(files, 2), "-b"], stdin=hyp)
    assert code == 0
    # tab-separated columns on stdin are systems, as in sacreBLEU
    two = b"".join(a + b"\t" + b.lower() + b"\n" for a, b in zip(hyp.splitlines(), hyp.splitlines()))
    compare([*refs_args(files, 1), "-f", "text"], stdin=two)
    # universal newlines on stdin (files split only on \n)
    compare([*refs_args(files, 1), "-f", "text"], stdin=Path(files["crlf.txt"]).read_bytes())
    compare([*refs_args(files, 1), "-i", files["crlf.txt"], "-f", "text"])


@pytest.mark.parametrize(
    "args",
    [
        ["-l", "en-zh"],
        ["-l", "en-ja"],
        ["-l", "de-ko"],
        ["-l", "de-en"],
        ["-l", "en-zh", "-tok", "13a"],
        ["-l", "en-ja", "-tok", "char"],
        ["-l", "en-ko", "-tok", "intl"],
    ],
)
def test_language_pair_picks_the_tokenizer(files, args):
    compare([*refs_args(files, 1), "-i", files["hyp.txt"], *args, "-f", "text"], messages=True)


def test_num_refs_splits_tabs(files):
    compare([files["refs.tsv"], "-i", files["hyp.txt"], "-nr", "2", "-f", "text"])
    compare([files["refs.tsv"], "-i", files["hyp.txt"], "-nr", "3"])  # exit 17
    compare([files["refs.tsv"], files["ref0.txt"], "-i", files["hyp.txt"], "-nr", "2"])  # exit 1


def test_sacrebleu_format_environment_variable(files, monkeypatch):
    monkeypatch.setenv("SACREBLEU_FORMAT", "text")
    compare([files["ref0.txt"], "-i", files["hyp.txt"]])


@pytest.mark.parametrize(
    "args",
    [
        ["@ref0.txt", "-i", "@short.txt"],  # line counts differ
        ["@ref0.txt", "-i", "@hyp.txt", "-w", "-1"],  # sacreBLEU: traceback, 1
        ["@ref0.txt", "-i", "@hyp.txt", "@sys2.txt", "-w", "-1"],
        ["@ref0.txt", "-i", "@hyp.txt", "--sentence-level", "-w", "-1"],
        ["@ref0.txt", "-i", "nonexistent.txt"],
        ["nonexistent.txt", "-i", "@hyp.txt"],
        ["@ref0.txt", "-i", "@hyp.txt", "-tok", "moses"],  # argparse: 2
        ["@ref0.txt", "-i", "@hyp.txt", "-f", "xml"],
        ["@ref0.txt", "-i", "@hyp.txt", "--paired-bs"],  # one system
        ["@ref0.txt", "-i", "@hyp.txt", "@sys2.txt", "--sentence-level"],
        ["@ref0.txt", "-i", "@hyp.txt", "@sys2.txt", "-ci"],
        ["@ref0.txt", "-i", "@hyp.txt", "--sentence-level", "-ci"],
        ["@ref0.txt", "-i", "@hyp.txt", "@hyp.txt"],  # same name twice
        ["@ref0.txt", "-i", "@hyp.txt", "--paired-bs", "--paired-ar"],  # mutually exclusive: 2
        ["@ref0.txt", "-i", "@bad.txt"],  # invalid UTF-8
        ["-i", "@hyp.txt"],  # no references
        ["@ref0.txt", "-i", "@empty.txt"],  # no segments
        ["@empty.txt", "-i", "@hyp.txt"],
        ["-", "-i", "@hyp.txt"],  # '-' as a reference (sacreBLEU: traceback, 1)
        ["@ref0.txt", "-"],
    ],
)
def test_errors_have_sacrebleus_exit_codes(files, args):
    args = [files[a[1:]] if a.startswith("@") else a for a in args]
    code, out = compare(args)
    assert code != 0 and out == ""


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_utf16_without_a_byte_order_mark_stops_as_sacrebleu(files, tmp_path, encoding):
    # "-e utf-16" on a file without a BOM was decoded as little-endian and scored (exit 0);
    # sacreBLEU's text-mode file stops with "UTF-16 stream does not start with BOM".
    codec = {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}[encoding]
    plain = tmp_path / "plain.txt"
    plain.write_bytes("".join(h + "\n" for h in HYPS).encode(codec))
    marked = tmp_path / "marked.txt"
    marked.write_bytes("".join(h + "\n" for h in HYPS).encode(encoding))
    ref = tmp_path / "ref.txt"
    ref.write_bytes("".join(r + "\n" for r in REFS[0]).encode(encoding))
    code, out = compare([str(ref), "-i", str(plain), "-e", encoding])
    assert code == 1 and out == ""
    code, out, err = run_bleukit([str(ref), "-i", str(plain), "-e", encoding])
    assert err == f"bleukit: error: {plain}: {encoding.upper()} stream does not start with BOM (-e {encoding})\n"
    code, out, err = run_bleukit([str(ref), "-e", encoding], stdin=plain.read_bytes())
    assert code == 1 and "stdin: " + encoding.upper() + " stream does not start with BOM" in err
    assert compare([str(ref), "-i", str(marked), "-e", encoding, "-b"])[0] == 0  # with a BOM: read as sacreBLEU


def test_stdin_with_different_numbers_of_columns_is_exit_17(files):
    compare([files["ref0.txt"]], stdin=b"a\tb\n" + b"c\n" * (len(HYPS) - 1))


def test_a_reference_named_dash_says_what_dash_means(files):
    for refs in (["-"], [files["ref0.txt"], "-"]):
        code, out, err = run_bleukit([*refs, "-i", files["hyp.txt"]], stdin=b"x\n")
        assert code == 1 and out == ""
        assert err.startswith("bleukit: error: '-' is not a reference file: '-' means STDIN"), err
        assert "-i -" in err and err.count("\n") == 1


def test_error_messages_name_the_file_and_line(files):
    code, out, err = run_bleukit([files["ref0.txt"], "-i", files["bad.txt"]])
    assert code == 1 and f"{files['bad.txt']}, line 2: not valid utf-8" in err and "Traceback" not in err
    code, out, err = run_bleukit([files["ref0.txt"], "-i", files["short.txt"]])
    assert code == 1 and f"{files['short.txt']}: 3 lines" in err and f"{files['ref0.txt']}: {len(HYPS)}" in err
    code, out, err = run_bleukit([files["ref0.txt"], "-i", files["hyp.txt"], "-w", "-1"])
    assert code == 1 and err == "bleukit: error: -w/--width must be >= 0, got -1\n"
    code, out, err = run_bleukit([files["refs.tsv"], "-i", files["hyp.txt"], "-nr", "3"])
    assert code == 17 and f"{files['refs.tsv']}, line 1: expected 3" in err


@pytest.mark.parametrize(
    "args, words",
    [
        # the test-set options work (tests/testsets/); with reference files they are sacreBLEU's errors
        (["-t", "wmt14", "-l", "en-de"], "exactly one of (a) a predefined test set (-t) or (b) a list of references"),
        (["--echo", "src"], "need a test set (-t)"),
    ],
)
def test_what_bleukit_does_not_do_is_one_clear_line(files, args, words):
    code, out, err = run_bleukit([files["ref0.txt"], "-i", files["hyp.txt"], *args])
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and words in err, err


def test_tokenized_period_warning_and_force(tmp_path):
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b .\n" * 120, encoding="utf-8")
    ref.write_text("a b.\n" * 120, encoding="utf-8")
    compare([str(ref), "-i", str(hyp), "-f", "text"], messages=True)
    compare([str(ref), "-i", str(hyp), "-f", "text", "--force"], messages=True)


def test_explain_prints_the_matches_of_one_line(files):
    import bleukit
    from bleukit.metrics.bleu.options import BleuOptions

    code, out, err = run_bleukit([*refs_args(files, 2), "-i", files["hyp.txt"], "--explain", "2", "-f", "text"])
    assert code == 0, err
    ex = bleukit.explain_bleu(HYPS[1], [REFS[0][1], REFS[1][1]], options=BleuOptions())
    lines = out.splitlines()
    assert lines[0].startswith("line 2: BLEU|nrefs:2|")
    for order in ex.orders:
        assert any(line.startswith(f"{order.order}-grams {order.matched}/{order.total} ") for line in lines)
    code, out, err = run_bleukit([*refs_args(files, 2), "-i", files["hyp.txt"], "--explain", "2"])
    assert json.loads(out) == ex.to_dict()
    code, out, err = run_bleukit([*refs_args(files, 2), "-i", files["hyp.txt"], "--explain", "99"])
    assert code == 1 and "there are 12 lines" in err


def test_help_marks_our_additions(capsys):
    code, _, _ = run_bleukit(["--help"])
    out = capsys.readouterr().out
    assert code == 0 and "bleukit additions (not in sacreBLEU)" in out and "--explain N" in out
    # sacreBLEU's test-set options are bleukit's now (tests/testsets/)
    assert "--test-set TEST_SET, -t TEST_SET" in out and "--echo ECHO [ECHO ...]" in out


# ---- the shared real data ------------------------------------------------------------------


def _data(dataset: str, *names: str) -> List[str]:
    folder = SHARED_DATA / dataset
    if not folder.exists():
        pytest.skip(f"real MT data not found at {SHARED_DATA}")
    return [str(folder / n) for n in names]


def test_real_data_wmt22_two_references(files):
    ref_a, ref_b, hyp = _data("wmt22-de-en", "ref.A.en", "ref.B.en", "hyp.LT22.en")
    compare([ref_a, ref_b, "-i", hyp])
    compare([ref_a, ref_b, "-f", "text", "--short"], stdin=Path(hyp).read_bytes())


def test_real_data_chinese_by_language_pair():
    ref_a, ref_b, h1, h2 = _data("wmt22-en-zh", "ref.A.zh", "ref.B.zh", "hyp.LanguageX.zh", "hyp.Online-B.zh")
    compare([ref_a, ref_b, "-i", h1, h2, "-l", "en-zh", "-f", "text"])


def test_real_data_japanese_by_language_pair():
    from bleukit.tokenizers import get_tokenizer

    try:
        get_tokenizer("ja-mecab")
    except ImportError as err:
        pytest.skip(str(err))
    ref, hyp = _data("kftt-en-ja", "ref.ja", "hyp.ja")
    compare([ref, "-i", hyp, "-l", "en-ja", "-f", "text"])


@pytest.mark.parametrize(
    "data, extra",
    [
        (("wmt22-en-zh", "ref.A.zh", "ref.B.zh", "hyp.Online-B.zh"), ["-tok", "char"]),
        (("wmt22-en-zh", "ref.A.zh", "ref.B.zh", "hyp.LanguageX.zh"), ["-tok", "zh", "-s", "floor"]),
        (("wmt22-de-en", "ref.A.en", "ref.B.en", "hyp.Online-A.en"), ["-tok", "intl", "-lc"]),
        (("wmt17-en-de", "ref.de", "hyp.KIT.4950.de"), ["-s", "add-k"]),
        (("wmt17-en-de", "ref.de", "hyp.online-A.0.de"), ["-tok", "none", "-s", "none"]),
    ],
    ids=lambda x: "-".join(x) if isinstance(x[0], str) and x[0].startswith("-") else x[-1],
)
@pytest.mark.parametrize("fmt", [["-f", "text"], ["-f", "json"], ["-b"], ["-f", "text", "--sentence-level"]])
def test_real_data_to_the_last_digit(data, extra, fmt):
    """-w 14 prints every digit of a double: the scores are sacreBLEU's bit for bit."""
    *refs, hyp = _data(*data)
    compare([*refs, "-i", hyp, "-w", "14", *extra, *fmt])


@pytest.mark.parametrize("tok", ["13a", "intl", "zh", "char", "none"])
@pytest.mark.parametrize("smooth", [["-s", "exp"], ["-s", "floor", "-sv", "0.3"], ["-s", "add-k"], ["-s", "none"]])
def test_every_tokenizer_and_smoothing_to_the_last_digit(files, tok, smooth):
    base = [*refs_args(files, 3), "-i", files["hyp.txt"], "-tok", tok, *smooth, "-w", "14"]
    compare([*base, "-f", "text"])
    compare([*base, "-lc", "-f", "json"])
    compare([*base, "--sentence-level"])


@pytest.mark.slow
def test_real_data_five_systems_sentence_level():
    names = [
        "ref.de",
        "hyp.LIUM-NMT.4900.de",
        "hyp.online-B.0.de",
        "hyp.uedin-nmt.4722.de",
        "hyp.KIT.4950.de",
        "hyp.online-A.0.de",
    ]
    ref, *hyps = _data("wmt17-en-de", *names)
    compare([ref, "-i", *hyps, "-f", "text"])
    compare([ref, "-i", hyps[0], "--sentence-level", "-lc"])


# ---- significance (issue 10) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "test",
    [
        ["--paired-bs"],
        ["--paired-ar", "--paired-ar-n", "2000"],
        ["--paired-bs", "--paired-bs-n", "300", "--short", "-f", "text"],
        ["-pbs", "-f", "latex"],
        ["-par", "-parn", "1000", "-f", "text", "-w", "3"],
        ["-pbs", "-pbsn", "500", "-f", "text", "-w", "2"],
        ["-par", "-parn", "500", "-f", "json"],
        ["-pbs", "-pbsn", "200", "-f", "json"],
    ],
)
def test_paired_tests_like_sacrebleu(files, test):
    # sacreBLEU's default format here is JSON, with every float at full precision: byte for byte.
    args = [*refs_args(files, 2), "-i", files["hyp.txt"], files["sys2.txt"], files["sys3.txt"], *test]
    compare(args, messages=True)


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-f", "text"],
        ["-f", "text", "--confidence-n", "200", "-w", "3"],
        ["-b", "-f", "text"],
        ["--confidence-n", "1", "-f", "text"],
    ],
)
def test_confidence_interval_like_sacrebleu(files, extra):
    compare([*refs_args(files, 2), "-i", files["hyp.txt"], "-ci", *extra])


def test_seed_environment_variable_and_flag(files, monkeypatch):
    args = [*refs_args(files, 1), "-i", files["hyp.txt"], files["sys2.txt"], "-pbs", "-pbsn", "200", "-f", "text"]
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    _, seven = compare(args)
    monkeypatch.delenv("SACREBLEU_SEED")
    code, flag, err = run_bleukit([*args, "--seed", "7"])
    assert code == 0 and flag == seven and "seed:7" in flag


@pytest.mark.skipif(COMPENSATED_SUM, reason="recorded on a Python whose sum() adds left to right (before 3.12)")
@pytest.mark.parametrize(
    "key",
    [
        # sacreBLEU's bootstrap precisions are float32 arithmetic with numpy 2, float64 with numpy 1
        pytest.param(key, marks=pytest.mark.skipif(not NUMPY_WEAK_SCALARS, reason="recorded with numpy 2"))
        for key in ["none/bs/2000", "13a/bs/1000"]
    ]
    + ["none/ar/10000", "13a/ar/10000"],
)
def test_paired_expected_file_reproduced_by_the_cli(key):
    names = [
        "ref.de",
        "hyp.LIUM-NMT.4900.de",
        "hyp.online-B.0.de",
        "hyp.uedin-nmt.4722.de",
        "hyp.KIT.4950.de",
        "hyp.online-A.0.de",
    ]
    ref, *hyps = _data("wmt17-en-de", *names)
    expected = json.loads((SHARED_DATA / "wmt17-en-de" / "paired_tests_expected.json").read_text())[key]
    tok, method, n = key.split("/")
    code, out, err = run_bleukit(
        [
            ref,
            "-i",
            *hyps,
            "-tok",
            tok,
            f"--paired-{method}",
            f"--paired-{method}-n",
            n,
            "-f",
            "json",
            "-q",
            "--seed",
            "12345",
        ]
    )
    assert code == 0, err
    got = {row["system"].replace("Baseline: ", "").split("/hyp.")[-1][:-3]: row["BLEU"] for row in json.loads(out)}
    assert got == expected


# ---- real processes ------------------------------------------------------------------------


def _process(args: List[str], stdin=None, input: Optional[bytes] = None, env=None):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "bleukit", *args], stdin=stdin, input=input, capture_output=True, env=environment
    )


def test_piped_hypotheses_use_the_positional_files_as_references():
    """`cat hyp.txt | bleukit ref1.txt ref2.txt` is sacreBLEU's 64.0, not ref1 scored against ref2."""
    examples = REPO / "examples"
    out = _process(
        [str(examples / "refs.a.txt"), str(examples / "refs.b.txt"), "-b"], input=(examples / "hyps.txt").read_bytes()
    )
    assert out.returncode == 0 and out.stdout == b"64.0\n", out.stderr


def test_stdin_a_terminal_without_i_is_an_error_not_a_guess(files):
    import pty

    master, slave = pty.openpty()
    try:
        out = _process([files["hyp.txt"], files["ref0.txt"]], stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert out.returncode == 1 and out.stdout == b""
    assert b"no hypotheses" in out.stderr and b"-i HYP" in out.stderr


@pytest.mark.slow
def test_pipe_into_head_prints_no_broken_pipe_error(tmp_path):
    hyp = tmp_path / "h.txt"
    hyp.write_text("a b c d e\n" * 200000, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    cmd = f"{sys.executable} -m bleukit {hyp} -i {hyp} --sentence-level | head -n 1"
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, env=env)
    assert out.stdout.count(b"\n") == 1 and out.stderr == b"", out.stderr


def _on_terminal(cmd: List[str], env: dict) -> bytes:
    """stdout of a command whose stdout is a terminal (sacreBLEU colours only there)."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while select.select([master], [], [], 10)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(master)
    return out


@pytest.mark.parametrize("extra", [["-f", "text"], ["-f", "text", "--no-color"]])
def test_colours_on_a_terminal_like_sacrebleu(files, extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.pop("NO_COLOR", None)
    args = [files["ref0.txt"], "-i", files["hyp.txt"], files["sys2.txt"], *extra]
    theirs = _on_terminal([sys.executable, "-m", "sacrebleu", *args], env)
    ours = _on_terminal([sys.executable, "-m", "bleukit", *args], env)
    assert normalise(ours.decode()) == normalise(theirs.decode())
    assert (b"\x1b[36mSystem\x1b[0m" in ours) is ("--no-color" not in extra)


# ---- chrF and chrF++ (issue 22) -------------------------------------------------------------

CHRF_METRICS = [
    ["-m", "chrf"],
    ["-m", "chrf", "-cw", "2"],
    ["-m", "bleu", "chrf"],
    ["-m", "chrf", "bleu", "--chrf-word-order", "2"],
]


@pytest.mark.parametrize("nrefs", [1, 4])
@pytest.mark.parametrize(
    "fmt",
    [
        ["-f", "json"],
        ["-f", "text"],
        ["-f", "latex"],
        ["-f", "text", "--short"],
        ["-b"],
        ["-f", "text", "-b", "-w", "3"],
        ["--short"],
        ["-w", "0"],
    ],
)
@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
def test_chrf_single_system_formats(files, nrefs, fmt, metrics):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], *metrics, *fmt], messages=True)


@pytest.mark.parametrize(
    "options",
    [
        ["--chrf-char-order", "4"],
        ["-cc", "1"],
        ["-cc", "12", "-cw", "4"],
        ["-cw", "1"],
        ["-cw", "7"],
        ["--chrf-beta", "1"],
        ["--chrf-beta", "0"],
        ["--chrf-beta", "3", "-cw", "2"],
        ["--chrf-whitespace"],
        ["--chrf-lowercase"],
        ["--chrf-eps-smoothing"],
        ["--chrf-eps-smoothing", "-cw", "2", "--chrf-lowercase", "--chrf-whitespace"],
        ["--chrf-beta", "1.5"],  # an int option: argparse's exit 2
        ["-lc", "-tok", "char"],  # BLEU's options leave chrF alone
    ],
)
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_every_chrf_option(files, options, fmt):
    compare([*refs_args(files, 3), "-i", files["hyp.txt"], "-m", "chrf", *options, "-f", fmt], messages=True)


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-f", "text"],
        ["--short", "-f", "text"],
        ["-b"],
        ["-cw", "2", "-w", "3"],
        ["--chrf-lowercase", "-f", "text"],
        ["--chrf-eps-smoothing", "--chrf-whitespace"],
    ],
)
@pytest.mark.parametrize("nrefs", [1, 3])
def test_chrf_sentence_level(files, extra, nrefs):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], "--sentence-level", "-m", "chrf", *extra])


@pytest.mark.parametrize(
    "fmt",
    [["-f", "text"], ["-f", "json"], ["-f", "latex"], ["-f", "text", "--short"], ["-f", "latex", "-w", "2"], ["-b"]],
)
@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
def test_chrf_several_systems(files, fmt, metrics):
    compare(
        [*refs_args(files, 2), "-i", files["hyp.txt"], files["sys2.txt"], files["sys3.txt"], *metrics, *fmt],
        messages=True,
    )


@pytest.mark.parametrize(
    "test",
    [
        ["--paired-bs", "-pbsn", "300", "-f", "text"],
        ["--paired-bs", "-pbsn", "200", "-f", "latex", "--short"],
        ["--paired-bs", "-pbsn", "200", "-f", "text", "-w", "14"],  # float32 means and intervals
        ["--paired-ar", "-parn", "1000", "-f", "text", "-w", "3"],
        ["--paired-ar", "-parn", "500", "-f", "latex"],
        ["--paired-ar", "-parn", "500"],  # JSON
    ],
)
@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
def test_chrf_paired_tests_like_sacrebleu(files, test, metrics):
    """Tables, JSON and the log lines (per system and metric: its statistics, then its test)."""
    args = [*refs_args(files, 2), "-i", files["hyp.txt"], files["sys2.txt"], files["sys3.txt"], *metrics, *test]
    # Every float at full precision in the JSON (approximate randomization's): byte for byte.
    compare(args, messages=True)


@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
def test_chrf_paired_bootstrap_json_where_sacrebleu_crashes(files, metrics):
    """sacreBLEU 2.6 resamples chrF in float32 and its JSON writer then fails on the float32 mean
    (a traceback, exit 1, nothing on stdout); bleukit writes the JSON, with sacreBLEU's numbers as
    its PairedTest computes them."""
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    args = [
        *refs_args(files, 2),
        "-i",
        files["hyp.txt"],
        files["sys2.txt"],
        files["sys3.txt"],
        *metrics,
        "-pbs",
        "-pbsn",
        "300",
    ]
    code_s, out_s, _ = run_sacrebleu(args)
    assert code_s == 1 and out_s == ""
    code_b, out_b, err_b = run_bleukit(args)
    assert code_b == 0, err_b
    ours = json.loads(out_b)
    names = [files["hyp.txt"], files["sys2.txt"], files["sys3.txt"]]
    systems = [("Baseline: " + names[0] if k == 0 else names[k], HYPS if k == 0 else read(names[k])) for k in range(3)]
    word_order = 2 if "2" in metrics else 0
    streams = REFS[:2]
    wanted = {"bleu": BLEU(references=streams), "chrf": CHRF(word_order=word_order, references=streams)}
    given = [m for m in metrics[1:] if m in wanted]
    _, scores = PairedTest(
        systems, {m.upper(): wanted[m] for m in given}, references=None, test_type="bs", n_samples=300
    )()
    assert [row["system"] for row in ours] == scores["System"]
    for metric, records in scores.items():
        if metric == "System":
            continue
        for row, theirs in zip(ours, records):
            assert row[metric]["score"] == theirs.score
            assert row[metric]["p_value"] == theirs.p_value
            # sacreBLEU's chrF resamples are float32 arithmetic (its JSON cannot print them), bleukit's too
            assert (row[metric]["mean"], row[metric]["ci"]) == (float(theirs.mean), float(theirs.ci))


def read(path: str) -> List[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-f", "text"],
        ["-f", "text", "--confidence-n", "200", "-w", "3"],
        ["-b", "-f", "text"],
        ["-b"],
        ["-w", "14"],  # sacreBLEU's float32 mean and interval to the last digit
        ["-f", "text", "--confidence-n", "300", "-w", "14"],
    ],
)
@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
def test_chrf_confidence_interval_like_sacrebleu(files, extra, metrics):
    compare([*refs_args(files, 2), "-i", files["hyp.txt"], "-ci", *metrics, *extra])


@pytest.mark.parametrize("metrics", CHRF_METRICS, ids=[" ".join(m) for m in CHRF_METRICS])
@pytest.mark.parametrize(
    "extra",
    [
        ["-f", "text"],
        ["-f", "text", "--force"],
        ["-pbs", "-pbsn", "50", "-f", "text"],
        ["-par", "-parn", "50", "-f", "text"],
    ],
)
def test_tokenized_period_warning_is_bleus_alone(tmp_path, metrics, extra):
    """sacreBLEU warns about tokenized text when BLEU counts it (once per system), never for chrF."""
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b .\n" * 120, encoding="utf-8")
    ref.write_text("a b.\n" * 120, encoding="utf-8")
    if "-pbs" not in extra and "-par" not in extra:
        compare([str(ref), "-i", str(hyp), *metrics, *extra], messages=True)
    compare([str(ref), "-i", str(hyp), str(ref), *metrics, *extra], messages=True)


@pytest.mark.parametrize(
    "options, words",
    [
        (["-cc", "0"], "char_order must be between 1 and 1000, got 0"),
        (["-cc", "0", "-cw", "2"], "char_order must be between 1 and 1000, got 0"),
        (["-cw", "-1"], "word_order must be between 0 and 1000, got -1"),
        (["--chrf-beta", "-1"], "beta must be a finite number >= 0, got -1"),
    ],
)
def test_chrf_values_sacrebleu_accepts_silently_are_one_clear_line(files, options, words):
    """sacreBLEU scores these anyway (a negative word order counts as 0 but is printed, beta -1 is
    beta 1 named chrF-1, no character orders leaves a word F-score); bleukit says what is wrong."""
    code, out, err = run_bleukit([files["ref0.txt"], "-i", files["hyp.txt"], "-m", "chrf", *options])
    assert code == 1 and out == "" and err == f"bleukit: error: {words}\n"


def test_real_data_chrf_two_references():
    ref_a, ref_b, hyp = _data("wmt22-de-en", "ref.A.en", "ref.B.en", "hyp.LT22.en")
    compare([ref_a, ref_b, "-i", hyp, "-m", "bleu", "chrf"], messages=True)
    compare([ref_a, ref_b, "-i", hyp, "-m", "chrf", "-cw", "2", "-f", "text", "--short"], messages=True)
    compare([ref_a, "-i", hyp, "-m", "chrf", "-cw", "2", "--sentence-level", "-f", "text"])


@pytest.mark.slow
def test_real_data_chrf_five_systems_tables_and_paired_test(shared_data):
    """WMT17 en-de, five systems: chrF and BLEU tables, paired bootstrap and randomization, an
    interval; sacreBLEU's answers are stored (cli_oracle.py)."""
    for args, messages in cli_oracle.RUNS["chrf-five-systems-tables-and-paired-test"]:
        compare_stored(args, messages=messages)


def test_explain_prints_the_chrf_matches_of_one_line(files):
    from bleukit import ChrfOptions
    from bleukit.analysis.chrf_explanation import explain_chrf

    args = [*refs_args(files, 2), "-i", files["hyp.txt"], "--explain", "2", "-m", "chrf", "-cw", "2"]
    code, out, err = run_bleukit([*args, "-f", "text"])
    assert code == 0, err
    ex = explain_chrf(HYPS[1], [REFS[0][1], REFS[1][1]], options=ChrfOptions(word_order=2))
    lines = out.splitlines()
    code_s, theirs, _ = run_sacrebleu(
        [*refs_args(files, 2), "-i", files["hyp.txt"], "-m", "chrf", "-cw", "2", "--sentence-level", "-f", "text"]
    )
    # the line's score and signature are sacreBLEU's sentence-level line
    assert normalise(lines[0]) == "line 2: " + normalise(theirs.splitlines()[1])
    for order in ex.orders:
        assert any(
            line.startswith(f"{order.kind} {order.n}-grams {order.matched}/{order.hyp_total} ") for line in lines
        )
    code, out, err = run_bleukit(args)
    assert code == 0 and json.loads(out) == ex.to_dict()


def test_explain_prints_the_ter_edits_of_one_line(files):
    from bleukit import TerOptions
    from bleukit.analysis.ter_explanation import explain_ter

    args = [*refs_args(files, 2), "-i", files["hyp.txt"], "--explain", "2", "-m", "ter", "--ter-normalized"]
    code, out, err = run_bleukit([*args, "-f", "text"])
    assert code == 0, err
    ex = explain_ter(HYPS[1], [REFS[0][1], REFS[1][1]], options=TerOptions(normalized=True))
    lines = out.splitlines()
    code_s, theirs, _ = run_sacrebleu(
        [*refs_args(files, 2), "-i", files["hyp.txt"], "-m", "ter", "--ter-normalized", "--sentence-level",
         "-f", "text"]
    )
    # the line's score and signature are sacreBLEU's sentence-level line, then the explanation
    assert normalise(lines[0]) == "line 2: " + normalise(theirs.splitlines()[1])
    assert lines[1:] == str(ex).splitlines()
    code, out, err = run_bleukit(args)
    assert code == 0 and json.loads(out) == ex.to_dict()
