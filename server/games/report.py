"""Battle reports and dice luck, from a game's log: pure functions, no I/O.

* :func:`build_report` — the armies, the terrain, per turn what happened in words (moves,
  charges, shooting, fights with their result, units destroyed), a picture of the table at the
  end of each turn and the result, as a viewer may see them (a hidden event stays out).
* :func:`table_svg` — the picture: the battlefield, terrain and every unit's footprint as the
  state projection carries it (the GeoJSON `server.geometry` makes, which the client draws).
* :func:`dice_luck` — per player, how their to-hit, to-wound, save and charge rolls came out
  against the odds each needed: successes, the expected number and its spread (one standard
  deviation), from the roll needed that the rules recorded in each event and the same success
  rule they apply (`server.rules.systems.roll_succeeds`; a charge reaches when its total plus
  bonus covers the distance).
* :func:`to_markdown` / :func:`to_html` — the report as text, with the pictures and luck
  charts inline (SVG).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from server.dice import DiceError, RollSpec, d3_from_d6, parse_expression, select_kept
from server.games.replay import HOST, Replay, Viewer
from server.rules.core import UNDO_EVENT, Event, GameState, undone_seqs
from server.rules.naming import numbered, say_inches
from server.rules.systems import roll_succeeds

CATEGORIES: tuple[tuple[str, str], ...] = (
    ("to_hit", "To hit"),
    ("to_wound", "To wound"),
    ("armour", "Armour saves"),
    ("special", "Special saves"),
    ("charge", "Charges"),
)
"""The luck chart's rows, in order: key and label."""

NARRATED: frozenset[str] = frozenset({
    "unit_deployed", "unit_moved", "unit_arrived", "ambush_rolled", "ambush_delayed",
    "spell_cast", "charge_declared", "charge_reaction", "charge_succeeded", "charge_failed",
    "charge_abandoned",
    "shots_fired", "hp_lost", "combat_score", "break_test", "panic_test", "unit_broke",
    "unit_fled", "unit_pursued", "fleeing_unit_caught", "unit_rallied", "rally_failed",
    "unit_destroyed", "free_move", "terrain_placed", "game_ended",
    # whfb8 Entombed Beneath the Sands and Skirmishers (server/rules/whfb8/): each has a text.
    "entombed_marker", "entombed_mishap", "entombed_emerged", "ambushers_never_arrived",
    "vanguard_moved", "skirmishers_tightened", "skirmishers_loosened", "feigned_flight_moved",
    # whfb8 Night Goblin Fanatics, once released (public; the concealing note is not).
    "fanatics_revealed", "fanatic_released", "fanatic_moved", "fanatic_removed",
    # The roll-offs, and wh40k10's shooting and fights, charges, Stratagems, the Waaagh!,
    # Battle-shock and the objectives scored: each has its own text.
    "roll_off", "first_chosen", "attacks_resolved", "charge_rolled", "stratagem_used",
    "waaagh_called", "battle_shock_test", "objectives_scored", "roar_of_mork_used",
})
"""Events told in the report's words (dice steps are in the combat report and the luck
chart; phase changes are the report's structure)."""

MOVES = {"forward": "move forward", "backward": "move backward", "sideways": "move sideways",
         "wheel": "wheel", "pivot": "pivot", "reform": "reform"}
"""A `unit_moved` manoeuvre in words."""

MAX_ENUMERATED_DICE = 6
"""A charge roll with more dice than this is left out of the expectation (none exists)."""


# --- dice luck ---------------------------------------------------------------------------------


def die_success_chance(needed: int | None, spec: RollSpec | None = None) -> Fraction:
    """The chance one die of a batch roll succeeds against `needed` (natural 1 fails, natural
    6 succeeds), a re-roll in `spec` counted: a die showing a re-rolled face is rolled again."""
    faces = range(1, 7)
    single = Fraction(sum(1 for f in faces if roll_succeeds(f, needed)), 6)
    if spec is None or spec.reroll is None:
        return single
    first = Fraction(0)
    for f in faces:
        first += single / 6 if spec.reroll.matches(f) else Fraction(roll_succeeds(f, needed), 6)
    return first


