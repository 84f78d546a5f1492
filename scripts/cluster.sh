#!/usr/bin/env bash
# A local cluster on loopback against the running PostgreSQL and Redis (docs/deployment.md, "Local cluster"):
# 2 api, 2 recorder, 2 channel, 1 chat, each its own process, process group, port, data dir and log.
#
#   scripts/cluster.sh start     start every process, wait until each answers /readyz
#   scripts/cluster.sh status    /readyz of each
#   scripts/cluster.sh stop      SIGTERM each process group, SIGKILL what is left after a grace period
#
# Settings (environment): CLUSTER_DIR (./data/cluster), CLUSTER_BASE_PORT (18080), DATABASE_URL
# (postgres://postgres@127.0.0.1:5432/test?schema=reeltime_cluster), REDIS_URL (redis://127.0.0.1:6379),
# REELTIME_REDIS_PREFIX (reeltime-cluster:), CLUSTER_GRACE_S (20).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$(mkdir -p "${CLUSTER_DIR:-$ROOT/data/cluster}" && cd "${CLUSTER_DIR:-$ROOT/data/cluster}" && pwd)"
BASE_PORT="${CLUSTER_BASE_PORT:-18080}"
DB_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?schema=reeltime_cluster}"
RD_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
PREFIX="${REELTIME_REDIS_PREFIX:-reeltime-cluster:}"
GRACE_S="${CLUSTER_GRACE_S:-20}"

# name role port-offset; channel nodes also get a UDP range of their own.
PROCESSES=(
  "api-1 api 1"
  "api-2 api 2"
  "recorder-1 recorder 3"
  "recorder-2 recorder 4"
  "channel-1 channel 5"
  "channel-2 channel 6"
  "chat-1 chat 7"
)

die() { echo "cluster: $*" >&2; exit 1; }

# One set of credentials for the whole cluster: every process must sign and check with the same ones.
credentials() {
  local f="$DIR/credentials.env"
  if [ ! -f "$f" ]; then
    (umask 077 && node -e '
      const r = () => require("node:crypto").randomBytes(16).toString("hex");
      console.log(`REELTIME_APP_ID=${r()}\nREELTIME_APP_CERTIFICATE=${r()}\nREELTIME_CUSTOMER_ID=${r()}\nREELTIME_CUSTOMER_SECRET=${r()}`);
    ' >"$f")
  fi
  echo "$f"
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

ready() { curl -fsS --max-time 3 "http://127.0.0.1:$1/readyz" >/dev/null 2>&1; }

start_one() {
  local name=$1 role=$2 offset=$3
  local port=$((BASE_PORT + offset)) data="$DIR/$name" pidf="$DIR/$name.pid"
  if alive "$pidf"; then echo "cluster: $name already running (pid $(cat "$pidf"))"; return; fi
  mkdir -p "$data"
  local extra=()
  if [ "$role" = channel ]; then
    local udp=$((40000 + (offset - 5) * 100))
    extra=(REELTIME_CHANNEL_UDP_PORT_MIN=$udp REELTIME_CHANNEL_UDP_PORT_MAX=$((udp + 99)))
  fi
  # setsid: each process leads its own group, so stop reaches its children (ffmpeg, Chromium) too.
  env -u REELTIME_CONFIG $(cat "$(credentials)") \
    REELTIME_ENV=development REELTIME_HOST=127.0.0.1 REELTIME_PORT="$port" \
    REELTIME_PUBLIC_URL="http://127.0.0.1:$port" REELTIME_DATA_DIR="$data" \
    DATABASE_URL="$DB_URL" REDIS_URL="$RD_URL" REELTIME_REDIS_PREFIX="$PREFIX" "${extra[@]}" \
    setsid node "$ROOT/bin/reeltime.mjs" "$role" >"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$pidf"
  echo "cluster: $name ($role) pid $! on http://127.0.0.1:$port"
}

wait_ready() {
  local name=$1 port=$2
  for _ in $(seq 1 120); do
    if ready "$port"; then return 0; fi
    alive "$DIR/$name.pid" || die "$name exited; see $DIR/$name.log"
    sleep 0.5
  done
  die "$name is not ready after 60 s; see $DIR/$name.log"
}

cmd_start() {
  redis-cli -u "$RD_URL" ping >/dev/null 2>&1 || die "Redis is not answering at $RD_URL (scripts/services.sh starts it)"
  pg_isready -q -d "${DB_URL%%\?*}" || die "PostgreSQL is not answering at ${DB_URL%%\?*}"
  # A start that fails half-way leaves nothing running.
  trap 'echo "cluster: start failed, stopping what was started" >&2; cmd_stop >&2' EXIT
  # The first process creates the schema and runs the migrations alone; the others then find them done.
  local first=(${PROCESSES[0]})
  start_one "${first[@]}"
  wait_ready "${first[0]}" $((BASE_PORT + first[2]))
  for p in "${PROCESSES[@]:1}"; do start_one $p; done
  for p in "${PROCESSES[@]}"; do
    local a=($p)
    wait_ready "${a[0]}" $((BASE_PORT + a[2]))
  done
  trap - EXIT
  echo "cluster: ready (logs and data in $DIR, credentials in $DIR/credentials.env)"
}

cmd_status() {
  local bad=0
  for p in "${PROCESSES[@]}"; do
    local a=($p) port
    port=$((BASE_PORT + a[2]))
    if ! alive "$DIR/${a[0]}.pid"; then echo "${a[0]}: stopped"; bad=1; continue; fi
    echo "${a[0]}: pid $(cat "$DIR/${a[0]}.pid") $(curl -sS --max-time 3 "http://127.0.0.1:$port/readyz" 2>&1 || true)"
  done
  return $bad
}

cmd_stop() {
  local pids=()
  for p in "${PROCESSES[@]}"; do
    local a=($p) pidf
    pidf="$DIR/${a[0]}.pid"
    [ -f "$pidf" ] || continue
    local pid
    pid=$(cat "$pidf")
    # The whole group: the server and anything it started.
    kill -TERM -- "-$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  for _ in $(seq 1 $((GRACE_S * 10))); do
    local left=0
    for pid in "${pids[@]}"; do pgrep -g "$pid" >/dev/null 2>&1 && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
  done
  local killed=0
  for pid in "${pids[@]}"; do
    if pgrep -g "$pid" >/dev/null 2>&1; then
      kill -KILL -- "-$pid" 2>/dev/null || true
      killed=1
    fi
  done
  for p in "${PROCESSES[@]}"; do local a=($p); rm -f "$DIR/${a[0]}.pid"; done
  sleep 0.2
  for pid in "${pids[@]}"; do
    if pgrep -g "$pid" >/dev/null 2>&1; then die "processes of group $pid are still running"; fi
  done
  [ $killed = 1 ] && echo "cluster: some processes needed SIGKILL after ${GRACE_S} s"
  echo "cluster: stopped (${#pids[@]} processes, none left)"
}

case "${1:-}" in
  start) cmd_start ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  *) echo "usage: scripts/cluster.sh start|status|stop" >&2; exit 2 ;;
esac
