"""TER on both command lines (issue 23): the same files and arguments, byte-identical output.

Every TER switch (``--ter-normalized``, ``--ter-no-punct``, ``--ter-asian-support``,
``--ter-case-sensitive``), TER with BLEU and chrF, every format, several references and systems,
sentence level, ``--confidence`` and the paired tests (TER is lower is better). sacreBLEU's
bootstrap scores its resamples from float32 sums; where that shows (the bootstrap mean and interval
in JSON, and its crash on writing a float32 as JSON) the tests say so and compare sacreBLEU's own
``PairedTest`` numbers within float32's rounding.
"""

from __future__ import annotations

import json
from typing import List

import cli_oracle
import pytest
from cli_runs import compare, compare_stored, normalise, run_bleukit, run_sacrebleu

# What TER's options act on: shifted blocks, repeated words, case, punctuation (ASCII, CJK and
# full-width), XML entities and hyphens for the normalisation, CJK text, empty lines, a longer line
# with blocks shifted (kept short: sacreBLEU's shift search takes seconds on a shuffled 50-word line).
_LONG = (
    "the committee said on tuesday that the new rules , which take effect next year , would cut costs for small firms"
)
_WORDS = _LONG.split()
HYPS = [
    "The cat sat on the mat.",
    "on the mat the cat sat",
    "It is raining, isn't it?",
    "Das ist 1,000.5 Euro teuer!",
    "",
    "Hello WORLD ",
    "我们今天去北京。",
    "東京は日本の首都です、ね！",
    "안녕하세요 세계",
    "a &amp; b &lt;c&gt; e-mail's (quoted) \"text\"",
    "the the the a the the a a the",
    "Numbers: 3.14, -2, 1e10.",
    _LONG,
    "THE END.",
]
REFS = [
    [
        "The cat is on the mat.",
        "the cat sat on the mat",
        "It rains, doesn't it?",
        "Das ist 1.000,5 Euro teuer.",
        "",
        "hello world",
        "我们今天去北京。",
        "東京は日本の首都だ。",
        "안녕 세계",
        "a & b <c> email's quoted text",
        "a the the the a the the a",
        "Numbers: 3.14, -2, 1e10.",
        " ".join(_WORDS[12:] + _WORDS[:12]),
        "the end.",
    ],
    [
        "A cat sat on a mat.",
        "the mat the cat sat on",
        "It is raining, is it not?",
        "Es kostet 1000,5 Euro!",
        "nothing",
        "Hello, World!",
        "今天我们去北京。",
        "日本の首都は東京です。",
        "안녕하세요, 세계",
        "a &amp; b (c) e-mail 's text",
        "the a the",
        "Numbers 3.14 -2 1e10",
        "next year the new rules would cut costs for small firms , the committee said on tuesday",
        "The end",
    ],
    [
        "The cat sat on the mat",
        "cat mat",
        "Raining, isn't it?",
        "1,000.5 Euro!",
        "",
        "HELLO WORLD",
        "北京",
        "東京",
        "세계",
        "",
        "the",
        "3.14",
        " ".join(_WORDS[4:8] + _WORDS[:4] + _WORDS[8:]).upper(),
        "END.",
    ],
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ter-cli")
    paths = {}

    def write(name, lines):
        (d / name).write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
        paths[name] = str(d / name)

    write("hyp.txt", HYPS)
    for k, refs in enumerate(REFS):
        write(f"ref{k}.txt", refs)
    write("sys2.txt", [h.lower() for h in HYPS])
    write("sys3.txt", REFS[2])
    # the last column has no empty line: sacreBLEU strips a line's trailing tab and finds 2 fields
    write("refs.tsv", ["\t".join(refs) for refs in zip(REFS[2], REFS[0], REFS[1])])
    return paths


def refs_args(files, n: int) -> List[str]:
    return [files[f"ref{k}.txt"] for k in range(n)]


def systems(files) -> List[str]:
    return [files["hyp.txt"], files["sys2.txt"], files["sys3.txt"]]


TER_METRICS = [
    ["-m", "ter"],
    ["-m", "bleu", "chrf", "ter"],
    ["-m", "ter", "bleu", "--ter-case-sensitive"],
    ["-m", "chrf", "ter", "-cw", "2", "--ter-normalized", "--ter-no-punct"],
]
METRIC_IDS = [" ".join(m) for m in TER_METRICS]

TER_OPTIONS = [
    [],
    ["--ter-normalized"],
    ["--ter-no-punct"],
    ["--ter-asian-support"],
    ["--ter-case-sensitive"],
    ["--ter-normalized", "--ter-asian-support"],
    ["--ter-no-punct", "--ter-asian-support"],
    ["--ter-normalized", "--ter-no-punct", "--ter-asian-support", "--ter-case-sensitive"],
    ["--ter-case-sensitive", "--ter-no-punct"],
    ["-lc", "-tok", "char", "--chrf-lowercase"],  # other metrics' options leave TER alone
]


@pytest.mark.parametrize("nrefs", [1, 3])
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
        ["-w", "4", "-f", "text"],
    ],
)
@pytest.mark.parametrize("metrics", TER_METRICS, ids=METRIC_IDS)
def test_ter_single_system_formats(files, nrefs, fmt, metrics):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], *metrics, *fmt], messages=True)


