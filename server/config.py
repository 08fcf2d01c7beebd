"""One place for the host's settings, read from the environment (pydantic-settings)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """What a host can choose. Every field is an environment variable of the same name."""

    model_config = SettingsConfigDict(
        env_prefix="", case_sensitive=False, extra="ignore", populate_by_name=True
    )

    database_url: str = Field(default="", alias="DATABASE_URL")
    redis_url: str = Field(default="", alias="REDIS_URL")
    data_dir: Path = Field(default=Path("var"), alias="WARFIELD_DATA_DIR")
    allowed_origins: str = Field(default="", alias="WARFIELD_ALLOWED_ORIGINS")
    log_level: str = Field(default="info", alias="WARFIELD_LOG_LEVEL")
    # --- websocket limits (server/api/ws.py; sent to each client in its `welcome` frame) ---
    # A client frame over this many bytes: `too_large` and close 1009.
    max_frame_bytes: int = Field(default=64 * 1024, ge=1024, alias="WARFIELD_MAX_FRAME_BYTES")
    # The first frame must be `hello`, within this many seconds.
    hello_timeout_s: float = Field(default=10.0, gt=0, alias="WARFIELD_HELLO_TIMEOUT_S")
    # Frames waiting for a socket past this many: it is too far behind and closed with 1013
    # (its client reconnects and resumes from its last seq).
    max_queued_frames: int = Field(default=2000, ge=1, alias="WARFIELD_MAX_QUEUED_FRAMES")
    # Shared overlays (a measurement shown to everyone): at most this many a second per
    # socket, in bursts of `overlay_burst`; beyond that the sender gets its answer unshared.
    overlay_rate_per_s: float = Field(default=1.0, gt=0, alias="WARFIELD_OVERLAY_RATE_PER_S")
    overlay_burst: int = Field(default=5, ge=1, alias="WARFIELD_OVERLAY_BURST")
    # A spectator that keeps sending past its rate limit (more than this many refused
    # messages, refilling `spectator_refusals_per_s`) is closed with 1008; players never are.
    spectator_refusals_burst: int = Field(
        default=20, ge=1, alias="WARFIELD_SPECTATOR_REFUSALS_BURST"
    )
    spectator_refusals_per_s: float = Field(
        default=1.0, gt=0, alias="WARFIELD_SPECTATOR_REFUSALS_PER_S"
    )
    # Spectator sockets one game accepts (per process). Players are never counted here: each
    # seat has its own small cap, so a crowd (or a flood) of spectators cannot lock them out.
    # WARFIELD_MAX_SOCKETS_PER_GAME is the setting's name before seats had their own cap.
    # 1,000 (was 500): the proxy puts all of a game's sockets on one process, so this is the
    # game's audience; 1,000 spectators cost one process about 14-18 ms of CPU per move and
    # 40 MB (bench.ws_fanout --k 1000, docs/hosting.md "Capacity").
    max_spectators_per_game: int = Field(
        default=1000,
        validation_alias=AliasChoices(
            "max_spectators_per_game",
            "WARFIELD_MAX_SPECTATORS_PER_GAME",
            "WARFIELD_MAX_SOCKETS_PER_GAME",
        ),
    )
    max_sockets_per_seat: int = Field(default=4, alias="WARFIELD_MAX_SOCKETS_PER_SEAT")
    # A frame not written to a socket within this many seconds (its reader has stopped
    # reading) closes the socket with 1013; the other viewers never wait for it.
    send_timeout_s: float = Field(default=10.0, alias="WARFIELD_SEND_TIMEOUT_S")
    # Messages a client may send on one socket: `rate_limit_per_s` a second, in bursts of up
    # to `rate_limit_burst`; past it each message is answered `rate_limited`.
    rate_limit_per_s: float = Field(default=30.0, gt=0, alias="WARFIELD_RATE_LIMIT_PER_S")
    rate_limit_burst: int = Field(default=60, ge=1, alias="WARFIELD_RATE_LIMIT_BURST")
    idle_ping_s: float = Field(default=20.0, alias="WARFIELD_IDLE_PING_S")
    # REST writes (every POST under /api) per client address: a token bucket refilled at
    # `rest_rate_per_min` a minute, holding up to `rest_rate_burst` (server/api/limits.py).
    rest_rate_per_min: float = Field(default=300.0, gt=0, alias="WARFIELD_REST_RATE_PER_MIN")
    rest_rate_burst: int = Field(default=100, ge=1, alias="WARFIELD_REST_RATE_BURST")
    # Request bodies past this many bytes are refused with 413 before they are read in full.
    max_body_bytes: int = Field(default=256 * 1024, ge=1, alias="WARFIELD_MAX_BODY_BYTES")
    # Proxies whose X-Forwarded-For names the client (uvicorn's --forwarded-allow-ips).
    forwarded_allow_ips: str = Field(default="127.0.0.1", alias="WARFIELD_FORWARDED_ALLOW_IPS")
    # Games kept in memory per process (least recently used ones not in use are evicted).
    games_cached: int = Field(default=2000, ge=1, alias="WARFIELD_GAMES_CACHED")
    # Finished and abandoned games expire after this many days; unset (the default) or 0: never.
    retention_days: float | None = Field(default=None, ge=0, alias="WARFIELD_RETENTION_DAYS")
    # With a retention period, each process prunes expired games this often.
    prune_interval_s: float = Field(default=3600.0, gt=0, alias="WARFIELD_PRUNE_INTERVAL_S")

    # `warfield serve` keeps long-lived objects out of the garbage collector's way
    # (server/gcpolicy.py): it freezes what survives each collection of the middle generation
    # (off: CPython's defaults), and does one full collection this often (0: never).
    gc_freeze: bool = Field(default=True, alias="WARFIELD_GC_FREEZE")
    gc_reclaim_s: float = Field(default=3600.0, ge=0, alias="WARFIELD_GC_RECLAIM_S")

    @field_validator("retention_days", mode="before")
    @classmethod
    def _empty_is_off(cls, value: object) -> object:
        return None if value in ("", None, 0, "0") else value

    @property
    def retention_on(self) -> bool:
        return bool(self.retention_days)

    @property
    def ws_transport_max_bytes(self) -> int:
        """uvicorn's own frame limit, above the app's (`max_frame_bytes`), so a frame a little
        over the app's limit reaches the app and is answered with a `too_large` error before
        the 1009 close; a frame over this one is closed by uvicorn with 1009 and no error."""
        return 4 * self.max_frame_bytes

    def client_limits(self) -> dict[str, float | int]:
        """The limits a client should keep to, sent in every `welcome` frame (docs/protocol.md):
        a client that spaces its messages by them is never refused `rate_limited`."""
        return {
            "max_frame_bytes": self.max_frame_bytes,
            "messages_per_s": self.rate_limit_per_s,
            "burst": self.rate_limit_burst,
        }

    @cached_property
    def effective_database_url(self) -> str:
        """DATABASE_URL if set, else a SQLite file in the data directory."""
        if self.database_url:
            url = self.database_url
            if url.startswith("postgres://"):
                url = "postgresql+psycopg://" + url[len("postgres://") :]
            elif url.startswith("postgresql://"):
                url = "postgresql+psycopg://" + url[len("postgresql://") :]
            return url
        return f"sqlite:///{(self.data_dir / 'warfield.db').resolve()}"

    @cached_property
    def origins(self) -> frozenset[str]:
        """Websocket Origin allow-list; empty means same-origin only (Host must match)."""
        return frozenset(
            o.strip().rstrip("/") for o in self.allowed_origins.split(",") if o.strip()
        )
