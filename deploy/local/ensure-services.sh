#!/usr/bin/env bash
# Starts the machine services the tests use (NATS with JetStream, PostgreSQL, Redis) when they are
# installed here but not running. Does nothing for services that already answer.
set -uo pipefail

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! up 4222 && [ -x /usr/sbin/nats-server ]; then
  echo "starting NATS (JetStream)..."
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
if ! up 5432 && command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "starting PostgreSQL..."
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
fi
if ! up 6379 && command -v redis-server >/dev/null 2>&1; then
  echo "starting Redis..."
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
for i in $(seq 1 30); do
  up 4222 && up 5432 && break
  sleep 1
done
up 4222 || { echo "NATS is not reachable on 127.0.0.1:4222" >&2; exit 1; }
up 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }
exit 0
