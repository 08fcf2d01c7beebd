"""The Docker deployment, checked by reading: no Docker engine runs where these tests run.

Parses docker-compose.yml (PyYAML), the Dockerfile, .dockerignore and the nginx config in
deploy/, and checks what can be checked without building or starting anything.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
HOSTING_DOC = ROOT / "docs" / "hosting.md"

# Every environment variable the compose file may hand to the app: the ones the app reads.
APP_ENV = {
    "DATABASE_URL",
    "REDIS_URL",
    "WARFIELD_DATA_DIR",
    "WARFIELD_ALLOWED_ORIGINS",
    "WARFIELD_LOG_LEVEL",
    "WARFIELD_FORWARDED_ALLOW_IPS",
    "WARFIELD_RETENTION_DAYS",
}
# Parts of the final layout the image needs once they exist. The Dockerfile only COPYs paths
# that exist (a COPY of a missing path breaks the build); when one of these appears in the repo,
# test_paths_the_image_needs_are_copied fails until the Dockerfile copies it.
NEEDED_WHEN_PRESENT = ("README.md", "alembic.ini", "migrations", "static")
SERVE = ["warfield", "serve", "--host", "0.0.0.0", "--port", "8000"]


# --- helpers ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.fixture(scope="module")
def services(compose: dict) -> dict:
    return compose["services"]


def interpolate(value: str, env: dict[str, str] | None = None) -> str:
    """Compose-style ${VAR}, ${VAR:-default}, ${VAR-default} (nested), with `env` as the shell."""
    env = env or {}
    out: list[str] = []
    i = 0
    while i < len(value):
        if value.startswith("$$", i):
            out.append("$")
            i += 2
        elif value.startswith("${", i):
            depth, j = 1, i + 2
            while depth:
                if value.startswith("${", j):
                    depth, j = depth + 1, j + 2
                    continue
                depth -= value[j] == "}"
                j += 1
            body = value[i + 2 : j - 1]
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)(.*))?", body, re.S)
            assert m, f"unsupported interpolation ${{{body}}}"
            name, op, default = m.groups()
            current = env.get(name)
            if op == ":-" and not current or op == "-" and current is None:
                current = interpolate(default, env)
            out.append(current or "")
            i = j
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: interpolate(str(v)) for k, v in env.items()}


def healthcheck_command(service: dict) -> list[str]:
    test = service["healthcheck"]["test"]
    if isinstance(test, str):
        return ["CMD-SHELL", test]
    return list(test)


def python_c_snippets(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-c" and "python" in argv[0]]


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments) with continuations joined, comments dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        keyword, _, args = full.partition(" ")
        result.append((keyword.upper(), args.strip()))
    assert not pending, "Dockerfile ends inside a line continuation"
    return result


def stages() -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for keyword, args in instructions():
        if keyword == "FROM":
            out.append([])
        assert out, "Dockerfile must start with FROM"
        out[-1].append((keyword, args))
    return out


def exec_form(args: str) -> list[str]:
    assert args.startswith("["), f"use the exec (JSON) form: {args}"
    return json.loads(args)


def copy_sources(args: str) -> tuple[list[str], list[str]]:
    """(flags, sources) of one COPY/ADD."""
    tokens = json.loads(args) if args.startswith("[") else shlex.split(args)
    flags = [t for t in tokens if t.startswith("--")]
    paths = [t for t in tokens if not t.startswith("--")]
    assert len(paths) >= 2, f"COPY needs a source and a destination: {args}"
    return flags, paths[:-1]


def local_copy_sources() -> list[str]:
    sources: list[str] = []
    for keyword, args in instructions():
        if keyword in {"COPY", "ADD"}:
            flags, srcs = copy_sources(args)
            if not any(f.startswith("--from") for f in flags):
                sources += [s.rstrip("/").removeprefix("./") for s in srcs]
    return sources


def has_files(path: Path) -> bool:
    """A file, or a directory holding at least one file (git cannot hold an empty directory)."""
    if path.is_file():
        return True
    return path.is_dir() and any(p.is_file() for p in path.rglob("*"))


def nginx_config(services: dict) -> tuple[Path, str]:
    for mount in services["proxy"].get("volumes", []):
        source, target = mount.split(":")[:2]
        if target.startswith("/etc/nginx/"):
            path = (ROOT / source).resolve()
            return path, path.read_text()
    raise AssertionError("the proxy service mounts no nginx config from deploy/")


def nginx_directives(text: str) -> list[list[str]]:
    """Each `name args...;` of an nginx config as a token list (comments stripped)."""
    text = re.sub(r"#[^\n]*", "", text)
    return [stmt.split() for stmt in re.split(r"[;{}]", text) if stmt.strip()]


def nginx_upstreams(text: str) -> dict[str, list[list[str]]]:
    """Each `upstream NAME { ... }` block's directives, by name."""
    text = re.sub(r"#[^\n]*", "", text)
    return {
        m.group(1): nginx_directives(m.group(2))
        for m in re.finditer(r"upstream\s+(\S+)\s*\{([^}]*)\}", text)
    }


