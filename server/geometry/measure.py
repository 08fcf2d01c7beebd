"""Measurement between Unit Boundaries, points and bases.

T9A (FACTS.md): measure between the closest points of Unit Boundaries; "within" means at most
the distance. Base contact is a distance of at most CONTACT_TOLERANCE_IN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from .constants import CONTACT_TOLERANCE_IN
from .footprint import Footprint, as_geometry
from .frame import Point


@dataclass(frozen=True)
class Measurement:
    """A distance in inches and the closest points on the two things measured (from, to)."""

    distance: float
    from_point: Point
    to_point: Point

    def to_dict(self) -> dict[str, Any]:
        return {
            "distance": self.distance,
            "points": [list(self.from_point), list(self.to_point)],
        }


def _order_key(g: BaseGeometry) -> tuple[Any, ...]:
    return (tuple(shapely.bounds(g)), shapely.to_wkb(g))


def distance(a: Footprint | BaseGeometry, b: Footprint | BaseGeometry) -> Measurement:
    """Shortest distance between two Unit Boundaries (or geometries) with the closest points.

    Symmetric exactly: the pair is measured in a canonical order and the points swapped back.
    Overlapping boundaries measure 0.
    """
    ga, gb = as_geometry(a), as_geometry(b)
    swap = _order_key(ga) > _order_key(gb)
    first, second = (gb, ga) if swap else (ga, gb)
    d = float(shapely.distance(first, second))
    line = shapely.shortest_line(first, second)
    coords = shapely.get_coordinates(line)
    p, q = (float(coords[0][0]), float(coords[0][1])), (float(coords[1][0]), float(coords[1][1]))
    if swap:
        p, q = q, p
    return Measurement(d, p, q)


def distance_to_point(a: Footprint | BaseGeometry, point: Point) -> Measurement:
    """Distance from a Unit Boundary to a table point (0 inside it), closest point first."""
    g = as_geometry(a)
    pt = shapely.Point(point)
    d = float(shapely.distance(g, pt))
    coords = shapely.get_coordinates(shapely.shortest_line(g, pt))
    return Measurement(d, (float(coords[0][0]), float(coords[0][1])), (point[0], point[1]))


def in_base_contact(
    a: Footprint | BaseGeometry,
    b: Footprint | BaseGeometry,
    tolerance: float = CONTACT_TOLERANCE_IN,
) -> bool:
    """True when the two boundaries are within `tolerance` (0.01 in) of each other."""
    return bool(shapely.dwithin(as_geometry(a), as_geometry(b), tolerance))


def within(a: Footprint | BaseGeometry, b: Footprint | BaseGeometry, inches: float) -> bool:
    """T9A "within": the closest points are at most `inches` apart."""
    return bool(shapely.dwithin(as_geometry(a), as_geometry(b), inches))
