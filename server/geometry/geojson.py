"""GeoJSON for the browser: geometries as plain dicts and lists (JSON-serialisable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import shapely
from shapely.geometry import mapping
from shapely.geometry.base import BaseGeometry

if TYPE_CHECKING:
    from .footprint import Footprint


def _lists(x: Any) -> Any:
    if isinstance(x, tuple | list):
        return [_lists(v) for v in x]
    if isinstance(x, dict):
        return {k: _lists(v) for k, v in x.items()}
    return x


def to_geojson(geom: BaseGeometry | None, precision: int | None = 4) -> dict[str, Any] | None:
    """A GeoJSON geometry dict (coordinates as nested lists; rounded to `precision` decimals of
    an inch unless None)."""
    if geom is None:
        return None
    if precision is not None:
        geom = shapely.set_precision(geom, 10.0**-precision, mode="pointwise")
    out: dict[str, Any] = _lists(mapping(geom))
    return out


def feature(
    geom: BaseGeometry, properties: dict[str, Any] | None = None, precision: int | None = 4
) -> dict[str, Any]:
    """A GeoJSON Feature."""
    return {
        "type": "Feature",
        "geometry": to_geojson(geom, precision),
        "properties": dict(properties or {}),
    }


def footprint_to_geojson(
    fp: Footprint, *, models: bool = True, precision: int | None = 4
) -> dict[str, Any]:
    """A FeatureCollection: the Unit Boundary (with corners, facing, centre), then each model
    (index, rank, file, character)."""
    props: dict[str, Any] = {
        "role": "boundary",
        "centre": list(fp.centre),
        "front_centre": list(fp.front_centre),
        "facing": fp.facing,
        "height": fp.height.name.lower(),
        "skirmish": fp.skirmish,
    }
    if fp.corners is not None:
        props["corners"] = [list(c) for c in fp.corners.as_tuple()]
    feats = [feature(fp.boundary, props, precision)]
    if models:
        for m in fp.models:
            feats.append(
                feature(
                    m.polygon,
                    {
                        "role": "model",
                        "index": m.index,
                        "rank": m.rank,
                        "file": m.file,
                        "character": m.character,
                    },
                    precision,
                )
            )
    return {"type": "FeatureCollection", "features": feats}
