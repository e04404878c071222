"""The files of a Hub metric repository (a Space that ``evaluate.load("user/NAME")`` reads).

``evaluate.load("user/NAME")`` downloads ``NAME.py`` from the Space ``user/NAME``: the module file
must carry the repository's name. That cannot be this repository's own layout for the name
``bleukit`` (a ``bleukit.py`` at the root would shadow the package for ``app.py`` and the tests), so
the metric repository is written from the installed package::

    python -m bleukit.evaluate_module OUT_DIR --repo-id user/bleukit

writes ``OUT_DIR/bleukit.py`` (the same re-export as the repository's ``bleu_metric.py``),
``README.md`` (the metric card with its Space front matter), ``requirements.txt``, ``app.py``
(a small widget) and, until bleukit is on PyPI, ``wheels/bleukit-VERSION-py3-none-any.whl``: the
installed package as a pure-Python wheel (the exact reference engine, no compiled kernel), which
``requirements.txt`` names by its URL in the Space itself, so the Space installs without PyPI.
Upload that folder as the Space; users then call ``evaluate.load("user/bleukit")``, or
``evaluate.load(OUT_DIR)`` on a local clone.

>>> import tempfile
>>> sorted(p.name for p in write_metric_repo(tempfile.mkdtemp(), name="bleukit").iterdir())
['README.md', 'app.py', 'bleukit.py', 'requirements.txt', 'wheels']
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path
from typing import List, Optional, Tuple, Union

from .._version import __version__

__all__ = ["MODULE_SOURCE", "GRADIO_SDK_VERSION", "write_metric_repo", "write_pure_wheel"]

#: The whole metric module of a Space or Hub repo: a re-export of the packaged implementation.
#: The repository's top-level ``bleu_metric.py`` is this text (a test checks they are equal).
MODULE_SOURCE = '''"""BLEU as an `evaluate` metric (bleukit, sacreBLEU-exact): the file a Space or Hub repo serves.

The implementation ships inside the package (``bleukit/evaluate_module/bleu_metric.py``); this file only
re-exports its class, so both load paths run one implementation::

    evaluate.load("./bleu_metric.py")          # this file, bleukit installed
    evaluate.load(bleukit.metric_path())       # the installed module itself

