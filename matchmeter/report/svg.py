"""Hand-written inline SVG plots for the HTML report (no plotting dependency, no external reference).

Each function takes a report table (see `report.tables`) and returns one `<svg>` element as a string,
sized in CSS pixels with a viewBox so it scales with the page. Text is HTML-escaped; colours come from
a fixed palette indexed by the configuration's position in Table 1, so a configuration keeps its
colour across every plot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pandas as pd

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#7f7f7f")
FONT = 'font-family="system-ui, sans-serif"'


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


class Axes(NamedTuple):
    """Plot area inside an SVG: data ranges mapped to pixel boxes (y grows upwards in data)."""

    left: float
    top: float
    width: float
    height: float
    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, v: float) -> float:
        span = (self.x1 - self.x0) or 1.0
        return self.left + (v - self.x0) / span * self.width

    def y(self, v: float) -> float:
        span = (self.y1 - self.y0) or 1.0
        return self.top + self.height - (v - self.y0) / span * self.height


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About n round tick values covering [lo, hi]."""
    if not math.isfinite(lo) or not math.isfinite(hi) or hi <= lo:
        return [lo]
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + k * step, 12) for k in range(int((hi - first) / step + 1e-9) + 1)]


def fmt(v: float) -> str:
    return f"{v:.3g}" if abs(v) >= 0.001 or v == 0 else f"{v:.1e}"


def text(x: float, y: float, s: str, size: int = 11, anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" {FONT} {extra}>'
            f"{escape(str(s))}</text>")


def frame_axes(ax: Axes, x_label: str, y_label: str, x_ticks: Sequence[float], y_ticks: Sequence[float]) -> list[str]:
    """Axis lines, grid, ticks and labels."""
    out = [f'<rect x="{ax.left}" y="{ax.top}" width="{ax.width}" height="{ax.height}" fill="#fafafa" stroke="#999"/>']
    for t in y_ticks:
        y = ax.y(t)
        out.append(f'<line x1="{ax.left}" y1="{y:.1f}" x2="{ax.left + ax.width}" y2="{y:.1f}" stroke="#e3e3e3"/>')
        out.append(text(ax.left - 4, y + 4, fmt(t), 10, "end"))
    for t in x_ticks:
        x = ax.x(t)
        out.append(f'<line x1="{x:.1f}" y1="{ax.top}" x2="{x:.1f}" y2="{ax.top + ax.height}" stroke="#eee"/>')
        out.append(text(x, ax.top + ax.height + 14, fmt(t), 10, "middle"))
    out.append(text(ax.left + ax.width / 2, ax.top + ax.height + 30, x_label, 11, "middle"))
    cy = ax.top + ax.height / 2
    out.append(text(ax.left - 38, cy, y_label, 11, "middle", f'transform="rotate(-90 {ax.left - 38:.1f} {cy:.1f})"'))
    return out


