"""Matplotlib charts in the style of DataGenetics: shots per game, and the chance of finishing within n shots."""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np

from battleship.cells import row_name
from battleship.extras import require
from battleship.files import make_folder, output_file

require("plot")  # Matplotlib, refused in one line with the install command when missing
from matplotlib import colormaps  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

# Okabe-Ito: distinguishable with the common forms of colour blindness.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def random_cdf(cells: int, ship_cells: int) -> np.ndarray:
    """Exact P(a random shooter finishes within n shots) for n = 0..cells: C(n, K) / C(N, K)."""
    total = comb(cells, ship_cells)
    return np.array([comb(n, ship_cells) / total for n in range(cells + 1)])


def _save(fig: Figure, stem: Path) -> list[Path]:
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    return paths


def compare_charts(
    histograms: dict[str, np.ndarray],
    cells: int,
    ship_cells: int,
    out_dir: Path,
    title: str,
    salvo: int = 0,
) -> list[Path]:
    """The distribution and the cumulative chart of shots per game, every shooter on each, as PNG and SVG.

    ``histograms`` holds each shooter's games by shots (index = shots), or by turns when ``salvo``
    gives the shots a turn (salvo rules in one-sided play).

    A shooter named ``random`` gets the exact curve drawn beside its simulated one.
    """
    make_folder(out_dir, f"cannot write the charts into {out_dir}")
    unit = "turns" if salvo else "shots"
    last = -(-cells // salvo) if salvo else cells
    shots = np.arange(last + 1)
    exact = random_cdf(cells, ship_cells)
    if salvo:  # within t turns a random shooter has fired min(t K, cells) cells
        exact = exact[np.minimum(shots * salvo, cells)]
    cells = last
    written = []
    for kind in ("distribution", "cumulative"):
        fig = Figure(figsize=(9, 5))
        ax = fig.add_subplot(1, 1, 1)
        for i, (name, histogram) in enumerate(histograms.items()):
            counts = np.pad(histogram, (0, max(0, cells + 1 - len(histogram))))[: cells + 1] / histogram.sum()
            y = counts if kind == "distribution" else np.cumsum(counts)
            mean = float((np.arange(len(histogram)) * histogram).sum() / histogram.sum())
            ax.plot(shots, y, color=COLOURS[i % len(COLOURS)], label=f"{name} (mean {mean:.2f})", lw=1.8)
            if name == "random":
                exact_y = np.diff(exact, prepend=0.0) if kind == "distribution" else exact
                exact_label = f"C(min({salvo}n, N),K)/C(N,K)" if salvo else "C(n,K)/C(N,K)"
                ax.plot(shots, exact_y, color="black", ls=":", lw=1.2, label=f"random, exact: {exact_label}")
        ax.set_xlabel(f"{unit} to sink the fleet")
        ax.set_ylabel("share of games" if kind == "distribution" else f"P(finished within n {unit})")
        ax.set_xlim((-(-ship_cells // salvo) if salvo else ship_cells) - 1, cells)
        ax.set_title(f"{title}: {kind}")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left" if kind == "cumulative" else "upper right", fontsize=8)
        written += _save(fig, out_dir / kind)
    return written


def heat_map(probability: np.ndarray, grid: list[list[str]], path: Path, title: str, best=()) -> Path:
    """DataGenetics' heat map: the probability of a ship on each unknown cell, shot cells marked."""
    rows, cols = probability.shape
    masked = np.ma.masked_array(probability, mask=[[ch != "." for ch in row] for row in grid])
    fig = Figure(figsize=(1 + 0.55 * cols, 0.8 + 0.55 * rows))
    ax = fig.subplots()
    cmap = colormaps["viridis"].with_extremes(bad="#DDDDDD")
    image = ax.imshow(masked, cmap=cmap, vmin=0)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="P(ship)")
    for r in range(rows):
        for c in range(cols):
            ch = grid[r][c]
            if ch != ".":
                ax.text(
                    c,
                    r,
                    ch,
                    ha="center",
                    va="center",
                    color="#D55E00" if ch != "o" else "#0072B2",
                    fontweight="bold",
                )
    for cell in best:
        r, c = divmod(cell, cols)
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="#E69F00", linewidth=2.5))
    ax.set_xticks(range(cols), [str(c + 1) for c in range(cols)])
    ax.set_yticks(range(rows), [row_name(r) for r in range(rows)])
    ax.set_title(title)
    output_file(path, f"cannot write {path}")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return path


def replay_frame(
    probability: np.ndarray, seen: list[list[str]], hidden: list[list[str]] | None, chosen: int, title: str
) -> Figure:
    """DataGenetics' walkthrough frame: the probability map beside the board, the chosen cell ringed on both."""
    rows, cols = probability.shape
    fig = Figure(figsize=(2 + 1.1 * cols, 1.2 + 0.55 * rows))
    heat, board = fig.subplots(1, 2)
    masked = np.ma.masked_array(probability, mask=[[ch != "." for ch in row] for row in seen])
    image = heat.imshow(masked, cmap=colormaps["viridis"].with_extremes(bad="#DDDDDD"), vmin=0)
    fig.colorbar(image, ax=heat, fraction=0.046, pad=0.04, label="P(ship)")
    board.imshow(np.zeros((rows, cols)), cmap="Greys", vmin=0, vmax=1)
    for r in range(rows):
        for c in range(cols):
            ch = seen[r][c]
            ship = hidden[r][c] if hidden is not None else "."
            if ship != ".":
                board.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, color="#BBBBBB"))
            if ch != ".":
                colour = "#0072B2" if ch == "o" else "#D55E00"
                heat.text(c, r, ch, ha="center", va="center", color=colour, fontweight="bold")
                board.text(c, r, ch, ha="center", va="center", color=colour, fontweight="bold")
    r, c = divmod(chosen, cols)
    for ax in (heat, board):
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="#E69F00", linewidth=3))
        ax.set_xticks(range(cols), [str(k + 1) for k in range(cols)])
        ax.set_yticks(range(rows), [row_name(k) for k in range(rows)])
    heat.set_title("probability before the shot")
    board.set_title("the board (ships grey)")
    fig.suptitle(title)
    return fig
