"""The case count (``case_count.py``) itself: sacreBLEU's command line is one case, whether a test ran it
in a subprocess or in its own process (``cli_runs.run_sacrebleu``). The before-and-after comparison
of the suite relies on it: the old suite and the new one run the same command lines both ways."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = """
import json, subprocess, sys
sys.path[:0] = sys.argv[1:3]
import case_count
case_count.install()
case_count.install()  # a second install wraps nothing twice
from cli_runs import run_sacrebleu

args = ["ref.txt", "-i", "hyp.txt", "-m", "bleu", "chrf", "-b"]
runs = []
for stdin in (None, b"the cat sat on the mat\\n"):
    case_count._CASES.clear()
    argv = args if stdin is None else ["ref.txt", "-m", "bleu", "chrf", "-b"]
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *argv], input=stdin, capture_output=True, check=True)
    outside = sorted(case_count._CASES)
    case_count._CASES.clear()
    code, inside_out, _ = run_sacrebleu(argv, stdin or b"")
    runs.append([outside, sorted(case_count._CASES), out.stdout.decode(), inside_out, code])
print(json.dumps(runs))
"""


def test_a_command_line_is_one_case_in_a_subprocess_and_in_process(tmp_path):
    (tmp_path / "ref.txt").write_text("the cat is on the mat\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(HERE), str(HERE.parent / "cli")],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    from_file, from_stdin = json.loads(done.stdout.splitlines()[-1])
    for outside, inside, out, inside_out, code in (from_file, from_stdin):
        assert code == 0 and out.split() == inside_out.split()  # the same run both ways
        # one case per metric, of the command line alone: its metric calls inside are not cases
        assert [case[:2] for case in outside] == [["BLEU", "cli"], ["CHRF", "cli"]]
        assert outside == inside
    # the hypotheses from a file and from stdin are different inputs, the flags too
    assert from_file[0] != from_stdin[0]
