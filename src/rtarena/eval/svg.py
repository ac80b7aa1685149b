"""Small, dependency-free SVG charts for reports: grouped bars, lines with error bars, box plots.

Each function returns one `<svg>` element as a string (inline in HTML, or a file next to the Markdown).
Colours come from a colour-blind-safe palette (Okabe-Ito); every mark has a `<title>` so hovering shows
the exact number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
W, H = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 170, 34, 56


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        hi = lo + 1.0
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for mult in (1, 2, 2.5, 5, 10):
        if (hi - lo) / (step * mult) <= n:
            step *= mult
            break
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while t <= hi + step * 0.5:
        ticks.append(round(t, 10))
        t += step
    return ticks


def _fmt(v: float) -> str:
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.3g}"


class _Frame:
    """Axes, title and legend shared by every chart."""

    def __init__(self, title: str, y_label: str, lo: float, hi: float, x_label: str = "") -> None:
        self.ticks = _nice_ticks(min(lo, 0.0) if lo >= 0 else lo, hi)
        self.lo, self.hi = self.ticks[0], self.ticks[-1]
        self.parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
                      f'role="img" aria-label="{escape(title)}" class="chart" font-family="sans-serif" '
                      f'font-size="11">', f"<title>{escape(title)}</title>",
                      f'<rect width="{W}" height="{H}" fill="white"/>',
                      f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="13" font-weight="bold">'
                      f"{escape(title)}</text>"]
        for t in self.ticks:
            y = self.y(t)
            self.parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e4e4"/>'
                              f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
        self.parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#444"/>'
                          f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{H - BOTTOM}" y2="{H - BOTTOM}" stroke="#444"/>'
                          f'<text transform="translate(14 {(TOP + H - BOTTOM) / 2}) rotate(-90)" '
                          f'text-anchor="middle">{escape(y_label)}</text>')
        if x_label:
            self.parts.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 8}" text-anchor="middle">'
                              f"{escape(x_label)}</text>")

    def y(self, v: float) -> float:
        return TOP + (H - BOTTOM - TOP) * (1 - (v - self.lo) / ((self.hi - self.lo) or 1))

    def legend(self, names: list[str]) -> None:
        for i, name in enumerate(names):
            y = TOP + 6 + i * 16
            self.parts.append(f'<rect x="{W - RIGHT + 12}" y="{y - 8}" width="10" height="10" '
                              f'fill="{PALETTE[i % len(PALETTE)]}"/><text x="{W - RIGHT + 26}" y="{y + 1}">'
                              f"{escape(name[:22])}</text>")

    def x_axis(self, xs: list[float]) -> Callable[[float], float]:
        """Label the x values under the axis; returns where a value sits (lines and interval charts)."""
        x_lo, x_hi = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1

        def x_of(v: float) -> float:
            return LEFT + 20 + (W - RIGHT - LEFT - 40) * (v - x_lo) / (x_hi - x_lo)

        for x in xs:
            self.parts.append(f'<text x="{x_of(x):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{_fmt(x)}</text>')
        return x_of

    def polyline(self, points: list[tuple[float, float]], colour: str) -> None:
        path = " ".join(f"{x:.1f},{self.y(m):.1f}" for x, m in points)
        self.parts.append(f'<polyline class="line" points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')

    def error_bar(self, x: float, mean: float, se: float | None, colour: str) -> None:
        if se:
            y0, y1 = self.y(mean - se), self.y(mean + se)
            ends = "".join(f'<line x1="{x - 4:.1f}" x2="{x + 4:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour}"/>'
                           for y in (y0, y1))
            self.parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y0:.1f}" y2="{y1:.1f}" stroke="{colour}"/>' + ends)

    def done(self) -> str:
        return "\n".join([*self.parts, "</svg>"])


def _extent(values: list[float]) -> tuple[float, float]:
    finite = [v for v in values if v is not None and math.isfinite(v)] or [0.0, 1.0]
    return min(finite), max(finite)


def bar_chart(title: str, y_label: str, groups: list[str], series: list[str],
              values: dict[tuple[str, str], tuple[float, float | None]]) -> str:
    """Grouped bars: one group per x label, one bar per series, `values[(group, series)] = (mean, se)`."""
    lo, hi = _extent([m + (s or 0) for m, s in values.values()] + [m - (s or 0) for m, s in values.values()])
    frame = _Frame(title, y_label, lo, hi)
    span = (W - RIGHT - LEFT) / max(1, len(groups))
    bar = span * 0.8 / max(1, len(series))
    for g, group in enumerate(groups):
        x0 = LEFT + g * span + span * 0.1
        for s, name in enumerate(series):
            if (group, name) not in values:
                continue
            mean, se = values[(group, name)]
            colour = PALETTE[s % len(PALETTE)]
            top, base = frame.y(max(mean, 0.0) if frame.lo >= 0 else mean), frame.y(max(frame.lo, 0.0))
            y, h = min(top, base), abs(base - top)
            frame.parts.append(f'<rect class="bar" x="{x0 + s * bar:.1f}" y="{y:.1f}" width="{bar * 0.92:.1f}" '
                               f'height="{h:.1f}" fill="{colour}"><title>{escape(group)} / {escape(name)}: '
                               f"{_fmt(mean)}" + (f" ± {_fmt(se)}" if se else "") + "</title></rect>")
            frame.error_bar(x0 + s * bar + bar * 0.46, mean, se, "#222")
        frame.parts.append(f'<text x="{LEFT + g * span + span / 2:.1f}" y="{H - BOTTOM + 16}" '
                           f'text-anchor="middle">{escape(group[:24])}</text>')
    frame.legend(series)
    return frame.done()


def line_chart(title: str, y_label: str, x_label: str,
               series: dict[str, list[tuple[float, float, float | None]]]) -> str:
    """Lines with error bars: `series[name] = [(x, mean, se), ...]`."""
    xs = sorted({x for points in series.values() for x, _, _ in points}) or [0.0, 1.0]
    lo, hi = _extent([m + (s or 0) for p in series.values() for _, m, s in p]
                     + [m - (s or 0) for p in series.values() for _, m, s in p])
    frame = _Frame(title, y_label, lo, hi, x_label)
    x_of = frame.x_axis(xs)
    for i, (name, points) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        points = sorted(points)
        frame.polyline([(x_of(p[0]), p[1]) for p in points], colour)
        for x, m, s in points:
            frame.error_bar(x_of(x), m, s, colour)
            frame.parts.append(f'<circle cx="{x_of(x):.1f}" cy="{frame.y(m):.1f}" r="3.5" fill="{colour}">'
                               f"<title>{escape(name)} at {_fmt(x)}: {_fmt(m)}"
                               + (f" ± {_fmt(s)}" if s else "") + "</title></circle>")
    frame.legend(list(series))
    return frame.done()


def box_chart(title: str, y_label: str, boxes: dict[str, tuple[float, float, float, float, float]]) -> str:
    """Box plots: `boxes[name] = (p5, p25, p50, p75, p95)`."""
    lo, hi = _extent([v for b in boxes.values() for v in b])
    frame = _Frame(title, y_label, lo, hi)
    span = (W - RIGHT - LEFT) / max(1, len(boxes))
    for i, (name, (p5, p25, p50, p75, p95)) in enumerate(boxes.items()):
        colour = PALETTE[i % len(PALETTE)]
        cx, half = LEFT + span * (i + 0.5), min(24.0, span * 0.3)
        frame.parts.append(
            f'<g class="box"><title>{escape(name)}: p5 {_fmt(p5)}, p25 {_fmt(p25)}, median {_fmt(p50)}, '
            f"p75 {_fmt(p75)}, p95 {_fmt(p95)}</title>"
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{frame.y(p5):.1f}" y2="{frame.y(p95):.1f}" stroke="#333"/>'
            f'<rect x="{cx - half:.1f}" y="{frame.y(p75):.1f}" width="{2 * half:.1f}" '
            f'height="{max(1.0, frame.y(p25) - frame.y(p75)):.1f}" fill="{colour}" fill-opacity="0.7" stroke="#333"/>'
            f'<line x1="{cx - half:.1f}" x2="{cx + half:.1f}" y1="{frame.y(p50):.1f}" y2="{frame.y(p50):.1f}" '
            f'stroke="#000" stroke-width="2"/></g>'
            f'<text x="{cx:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{escape(name[:24])}</text>')
    return frame.done()


def interval_chart(title: str, y_label: str, x_label: str,
                   series: dict[str, list[tuple[float, float, float, float]]],
                   marks: dict[str, list[float]] | None = None) -> str:
    """Lines with interval bars, `series[name] = [(x, mean, lo, hi), ...]` (asymmetric intervals such as
    bootstrap ones), and optional marks, `marks[name] = [x, ...]`, drawn as red crosses under the point
    (an improvement curve's rollbacks)."""
    marks = marks or {}
    xs = sorted({p[0] for points in series.values() for p in points}) or [0.0, 1.0]
    lo, hi = _extent([v for points in series.values() for p in points for v in p[1:]])
    frame = _Frame(title, y_label, lo, hi, x_label)
    x_of = frame.x_axis(xs)
    for i, (name, points) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        points = sorted(p for p in points if math.isfinite(p[1]))
        frame.polyline([(x_of(p[0]), p[1]) for p in points], colour)
        for x, m, low, high in points:
            frame.parts.append(f'<line class="interval" x1="{x_of(x):.1f}" x2="{x_of(x):.1f}" y1="{frame.y(low):.1f}" '
                               f'y2="{frame.y(high):.1f}" stroke="{colour}" stroke-opacity="0.6" stroke-width="5"/>')
            frame.parts.append(f'<circle cx="{x_of(x):.1f}" cy="{frame.y(m):.1f}" r="3.5" fill="{colour}">'
                               f"<title>{escape(name)} at {_fmt(x)}: {_fmt(m)} [{_fmt(low)}, {_fmt(high)}]"
                               "</title></circle>")
        by_x = {x: m for x, m, _, _ in points}
        for x in marks.get(name, []):
            if x in by_x:
                cx, cy = x_of(x), frame.y(by_x[x]) + 12
                frame.parts.append(f'<path class="mark" d="M{cx - 5:.1f},{cy - 5:.1f} L{cx + 5:.1f},{cy + 5:.1f} '
                                   f'M{cx - 5:.1f},{cy + 5:.1f} L{cx + 5:.1f},{cy - 5:.1f}" stroke="#D00" '
                                   f'stroke-width="2"><title>{escape(name)}: rollback after round {_fmt(x)}</title>'
                                   "</path>")
    frame.legend(list(series))
    return frame.done()


def dot_interval_chart(title: str, y_label: str, points: dict[str, tuple[float, float, float]]) -> str:
    """One dot with its interval bar per name, `points[name] = (value, low, high)` (ratings, in order)."""
    lo, hi = _extent([v for p in points.values() for v in p])
    frame = _Frame(title, y_label, lo, hi)
    span = (W - RIGHT - LEFT) / max(1, len(points))
    for i, (name, (value, low, high)) in enumerate(points.items()):
        colour = PALETTE[i % len(PALETTE)]
        cx = LEFT + span * (i + 0.5)
        frame.parts.append(f'<line class="interval" x1="{cx:.1f}" x2="{cx:.1f}" y1="{frame.y(low):.1f}" '
                           f'y2="{frame.y(high):.1f}" stroke="{colour}" stroke-opacity="0.6" stroke-width="5"/>'
                           f'<circle cx="{cx:.1f}" cy="{frame.y(value):.1f}" r="4" fill="{colour}"><title>'
                           f"{escape(name)}: {_fmt(value)} [{_fmt(low)}, {_fmt(high)}]</title></circle>"
                           f'<text x="{cx:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{escape(name[:24])}</text>')
    return frame.done()


def radar_chart(title: str, axes: list[str], series: dict[str, list[float]], max_value: float) -> str:
    """A radar (spider) chart: one spoke per axis, one closed polygon per series, rings at each whole
    number up to `max_value` (ratings such as the game suite's 0-3 capabilities)."""
    width, height, cx, cy, radius = 640, 440, 250, 235, 165
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="{escape(title)}" class="chart" font-family="sans-serif" '
             f'font-size="11">', f"<title>{escape(title)}</title>",
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="13" font-weight="bold">'
             f"{escape(title)}</text>"]

    def point(i: int, value: float) -> tuple[float, float]:
        angle = math.pi / 2 - 2 * math.pi * i / len(axes)
        r = radius * value / max_value
        return cx + r * math.cos(angle), cy - r * math.sin(angle)

    for ring in range(1, int(max_value) + 1):
        ring_path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, ring) for i in range(len(axes))))
        parts.append(f'<polygon points="{ring_path}" fill="none" stroke="#ddd"/>')
        x, y = point(0, ring)
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 4:.1f}" fill="#888">{ring}</text>')
    for i, axis in enumerate(axes):
        x, y = point(i, max_value)
        lx, ly = point(i, max_value * 1.13)
        anchor = "middle" if abs(lx - cx) < 10 else ("start" if lx > cx else "end")
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#bbb"/>'
                     f'<text x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="{anchor}">{escape(axis)}</text>')
    for s, (name, values) in enumerate(series.items()):
        colour = PALETTE[s % len(PALETTE)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, v) for i, v in enumerate(values)))
        detail = ", ".join(f"{a} {_fmt(v)}" for a, v in zip(axes, values, strict=True))
        parts.append(f'<polygon points="{path}" fill="{colour}" fill-opacity="0.12" stroke="{colour}" '
                     f'stroke-width="2"><title>{escape(name)}: {escape(detail)}</title></polygon>')
        y = 48 + s * 18
        parts.append(f'<rect x="{width - 170}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{width - 154}" y="{y}">{escape(name[:24])}</text>')
    return "\n".join([*parts, "</svg>"])
