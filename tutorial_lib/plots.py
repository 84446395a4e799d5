"""Static pictures the notebooks show: digits, molecules (layout lives here, not in cells).

Each function returns a closed matplotlib Figure, so it is drawn exactly once: when it is the last
expression of a cell (or passed to `display`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure


def show_digits(images: np.ndarray, labels: Sequence[int], columns: int = 8) -> Figure:
    """Draw images in a grid, each titled with its label."""
    rows = int(np.ceil(len(images) / columns))
    fig, axes = _figure(rows, columns, figsize=(columns * 1.1, rows * 1.25), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, image, label in zip(axes.flat, images, labels, strict=False):
        ax.imshow(np.squeeze(image), cmap="gray_r", vmin=0, vmax=255)
        ax.set_title(f"label {int(label)}", fontsize=9)
    return fig


def show_molecules(sizes: Sequence[int], energies: Sequence[float]) -> Figure:
    """Draw the spread of molecule sizes and energy against size."""
    fig, (left, right) = _figure(1, 2, figsize=(9, 3))
    left.hist(sizes, bins=np.arange(min(sizes), max(sizes) + 2) - 0.5, color="tab:blue")
    left.set(xlabel="atoms per molecule", ylabel="molecules", title="Sizes vary from molecule to molecule")
    right.scatter(sizes, energies, s=6, alpha=0.5, color="tab:orange")
    right.set(xlabel="atoms per molecule", ylabel="energy (eV)", title="Morse pair energy")
    return fig


def _figure(rows: int, columns: int, **options) -> tuple[Figure, np.ndarray]:
    """Create a figure through pyplot (which sets up notebook display) and close it at once."""
    fig, axes = plt.subplots(rows, columns, layout="constrained", **options)
    plt.close(fig)
    return fig, axes