def svg(width: int, height: int, body: Sequence[str], label: str) -> str:
    return (f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="{escape(label)}">' + "".join(body) + "</svg>")


def legend(names: Sequence[str], colors: dict[str, str], x: float, y: float) -> list[str]:
    out = []
    for k, name in enumerate(names):
        yy = y + 16 * k
        out.append(f'<rect x="{x}" y="{yy - 9}" width="10" height="10" fill="{colors[name]}"/>')
        out.append(text(x + 14, yy, name, 11))
    return out


# ------------------------------------------------------------------ plots


def budget_quality(bq: pd.DataFrame, colors: dict[str, str]) -> str:
    """Small multiples, one per stratum: reward share within budget b against b (USD), a line per configuration."""
    strata = [s for s in ("easy", "medium", "hard") if s in set(bq["stratum"])]
    if not strata:
        return ""
    w, h, pad = 300, 220, 60
    body: list[str] = []
    for k, s in enumerate(strata):
        part = bq.loc[bq["stratum"] == s]
        budgets = part["budget_usd"].astype(float)
        left = 50 + k * (w + pad)
        body.append(text(left + w / 2, 16, f"{s} stratum", 12, "middle", 'font-weight="bold"'))
        if not budgets.map(math.isfinite).all():
            body.append(text(left + w / 2, 110, "budget grid [∞]: no rewarded reference execution", 10, "middle"))
            continue
        lo, hi = 0.0, float(budgets.max()) * 1.05 or 1.0
        ax = Axes(left, 28, w, h, lo, hi, 0.0, 1.0)
        body += frame_axes(ax, "budget b (USD)", "reward share", nice_ticks(lo, hi, 4), nice_ticks(0, 1, 5))
        for cfg, rows in part.groupby("configuration_id", sort=False):
            rows = rows.sort_values("budget_usd")
            pts = " ".join(f"{ax.x(b):.1f},{ax.y(v):.1f}" for b, v in zip(rows["budget_usd"], rows["reward_share"], strict=True))
            body.append(f'<polyline points="{pts}" fill="none" stroke="{colors[str(cfg)]}" stroke-width="2"/>')
            body += [f'<circle cx="{ax.x(b):.1f}" cy="{ax.y(v):.1f}" r="2.5" fill="{colors[str(cfg)]}"/>'
                     for b, v in zip(rows["budget_usd"], rows["reward_share"], strict=True)]
    names = [c for c in colors if c in set(bq["configuration_id"])]
    width = 50 + len(strata) * (w + pad)
    body += legend(names, colors, 50, h + 80)
    return svg(width, h + 80 + 16 * len(names), body, "budget–quality curves")


def ams_bars(t1: pd.DataFrame, colors: dict[str, str]) -> str:
    """Horizontal AMS bars (0–1) with bootstrap CI whiskers, best first."""
    rows = t1.dropna(subset=["ams"])
    if rows.empty:
        return ""
    label_w, w, bar_h = 260, 460, 22
    ax = Axes(label_w, 10, w, bar_h * len(rows), 0.0, 1.0, 0.0, 1.0)
    body = [f'<rect x="{ax.left}" y="{ax.top}" width="{w}" height="{ax.height}" fill="#fafafa" stroke="#999"/>']
    for t in nice_ticks(0, 1, 5):
        body.append(f'<line x1="{ax.x(t):.1f}" y1="{ax.top}" x2="{ax.x(t):.1f}" y2="{ax.top + ax.height}" stroke="#e3e3e3"/>')
        body.append(text(ax.x(t), ax.top + ax.height + 14, fmt(t), 10, "middle"))
    r: Any  # a row namedtuple of the scores table
    for k, r in enumerate(rows.itertuples(index=False)):
        y = ax.top + k * bar_h
        cfg = r.configuration_id
        body.append(text(label_w - 6, y + 15, cfg, 11, "end"))
        body.append(f'<rect x="{ax.left}" y="{y + 4}" width="{ax.x(r.ams) - ax.left:.1f}" height="{bar_h - 8}" '
                    f'fill="{colors[cfg]}" opacity="0.8"/>')
        if math.isfinite(r.ams_ci_low) and math.isfinite(r.ams_ci_high):
            x0, x1, yc = ax.x(r.ams_ci_low), ax.x(r.ams_ci_high), y + bar_h / 2
            body.append(f'<path d="M{x0:.1f} {yc - 5:.1f}v10M{x0:.1f} {yc:.1f}H{x1:.1f}M{x1:.1f} {yc - 5:.1f}v10" '
                        'stroke="#222" stroke-width="1.5" fill="none"/>')
        body.append(text(ax.x(max(r.ams, r.ams_ci_high if math.isfinite(r.ams_ci_high) else r.ams)) + 6, y + 15,
                         f"{r.ams:.3f}", 10))
    body.append(text(ax.left + w / 2, ax.top + ax.height + 30, "AMS (whiskers: 95% bootstrap CI)", 11, "middle"))
    return svg(label_w + w + 60, int(ax.top + ax.height + 40), body, "AMS bars")


def frontier(fr: pd.DataFrame, colors: dict[str, str]) -> str:
    """Configurations at (mean cost, mean reward); the frontier hull drawn from (0, 0)."""
    pts = fr.dropna(subset=["mean_cost_usd"])
    if pts.empty:
        return ""
    hi_x = float(pts["mean_cost_usd"].max()) * 1.1 or 1.0
    ax = Axes(60, 12, 480, 300, 0.0, hi_x, 0.0, 1.0)
    body = frame_axes(ax, "mean cost per execution (USD)", "mean reward", nice_ticks(0, hi_x, 5), nice_ticks(0, 1, 5))
    hull = pts.loc[pts["on_frontier"]].sort_values("mean_cost_usd")
    line = " ".join([f"{ax.x(0):.1f},{ax.y(0):.1f}"] + [f"{ax.x(c):.1f},{ax.y(r):.1f}" for c, r in
                                                       zip(hull["mean_cost_usd"], hull["mean_reward"], strict=True)])
    body.append(f'<polyline points="{line}" fill="none" stroke="#444" stroke-dasharray="5 3" stroke-width="1.5"/>')
    r: Any  # a row namedtuple of the frontier table
    for r in pts.itertuples(index=False):
        x, y = ax.x(r.mean_cost_usd), ax.y(r.mean_reward)
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="{colors[r.configuration_id]}" '
                    f'stroke="{"#000" if r.on_frontier else "none"}" stroke-width="2"/>')
    names = [c for c in colors if c in set(pts["configuration_id"])]
    body += legend(names, colors, ax.left + ax.width + 20, 24)
    body.append(text(ax.left + ax.width + 20, 24 + 16 * len(names) + 8, "ringed: on the frontier", 10))
    return svg(int(ax.left + ax.width + 300), int(max(ax.top + ax.height + 40, 40 + 16 * len(names))), body, "frontier")