def nginx_map(text: str, source: str, variable: str) -> Callable[[str], str]:
    """The `map SOURCE VARIABLE { ... }` block as a function of the source value, evaluated as
    nginx does: an exact string first, then the regular expressions (`~`, `~*`) in order, the
    first that matches giving the value (with `$1`.. captures), else `default`."""
    text = re.sub(r"#[^\n]*", "", text)
    m = re.search(
        r"map\s+" + re.escape(source) + r"\s+" + re.escape(variable) + r"\s*\{([^}]*)\}", text
    )
    assert m, f"no `map {source} {variable}` block"
    exact: dict[str, str] = {}
    regexes: list[tuple[re.Pattern[str], str]] = []
    default = ""
    for entry in m.group(1).split(";"):
        if not entry.strip():
            continue
        key, value = shlex.split(entry)
        if key == "default":
            default = value
        elif key.startswith("~*"):
            regexes.append((re.compile(key[2:], re.IGNORECASE), value))
        elif key.startswith("~"):
            regexes.append((re.compile(key[1:]), value))
        else:
            exact[key] = value

    def lookup(value: str) -> str:
        if value in exact:
            return exact[value]
        for pattern, result in regexes:
            found = pattern.search(value)
            if found:
                return re.sub(r"\$(\d)", lambda g, f=found: f.group(int(g.group(1))) or "",
                              result)
        return default

    return lookup


# --- docker-compose.yml -------------------------------------------------------------------


