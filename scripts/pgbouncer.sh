#!/usr/bin/env bash
# PgBouncer in transaction mode in front of a PostgreSQL, for the pooled tests and bench/pooler.ts.
#   scripts/pgbouncer.sh start [postgres-host] [postgres-port]   prints the directory it runs from, then its URL
#   scripts/pgbouncer.sh stop DIR
# Every database of the server is reachable through it (the `*` entry: the tests make one per file),
# as user postgres with trust authentication: a local test fixture, never a deployment's config.
set -euo pipefail

case "${1:-}" in
  start)
    host="${2:-127.0.0.1}"
    port="${3:-5432}"
    command -v pgbouncer >/dev/null || { echo "pgbouncer is not installed (apt-get install -y pgbouncer)" >&2; exit 1; }
    dir="$(mktemp -d /tmp/outbound-pgbouncer.XXXXXX)"
    chmod 755 "$dir"
    listen="$(node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close() })")"
    echo '"postgres" ""' > "$dir/userlist.txt"
    cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $listen
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
server_idle_timeout = 10
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
INI
    # PgBouncer refuses to run as root; -u drops to the postgres user
    user_flag=()
    [ "$(id -u)" = 0 ] && { chown -R postgres "$dir"; user_flag=(-u postgres); }
    pgbouncer -d "${user_flag[@]}" "$dir/pgbouncer.ini"
    for _ in $(seq 1 50); do
      psql "postgres://postgres@127.0.0.1:$listen/pgbouncer" -Atc 'show version' >/dev/null 2>&1 && { echo "$dir"; echo "postgres://postgres@127.0.0.1:$listen/test"; exit 0; }
      sleep 0.1
    done
    echo "pgbouncer did not start; its log:" >&2
    cat "$dir/pgbouncer.log" >&2 || true
    exit 1
    ;;
  stop)
    dir="${2:?the directory start printed}"
    [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start [host] [port] | stop DIR" >&2
    exit 2
    ;;
esac