@pytest.mark.parametrize("options", TER_OPTIONS, ids=[" ".join(o) or "defaults" for o in TER_OPTIONS])
@pytest.mark.parametrize("fmt", [["-f", "json"], ["-f", "text"], ["-f", "text", "--short"]])
def test_every_ter_option(files, options, fmt):
    compare([*refs_args(files, 3), "-i", files["hyp.txt"], "-m", "ter", *options, *fmt], messages=True)


@pytest.mark.parametrize("options", TER_OPTIONS[:8], ids=[" ".join(o) or "defaults" for o in TER_OPTIONS[:8]])
@pytest.mark.parametrize("nrefs", [1, 2])
def test_every_ter_option_sentence_level(files, options, nrefs):
    compare([*refs_args(files, nrefs), "-i", files["hyp.txt"], "--sentence-level", "-m", "ter", *options])


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-f", "text"],
        ["--short", "-f", "text"],
        ["-b"],
        ["-w", "3"],
        ["-m", "ter", "bleu", "chrf", "-f", "text"],
        ["-m", "bleu", "ter"],
    ],
)
def test_ter_sentence_level_formats(files, extra):
    metrics = [] if "-m" in extra else ["-m", "ter"]
    compare([*refs_args(files, 3), "-i", files["hyp.txt"], "-sl", *metrics, *extra])


@pytest.mark.parametrize(
    "refs",
    [
        ["refs.tsv", "-nr", "3"],
        ["ref0.txt", "ref1.txt"],
        ["ref2.txt", "ref0.txt", "ref1.txt"],
    ],
    ids=["tsv -nr 3", "two files", "three files"],
)
@pytest.mark.parametrize("fmt", [["-f", "json"], ["-f", "text"], ["-sl"]])
def test_ter_several_references(files, refs, fmt):
    given = [files.get(r, r) for r in refs]
    metrics = ["-m", "ter"] if "-sl" in fmt else ["-m", "ter", "bleu"]  # one metric at sentence level
    compare([*given, "-i", files["hyp.txt"], *metrics, *fmt], messages=True)


def test_ter_several_references_from_stdin(files):
    with open(files["hyp.txt"], "rb") as f:
        stdin = f.read()
    compare([files["refs.tsv"], "-nr", "3", "-m", "ter", "-f", "text"], stdin=stdin, messages=True)


@pytest.mark.parametrize(
    "fmt",
    [["-f", "text"], ["-f", "json"], ["-f", "latex"], ["-f", "text", "--short"], ["-f", "latex", "-w", "2"], ["-b"]],
)
@pytest.mark.parametrize("metrics", TER_METRICS, ids=METRIC_IDS)
def test_ter_several_systems(files, fmt, metrics):
    compare([*refs_args(files, 2), "-i", *systems(files), *metrics, *fmt], messages=True)


@pytest.mark.parametrize(
    "test",
    [
        ["--paired-bs", "-pbsn", "300", "-f", "text"],
        ["--paired-bs", "-pbsn", "200", "-f", "latex", "--short"],
        ["--paired-ar", "-parn", "1000", "-f", "text", "-w", "3"],
        ["--paired-ar", "-parn", "500", "-f", "latex"],
        ["--paired-ar", "-parn", "500"],  # JSON
    ],
)
@pytest.mark.parametrize("metrics", TER_METRICS, ids=METRIC_IDS)
def test_ter_paired_tests_like_sacrebleu(files, test, metrics):
    """Tables, JSON and log lines, lower is better for TER (its p-values and the stars)."""
    args = [*refs_args(files, 2), "-i", *systems(files), *metrics, *test]
    if "-f" not in test:
        code_s, out_s, log_s = run_sacrebleu(args)
        code_b, out_b, err_b = run_bleukit(args)
        assert code_s == code_b == 0, err_b
        assert [line[len("bleukit: ") :] for line in err_b.splitlines()] == log_s
        assert normalise(out_b) == normalise(out_s)
    else:
        compare(args, messages=True)