def total_distribution(spec: RollSpec) -> dict[int, Fraction]:
    """The exact distribution of a dice roll's total (Maximised/Minimised and a re-roll
    counted, as `server.dice.resolve` rolls them)."""
    per_die: dict[int, Fraction] = {}
    for raw in range(1, 7):
        face = d3_from_d6(raw) if spec.sides == 3 else raw
        if spec.reroll is not None and spec.reroll.matches(face):
            for raw2 in range(1, 7):
                face2 = d3_from_d6(raw2) if spec.sides == 3 else raw2
                per_die[face2] = per_die.get(face2, Fraction(0)) + Fraction(1, 36)
        else:
            per_die[face] = per_die.get(face, Fraction(0)) + Fraction(1, 6)
    count = spec.count + abs(spec.net)
    out: dict[int, Fraction] = {}
    for faces in product(per_die.items(), repeat=count):
        values = [f for f, _ in faces]
        chance = math.prod((p for _, p in faces), start=Fraction(1))
        kept = select_kept(values, spec.maximised, spec.minimised)
        total = sum(v for v, k in zip(values, kept, strict=True) if k) + spec.constant
        out[total] = out.get(total, Fraction(0)) + chance
    return out


@dataclass
class LuckRow:
    """One player's rolls of one kind: `trials` dice (or charges), `successes`, and the
    expected number with its variance (a sum of independent Bernoulli trials)."""

    category: str
    label: str
    trials: int = 0
    successes: int = 0
    expected: float = 0.0
    variance: float = 0.0
    rolls: list[int] = field(default_factory=list)  # the seqs counted

    def add(self, seq: int, trials: int, successes: int, chance: Fraction) -> None:
        p = float(chance)
        self.trials += trials
        self.successes += successes
        self.expected += trials * p
        self.variance += trials * p * (1 - p)
        self.rolls.append(seq)

    @property
    def spread(self) -> float:
        return math.sqrt(self.variance)

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "label": self.label,
            "trials": self.trials,
            "successes": self.successes,
            "expected": round(self.expected, 3),
            "spread": round(self.spread, 3),
            "deviation": round((self.successes - self.expected) / self.spread, 2)
            if self.spread else 0.0,
            "events": len(self.rolls),
        }


def _owners(state: GameState, events: Iterable[Event]) -> dict[str, int]:
    owners: dict[str, int] = {}
    for unit in state.units.values():
        owners[unit.id] = int(unit.owner)
    for e in events:  # a unit seen in the log but no longer in the state
        u = e.payload.get("unit")
        if isinstance(u, Mapping) and isinstance(u.get("id"), str) and u.get("owner") in (1, 2):
            owners.setdefault(u["id"], int(u["owner"]))
    return owners


def _kept_int_faces(roll: Mapping[str, Any]) -> list[int]:
    return [
        d["face"] for d in roll.get("dice", ())
        if isinstance(d, Mapping) and d.get("kept") and isinstance(d.get("face"), int)
        and not isinstance(d.get("face"), bool)
    ]


SEQUENCE_EVENT = "attacks_resolved"
"""An attack sequence recorded as one event (40k): `steps` name their roll by index into
`rolls` and say what each die needed."""
SEQUENCE_STEPS = {"hit": "to_hit", "wound": "to_wound", "save": "armour"}


def _sequence_luck(
    e: Event, owners: Mapping[str, int], rows: Mapping[int, Mapping[str, LuckRow]]
) -> None:
    """The hit, wound and save rolls of an attack sequence: hits and wounds for the attacker's
    player, saves for the target's."""
    p = e.payload
    rolls = p.get("rolls")
    if not isinstance(rolls, list):
        return
    for step in p.get("steps") or ():
        if not isinstance(step, Mapping):
            continue
        key = SEQUENCE_STEPS.get(str(step.get("step")))
        index, needed = step.get("roll"), step.get("needed")
        if key is None or not isinstance(index, int) or not isinstance(needed, int):
            continue
        if not 0 <= index < len(rolls) or not isinstance(rolls[index], Mapping):
            continue
        roll = rolls[index]
        try:
            spec = parse_expression(str(roll.get("expression")))
        except DiceError:
            continue
        if spec.kind != "dice" or spec.net or spec.sides != 6:
            continue
        who = owners.get(str(p.get("attacker" if key != "armour" else "target")))
        if who is None or who not in rows:
            continue
        faces = _kept_int_faces(roll)
        hits = sum(1 for f in faces if roll_succeeds(f, needed))
        rows[who][key].add(e.seq, len(faces), hits, die_success_chance(needed, spec))


