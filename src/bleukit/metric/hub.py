"""The files of a Hub metric repository (a Space that ``evaluate.load("user/NAME")`` reads).

``evaluate.load("user/NAME")`` downloads ``NAME.py`` from the Space ``user/NAME``: the module file
must carry the repository's name. That cannot be this repository's own layout for the name
``bleukit`` (a ``bleukit.py`` at the root would shadow the package for ``app.py`` and the tests), so
the metric repository is written from the installed package::

    python -m bleukit.metric OUT_DIR --repo-id user/bleukit

writes ``OUT_DIR/bleukit.py`` (the same re-export as the repository's ``bleu_metric.py``),
``README.md`` (the metric card with its Space front matter), ``requirements.txt`` and ``app.py``
(a small widget). Upload that folder as the Space; users then ``pip install bleukit`` and call
``evaluate.load("user/bleukit")``, or ``evaluate.load(OUT_DIR)`` on a local clone.

>>> import tempfile
>>> sorted(p.name for p in write_metric_repo(tempfile.mkdtemp(), name="bleukit").iterdir())
['README.md', 'app.py', 'bleukit.py', 'requirements.txt']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional, Union

from .._version import __version__

__all__ = ["MODULE_SOURCE", "GRADIO_SDK_VERSION", "write_metric_repo"]

#: The whole metric module of a Space or Hub repo: a re-export of the packaged implementation.
#: The repository's top-level ``bleu_metric.py`` is this text (a test checks they are equal).
MODULE_SOURCE = '''"""BLEU as an `evaluate` metric (bleukit, sacreBLEU-exact): the file a Space or Hub repo serves.

The implementation ships inside the package (``bleukit/metric/bleu_metric.py``); this file only
re-exports its class, so both load paths run one implementation::

    evaluate.load("./bleu_metric.py")          # this file, bleukit installed
    evaluate.load(bleukit.metric_path())       # the installed module itself

``evaluate`` copies this file into its cache and imports it on its own: the import below is an
absolute one, of the installed package (``pip install bleukit``). evaluate reads everything after a
``#`` on an import line as the package to install, so the line carries no comment (``__all__`` tells
linters the import is the point).
"""

from bleukit.metric.bleu_metric import Bleu

__all__ = ["Bleu"]
'''

#: The Gradio version of the Space front matter (the same as the repository README's).
GRADIO_SDK_VERSION = "6.31.0"

_APP = '''"""The widget of this metric repository: predictions and references in, the metric's result out."""

import os
import sys

import evaluate
import gradio as gr

HERE = os.path.dirname(os.path.abspath(__file__))
# {name}.py here has the package's name: with this folder on sys.path, `import bleukit` inside
# the metric would find that file instead of the installed package.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
metric = evaluate.load(os.path.join(HERE, "{name}.py"))


def score(predictions: str, references: str) -> dict:
    """One segment per line in each box; line i of the references belongs to prediction i."""
    try:
        return metric.compute(predictions=predictions.splitlines(), references=references.splitlines())
    except (ValueError, TypeError) as e:
        raise gr.Error(str(e)) from None


demo = gr.Interface(
    score,
    [gr.Textbox(label="predictions (one per line)", lines=5), gr.Textbox(label="references (one per line)", lines=5)],
    gr.JSON(label="result"),
    title="bleukit BLEU",
    description=metric.info.description,
)

if __name__ == "__main__":
    demo.launch()
'''


def _front_matter(name: str, description: str) -> str:
    summary = " ".join(description.split())
    return (
        "---\n"
        f"title: {name}\n"
        "emoji: 🔵\n"
        "colorFrom: blue\n"
        "colorTo: green\n"
        "sdk: gradio\n"
        f"sdk_version: {GRADIO_SDK_VERSION}\n"
        "app_file: app.py\n"
        "pinned: false\n"
        "license: apache-2.0\n"
        "tags:\n"
        "  - evaluate\n"
        "  - metric\n"
        "description: >-\n"
        f"  {summary}\n"
        "---\n"
    )


def write_metric_repo(
    dest: Union[str, Path], name: str = "bleukit", repo_id: Optional[str] = None, requirement: Optional[str] = None
) -> Path:
    """Write the files of the Hub metric repository ``repo_id`` (default ``user/<name>``) into
    ``dest``; returns ``dest``. ``evaluate.load(dest)`` then works offline, as the Hub would serve it.

    ``requirement`` is how the Space installs bleukit (the first line of its ``requirements.txt``):
    by default ``bleukit>=<this version>`` from PyPI. Until that version is on PyPI, pass what the Space
    can install instead, a pip requirement with a direct URL (``"bleukit @ git+https://HOST/OWNER/bleukit"``
    or the URL of a wheel); the card says which one is used.

    >>> import tempfile
    >>> out = write_metric_repo(tempfile.mkdtemp(), repo_id="me/bleukit")
    >>> 'evaluate.load("me/bleukit")' in (out / "README.md").read_text(encoding="utf-8")
    True
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"name must be a Python identifier (it names the module file), got {name!r}")
    repo_id = repo_id or f"user/{name}"
    requirement = requirement if requirement is not None else f"bleukit>={__version__}"
    if not requirement.strip().startswith("bleukit") or "\n" in requirement:
        raise ValueError(
            f"requirement must be one pip requirement line for bleukit (e.g. 'bleukit>={__version__}' or "
            f"'bleukit @ git+https://HOST/OWNER/bleukit'), got {requirement!r}"
        )
    if repo_id.rsplit("/", 1)[-1] != name:
        raise ValueError(
            f"evaluate.load({repo_id!r}) reads {repo_id.rsplit('/', 1)[-1]}.py: the repository name must be {name!r}"
        )
    # The card is written from the module's own texts: what evaluate shows and what the Hub shows agree.
    from . import bleu_metric

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / f"{name}.py").write_text(MODULE_SOURCE, encoding="utf-8")
    (dest / "app.py").write_text(_APP.replace("{name}", name), encoding="utf-8")
    (dest / "requirements.txt").write_text(
        f"{requirement.strip()}\nevaluate>=0.4\ndatasets>=2.0\n"
        f"gradio>={GRADIO_SDK_VERSION.split('.')[0]},<{int(GRADIO_SDK_VERSION.split('.')[0]) + 1}\n",
        encoding="utf-8",
    )
    card = (
        _front_matter(name, bleu_metric._DESCRIPTION.split("\n\n")[0])
        + f"\n# Metric card: {name} (BLEU, sacreBLEU-exact)\n\n"
        + "## Metric description\n\n" + bleu_metric._DESCRIPTION.strip() + "\n\n"
        + "## How to use\n\n"
        + "```python\n"
        + f"# pip install '{requirement.strip()}' evaluate\n"
        + "import evaluate\n"
        + f'bleu = evaluate.load("{repo_id}")\n'
        + 'bleu.compute(predictions=["The cat sat on the mat."], references=[["The cat sat on the mat."]])\n'
        + "```\n\n"
        + "## Inputs and outputs\n\n```\n" + bleu_metric._KWARGS_DESCRIPTION.strip() + "\n```\n\n"
        + "## Citation\n\n```bibtex\n" + bleu_metric._CITATION.strip() + "\n```\n"
    )
    (dest / "README.md").write_text(card, encoding="utf-8")
    return dest
