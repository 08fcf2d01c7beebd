#!/bin/sh
# Replace the app replicas one at a time, so the others keep serving: an upgrade without
# downtime (after `docker-compose build` or a new image) or a rolling restart (no new image).
#
#   sh deploy/rolling-update.sh                   # Compose v1 (docker-compose)
#   COMPOSE="docker compose" sh deploy/rolling-update.sh   # Compose v2
#
# For each replica running now: start one more from the current image (`up --no-recreate
# --scale`), wait until Docker reports it healthy (it has migrated and reaches PostgreSQL and
# Redis), then stop the old one (SIGTERM: it finishes the actions in flight and closes its
# sockets with 1012, and their browsers reconnect through the proxy to a live replica) and
# remove it. The number of replicas is the same at the end; `up -d` keeps it (WARFIELD_REPLICAS).
# Run it from the directory of docker-compose.yml, with the same .env as `up`.
set -eu

COMPOSE="${COMPOSE:-docker-compose}"
HEALTHY_WITHIN_S="${HEALTHY_WITHIN_S:-120}"
STOP_TIMEOUT_S="${STOP_TIMEOUT_S:-15}"

old_ids=$($COMPOSE ps -q app)
if [ -z "$old_ids" ]; then
  echo "rolling-update: no app replica is running (start the stack with \`$COMPOSE up -d\`)" >&2
  exit 1
fi
count=$(echo "$old_ids" | wc -w)
known="$old_ids"

for old in $old_ids; do
  $COMPOSE up -d --no-deps --no-recreate --scale "app=$((count + 1))" app
  new=""
  for id in $($COMPOSE ps -q app); do
    case " $(echo $known) " in *" $id "*) ;; *) new="$id" ;; esac
  done
  if [ -z "$new" ]; then
    echo "rolling-update: no new replica started" >&2
    exit 1
  fi
  known="$known $new"
  waited=0
  until [ "$(docker inspect -f '{{.State.Health.Status}}' "$new")" = healthy ]; do
    if [ "$waited" -ge "$HEALTHY_WITHIN_S" ]; then
      echo "rolling-update: replica $(echo "$new" | cut -c1-12) not healthy after ${HEALTHY_WITHIN_S} s;" \
           "the old replicas keep serving (docker logs $(echo "$new" | cut -c1-12))" >&2
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "rolling-update: $(echo "$new" | cut -c1-12) healthy; stopping $(echo "$old" | cut -c1-12)"
  docker stop -t "$STOP_TIMEOUT_S" "$old" >/dev/null
  docker rm "$old" >/dev/null
done
echo "rolling-update: $count replica(s) replaced"
