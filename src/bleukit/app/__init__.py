"""bleukit's demo app: see a BLEU score, and understand it (``pip install 'bleukit[app]'``).

Paste (or upload) hypotheses and one to four reference sets, one segment per line, pick the options,
and get the corpus score with its signature, a chart of its parts, a per-sentence table and, for the
selected sentence, its hypothesis with the matched n-grams highlighted against its references; on
request, the same text scored by every other BLEU people report and by chrF, chrF++ and TER. A
second tab compares 2-5 systems with sacreBLEU's paired tests (BLEU, chrF, chrF++ or TER), with
p-values, confidence intervals, the bootstrap distributions and optionally a ranking of all pairs.
A third puts any metric's segment-score files (COMET, MetricX, WMT25, LLM judges) next to BLEU, chrF
and TER of the systems' text in one table of score ± CI [cluster] with AutoRank
(``bleukit.score_table``), and offers it as an HTML page.
Every number comes from the library's public functions; the app only translates between the page
and them.

The modules: :mod:`~bleukit.app.forms` (limits, choices, the checks of every field),
:mod:`~bleukit.app.state` (the typed state kept between events), :mod:`~bleukit.app.reports` (calls
into the library), :mod:`~bleukit.app.views` (tables, plot data, HTML), :mod:`~bleukit.app.callbacks`
(event handlers), :mod:`~bleukit.app.api` (API endpoints), :mod:`~bleukit.app.page` (the layout),
``style.css`` (:data:`bleukit.app.views.CSS_PATH`). Gradio is imported only by :func:`build_demo`
and :func:`launch` (callbacks, api and page import it), so ``import bleukit.app`` works without the
extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gradio as gr

__all__ = ["build_demo", "launch"]


def build_demo() -> "gr.Blocks":
    """The page and its API endpoints as a Gradio ``Blocks`` (needs the ``app`` extra)."""
    from .page import build_demo as build

    return build()


def launch(demo: "gr.Blocks | None" = None, **keywords: Any) -> None:
    """Serve ``demo`` (built when not given) on ``GRADIO_SERVER_NAME`` (127.0.0.1 by default) and
    ``GRADIO_SERVER_PORT`` (7860), with the app's style sheet and upload limit; ``keywords`` go to
    ``Blocks.launch``."""
    from .page import launch as serve

    serve(demo, **keywords)
