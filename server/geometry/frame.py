"""Placements and the unit frame: turning a unit's own coordinates into table coordinates.

Table: x to the right, y away from player 1's edge. Facing in degrees, 0 = +y,
counter-clockwise positive (facing 90 faces -x). A unit's own frame has u to its right and
v forward, with the origin at the centre of its front edge; ranks extend to negative v.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.intp]
Point = tuple[float, float]


def normalize_facing(facing: float) -> float:
    """Facing in degrees folded into [0, 360)."""
    f = math.fmod(facing, 360.0)
    if f < 0:
        f += 360.0
    return 0.0 if f == 360.0 else f


def facing_difference(a: float, b: float) -> float:
    """Smallest absolute angle in degrees between two facings (0..180)."""
    d = abs(normalize_facing(a) - normalize_facing(b))
    return 360.0 - d if d > 180.0 else d


def forward_vector(facing: float) -> Point:
    """Unit vector a model facing `facing` looks along (0 -> (0, 1), 90 -> (-1, 0))."""
    t = math.radians(facing)
    return (-math.sin(t), math.cos(t))


def right_vector(facing: float) -> Point:
    """Unit vector to the right hand of a model facing `facing` (0 -> (1, 0))."""
    t = math.radians(facing)
    return (math.cos(t), math.sin(t))


@dataclass(frozen=True)
class Placement:
    """Where a ranked or skirmish unit stands: the centre of its front edge and its facing."""

    x: float
    y: float
    facing: float = 0.0

    @property
    def point(self) -> Point:
        return (self.x, self.y)

    def to_world(self, local: FloatArray) -> FloatArray:
        """Map unit-frame coordinates (..., 2) as (u right, v forward) to table coordinates."""
        rx, ry = right_vector(self.facing)
        fx, fy = forward_vector(self.facing)
        u = local[..., 0]
        v = local[..., 1]
        out = np.empty(local.shape, dtype=np.float64)
        out[..., 0] = self.x + u * rx + v * fx
        out[..., 1] = self.y + u * ry + v * fy
        return out

    def to_local(self, world: FloatArray) -> FloatArray:
        """Inverse of `to_world`: table coordinates (..., 2) to (u, v) in the unit frame."""
        rx, ry = right_vector(self.facing)
        fx, fy = forward_vector(self.facing)
        dx = world[..., 0] - self.x
        dy = world[..., 1] - self.y
        out = np.empty(world.shape, dtype=np.float64)
        out[..., 0] = dx * rx + dy * ry
        out[..., 1] = dx * fx + dy * fy
        return out

    def moved(self, forward: float = 0.0, right: float = 0.0) -> Placement:
        """The placement shifted in its own frame, keeping the facing."""
        rx, ry = right_vector(self.facing)
        fx, fy = forward_vector(self.facing)
        return Placement(
            self.x + right * rx + forward * fx, self.y + right * ry + forward * fy, self.facing
        )

    def turned(self, degrees: float) -> Placement:
        """Same front-centre, facing turned counter-clockwise by `degrees`."""
        return Placement(self.x, self.y, normalize_facing(self.facing + degrees))

    def to_dict(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "facing": self.facing}


def rotate_points(points: FloatArray, pivot: Point, degrees: float) -> FloatArray:
    """Rotate table points (..., 2) counter-clockwise about `pivot`."""
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    dx = points[..., 0] - pivot[0]
    dy = points[..., 1] - pivot[1]
    out = np.empty(points.shape, dtype=np.float64)
    out[..., 0] = pivot[0] + c * dx - s * dy
    out[..., 1] = pivot[1] + s * dx + c * dy
    return out