def dice_luck(
    events: Sequence[Event], state: GameState, viewer: Viewer = HOST
) -> dict[int, list[LuckRow]]:
    """Per player (1, 2), a row per kind of roll (`CATEGORIES`): the rank-and-flank attack
    steps (to hit and to wound for the attacker's player, saves for the target's) and the
    charge rolls, counted over the events `viewer` may see that no agreed undo took back."""
    undone = undone_seqs(e for e in events if e.type == UNDO_EVENT)
    owners = _owners(state, events)
    rows = {seat: {key: LuckRow(key, label) for key, label in CATEGORIES} for seat in (1, 2)}
    for e in events:
        if e.seq in undone or (viewer != HOST and not e.visible_to(viewer)):
            continue
        p = e.payload
        if e.type == SEQUENCE_EVENT:
            _sequence_luck(e, owners, rows)
            continue
        roll = p.get("roll")
        if roll is None and e.type in ("charge_succeeded", "charge_failed"):
            # A charge whose roll was recorded where it was drawn (a 40k Charge move after
            # `charge_rolled`, a charge completed after Fanatics stopped it) names it thus.
            roll = p.get("distance_roll")
        if not isinstance(roll, Mapping) or not isinstance(roll.get("expression"), str):
            continue
        try:
            spec = parse_expression(roll["expression"])
        except DiceError:
            continue
        if spec.kind != "dice":
            continue
        if e.type == "attack_step" and p.get("step") not in (None, "attacks"):
            needed = p.get("needed")
            if not isinstance(needed, int) or spec.net or spec.sides != 6:
                continue
            step = str(p["step"])
            key = step if step in ("to_hit", "to_wound", "armour") else "special"
            who = owners.get(str(p.get("unit" if key in ("to_hit", "to_wound") else "target")))
            if who not in rows:
                continue
            faces = _kept_int_faces(roll)
            hits = sum(1 for f in faces if roll_succeeds(f, needed))
            rows[who][key].add(e.seq, len(faces), hits, die_success_chance(needed, spec))
        elif e.type in ("charge_succeeded", "charge_failed"):
            distance, total = p.get("distance"), roll.get("total")
            who = owners.get(str(p.get("unit")))
            if (who not in rows or not isinstance(distance, int | float)
                    or not isinstance(total, int) or spec.count + abs(spec.net)
                    > MAX_ENUMERATED_DICE):
                continue
            raw_bonus = p.get("bonus")
            bonus = raw_bonus if isinstance(raw_bonus, int) else 0
            reached = total + bonus + 1e-9 >= distance
            chance = sum(
                (c for t, c in total_distribution(spec).items() if t + bonus + 1e-9 >= distance),
                start=Fraction(0),
            )
            rows[who]["charge"].add(e.seq, 1, int(reached), chance)
    return {seat: list(r.values()) for seat, r in rows.items()}


# --- the table as SVG --------------------------------------------------------------------------

OWNER_FILL = {1: "#3d7be0", 2: "#e0902c", 0: "#8a8f98"}
OWNER_LINE = {1: "#cfe0ff", 2: "#ffe3bd", 0: "#e5e5e5"}
TERRAIN_FILL = {
    "impassable": "#282828", "blocks_los": "#5a4632", "cover": "#286e28",
    "dangerous": "#962d5a", "open": "#a09664",
}
TERRAIN_WORDS = {
    "impassable": "Impassable", "blocks_los": "Blocks line of sight", "cover": "Cover",
    "dangerous": "Dangerous", "open": "Open",
}
TERRAIN_LABEL_IN = 1.1
"""Terrain labels' size in inches: 11 px at the report's 720 px for a 72 in table."""
GONE = frozenset({"destroyed", "removed", "fled"})
OFF_TABLE = frozenset({"undeployed", "in_reserve", "in_ambush", "reserve", "ambush", "hidden"})