def test_services_and_images(services: dict) -> None:
    assert {"app", "db", "redis", "proxy"} <= set(services)
    assert services["db"]["image"] == "postgres:16"
    assert services["redis"]["image"] == "redis:7"
    assert services["proxy"]["image"].startswith(("nginx:1.27", "caddy:2"))
    build = services["app"]["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    assert context == ".", "app builds the Dockerfile at the repo root"
    assert "image" not in services["app"], "app is built here, not pulled"


def test_app_serves_on_all_interfaces(services: dict) -> None:
    assert services["app"]["command"] == SERVE


def test_app_publishes_no_host_port_so_it_can_scale(services: dict) -> None:
    app = services["app"]
    assert "ports" not in app, "a fixed host port breaks `docker compose up --scale app=3`"
    assert "container_name" not in app
    assert "8000" in [str(p) for p in app.get("expose", ["8000"])]


def test_proxy_publishes_the_port(services: dict) -> None:
    assert services["proxy"]["ports"] == ["${WARFIELD_PORT:-8000}:80"]
    published = [
        p for name, svc in services.items() if name != "proxy" for p in svc.get("ports", [])
    ]
    assert published == [], "only the proxy is reachable from outside"


def test_app_environment(services: dict) -> None:
    env = environment(services["app"])
    assert set(env) <= APP_ENV, f"app sets variables it does not read: {set(env) - APP_ENV}"
    assert {"DATABASE_URL", "REDIS_URL", "WARFIELD_DATA_DIR"} <= set(env)

    url = make_url(env["DATABASE_URL"])
    db = environment(services["db"])
    assert url.drivername == "postgresql+psycopg"
    assert (url.host, url.port) == ("db", 5432)
    assert url.username == db["POSTGRES_USER"]
    assert url.password == db["POSTGRES_PASSWORD"]
    assert url.database == db["POSTGRES_DB"]

    assert env["REDIS_URL"] == "redis://redis:6379/0"
    assert env["WARFIELD_DATA_DIR"] == "/data"
    assert "/data" in [m.split(":")[1] for m in services["app"]["volumes"]]


def test_password_override_reaches_both_sides(services: dict) -> None:
    shell = {"POSTGRES_PASSWORD": "s3cret"}
    app_url = interpolate(services["app"]["environment"]["DATABASE_URL"], shell)
    db_password = interpolate(services["db"]["environment"]["POSTGRES_PASSWORD"], shell)
    assert make_url(app_url).password == db_password == "s3cret"


def test_allowed_origins_default_to_same_origin(services: dict) -> None:
    raw = services["app"]["environment"]["WARFIELD_ALLOWED_ORIGINS"]
    assert interpolate(raw) == "", "empty = same-origin only, for any host name"
    chosen = {"WARFIELD_ALLOWED_ORIGINS": "https://warfield.example.org"}
    assert interpolate(raw, chosen) == "https://warfield.example.org"


def test_startup_order(services: dict) -> None:
    app_deps = services["app"]["depends_on"]
    assert app_deps["db"]["condition"] == "service_healthy"
    assert app_deps["redis"]["condition"] == "service_healthy"
    assert "app" in services["proxy"]["depends_on"]


def test_healthchecks(services: dict) -> None:
    db = " ".join(healthcheck_command(services["db"]))
    assert "pg_isready" in db and "-U warfield" in db
    assert healthcheck_command(services["redis"])[-2:] == ["redis-cli", "ping"]

    app = healthcheck_command(services["app"])
    assert app[0] == "CMD" and app[1] == "python", "slim images have python, not curl"
    (code,) = python_c_snippets(app[1:])
    compile(code, "<app healthcheck>", "exec")
    assert re.search(r"http://(127\.0\.0\.1|localhost):8000/(healthz|readyz)", code)
    for name in ("app", "db", "redis"):
        assert services[name]["healthcheck"].get("interval"), name


def test_named_volumes_are_declared(compose: dict, services: dict) -> None:
    declared = set(compose.get("volumes") or {})
    used = set()
    for svc in services.values():
        for mount in svc.get("volumes", []):
            source = mount.split(":")[0]
            if not source.startswith((".", "/", "~")):
                used.add(source)
    assert used and used <= declared, f"undeclared volumes: {used - declared}"
    db_mounts = dict(m.split(":")[:2] for m in services["db"]["volumes"])
    assert db_mounts.get("db-data") == "/var/lib/postgresql/data"


def test_redis_keeps_nothing_on_disk(services: dict) -> None:
    command = services["redis"].get("command", [])
    assert "--appendonly" in command and "no" in command


# --- Dockerfile -----------------------------------------------------------------------------


def test_dockerfile_base_and_install() -> None:
    all_stages = stages()
    for stage in all_stages:
        image = stage[0][1].split()[0]
        assert image == "python:3.11-slim", image
    runs = " ".join(args for stage in all_stages for kw, args in stage if kw == "RUN")
    assert re.search(r"pip install --no-cache-dir -c constraints\.txt \.(\s|$)", runs)


def test_dockerfile_runtime_stage() -> None:
    final = stages()[-1]
    keywords = [kw for kw, _ in final]

    users = [args for kw, args in final if kw == "USER"]
    assert users and users[-1].split(":")[0] not in {"root", "0"}, "must run as a non-root user"
    assert keywords.index("USER") < keywords.index("CMD")

    assert ("EXPOSE", "8000") in final
    assert ("WORKDIR", "/app") in final
    assert exec_form(dict(final)["CMD"]) == SERVE

    env = " ".join(args for kw, args in final if kw == "ENV")
    assert re.search(r"(^|\s)WARFIELD_DATA_DIR=/data(\s|$)", env)
    volumes = [args for kw, args in final if kw == "VOLUME"]
    assert volumes and "/data" in exec_form(volumes[0])


def test_dockerfile_healthcheck_calls_healthz_with_python() -> None:
    (args,) = [args for kw, args in stages()[-1] if kw == "HEALTHCHECK"]
    options, _, command = args.partition("CMD")
    assert re.search(r"--interval=\d+s", options) and re.search(r"--timeout=\d+s", options)
    argv = exec_form(command.strip())
    assert argv[0] == "python", "no curl in python:3.11-slim"
    (code,) = python_c_snippets(argv)
    compile(code, "<HEALTHCHECK>", "exec")
    assert "http://127.0.0.1:8000/healthz" in code


def test_every_copy_source_exists() -> None:
    sources = local_copy_sources()
    assert {"pyproject.toml", "constraints.txt", "server"} <= set(sources)
    missing = [s for s in sources if not has_files(ROOT / s)]
    assert not missing, f"the Dockerfile COPYs paths missing from the repo: {missing}"


def test_paths_the_image_needs_are_copied() -> None:
    sources = set(local_copy_sources())
    present = [p for p in NEEDED_WHEN_PRESENT if has_files(ROOT / p)]
    not_copied = [p for p in present if p not in sources]
    assert not not_copied, (
        f"{not_copied} now exist in the repo: COPY them into the image (runtime files into "
        "/app beside the app's working directory, README.md into the build stage)"
    )


def test_dockerignore_keeps_every_copy_source() -> None:
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for source in local_copy_sources() + list(NEEDED_WHEN_PRESENT):
        hit = [p for p in patterns if not p.startswith("!") and fnmatch.fnmatch(source, p)]
        assert not hit, f".dockerignore {hit} drops {source}, which the image needs"
    for private in (".git", ".venv", "var"):
        assert private in patterns


# --- reverse proxy ----------------------------------------------------------------------------


def test_proxy_config_is_in_deploy(services: dict) -> None:
    path, _ = nginx_config(services)
    assert path.parent == ROOT / "deploy"
    mounts = [m.split(":") for m in services["proxy"]["volumes"]]
    assert any(t == "/etc/nginx/conf.d/default.conf" and "ro" in rest for _, t, *rest in mounts)


def test_proxy_forwards_websockets_to_every_app_replica(services: dict) -> None:
    _, text = nginx_config(services)
    directives = nginx_directives(text)
    variables = {d[1]: d[2] for d in directives if d[0] == "set" and len(d) == 3}
    headers = {d[1].lower(): d[2] for d in directives if d[0] == "proxy_set_header"}

    assert ["listen", "80", "default_server"] in directives or ["listen", "80"] in directives
    assert ["proxy_http_version", "1.1"] in directives
    assert headers.get("upgrade") == "$http_upgrade"
    connection = headers.get("connection")
    assert connection == "$connection_upgrade"
    assert re.search(
        r"map\s+\$http_upgrade\s+\$connection_upgrade\s*\{[^}]*default\s+upgrade", text
    )

    # Load balancing over `--scale app=N`: resolve `app` through Docker's DNS while running,
    # either at request time (proxy_pass via a variable) or in an upstream with `resolve`.
    assert any(d[0] == "resolver" and d[1] == "127.0.0.11" for d in directives)
    targets = [d[1] for d in directives if d[0] == "proxy_pass"]
    assert targets
    upstreams = nginx_upstreams(text)
    for target in targets:
        if target.startswith("$"):
            assert variables.get(target) == "http://app:8000"
            continue
        name = target.removeprefix("http://")
        assert name in upstreams, f"proxy_pass {target}: no such upstream"
        block = upstreams[name]
        (server,) = [d[1:] for d in block if d[0] == "server"]
        assert server[:2] == ["app:8000", "resolve"], (
            "the upstream must re-resolve `app` while running to see replicas come and go"
        )
        assert any(d[0] == "zone" for d in block), "`resolve` needs a shared memory zone"

    assert headers.get("host") == "$http_host", "keep the port for the app's Origin check"
    assert "x-forwarded-for" in headers and "x-forwarded-proto" in headers
    timeout = next(d[1] for d in directives if d[0] == "proxy_read_timeout")
    assert timeout.endswith(("h", "m")), "idle game sockets outlive nginx's 60 s default"


GAME_ID = "0123456789abcdef"  # what `POST /api/games` returns: 16 hex digits


def app_game_paths() -> list[str]:
    """Every path of the app (REST, page and websocket routes) that names a game, filled in."""
    from server.api.app import create_app

    def walk(routes: list) -> list[str]:
        found = []
        for route in routes:
            path = getattr(route, "path", None)
            if isinstance(path, str):
                found.append(path)
            # An included router (FastAPI >= 0.165 keeps it whole; its routers carry their
            # own `/api/...` prefixes and are included without one).
            inner = getattr(route, "original_router", None)
            if inner is not None:
                found += walk(inner.routes)
        return found

    paths = walk(create_app().routes)
    return [
        re.sub(r"\{[^}]+\}", "x", path.replace("{game_id}", GAME_ID))
        for path in sorted(set(paths))
        if "{game_id}" in path
    ]


def test_proxy_sends_every_request_of_a_game_to_one_replica(services: dict) -> None:
    """The upstream hashes on the game id, and the id is taken from every path of the app that
    names a game: REST, the table page and the websocket. The plain hash, not `consistent`:
    every replica behind `server app:8000 resolve` has one name, and nginx builds the ketama
    ring from names, so it spread one game over every replica (test_stack.py measures it)."""
    _, text = nginx_config(services)
    upstream = nginx_upstreams(text)
    targets = {d[1].removeprefix("http://") for d in nginx_directives(text) if d[0] == "proxy_pass"}
    assert len(targets) == 1
    (block,) = [upstream[t] for t in targets]
    (hash_rule,) = [d for d in block if d[0] == "hash"]
    assert hash_rule[2:] == [], "`consistent` over one server name spreads a game everywhere"
    key = hash_rule[1]
    game_of = nginx_map(text, "$uri", key)

    paths = app_game_paths()
    for must in ("/ws/games/", "/games/", "/api/games/"):
        assert any(p.startswith(must) for p in paths), f"the app has no {must} route any more"
    for path in paths:
        assert game_of(path) == GAME_ID, f"{path} is not routed by its game id"
    for other in ("/", "/api/games", "/api/systems", "/static/app.js", "/healthz", "/docs"):
        assert game_of(other) == "", f"{other} names no game: spread it round-robin"
    # Another game's requests have their own key.
    assert game_of("/ws/games/fedcba9876543210") == "fedcba9876543210"


# --- docs -----------------------------------------------------------------------------------


def test_hosting_doc_covers_the_deployment(services: dict) -> None:
    text = HOSTING_DOC.read_text()
    for needle in (
        "docker compose up",
        "pg_dump",
        "--scale app=3",
        "WARFIELD_PORT",
        "POSTGRES_PASSWORD",
        "/healthz",
        "/readyz",
        "/metrics",
    ):
        assert needle in text, needle
    for name in environment(services["app"]):
        assert f"`{name}`" in text, f"docs/hosting.md does not document {name}"
