"""Inline SVG charts for the HTML report: plain markup, no script, no external resource.

One chart kind serves every plot of the report: grouped bars (categories on the x axis, one bar per
series in each), with optional error bars and a tooltip (``<title>``) on every bar.

>>> svg = grouped_bars(["A", "B"], [("BLEU", [30.5, 28.0])], errors=[[1.0, 1.2]], title="Scores")
>>> svg.startswith("<svg") and svg.count("<rect") >= 2 and "30.50" in svg
True
"""

from __future__ import annotations

import bisect
import math
from html import escape
from typing import List, Optional, Sequence, Tuple

__all__ = ["PALETTE", "grouped_bars", "nice_ticks", "histogram_counts"]

#: Series colours (colour-blind safe, Okabe & Ito 2008).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

_WIDTH, _HEIGHT = 760, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 40, 48


def nice_ticks(top: float, count: int = 5) -> List[float]:
    """Round tick values from 0 to at least ``top``.

    >>> nice_ticks(87.3)
    [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    """
    if not top > 0 or not math.isfinite(top):
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [float(round(k * step, 10)) for k in range(n + 1)]


def histogram_counts(values: Sequence[float], edges: Sequence[float]) -> List[int]:
    """How many values fall in each bin ``[edges[k], edges[k+1])``; values beyond the last edge
    (a sentence BLEU of 100.00000000000001) count in the last bin, below the first in the first.

    >>> histogram_counts([0, 5, 10, 99, 100, 100.00000000000001], [0, 10, 50, 100])
    [2, 1, 3]
    """
    counts = [0] * (len(edges) - 1)
    inner = list(edges[1:-1])
    for v in values:
        counts[bisect.bisect_right(inner, v)] += 1
    return counts


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Tuple[str, Sequence[float]]],
    *,
    errors: Optional[Sequence[Sequence[Optional[float]]]] = None,
    title: str = "",
    y_label: str = "",
    value_format: str = "{:.2f}",
    legend: bool = True,
) -> str:
    """An SVG bar chart: for each category, one bar per series (``(name, values)``), with
    ``errors[s][c]`` as a ± error bar where given."""
    n_cat, n_ser = len(categories), len(series)
    tops = [v + ((errors[s][c] or 0.0) if errors else 0.0)
            for s, (_, values) in enumerate(series) for c, v in enumerate(values)]
    ticks = nice_ticks(max([t for t in tops if math.isfinite(t)], default=0.0))
    y_top = ticks[-1]
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM

    def y(v: float) -> float:
        return _TOP + plot_h * (1 - max(0.0, min(v, y_top)) / y_top)

    parts = [f'<svg viewBox="0 0 {_WIDTH} {_HEIGHT}" width="{_WIDTH}" '
             f'height="{_HEIGHT}" role="img" aria-label="{escape(title)}" class="chart">']
    if title:
        parts.append(f'<text x="{_LEFT}" y="18" class="chart-title">{escape(title)}</text>')
    for t in ticks:
        parts.append(f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>')
        parts.append(f'<text x="{_LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end" class="tick">{t:g}</text>')
    if y_label:
        parts.append(f'<text transform="translate(14 {_TOP + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle" '
                     f'class="tick">{escape(y_label)}</text>')
    slot = plot_w / max(n_cat, 1)
    bar = min(48.0, slot * 0.8 / max(n_ser, 1))
    for c, category in enumerate(categories):
        x0 = _LEFT + c * slot + (slot - bar * n_ser) / 2
        for s, (name, values) in enumerate(series):
            v = values[c]
            x = x0 + s * bar
            colour = PALETTE[s % len(PALETTE)]
            tip = f"{name}, {category}: {value_format.format(v)}"
            err = errors[s][c] if errors else None
            if err:
                tip += f" ± {value_format.format(err)}"
            parts.append(f'<rect x="{x:.1f}" y="{y(v):.1f}" width="{bar * 0.92:.1f}" height="{y(0) - y(v):.1f}" '
                         f'fill="{colour}"><title>{escape(tip)}</title></rect>')
            if err:
                cx = x + bar * 0.46
                parts.append(f'<path d="M{cx:.1f} {y(v - err):.1f}V{y(v + err):.1f}M{cx - 4:.1f} {y(v + err):.1f}'
                             f'h8M{cx - 4:.1f} {y(v - err):.1f}h8" class="errorbar"/>')
        parts.append(f'<text x="{_LEFT + c * slot + slot / 2:.1f}" y="{_HEIGHT - _BOTTOM + 18}" text-anchor="middle" '
                     f'class="tick">{escape(_short(category))}<title>{escape(category)}</title></text>')
    parts.append(f'<line x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" class="axis"/>')
    if legend and n_ser > 1:
        x = _LEFT
        for s, (name, _) in enumerate(series):
            colour = PALETTE[s % len(PALETTE)]
            parts.append(f'<rect x="{x}" y="{_HEIGHT - 16}" width="10" height="10" fill="{colour}"/>')
            parts.append(f'<text x="{x + 14}" y="{_HEIGHT - 7}" class="tick">{escape(_short(name))}</text>')
            x += 24 + 7 * len(_short(name))
    parts.append("</svg>")
    return "".join(parts)


def _short(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