def _rings(geometry: Mapping[str, Any]) -> list[list[list[float]]]:
    kind, coords = geometry.get("type"), geometry.get("coordinates")
    if kind == "Polygon":
        return list(coords or [])
    if kind == "MultiPolygon":
        return [ring for poly in coords or [] for ring in poly]
    if kind == "GeometryCollection":
        return [r for g in geometry.get("geometries", []) for r in _rings(g)]
    return []


def _path(rings: Iterable[Sequence[Sequence[float]]], depth: float) -> str:
    parts = []
    for ring in rings:
        pts = [f"{float(x):.2f},{depth - float(y):.2f}" for x, y, *_ in ring]
        if pts:
            parts.append("M" + " L".join(pts) + " Z")
    return " ".join(parts)


def table_svg(view: Mapping[str, Any], title: str = "", width_px: int = 720) -> str:
    """The table of a state projection as SVG: player 1's edge at the bottom, inches as user
    units; terrain, then each unit's footprint (boundary outlined, bases filled) and name."""
    bf = view.get("battlefield") or {"width": 72.0, "depth": 48.0}
    w, d = float(bf["width"]), float(bf["depth"])
    height_px = round(width_px * d / w)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="table-picture" viewBox="0 0 {w:g} {d:g}" '
        f'width="{width_px}" height="{height_px}" role="img" '
        f'aria-label="{html.escape(title or "The table")}">',
        f'<rect x="0" y="0" width="{w:g}" height="{d:g}" fill="#3f5a36" stroke="#c9b98b" '
        'stroke-width="0.3"/>',
    ]
    # Each piece says what it is (its name and kind), under the units' names: a block of
    # colour alone does not tell a reader a wood from a ruin.
    terrain_labels: list[str] = []
    for t in view.get("terrain") or []:
        points = t.get("points") or []
        if points:
            fill = TERRAIN_FILL.get(str(t.get("kind")), "#a09664")
            out.append(f'<path class="terrain" d="{_path([points], d)}" fill="{fill}" '
                       'fill-opacity="0.75"/>')
            terrain_labels.append(_terrain_label(t, points, w, d))
    labels = []
    names = _names(view)
    for unit in (view.get("units") or {}).values():
        status = str(unit.get("status"))
        if status in GONE or status in OFF_TABLE:
            continue
        owner = int(unit.get("owner") or 0)
        fp = unit.get("footprint") or {}
        boundary: list[list[list[float]]] = []
        bases: list[list[list[float]]] = []
        for feature in fp.get("features") or []:
            rings = _rings(feature.get("geometry") or {})
            if (feature.get("properties") or {}).get("role") == "boundary":
                boundary += rings
            else:
                bases += rings
        if bases:
            out.append(f'<path class="unit owner-{owner}" data-unit="{html.escape(unit["id"])}" '
                       f'd="{_path(bases, d)}" fill="{OWNER_FILL.get(owner, "#888")}" '
                       f'stroke="{OWNER_LINE.get(owner, "#eee")}" stroke-width="0.08"/>')
        if boundary:
            out.append(f'<path class="boundary" d="{_path(boundary, d)}" fill="none" '
                       f'stroke="{OWNER_LINE.get(owner, "#eee")}" stroke-width="0.15"/>')
        ring = (boundary or bases or [[]])[0]
        if ring:
            cx = sum(float(p[0]) for p in ring) / len(ring)
            cy = sum(float(p[1]) for p in ring) / len(ring)
            labels.append(f'<text x="{cx:.2f}" y="{d - cy:.2f}" font-size="1.2" '
                          'font-family="sans-serif" text-anchor="middle" fill="#fff" '
                          'stroke="#000" stroke-width="0.25" paint-order="stroke">'
                          f'{html.escape(names.get(unit["id"], unit["id"]))}</text>')
    out += terrain_labels
    out += labels
    out.append("</svg>")
    return "".join(out)


