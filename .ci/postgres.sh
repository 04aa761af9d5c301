#!/usr/bin/env bash
# Starts a private PostgreSQL server from Debian's packages for the test suite: initdb in a
# temporary directory as a non-root user, listening on 127.0.0.1 only. Prints the URL of a
# superuser connection (the tests create one database per test).
# Usage: eval "$(.ci/postgres.sh)"   # sets MASTRA_ASK_TEST_POSTGRES
# The tests' server runs with fsync=off. For the benchmark, start a second one that syncs
# (README, Performance):
#   PGPORT_TEST=54330 PGDATA_TEST=/tmp/mastra-ask-pg-bench PGFSYNC_TEST=on .ci/postgres.sh
set -euo pipefail
PORT="${PGPORT_TEST:-54329}"
DIR="${PGDATA_TEST:-/tmp/mastra-ask-pg}"
FSYNC="${PGFSYNC_TEST:-off}"
case "$FSYNC" in on|off) ;; *) echo "PGFSYNC_TEST must be on or off" >&2; exit 2 ;; esac
# PgBouncer too: the pooler tests (tests/cli/pg_pooler.rs) start one in front of this server.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ ! -x /usr/sbin/pgbouncer ]; then
  export DEBIAN_FRONTEND=noninteractive
  SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo -E)
  ("${SUDO[@]}" apt-get install -y -q postgresql pgbouncer >/dev/null 2>&1) ||
    ("${SUDO[@]}" apt-get update -q >/dev/null &&
      "${SUDO[@]}" apt-get install -y -q postgresql pgbouncer >/dev/null)
fi
BIN=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
RUN_AS=()
if [ "$(id -u)" = 0 ]; then
  id mastra-pg >/dev/null 2>&1 || useradd --system --no-create-home mastra-pg
  RUN_AS=(runuser -u mastra-pg --)
fi
if [ ! -f "$DIR/PG_VERSION" ]; then
  rm -rf "$DIR"; mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown mastra-pg "$DIR"
  "${RUN_AS[@]}" "$BIN/initdb" -D "$DIR" -U mastra --auth=trust -E UTF8 >/dev/null
  # One role that must give a password, to test authentication failures.
  printf 'host all mastra_pw 127.0.0.1/32 scram-sha-256\n%s\n' "$(cat "$DIR/pg_hba.conf")" > "$DIR/pg_hba.conf.new"
  mv "$DIR/pg_hba.conf.new" "$DIR/pg_hba.conf"
  [ "$(id -u)" = 0 ] && chown mastra-pg "$DIR/pg_hba.conf"
  NEW_CLUSTER=1
fi
if ! "${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
  "${RUN_AS[@]}" "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w \
    -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=$FSYNC" start >/dev/null
fi
if [ "${NEW_CLUSTER:-0}" = 1 ]; then
  "${RUN_AS[@]}" "$BIN/psql" -q -h 127.0.0.1 -p "$PORT" -U mastra -d postgres \
    -c "CREATE ROLE mastra_pw LOGIN CREATEDB PASSWORD 'right-password'" >/dev/null
fi
echo "export MASTRA_ASK_TEST_POSTGRES=postgres://mastra@127.0.0.1:$PORT/postgres"
