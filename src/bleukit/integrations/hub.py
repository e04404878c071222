"""Hugging Face Hub eval results: any bleukit result as an entry of a model repo's
``.eval_results/*.yaml``, which the Hub shows on the model page and the benchmark's leaderboard.

:func:`eval_result_entry` gives a ``huggingface_hub.EvalResultEntry`` whose value is the score and
whose ``notes`` carry the result's name and signature (``BLEU|nrefs:1|case:mixed|...``), so the
number on the page says how it was computed; :func:`write_eval_results` writes entries as
``<folder>/.eval_results/<name>.yaml`` in the layout ``huggingface_hub`` parses (upload the folder,
or that file, with ``huggingface_hub.upload_file``). Nothing here touches the network.

>>> import bleukit, tempfile
>>> result = bleukit.corpus_bleu(["The cat sat on the mat."], [["The cat sat on the mat."]])
>>> entry = eval_result_entry(result, dataset_id="wmt/wmt22", task_id="en-de")
>>> entry.notes.split("|")[:2]
['BLEU', 'nrefs:1']
>>> path = write_eval_results([entry], tempfile.mkdtemp())
>>> path.parent.name, path.name
('.eval_results', 'bleukit.yaml')
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

from bleukit.metrics.base import MetricResult

__all__ = ["eval_result_entry", "write_eval_results"]

_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def eval_result_entry(
    result: MetricResult,
    *,
    dataset_id: str,
    task_id: str,
    notes: Optional[str] = None,
    **fields: Any,
) -> EvalResultEntry:
    """The Hub eval-result entry of a bleukit result (BLEU, chrF, TER, ... from any entry point):
    ``value`` is ``result.score``, ``notes`` is ``NAME|SIGNATURE`` (then ``; notes`` when given).
    The other keywords are ``EvalResultEntry``'s (``dataset_revision``, ``date``, ``source_url``,
    ``source_name``, ``source_user``, ``source_org``, ``verify_token``).

    >>> import bleukit
    >>> r = bleukit.corpus_chrf(["The cat sat."], [["The cat sat."]])
    >>> e = eval_result_entry(r, dataset_id="wmt/wmt22", task_id="de-en", notes="zero-shot")
    >>> e.value, e.notes.split("|")[0], e.notes.endswith("; zero-shot")
    (100.0, 'chrF2', True)
    """
    if not isinstance(result, MetricResult):
        raise TypeError(
            f"result must be a bleukit result (e.g. bleukit.corpus_bleu(...)), got {type(result).__name__}"
        )
    for name, value in (("dataset_id", dataset_id), ("task_id", task_id)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty str (the Hub benchmark dataset and its task), got {value!r}")
    if notes is not None and not isinstance(notes, str):
        raise TypeError(f"notes must be a str, got {type(notes).__name__}")
    described = f"{result.name}|{result.signature}" + (f"; {notes}" if notes else "")
    return EvalResultEntry(dataset_id=dataset_id, task_id=task_id, value=float(result.score), notes=described, **fields)


def write_eval_results(
    entries: Sequence[EvalResultEntry], folder: Union[str, "os.PathLike[str]"], name: str = "bleukit"
) -> Path:
    """Write ``entries`` as ``<folder>/.eval_results/<name>.yaml`` (the folder of a model repo; the
    file is replaced if it exists) and return its path. ``huggingface_hub`` reads it back with
    ``parse_eval_result_entries(yaml.safe_load(...))``.

    >>> import tempfile, yaml
    >>> from huggingface_hub import EvalResultEntry, parse_eval_result_entries
    >>> entries = [EvalResultEntry(dataset_id="d/x", task_id="t", value=41.5)]
    >>> path = write_eval_results(entries, tempfile.mkdtemp(), "mt")
    >>> parse_eval_result_entries(yaml.safe_load(path.read_text()))[0].value
    41.5
    """
    if isinstance(entries, EvalResultEntry) or not isinstance(entries, (list, tuple)):
        raise TypeError("entries must be a list of huggingface_hub.EvalResultEntry (from eval_result_entry)")
    if not entries:
        raise ValueError("no entries to write")
    for k, entry in enumerate(entries):
        if not isinstance(entry, EvalResultEntry):
            raise TypeError(f"entries[{k}] must be a huggingface_hub.EvalResultEntry, got {type(entry).__name__}")
    if not isinstance(name, str) or not _FILE_NAME.match(name):
        raise ValueError(f"name must be a plain file name (letters, digits, '.', '_', '-'), got {name!r}")
    target = Path(folder) / ".eval_results"
    target.mkdir(parents=True, exist_ok=True)
    path = target / f"{name}.yaml"
    text = yaml.safe_dump(eval_result_entries_to_yaml(list(entries)), allow_unicode=True, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path