def terrain_words(piece: Mapping[str, Any]) -> str:
    """A piece as the picture names it: "Wood (cover)", or its kind alone when unnamed."""
    kind = str(piece.get("kind") or "")
    words = TERRAIN_WORDS.get(kind, kind.replace("_", " ").capitalize() or "Terrain")
    label = str(piece.get("label") or "").strip()
    return f"{label} ({words.lower()})" if label and label != words else words


def _terrain_label(
    piece: Mapping[str, Any], points: Sequence[Sequence[float]], w: float, d: float
) -> str:
    """The piece's label at its middle, kept inside the board (a piece at the edge would
    otherwise push half its text off the picture)."""
    text = terrain_words(piece)
    size = TERRAIN_LABEL_IN
    cx = sum(float(p[0]) for p in points) / len(points)
    cy = sum(float(p[1]) for p in points) / len(points)
    half = min(w / 2, len(text) * size * 0.3)  # about half the width of sans-serif text
    x = min(max(cx, half), w - half)
    y = min(max(d - cy + size * 0.35, size), d - size * 0.3)
    return (f'<text class="terrain-label" x="{x:.2f}" y="{y:.2f}" font-size="{size:g}" '
            'font-family="sans-serif" font-style="italic" text-anchor="middle" fill="#f4ecc8" '
            'stroke="#1b1b1b" stroke-width="0.2" paint-order="stroke">'
            f"{html.escape(text)}</text>")


def luck_svg(seat: int, rows: Sequence[LuckRow], compact: bool = False) -> str:
    """One player's luck chart: per kind of roll, the expected successes with one standard
    deviation either side (the band) and what was rolled (the dot), on the row's own scale
    from 0 to the number of dice. `compact`: narrow, for the client's side panel."""
    shown = [r for r in rows if r.trials]
    width_px, row_h, left, right = (300, 30, 100, 88) if compact else (640, 34, 120, 230)
    height = 30 + row_h * max(1, len(shown))
    span = width_px - left - right
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="luck-chart" data-seat="{seat}" '
        f'viewBox="0 0 {width_px} {height}" width="{width_px}" height="{height}" role="img" '
        f'aria-label="Player {seat}: rolls against the odds">',
        f'<text x="4" y="18" font-size="14" font-weight="bold" fill="{OWNER_FILL[seat]}">'
        f'Player {seat}</text>',
    ]
    if not shown:
        out.append(f'<text x="{left}" y="40" font-size="12">no rolls against a target</text>')
    for i, r in enumerate(shown):
        y = 30 + i * row_h
        mid = y + row_h / 2

        def x(v: float, n: int = r.trials) -> float:
            return left + span * max(0.0, min(float(n), v)) / n

        lo, hi = x(r.expected - r.spread), x(r.expected + r.spread)
        out += [
            f'<text x="4" y="{mid + 4:.1f}" font-size="12">{html.escape(r.label)}</text>',
            f'<line x1="{left}" y1="{mid}" x2="{left + span}" y2="{mid}" stroke="#999"/>',
            f'<rect class="spread" x="{lo:.1f}" y="{mid - 7:.1f}" width="{hi - lo:.1f}" '
            'height="14" fill="#9ab" fill-opacity="0.5"/>',
            f'<line class="expected" x1="{x(r.expected):.1f}" y1="{mid - 9:.1f}" '
            f'x2="{x(r.expected):.1f}" y2="{mid + 9:.1f}" stroke="#345" stroke-width="2"/>',
            f'<circle class="rolled" data-category="{r.category}" data-successes="{r.successes}" '
            f'data-trials="{r.trials}" cx="{x(r.successes):.1f}" cy="{mid}" r="5" '
            f'fill="{OWNER_FILL[seat]}" stroke="#000"/>',
            f'<text x="{left + span + 8}" y="{mid + 4:.1f}" font-size="11">'
            + (f"{r.successes}/{r.trials} · {r.expected:.1f}±{r.spread:.1f}" if compact else
               f"{r.successes} of {r.trials}, expected {r.expected:.1f} ± {r.spread:.1f}")
            + "</text>",
        ]
    out.append("</svg>")
    return "".join(out)


# --- the report --------------------------------------------------------------------------------


