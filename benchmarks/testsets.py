"""Test sets on a warm cache, whole processes: ``--echo src`` and ``-t`` scoring, bleukit against
sacreBLEU 2.6 in the same run (issue 43's goal: at least 5x; sacreBLEU parses a WMT XML file on every
call, twice for ``-t`` with a warm cache).

The cache is built from ../shared/data in the real raw formats (tests/testsets/testset_caches.py,
whole files: WMT17 en-de as SGML, 3,004 lines; WMT22 de-en as WMT XML with two references and two
systems, 1,983 kept lines), then processed once by each tool (warm). Each command runs
``--repeats`` times; the least CPU and wall time are reported with the load average.

    python benchmarks/testsets.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests"),
                str(Path(__file__).resolve().parents[1] / "tests" / "testsets")]

from _common import REPO, compile_bleukit, load_average, process_cpu  # noqa: E402

CASES = [
    ("wmt22 de-en (XML) --echo src", ["-t", "wmt22", "-l", "de-en", "--echo", "src"]),
    ("wmt22 de-en (XML) -t scoring", ["-t", "wmt22", "-l", "de-en", "-i", "hyp22"]),
    ("wmt22 de-en (XML) --echo all", ["-t", "wmt22", "-l", "de-en", "--echo", "all"]),
    ("wmt17 en-de (SGML) --echo src", ["-t", "wmt17", "-l", "en-de", "--echo", "src"]),
    ("wmt17 en-de (SGML) -t scoring", ["-t", "wmt17", "-l", "en-de", "-i", "hyp17"]),
]


def _normalise(out: bytes) -> bytes:
    import re

    return re.sub(rb'(version:|"version": ")(bleukit-)?[0-9A-Za-z.+]+', rb"\1V", out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    import testset_caches
    from shared_data import SHARED_DATA, read_lines

    compile_bleukit()
    top = Path(tempfile.mkdtemp(prefix="bench-testsets-"))
    extra = testset_caches.build(top / "raw", n=10**6)
    roots = {tool: testset_caches.copy(top / "raw", top / tool) for tool in ("sacrebleu", "bleukit")}
    work = top / "work"
    work.mkdir()
    hyp22 = read_lines(SHARED_DATA / "wmt22-de-en" / "hyp.Online-A.en")
    (work / "hyp22").write_text("".join(s + "\n" for k, s in enumerate(hyp22) if k != 4), encoding="utf-8")
    (work / "hyp17").write_text("".join(s + "\n" for s in read_lines(SHARED_DATA / "wmt17-en-de" /
                                                                      "hyp.LIUM-NMT.4900.de")), encoding="utf-8")
    commands = {"sacrebleu": [sys.executable, "-m", "sacrebleu"], "bleukit": [sys.executable, "-m", "bleukit"]}
    envs = {tool: testset_caches.environment(roots[tool], extra, PYTHONPATH=str(REPO / "src"))
            for tool in commands}
    print(f"load average before: {load_average()}")
    print(f"{'case':<32} {'sacreBLEU cpu':>14} {'bleukit cpu':>12} {'ratio':>7}   {'wall ratio':>10}")
    for label, argv in CASES:
        outputs = {}
        times = {}
        for tool in commands:
            process_cpu([*commands[tool], *argv], repeats=1, env=envs[tool], cwd=work)  # warm the cache
            cpu, wall, out = process_cpu([*commands[tool], *argv], repeats=args.repeats, env=envs[tool], cwd=work)
            times[tool], outputs[tool] = (cpu, wall), out
        same = _normalise(outputs["sacrebleu"]) == _normalise(outputs["bleukit"])
        (sc, sw), (bc, bw) = times["sacrebleu"], times["bleukit"]
        print(f"{label:<32} {sc:>13.3f}s {bc:>11.3f}s {sc / bc:>6.1f}x   {sw / bw:>9.1f}x"
              f"{'' if same else '   OUTPUT DIFFERS'}")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
