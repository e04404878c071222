"""JSON schemas (draft 2020-12) of every JSON bleukit writes, shipped with the package.

====================  ========================================================================
schema                what writes it
====================  ========================================================================
``cli-score``         the command line, one system (``-f json``, the default; a list for several
                      metrics; the bare score with ``-b``)
``cli-systems``       the command line, several systems (the table, ``--paired-bs``/``--paired-ar``)
``cli-rank``          the command line's ``--rank`` (or a paired test with ``--correction``)
``cli-explain``       the command line's ``--explain N -f json``
``cli-variants``      the command line's ``--variants -f json``
``cli-scores``        ``bleukit-scores --format json`` (:meth:`bleukit.analysis.score_table.ScoreTable.to_dict`)
``corpus-report``     :meth:`bleukit.analysis.report.CorpusReport.to_dict` (the app's JSON download)
``app-compare``       the app's ``/compare`` answer (its Compare tab's tests and ranking)
``report``            the data of an HTML report (:func:`bleukit.analysis.htmlreport.build_report`)
``comparison``        :meth:`bleukit.analysis.ranking.SystemComparison.to_dict` (inside ``cli-rank`` and ``report``)
``result``            any metric's ``result.to_dict()`` (inside ``corpus-report``)
``explanation``       :meth:`bleukit.analysis.explain.MatchExplanation.to_dict`
``chrf-explanation``  :meth:`bleukit.analysis.chrf_explanation.ChrfExplanation.to_dict` (``-m chrf --explain``)
``ter-explanation``   :meth:`bleukit.analysis.ter_explanation.TerExplanation.to_dict` (``-m ter --explain``)
====================  ========================================================================

Schemas refer to each other by file name; :func:`validate` resolves those references from the
package (nothing is fetched). It needs the ``jsonschema`` package.

>>> sorted(SCHEMAS)[2:5]
['cli-explain', 'cli-rank', 'cli-score']
>>> schema("cli-rank")["items"]
{'$ref': 'comparison.schema.json'}
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Dict, Tuple

__all__ = ["SCHEMAS", "schema", "validate"]

#: Every schema's name (the file is ``<name>.schema.json`` in this package).
SCHEMAS: Tuple[str, ...] = (
    "cli-score",
    "cli-systems",
    "cli-rank",
    "cli-explain",
    "cli-variants",
    "cli-scores",
    "corpus-report",
    "report",
    "comparison",
    "result",
    "explanation",
    "chrf-explanation",
    "ter-explanation",
    "app-compare",
)


@functools.lru_cache(maxsize=None)
def _text(name: str) -> str:
    if name not in SCHEMAS:
        raise ValueError(f"unknown schema {name!r}; choose one of {', '.join(SCHEMAS)}")
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")


def schema(name: str) -> Dict[str, Any]:
    """The schema called ``name`` (a fresh dict each time).

    >>> schema("result")["required"]
    ['name', 'score', 'signature']
    """
    out: Dict[str, Any] = json.loads(_text(name))
    return out


def validate(document: Any, name: str) -> None:
    """Check ``document`` (parsed JSON) against the schema ``name``; a ``jsonschema.ValidationError``
    says where it differs.

    >>> validate({"name": "BLEU", "score": 12.5, "signature": "nrefs:1|tok:13a"}, "result")
    >>> validate({"name": "BLEU"}, "result")
    Traceback (most recent call last):
    ...
    jsonschema.exceptions.ValidationError: 'score' is a required property
    ...
    """
    try:
        import jsonschema
        from referencing import Registry, Resource
    except ImportError as err:  # pragma: no cover - jsonschema is in the dev extra
        raise ImportError("validating needs the jsonschema package: pip install jsonschema") from err
    validator = _validator(jsonschema, Registry, Resource, name)
    validator.validate(document)


def _validator(jsonschema: Any, registry_type: Any, resource_type: Any, name: str) -> Any:
    resources_ = []
    for other in SCHEMAS:
        contents = schema(other)
        resources_.append((contents["$id"], resource_type.from_contents(contents)))
    registry = registry_type().with_resources(resources_)
    main = schema(name)
    cls = jsonschema.validators.validator_for(main)
    cls.check_schema(main)
    return cls(main, registry=registry, format_checker=cls.FORMAT_CHECKER)
