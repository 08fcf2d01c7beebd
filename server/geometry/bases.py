"""Model bases: sizes in millimetres, outlines in inches in the model's own frame."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .constants import mm_to_in
from .frame import FloatArray

CIRCLE_SEGMENTS = 32
"""Round and oval bases are drawn as inscribed polygons with this many sides."""


@dataclass(frozen=True)
class _SizedBase:
    """A base given by width (side to side) and depth (front to back), in mm."""

    width_mm: float
    depth_mm: float

    def __post_init__(self) -> None:
        if self.width_mm <= 0 or self.depth_mm <= 0:
            raise ValueError(f"base sizes must be positive, got {self.width_mm}x{self.depth_mm}")

    @property
    def width(self) -> float:
        return mm_to_in(self.width_mm)

    @property
    def depth(self) -> float:
        return mm_to_in(self.depth_mm)


@dataclass(frozen=True)
class RectBase(_SizedBase):
    """A square or rectangular base: width (side to side) by depth (front to back), in mm."""


@dataclass(frozen=True)
class OvalBase(_SizedBase):
    """An oval base, width (side to side) by depth (front to back) in mm."""


@dataclass(frozen=True)
class RoundBase:
    """A round base of the given diameter in mm."""

    diameter_mm: float

    def __post_init__(self) -> None:
        if self.diameter_mm <= 0:
            raise ValueError(f"base diameter must be positive, got {self.diameter_mm}")

    @property
    def width(self) -> float:
        return mm_to_in(self.diameter_mm)

    @property
    def depth(self) -> float:
        return mm_to_in(self.diameter_mm)

    @property
    def radius(self) -> float:
        return mm_to_in(self.diameter_mm) / 2.0


Base = RectBase | RoundBase | OvalBase


@lru_cache(maxsize=256)
def _outline_cached(base: Base) -> FloatArray:
    if isinstance(base, RectBase):
        hw, hd = base.width / 2.0, base.depth / 2.0
        pts = np.array([[-hw, hd], [hw, hd], [hw, -hd], [-hw, -hd], [-hw, hd]], dtype=np.float64)
    else:
        a = np.linspace(0.0, 2.0 * math.pi, CIRCLE_SEGMENTS + 1)
        pts = np.column_stack([np.cos(a) * base.width / 2.0, np.sin(a) * base.depth / 2.0])
        pts[-1] = pts[0]
    pts.setflags(write=False)
    return pts


def base_outline(base: Base) -> FloatArray:
    """Closed ring (k, 2) of the base centred on the origin in the model's frame (u right,
    v forward). Read-only; shared between callers."""
    return _outline_cached(base)