@dataclass
class TurnReport:
    turn: int
    seq: int  # the last event of the turn: the picture's state
    lines: list[tuple[int | None, str]]  # (active player, sentence)
    picture: str


@dataclass
class Report:
    game_id: str
    name: str
    system: str
    armies: dict[int, list[str]]
    terrain: list[str]
    setup: list[str]
    turns: list[TurnReport]
    result: str
    luck: dict[int, list[LuckRow]]
    proof: Mapping[str, Any] | None

    def luck_json(self) -> dict[str, Any]:
        return {str(seat): [r.to_json() for r in rows] for seat, rows in self.luck.items()}


def _names(view: Mapping[str, Any]) -> dict[str, str]:
    """Each unit of the view by name, same-named units numbered as in every other message."""
    units = view.get("units") or {}
    return numbered({uid: str(u.get("name") or uid) for uid, u in units.items()})


def _name(view: Mapping[str, Any], unit_id: Any) -> str:
    return _names(view).get(str(unit_id), str(unit_id))


def sentence(event: Event, view: Mapping[str, Any]) -> str | None:
    """One event in words (its own `text` when it has one), or None when not narrated."""
    if event.type not in NARRATED:
        return None
    p = event.payload
    text = p.get("text")
    if isinstance(text, str) and text:
        rules = [r["text"] for r in p.get("rules") or []
                 if isinstance(r, Mapping) and isinstance(r.get("text"), str)
                 and r["text"] not in text]
        return text + (f" ({'; '.join(rules)})" if rules and event.type != "combat_score" else "")
    unit = p.get("unit")
    uid = unit.get("id") if isinstance(unit, Mapping) else unit
    name = _name(view, uid)
    if event.type == "unit_deployed" and isinstance(unit, Mapping) and unit.get("placement"):
        at = unit["placement"]
        return f"{name} deploy at ({at['x']:g}, {at['y']:g})"
    if event.type == "unit_moved":
        how = MOVES.get(str(p.get("manoeuvre")), "move")
        if p.get("manoeuvre") == "models":
            mode = str(p.get("mode") or "normal")
            how = f"make {'an' if mode == 'advance' else 'a'} {mode} move"
        far = p.get("distance")
        return f"{name} {how}" + (f" {say_inches(far)}" if isinstance(far, int | float) else "")
    if event.type == "game_ended":
        return None
    if event.type in ("free_move", "terrain_placed"):
        return f"{event.type.replace('_', ' ').capitalize()}: {name}" if uid else None
    return f"{event.type.replace('_', ' ').capitalize()}: {name}" if uid else None