``evaluate`` copies this file into its cache and imports it on its own: the import below is an
absolute one, of the installed package. When it fails, evaluate tells the user to ``pip install``
what follows ``# From:`` on the import line (else the module's name, ``bleukit``, which is not on
PyPI yet), so the comment names the install that works (``__all__`` tells linters the import is the
point).
"""

from bleukit.evaluate_module.bleu_metric import Bleu  # From: .  (in the root of a clone of bleukit)

__all__ = ["Bleu"]
'''

#: What evaluate tells a user without bleukit to ``pip install`` (after ``# From:`` on the import line).
_INSTALL_FROM_CLONE = ".  (in the root of a clone of bleukit)"

#: The Gradio version of the Space front matter (the same as the app Space's, space.yml).
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


#: Compiled files a pure-Python wheel leaves out (the package falls back to its Python engine).
_COMPILED = (".so", ".pyd", ".dylib", ".dll")


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def write_pure_wheel(dest: Union[str, Path]) -> Path:
    """Write the installed bleukit as a pure-Python wheel into the folder ``dest``; returns its path.

    The wheel holds the package's Python files and data, without compiled kernels, plus the
    ``_no_native`` marker that ``setup.py`` leaves in a ``BLEUKIT_NO_NATIVE`` build: installed
    anywhere (any OS, any supported Python, no compiler), it scores with the pure-Python engine,
    the exact reference, without the missing-kernel warning. Its metadata (dependencies, the
    ``bleukit`` command) is the installed distribution's. The archive is deterministic: the same
    package gives the same bytes.

    >>> import tempfile, zipfile
    >>> wheel = write_pure_wheel(tempfile.mkdtemp())
    >>> wheel.name.endswith("-py3-none-any.whl")
    True
    >>> names = zipfile.ZipFile(wheel).namelist()
    >>> "bleukit/_no_native" in names and not any(n.endswith(".so") for n in names)
    True
    """
    from importlib import metadata

    try:
        dist = metadata.distribution("bleukit")
    except metadata.PackageNotFoundError:
        raise RuntimeError(
            "bleukit is not installed as a distribution (only on sys.path): install it (pip install -e .) "
            "so its metadata can go into the wheel"
        ) from None
    root = Path(__file__).resolve().parent.parent  # the bleukit package this module is part of
    files: List[Tuple[str, bytes]] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or "__pycache__" in rel.parts or path.suffix in _COMPILED or path.name == "_no_native":
            continue
        files.append(("bleukit/" + rel.as_posix(), path.read_bytes()))
    files.append(("bleukit/_no_native", b"a pure-Python wheel (bleukit.evaluate_module.hub.write_pure_wheel)\n"))
    info = f"bleukit-{__version__}.dist-info"
    requires = [r for r in (dist.requires or []) if "extra ==" not in r]
    meta = "".join(
        [
            "Metadata-Version: 2.1\nName: bleukit\n",
            f"Version: {__version__}\n",
            f"Summary: {dist.metadata['Summary'] or ''}\n",
            f"Requires-Python: {dist.metadata['Requires-Python'] or '>=3.9'}\n",
            *(f"Requires-Dist: {r}\n" for r in requires),
        ]
    )
    files.append((f"{info}/METADATA", meta.encode("utf-8")))
    wheel_info = ("Wheel-Version: 1.0\nGenerator: bleukit.evaluate_module.hub\nRoot-Is-Purelib: true\n"
                  "Tag: py3-none-any\n")
    files.append((f"{info}/WHEEL", wheel_info.encode("ascii")))
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        files.append((f"{info}/entry_points.txt", entry_points.encode("utf-8")))
    record = "".join(f"{n},{_record_hash(d)},{len(d)}\n" for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode("utf-8")))

    out = Path(dest) / f"bleukit-{__version__}-py3-none-any.whl"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # fixed: the same bytes every time
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(entry, data)
    return out


def write_metric_repo(
    dest: Union[str, Path], name: str = "bleukit", repo_id: Optional[str] = None, requirement: Optional[str] = None
) -> Path:
    """Write the files of the Hub metric repository ``repo_id`` (default ``user/<name>``) into
    ``dest``; returns ``dest``. ``evaluate.load(dest)`` then works offline, as the Hub would serve it.

    ``requirement`` is how the Space installs bleukit (the first line of its ``requirements.txt``).
    By default (``None``) the repository carries the installed bleukit as a pure-Python wheel
    (:func:`write_pure_wheel`, in ``wheels/``) and ``requirements.txt`` names that file's URL in the
    Space (``https://huggingface.co/spaces/<repo_id>/resolve/main/wheels/...``), which the Space can
    install while bleukit is not on PyPI. Once it is, pass ``"bleukit>=<version>"`` (or any one pip
    requirement line for bleukit, e.g. ``"bleukit @ git+https://HOST/OWNER/bleukit@v0.1.0"``); no
    wheel is written then. The card says which one is used.

    >>> import tempfile
    >>> out = write_metric_repo(tempfile.mkdtemp(), repo_id="me/bleukit")
    >>> 'evaluate.load("me/bleukit")' in (out / "README.md").read_text(encoding="utf-8")
    True
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"name must be a Python identifier (it names the module file), got {name!r}")
    repo_id = repo_id or f"user/{name}"
    bundled = requirement is None
    if bundled:
        # Set below, once the wheel's file name is known; checked like a user's requirement.
        requirement = f"bleukit @ https://huggingface.co/spaces/{repo_id}/resolve/main/wheels/"
    assert requirement is not None
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
    if bundled:
        requirement += write_pure_wheel(dest / "wheels").name
        install = (
            "This Space installs bleukit from the pure-Python wheel in its own `wheels/` folder (bleukit "
            f"{__version__} is not on PyPI yet); `requirements.txt` names it by URL:\n\n"
        )
    else:
        install = "This Space installs bleukit with the first line of its `requirements.txt`:\n\n"
    install += f"```\n{requirement.strip()}\n```\n\n"
    # evaluate's "pip install ..." for a failed `import bleukit` names what requirements.txt installs
    module = MODULE_SOURCE.replace(_INSTALL_FROM_CLONE, f'"{requirement.strip()}"')
    (dest / f"{name}.py").write_text(module, encoding="utf-8")
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
        + install
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