@pytest.mark.parametrize(
    "extra",
    [[], ["-f", "text"], ["-f", "text", "--confidence-n", "200", "-w", "3"], ["-b", "-f", "text"], ["-b"], ["--short"]],
)
@pytest.mark.parametrize("metrics", TER_METRICS, ids=METRIC_IDS)
def test_ter_confidence_interval_like_sacrebleu(files, extra, metrics):
    compare([*refs_args(files, 2), "-i", files["hyp.txt"], "-ci", *metrics, *extra], messages=True)


# sacreBLEU scores each bootstrap resample of TER from float32 sums of the sentences' edits and
# average reference lengths (significance.py: np.array(stats, dtype='float32')) in float32; so does
# bleukit (Metric.float32_rows / float32_scores, issue 20): byte for byte at eight digits too.
@pytest.mark.parametrize("test", [["-ci"], ["-pbs", "-pbsn", "300"]], ids=["confidence", "paired-bs"])
def test_ter_bootstrap_at_eight_digits_is_sacrebleus_float32(files, test):
    hyps = [files["hyp.txt"]] if test == ["-ci"] else systems(files)
    compare([*refs_args(files, 2), "-i", *hyps, "-m", "ter", *test, "-w", "8", "-f", "text"])


@pytest.mark.parametrize("metrics", TER_METRICS, ids=METRIC_IDS)
def test_ter_paired_bootstrap_json_where_sacrebleu_crashes(files, metrics):
    """sacreBLEU 2.6's TER resamples are float32 numbers, which its JSON writer cannot write (a
    traceback, exit 1, nothing on stdout); bleukit writes the JSON, with the numbers sacreBLEU's
    own PairedTest computes, all equal (its float32 means and intervals included)."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    from sacrebleu.significance import PairedTest

    args = [*refs_args(files, 2), "-i", *systems(files), *metrics, "-pbs", "-pbsn", "300"]
    code_s, out_s, _ = run_sacrebleu(args)
    assert code_s == 1 and out_s == ""
    code_b, out_b, err_b = run_bleukit(args)
    assert code_b == 0, err_b
    ours = json.loads(out_b)
    names = systems(files)
    hyps = [_read(name) for name in names]
    streams = REFS[:2]
    wanted = {
        "bleu": BLEU(references=streams),
        "chrf": CHRF(word_order=2 if "2" in metrics else 0, references=streams),
        "ter": TER(
            normalized="--ter-normalized" in metrics,
            no_punct="--ter-no-punct" in metrics,
            case_sensitive="--ter-case-sensitive" in metrics,
            references=streams,
        ),
    }
    given = [m for m in metrics[1:] if m in wanted]
    named = [("Baseline: " + names[0] if k == 0 else names[k], hyps[k]) for k in range(3)]
    _, scores = PairedTest(named, {m.upper(): wanted[m] for m in given}, references=None, test_type="bs",
                           n_samples=300)()
    assert [row["system"] for row in ours] == scores["System"]
    for metric, records in scores.items():
        if metric == "System":
            continue
        for row, theirs in zip(ours, records):
            assert row[metric]["score"] == theirs.score
            assert row[metric]["p_value"] == theirs.p_value
            assert (row[metric]["mean"], row[metric]["ci"]) == (float(theirs.mean), float(theirs.ci))
    if given == ["ter"]:
        assert ours[2]["TER"]["score"] == TER().corpus_score(hyps[2], streams).score


def _read(path: str) -> List[str]:
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ter-two-references-and-every-option", "ter-systems-table-and-paired-randomization"])
def test_real_data_against_stored_sacrebleu_runs(shared_data, name):
    """WMT22 de-en, 1984 lines: TER with two references and every option, a systems table, paired
    randomization. sacreBLEU's answers (its TER took some 10 s a run) are stored (cli_oracle.py)."""
    for args, messages in cli_oracle.RUNS[name]:
        compare_stored(args, messages=messages)