def build_report(
    game_id: str,
    replay: Replay,
    viewer: Viewer = HOST,
    proof: Mapping[str, Any] | None = None,
) -> Report:
    """The report of `replay`'s log as `viewer` may see it (module text); `proof` is the
    dice proof (`server.games.archive.dice_proof`) shown beside the luck chart."""
    seat: int | None = viewer if isinstance(viewer, int) else None
    final = replay.state
    final_view = final.to_json(seat)
    undone = undone_seqs(e for e in replay.events if e.type == UNDO_EVENT)
    visible = [
        e for e in replay.events
        if e.seq not in undone and (viewer == HOST or e.visible_to(seat))
    ]
    start_seq = next((s.seq for s in replay.steps if s.stage not in ("setup", "deployment")),
                     replay.seq)
    start_view = replay.state_at(start_seq).to_json(seat)
    armies: dict[int, list[str]] = {1: [], 2: []}
    start_names = _names(start_view)
    for uid, unit in (start_view.get("units") or {}).items():
        owner = int(unit.get("owner") or 0)
        if owner in armies:
            size = unit.get("models")
            chars = ", ".join(c.get("name", "") for c in unit.get("characters") or [])
            armies[owner].append(
                f"{start_names.get(uid, uid)} ({size} model{'s' if size != 1 else ''})"
                + (f" with {chars}" if chars else "")
            )
    terrain = [
        f"{t.get('label') or t.get('id')}: {str(t.get('kind')).replace('_', ' ')}, "
        f"{t.get('height')}"
        for t in start_view.get("terrain") or []
    ]
    step_of = {s.seq: s for s in replay.steps}
    setup: list[str] = []
    turns: dict[int, TurnReport] = {}
    shooting: tuple[list[tuple[int | None, str]], int, str, dict[str, int]] | None = None
    for e in visible:
        step = step_of[e.seq]
        words = sentence(e, final_view)
        if e.type == "attack_step" and shooting is not None:
            # A shooting's steps, told as its outcome after the shots: "3 hits, 1 wound".
            lines, at, told, counts = shooting
            kind = str(e.payload.get("step"))
            done = e.payload.get("successes")
            if isinstance(done, int) and kind in ("to_hit", "to_wound"):
                counts[kind] = counts.get(kind, 0) + done
            elif isinstance(done, int) and kind != "attacks":
                counts["saved"] = counts.get("saved", 0) + done
            outcome = ", ".join(
                f"{counts[k]} {name}{'' if counts[k] == 1 else 's'}"
                for k, name in (("to_hit", "hit"), ("to_wound", "wound"), ("saved", "save"))
                if k in counts
            )
            lines[at] = (lines[at][0], f"{told}: {outcome}")
            continue
        if e.type != "attack_step":
            shooting = None
        if step.turn is None or step.stage in ("setup", "deployment") and e.type != "game_ended":
            if words:
                setup.append(words)
            continue
        turn = turns.setdefault(step.turn, TurnReport(step.turn, e.seq, [], ""))
        turn.seq = e.seq
        if words:
            turn.lines.append((step.player, words))
            if e.type == "shots_fired":
                shooting = (turn.lines, len(turn.lines) - 1, words, {})
    # The end of turn N is the last event before turn N + 1 began (or the log's last event).
    for t in turns.values():
        last = max((s.seq for s in replay.steps if s.turn == t.turn and s.stage != "over"),
                   default=t.seq)
        t.seq = last
        t.picture = table_svg(replay.state_at(last).to_json(seat), f"End of turn {t.turn}")
    ended = next((e for e in replay.events if e.type == "game_ended"), None)
    if ended is None:
        result = f"The game is not over (seq {replay.seq})."
    else:
        winner = ended.payload.get("winner")
        reason = str(ended.payload.get("reason") or "").replace("_", " ")
        result = (f"Player {winner} wins" if winner in (1, 2) else "A draw") + (
            f" ({reason})." if reason else ".")
        scored = next((e for e in replay.events if e.type == "game_result"), None)
        if scored is not None:  # Victory Points and objectives (server/rules/endgame.py)
            result = f"{scored.payload.get('text')}" + (f" ({reason})." if reason else ".")
    return Report(
        game_id=game_id,
        name=str(final_view.get("name") or ""),
        system=final.system,
        armies=armies,
        terrain=terrain,
        setup=setup,
        turns=[turns[k] for k in sorted(turns)],
        result=result,
        luck=dice_luck(replay.events, final, viewer),
        proof=proof,
    )


def _proof_lines(proof: Mapping[str, Any] | None) -> list[str]:
    if proof is None:
        return []
    lines = [f"Dice commitment `{proof.get('commitment')}`, {proof.get('rolls')} rolls."]
    if not proof.get("revealed"):
        lines.append("The seed is revealed when the game ends; the dice can be verified then.")
    elif proof.get("verified"):
        lines.append(f"Seed `{proof.get('seed')}` revealed: every roll verified against it "
                     "(docs/dice.md).")
    else:
        failures = proof.get("failures") or []
        lines.append(f"Seed revealed, but {len(failures)} check(s) failed: "
                     + "; ".join(str(f.get("reason")) for f in failures[:5]))
    return lines


def _luck_table(rows: Sequence[LuckRow]) -> list[str]:
    out = ["| Rolls | Dice | Successes | Expected | Spread (1 sd) |", "|---|---|---|---|---|"]
    for r in rows:
        if r.trials:
            out.append(f"| {r.label} | {r.trials} | {r.successes} | {r.expected:.2f} | "
                       f"± {r.spread:.2f} |")
    return out if len(out) > 2 else ["No rolls against a target."]


