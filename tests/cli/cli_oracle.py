"""sacreBLEU 2.6's command line on the real data, as a stored oracle (``tests/oracles/stored/cli.json``).

The runs of the command-line tests that read whole WMT files with TER or several systems (sacreBLEU's
TER took some 10 s a run, its tables of five systems with paired tests more): for each, sacreBLEU's
exit code, its stdout (version numbers normalised, as ``cli_runs.normalise`` does) and its log
lines. The other command-line tests run sacreBLEU live, on small files, with every option.

A case is the argument list, with ``{data}`` for the shared data folder.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from shared_data import SHARED_DATA
from stored_oracles import Oracle

_DE_EN = "{data}/wmt22-de-en/"
_EN_DE = "{data}/wmt17-en-de/"
_WMT17 = [_EN_DE + f"hyp.{s}.de" for s in ("LIUM-NMT.4900", "online-B.0", "uedin-nmt.4722", "KIT.4950", "online-A.0")]
_WMT22 = [_DE_EN + f"hyp.{s}.en" for s in ("LT22", "Online-A", "JDExploreAcademy")]

#: name -> [(arguments, whether the log lines are compared too)]
RUNS: Dict[str, List[Tuple[List[str], bool]]] = {
    "ter-two-references-and-every-option": [
        ([_DE_EN + "ref.A.en", _DE_EN + "ref.B.en", "-i", _WMT22[0], "-m", "bleu", "chrf", "ter", "-f", "text"], True),
        ([_DE_EN + "ref.A.en", "-i", _WMT22[0], "-m", "ter", "--ter-normalized", "--ter-no-punct",
          "--ter-case-sensitive"], True),
        ([_DE_EN + "ref.B.en", "-i", _WMT22[0], "-m", "ter", "--ter-asian-support", "-sl", "-f", "text"], False),
    ],
    "ter-systems-table-and-paired-randomization": [
        ([_DE_EN + "ref.A.en", "-i", *_WMT22, "-m", "ter", "bleu", "-f", "latex"], True),
        ([_DE_EN + "ref.A.en", "-i", *_WMT22[:2], "-m", "ter", "-par", "-parn", "300", "-f", "text"], True),
    ],
    "chrf-five-systems-tables-and-paired-test": [
        ([_EN_DE + "ref.de", "-i", *_WMT17, "-m", "chrf", "bleu", "-cw", "2", "-f", "text"], True),
        ([_EN_DE + "ref.de", "-i", *_WMT17, "-m", "bleu", "chrf", "-f", "latex"], True),
        ([_EN_DE + "ref.de", "-i", *_WMT17[:3], "-m", "chrf", "-pbs", "-pbsn", "200", "-f", "text"], True),
        ([_EN_DE + "ref.de", "-i", *_WMT17[:3], "-m", "chrf", "-cw", "2", "-par", "-parn", "500", "-f", "text"], True),
        ([_EN_DE + "ref.de", "-i", _WMT17[0], "-m", "chrf", "-ci", "--confidence-n", "200", "-f", "text"], False),
    ],
}


def case(args: List[str]) -> str:
    return " ".join(args)


def resolved(args: List[str]) -> List[str]:
    """The arguments as both command lines get them: ``data/...``, relative to ``in_data_folder()``."""
    return [arg.replace("{data}", "data") for arg in args]


@contextlib.contextmanager
def in_data_folder():
    """Run in a temporary folder whose ``data`` links to the shared data: system tables print their
    files' paths, padded to the longest, so the paths must not depend on where the data lies."""
    with tempfile.TemporaryDirectory() as folder:
        os.symlink(SHARED_DATA, os.path.join(folder, "data"))
        here = os.getcwd()
        os.chdir(folder)
        try:
            yield
        finally:
            os.chdir(here)


def cases() -> List[str]:
    return [case(args) for runs in RUNS.values() for args, _ in runs]


def inputs() -> List[Path]:
    return sorted({SHARED_DATA / arg[len("{data}/"):] for runs in RUNS.values() for args, _ in runs
                   for arg in args if arg.startswith("{data}/")})


def compute(key: str) -> Dict[str, list]:
    """sacreBLEU's command line on one case, run live (in this process, as cli_runs does)."""
    from cli_runs import normalise, run_sacrebleu

    with in_data_folder():
        code, out, log = run_sacrebleu(resolved(key.split(" ")))
    return {"code": [code], "stdout": normalise(out).splitlines(), "log": log}


ORACLE = Oracle(
    name="cli",
    peer="sacrebleu",
    description="sacreBLEU's command line (exit code, stdout, log lines) on whole WMT files: TER with two "
    "references and its options, system tables, paired tests and intervals (tests/cli/cli_oracle.py)",
    cases=cases,
    inputs=inputs,
    compute=compute,
    python_dependent=True,  # BLEU's score sums logs with sum(), compensated from Python 3.12
)
