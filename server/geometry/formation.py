"""Formations: how a unit's models stand, independent of where the unit is on the table.

A ranked (or skirmish) formation is laid out once in the unit's own frame (u to the right,
v forward, origin at the centre of the front edge, ranks towards negative v) and cached; placing
it on the table is then one affine map (see `footprint.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .bases import Base, RectBase, RoundBase
from .constants import SKIRMISH_GAP_T9A_IN
from .frame import FloatArray
from .kinds import Alignment, Height


@dataclass(frozen=True)
class Character:
    """A character in the front rank of a ranked unit.

    A base of another size than the rank-and-file ("mismatched") takes a block of as many files
    and ranks of the unit's grid as it needs; it stands at the front of its block, centred
    side to side. `file` is the leftmost front-rank file of the block (0 = the unit's left);
    None puts it as near the centre as it fits.
    """

    base: RectBase
    file: int | None = None


@dataclass(frozen=True)
class RankedFormation:
    """A rank-and-flank unit: `models` rank-and-file models in `files` files, ranks filled front
    to back, the last rank incomplete and aligned as chosen, characters in the front rank.

    `gap_in` > 0 makes it a skirmish formation: every model that far from its neighbours, the
    gaps part of the Unit Boundary (seed 000 Skirmisher: 12.5 mm; seed 002: 0.5 in).
    """

    base: RectBase
    models: int
    files: int
    last_rank: Alignment = Alignment.CENTRE
    gap_in: float = 0.0
    characters: tuple[Character, ...] = ()
    height: Height = Height.STANDARD

    def __post_init__(self) -> None:
        if self.models < 0 or self.models + len(self.characters) < 1:
            raise ValueError("a formation needs at least one model")
        if self.files < 1:
            raise ValueError(f"files must be at least 1, got {self.files}")
        if self.gap_in < 0:
            raise ValueError(f"gap must not be negative, got {self.gap_in}")

    @classmethod
    def skirmish(
        cls,
        base: RectBase,
        models: int,
        files: int,
        gap_in: float = SKIRMISH_GAP_T9A_IN,
        *,
        last_rank: Alignment = Alignment.CENTRE,
        characters: tuple[Character, ...] = (),
        height: Height = Height.STANDARD,
    ) -> RankedFormation:
        """A skirmish formation (default gap: T9A's 12.5 mm; whfb8 uses SKIRMISH_GAP_WHFB8_IN)."""
        return cls(base, models, files, last_rank, gap_in, characters, height)

    @property
    def is_skirmish(self) -> bool:
        return self.gap_in > 0

    def with_files(self, files: int) -> RankedFormation:
        """The same unit in another number of files (a reform)."""
        return RankedFormation(
            self.base,
            self.models,
            files,
            self.last_rank,
            self.gap_in,
            self.characters,
            self.height,
        )



@dataclass(frozen=True)
class ModelPlacement:
    """One model placed on its own (40k): the centre of its base, its base, its facing."""

    x: float
    y: float
    base: Base = field(default_factory=lambda: RoundBase(32.0))
    facing: float = 0.0


@dataclass(frozen=True)
class Layout:
    """A ranked formation laid out in the unit frame (inches). Arrays are read-only."""

    model_rings: FloatArray
    """(n, 5, 2) closed rectangles, one per model, in positional order (rank by rank, left to
    right)."""
    ranks: tuple[int, ...]
    files: tuple[int, ...]
    characters: tuple[int | None, ...]
    """Index into the formation's characters, or None for rank-and-file."""
    outline: FloatArray
    """(m, 2) closed ring of the Unit Boundary (models and the gaps between them)."""
    width: float
    depth: float
    rank_count: int
    file_count: int
    rank_widths: tuple[int, ...] = ()
    """Files filled in each rank, front first: a rank-and-file model fills its own, a character
    on a larger base every file of its block in every rank the block covers (what "a rank of
    five" counts, not how many bases start in the rank)."""


def _block_size(char: RectBase, base: RectBase, gap: float) -> tuple[int, int]:
    """Files and ranks of the unit grid a character's base needs."""
    bf = max(1, math.ceil((char.width + gap) / (base.width + gap) - 1e-9))
    br = max(1, math.ceil((char.depth + gap) / (base.depth + gap) - 1e-9))
    return bf, br


def _place_blocks(
    formation: RankedFormation, files: int, blocks: list[tuple[int, int]]
) -> list[int]:
    """Leftmost file of each character block in the front rank."""
    taken = [False] * files
    starts: list[int] = []
    for char, (bf, _) in zip(formation.characters, blocks, strict=True):
        if bf > files:
            raise ValueError(f"a character base needs {bf} files but the unit has {files}")
        if char.file is not None:
            candidates = [char.file]
        else:
            centre = (files - bf) // 2
            candidates = sorted(range(files - bf + 1), key=lambda s: (abs(s - centre), s))
        for s in candidates:
            if 0 <= s <= files - bf and not any(taken[s : s + bf]):
                break
        else:
            raise ValueError("the characters do not fit side by side in the front rank")
        for i in range(s, s + bf):
            taken[i] = True
        starts.append(s)
    return starts


_RING_CORNERS = np.array([[0, 3], [1, 3], [1, 2], [0, 2], [0, 3]])
"""Columns of (u0, u1, v0, v1) that make a model's closed rectangle, front-left first."""


@lru_cache(maxsize=2048)
def layout(formation: RankedFormation) -> Layout:
    """Lay out a ranked formation in its own frame (cached per formation value)."""
    base, gap = formation.base, formation.gap_in
    w, d = base.width, base.depth
    pitch_u, pitch_v = w + gap, d + gap
    blocks = [_block_size(c.base, base, gap) for c in formation.characters]
    block_files = sum(bf for bf, _ in blocks)
    files = max(min(formation.files, formation.models + block_files), block_files, 1)
    starts = _place_blocks(formation, files, blocks)

    occupied: dict[tuple[int, int], int] = {}  # (rank, file) -> -1 rank-and-file, k character
    for k, ((bf, br), s) in enumerate(zip(blocks, starts, strict=True)):
        for r in range(br):
            for f in range(s, s + bf):
                occupied[(r, f)] = k
    char_depth = max((br for _, br in blocks), default=0)

    placed: list[tuple[int, int]] = []  # rank-and-file (rank, file)
    remaining = formation.models
    rank = 0
    while remaining > 0:
        free = [f for f in range(files) if (rank, f) not in occupied]
        if remaining >= len(free):
            chosen = free
        elif formation.last_rank is Alignment.LEFT:
            chosen = free[:remaining]
        elif formation.last_rank is Alignment.RIGHT:
            chosen = free[len(free) - remaining :]
        else:
            start = (len(free) - remaining) // 2
            chosen = free[start : start + remaining]
        for f in chosen:
            occupied[(rank, f)] = -1
            placed.append((rank, f))
        remaining -= len(chosen)
        rank += 1
    rank_count = max(rank, char_depth, 1)

    width = files * w + (files - 1) * gap
    depth = rank_count * d + (rank_count - 1) * gap
    left = -width / 2.0

    entries: list[tuple[int, int, int | None, float, float, float, float]] = []
    for r, f in placed:
        u0 = left + f * pitch_u
        v0 = -r * pitch_v
        entries.append((r, f, None, u0, u0 + w, v0 - d, v0))
    for k, ((bf, _), s) in enumerate(zip(blocks, starts, strict=True)):
        cb = formation.characters[k].base
        block_centre = left + s * pitch_u + (bf * w + (bf - 1) * gap) / 2.0
        entries.append(
            (0, s, k, block_centre - cb.width / 2, block_centre + cb.width / 2, -cb.depth, 0.0)
        )
    entries.sort(key=lambda e: (e[0], e[1]))
    box = np.array([e[3:] for e in entries], dtype=np.float64).reshape(-1, 4)  # u0 u1 v0 v1
    rings = box[:, _RING_CORNERS]  # (n, 5, 2): (u0, v1), (u1, v1), (u1, v0), (u0, v0), (u0, v1)
    rings.setflags(write=False)

    # Unit Boundary: rows of the grid (ranks and the gaps between them) as stacked intervals.
    spans: list[tuple[float, float]] = []
    for r in range(rank_count):
        fs = [f for (rr, f) in occupied if rr == r]
        spans.append((left + min(fs) * pitch_u, left + max(fs) * pitch_u + w))
    rows: list[tuple[float, float, float, float]] = []  # lo, hi, top, bottom
    for r, (lo, hi) in enumerate(spans):
        top = -r * pitch_v
        rows.append((lo, hi, top, top - d))
        if r + 1 < rank_count and gap > 0:
            nlo, nhi = spans[r + 1]
            rows.append((max(lo, nlo), min(hi, nhi), top - d, top - pitch_v))
    right_side = [pt for lo, hi, top, bot in rows for pt in ((hi, top), (hi, bot))]
    left_side = [pt for lo, hi, top, bot in reversed(rows) for pt in ((lo, bot), (lo, top))]
    ring: list[tuple[float, float]] = []
    for pt in right_side + left_side:
        if not ring or (abs(pt[0] - ring[-1][0]) > 1e-12 or abs(pt[1] - ring[-1][1]) > 1e-12):
            ring.append(pt)
    # drop collinear middle points so full rectangles stay 4-cornered
    simplified: list[tuple[float, float]] = []
    n = len(ring)
    for i, p in enumerate(ring):
        a, c = ring[i - 1], ring[(i + 1) % n]
        cross = (p[0] - a[0]) * (c[1] - p[1]) - (p[1] - a[1]) * (c[0] - p[0])
        if abs(cross) > 1e-12:
            simplified.append(p)
    simplified.append(simplified[0])
    outline = np.array(simplified, dtype=np.float64)
    outline.setflags(write=False)

    return Layout(
        model_rings=rings,
        ranks=tuple(e[0] for e in entries),
        files=tuple(e[1] for e in entries),
        characters=tuple(e[2] for e in entries),
        outline=outline,
        width=width,
        depth=depth,
        rank_count=rank_count,
        file_count=files,
        rank_widths=tuple(
            sum(1 for (rr, _) in occupied if rr == r) for r in range(rank_count)
        ),
    )
