# Warfield server image. Build: `docker build -t warfield .`; run the whole stack with
# `docker compose up` (see docs/hosting.md).

# --- build: install the app and its pinned dependencies into a virtualenv -------------------
FROM python:3.11-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src
COPY pyproject.toml constraints.txt README.md ./
COPY server ./server
# The lock: every dependency resolves to the version pinned in constraints.txt.
RUN pip install --no-cache-dir -c constraints.txt .

# --- runtime: the virtualenv plus the files the app reads from its working directory -------
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    WARFIELD_DATA_DIR=/data

# Unprivileged user; /data belongs to it so a fresh named volume inherits that ownership.
RUN groupadd --system --gid 10001 warfield \
    && useradd --system --uid 10001 --gid warfield --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin warfield \
    && mkdir -p /app /data \
    && chown warfield:warfield /data

COPY --from=build /opt/venv /opt/venv

# The app's working directory: Alembic's config and scripts (`warfield serve` migrates on
# start) and the browser client it serves. Owned by root: readable, not writable, by the app.
WORKDIR /app
COPY alembic.ini ./
COPY migrations ./migrations
COPY static ./static

USER warfield
VOLUME ["/data"]
EXPOSE 8000

# Liveness only (/healthz); readiness (/readyz: database and Redis) is the orchestrator's call.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"]

# `warfield serve` runs the Alembic migrations, then serves HTTP and websockets.
CMD ["warfield", "serve", "--host", "0.0.0.0", "--port", "8000"]