def to_markdown(report: Report) -> str:
    """The report as Markdown, pictures and charts as inline SVG."""
    title = report.name or f"Game {report.game_id}"
    out = [f"# Battle report: {title}", "",
           f"{report.system} · game `{report.game_id}`", "", "## Armies", ""]
    for seat, units in report.armies.items():
        out.append(f"**Player {seat}**: " + ("; ".join(units) if units else "no units"))
        out.append("")
    out += ["## Terrain", ""]
    out += [f"- {t}" for t in report.terrain] or ["Open ground."]
    out.append("")
    if report.setup:
        out += ["## Deployment", ""] + [f"- {s}" for s in report.setup] + [""]
    for t in report.turns:
        out += [f"## Turn {t.turn}", ""]
        player = None
        for who, line in t.lines:
            if who != player and who is not None:
                out += ["", f"**Player {who}**", ""]
                player = who
            out.append(f"- {line}")
        if not t.lines:
            out.append("Nothing happened this turn.")
        out += ["", f"End of turn {t.turn} (seq {t.seq}):", "", t.picture, ""]
    out += ["## Result", "", report.result, "", "## Dice luck", ""]
    for seat, rows in report.luck.items():
        out += [f"**Player {seat}**", ""] + _luck_table(rows) + ["", luck_svg(seat, rows), ""]
    out += _proof_lines(report.proof)
    return "\n".join(out).rstrip() + "\n"


def to_html(report: Report) -> str:
    """The report as one HTML page (no scripts, no outside resources)."""
    esc = html.escape
    title = report.name or f"Game {report.game_id}"
    body = [f"<h1>Battle report: {esc(title)}</h1>",
            f"<p>{esc(report.system)} · game <code>{esc(report.game_id)}</code></p>",
            "<h2>Armies</h2>"]
    for seat, units in report.armies.items():
        body.append(f"<p><b>Player {seat}</b>: {esc('; '.join(units) or 'no units')}</p>")
    body.append("<h2>Terrain</h2>")
    body.append("<ul>" + "".join(f"<li>{esc(t)}</li>" for t in report.terrain) + "</ul>"
                if report.terrain else "<p>Open ground.</p>")
    if report.setup:
        body.append("<h2>Deployment</h2><ul>"
                    + "".join(f"<li>{esc(s)}</li>" for s in report.setup) + "</ul>")
    for t in report.turns:
        body.append(f'<section class="turn" data-turn="{t.turn}"><h2>Turn {t.turn}</h2>')
        player = None
        items: list[str] = []
        for who, line in t.lines:
            if who != player and who is not None:
                if items:
                    body.append("<ul>" + "".join(items) + "</ul>")
                    items = []
                body.append(f"<h3>Player {who}</h3>")
                player = who
            items.append(f"<li>{esc(line)}</li>")
        body.append("<ul>" + "".join(items) + "</ul>" if items
                    else "<p>Nothing happened this turn.</p>")
        body.append(f"<figure>{t.picture}<figcaption>End of turn {t.turn} (seq {t.seq})"
                    "</figcaption></figure></section>")
    body += ["<h2>Result</h2>", f"<p>{esc(report.result)}</p>", "<h2>Dice luck</h2>"]
    for seat, rows in report.luck.items():
        table = "".join(
            f"<tr><td>{esc(r.label)}</td><td>{r.trials}</td><td>{r.successes}</td>"
            f"<td>{r.expected:.2f}</td><td>± {r.spread:.2f}</td></tr>"
            for r in rows if r.trials
        )
        body.append(
            f'<h3>Player {seat}</h3><table class="luck" data-seat="{seat}"><tr><th>Rolls</th>'
            "<th>Dice</th><th>Successes</th><th>Expected</th><th>Spread (1 sd)</th></tr>"
            f"{table}</table>{luck_svg(seat, rows)}"
        )
    body += [f"<p>{esc(line).replace('`', '')}</p>" for line in _proof_lines(report.proof)]
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Battle report: {esc(title)}</title>"
        "<style>body{font-family:system-ui,sans-serif;max-width:60em;margin:auto;padding:1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}"
        "svg{max-width:100%;height:auto}</style></head><body>"
        + "\n".join(body) + "</body></html>\n"
    )