def rank_shifts(rs: pd.DataFrame, colors: dict[str, str]) -> str:
    """Slope chart: AMS rank of each configuration in each condition (1 at the top)."""
    cols = [c for c in rs.columns if c.startswith("rank_")]
    if len(cols) < 2:
        return ""
    n = int(rs[cols].max().max())
    ax = Axes(40, 30, 140 * (len(cols) - 1), 28 * max(n - 1, 1), 0.0, float(len(cols) - 1), float(n), 1.0)
    body = []
    for k, c in enumerate(cols):
        body.append(text(ax.x(k), 16, c.removeprefix("rank_"), 11, "middle", 'font-weight="bold"'))
        body.append(f'<line x1="{ax.x(k):.1f}" y1="{ax.top}" x2="{ax.x(k):.1f}" y2="{ax.top + ax.height}" stroke="#ddd"/>')
    for r in rs.to_dict("records"):
        cfg = r["configuration_id"]
        pts = [(ax.x(k), ax.y(float(r[c]))) for k, c in enumerate(cols) if r[c] is not None and r[c] == r[c]]
        if len(pts) > 1:
            body.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in pts)}" fill="none" '
                        f'stroke="{colors.get(cfg, "#333")}" stroke-width="2"/>')
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colors.get(cfg, "#333")}"/>' for x, y in pts]
        if pts:
            body.append(text(pts[-1][0] + 8, pts[-1][1] + 4, cfg, 11))
    return svg(int(ax.left + ax.width + 260), int(ax.top + ax.height + 20), body, "rank shifts between conditions")


def heatmap(per_task: pd.DataFrame) -> str:
    """Configuration × task mean reward; cells coloured from red (0) through yellow to green (1)."""
    tasks = [c for c in per_task.columns if c not in ("configuration_id", "flags")]
    if not tasks or per_task.empty:
        return ""
    cell, label_w, top = 26, 260, 150
    body = []
    for j, t in enumerate(tasks):
        x = label_w + j * cell + cell / 2
        body.append(text(x, top - 6, t, 10, "start", f'transform="rotate(-55 {x:.1f} {top - 6})"'))
    for i, r in enumerate(per_task.to_dict("records")):
        y = top + i * cell
        body.append(text(label_w - 6, y + cell / 2 + 4, r["configuration_id"], 11, "end"))
        for j, t in enumerate(tasks):
            v = r[t]
            fill = "#ccc" if v is None or v != v else reward_color(float(v))
            title = f"{r['configuration_id']} / {t}: " + ("no execution" if fill == "#ccc" else f"{float(v):.3f}")
            body.append(f'<rect x="{label_w + j * cell}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{fill}">'
                        f"<title>{escape(title)}</title></rect>")
    return svg(label_w + len(tasks) * cell + 130, top + len(per_task) * cell + 10, body, "per-task heat map")


def reward_color(v: float) -> str:
    """0 → red, 0.5 → yellow, 1 → green (linear in RGB between the stops)."""
    v = min(1.0, max(0.0, v))
    stops = ((0.0, (215, 48, 39)), (0.5, (254, 224, 139)), (1.0, (26, 152, 80)))
    (a, ca), (b, cb) = (stops[0], stops[1]) if v <= 0.5 else (stops[1], stops[2])
    f = (v - a) / (b - a)
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(ca, cb, strict=True))
