#!/usr/bin/env bash
# Starts PostgreSQL, Redis and NATS on loopback when one of them is down (development and CI machines have them
# installed; the embedded default needs none of them).
set -u
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if command -v redis-server >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
if [ -x /usr/sbin/nats-server ] && ! (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
  echo "services: starting NATS"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log || true
fi
for _ in $(seq 1 30); do
  if ! command -v pg_isready >/dev/null 2>&1 || pg_isready -q -h 127.0.0.1 -p 5432; then break; fi
  sleep 1
done
