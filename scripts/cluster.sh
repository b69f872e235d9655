#!/usr/bin/env bash
# The production topology as plain processes on loopback: PostgreSQL 15 in a
# directory of its own, the Temporal server (built from source at the
# version docker-compose.yml pins) on it, its schema set up by the server's
# SQL tool, the default namespace with Note Bridge's search attributes, and
# the Temporal Web UI pointed at it.
#
#   scripts/cluster.sh start            build what is missing, start, set up
#   scripts/cluster.sh stop             stop everything this script started
#   scripts/cluster.sh clean            stop and remove the cluster's directory
#   scripts/cluster.sh status           what runs, where, at which versions
#   scripts/cluster.sh check            exit 1, saying what to run, unless the
#                                       server answers and both schemas are current
#   scripts/cluster.sh env              KEY=VALUE lines for programs (internal/cluster)
#   scripts/cluster.sh restart-server   stop the Temporal server process, start it again
#   scripts/cluster.sh restart-postgres stop PostgreSQL (fast shutdown), start it again
#   scripts/cluster.sh pg-writes        rows inserted+updated+deleted and commits in
#                                       the two Temporal databases (cumulative)
#
# Settings (environment): NOTEBRIDGE_CLUSTER_DIR (the state: data, logs,
# pids; default $TMPDIR/notebridge-cluster), NOTEBRIDGE_CLUSTER_PORT (the
# Temporal frontend's gRPC port, 17233; the other services take the ports
# just above it and 16933-16939 for membership), NOTEBRIDGE_CLUSTER_PG_PORT
# (25432), NOTEBRIDGE_CLUSTER_UI_PORT (18233), NOTEBRIDGE_CLUSTER_BIN (where
# the server, SQL tool and UI binaries are built and reused; ./bin).
# The ports stay clear of the dev server's 7233/8233, PostgreSQL's 5432 and
# compose's 8080-8082.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The versions: docker-compose.yml pins the same images
# (internal/deploy's tests keep them in step).
server_version="1.32.2"
ui_version="2.42.1"

dir=${NOTEBRIDGE_CLUSTER_DIR:-${TMPDIR:-/tmp}/notebridge-cluster}
port=${NOTEBRIDGE_CLUSTER_PORT:-17233}
pg_port=${NOTEBRIDGE_CLUSTER_PG_PORT:-25432}
ui_port=${NOTEBRIDGE_CLUSTER_UI_PORT:-18233}
bin=${NOTEBRIDGE_CLUSTER_BIN:-$root/bin}
cli=${NOTEBRIDGE_TEMPORAL_CLI:-$root/bin/temporal}
pgbin=${NOTEBRIDGE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

server_bin="$bin/temporal-server-$server_version"
sql_bin="$bin/temporal-sql-tool-$server_version"
ui_bin="$bin/temporal-ui-server-$ui_version"
schema="$bin/temporal-schema-$server_version"
address="127.0.0.1:$port"
pg_data="$dir/postgres/data"
pg_sock="$dir/postgres/run"
search_attributes=(NoteBridgeUser NoteBridgeNotebook NoteBridgeStatus)

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# as_postgres runs a command as the postgres user when we are root
# (PostgreSQL refuses to run as root), else as ourselves.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

psql_super() { as_postgres "$pgbin/psql" -X -q -h "$pg_sock" -p "$pg_port" -U postgres -v ON_ERROR_STOP=1 "$@"; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# build compiles the server and its SQL tool (in tools/server, a module of
# their own so the CLI's dependency graph stays as it is) and the Web UI
# server (in tools, from the CLI's own graph), each once.
build() {
  mkdir -p "$bin"
  # The server module needs Go 1.26.10 or later: the project's pinned
  # toolchain builds it.
  if [ ! -x "$server_bin" ] || [ ! -x "$sql_bin" ]; then
    say "building the Temporal server v$server_version and its SQL tool into $bin (5 minutes on an idle 2-core machine, 20 on a busy one)"
    (cd tools/server && GOTOOLCHAIN=go1.27.3 go build -trimpath -ldflags "-s -w" -o "$server_bin.tmp" go.temporal.io/server/cmd/server \
      && GOTOOLCHAIN=go1.27.3 go build -trimpath -ldflags "-s -w" -o "$sql_bin.tmp" go.temporal.io/server/cmd/tools/sql)
    mv "$server_bin.tmp" "$server_bin"
    mv "$sql_bin.tmp" "$sql_bin"
  fi
  if [ ! -f "$schema/version.go" ]; then
    local mod
    mod=$(cd tools/server && GOTOOLCHAIN=go1.27.3 go list -m -f '{{.Dir}}' go.temporal.io/server)
    rm -rf "$schema.tmp" && mkdir -p "$schema.tmp"
    cp -r "$mod/schema/postgresql/v12/." "$schema.tmp/"
    chmod -R u+w "$schema.tmp"
    rm -rf "$schema" && mv "$schema.tmp" "$schema"
  fi
  if [ ! -x "$ui_bin" ]; then
    say "building the Temporal Web UI server v$ui_version into $bin"
    (cd tools && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -trimpath -ldflags "-s -w" -o "$ui_bin.tmp" github.com/temporalio/ui-server/v2/cmd/server)
    mv "$ui_bin.tmp" "$ui_bin"
  fi
  [ -x "$cli" ] || die "no temporal CLI at $cli: run \`make temporal\` first"
}

start_postgres() {
  [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] || die "no PostgreSQL binaries under /usr/lib/postgresql/*/bin: apt-get install postgresql-15"
  mkdir -p "$dir/postgres" "$pg_sock"
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir/postgres"; fi
  if [ ! -f "$pg_data/PG_VERSION" ]; then
    say "initdb in $pg_data"
    as_postgres "$pgbin/initdb" -D "$pg_data" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >"$dir/postgres/initdb.log"
  fi
  if ! as_postgres "$pgbin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
    say "starting PostgreSQL on 127.0.0.1:$pg_port"
    as_postgres "$pgbin/pg_ctl" -D "$pg_data" -l "$dir/postgres/postgres.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $pg_port -c unix_socket_directories=$pg_sock -c max_connections=200" start >/dev/null
  fi
  if [ -z "$(psql_super -tAc "SELECT 1 FROM pg_roles WHERE rolname='temporal'")" ]; then
    psql_super -c "CREATE ROLE temporal LOGIN CREATEDB PASSWORD 'temporal'"
  fi
}

stop_postgres() {
  if [ -f "$pg_data/PG_VERSION" ] && as_postgres "$pgbin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1; then
    say "stopping PostgreSQL"
    as_postgres "$pgbin/pg_ctl" -D "$pg_data" -m fast -w -t 60 stop >/dev/null
  fi
}

sql_tool() { "$sql_bin" --plugin postgres12 --ep 127.0.0.1 -p "$pg_port" -u temporal --pw temporal "$@"; }

# setup_schema creates both databases, sets their schemas up once and
# updates them to the server's version (a no-op when current).
setup_schema() {
  local db sub
  for db in temporal temporal_visibility; do
    sub=temporal
    [ "$db" = temporal_visibility ] && sub=visibility
    if [ -z "$(psql_super -tAc "SELECT 1 FROM pg_database WHERE datname='$db'")" ]; then
      sql_tool --db "$db" create-database >>"$dir/schema.log" 2>&1
    fi
    if [ -z "$(psql_super -d "$db" -tAc "SELECT 1 FROM pg_tables WHERE tablename='schema_version'")" ]; then
      sql_tool --db "$db" setup-schema -v 0.0 >>"$dir/schema.log" 2>&1 || die "setup-schema $db failed: see $dir/schema.log"
    fi
    sql_tool --db "$db" update-schema -d "$schema/$sub/versioned" >>"$dir/schema.log" 2>&1 || die "update-schema $db failed: see $dir/schema.log"
  done
}

# want_version is the schema version the server expects for a database,
# from the schema package it was built with.
want_version() {
  local name=Version
  [ "$1" = temporal_visibility ] && name=VisibilityVersion
  sed -n "s/^const $name = \"\(.*\)\"/\1/p" "$schema/version.go"
}

have_version() {
  "$pgbin/psql" -X -h 127.0.0.1 -p "$pg_port" -U temporal -d "$1" -tAc \
    "SELECT curr_version FROM schema_version WHERE version_partition=0 AND db_name='$1'" 2>/dev/null
}

write_config() {
  mkdir -p "$dir/temporal"
  local store
  store() {
    cat <<EOF
    $1:
      sql:
        pluginName: postgres12
        databaseName: $2
        connectAddr: "127.0.0.1:$pg_port"
        connectProtocol: tcp
        user: temporal
        password: temporal
        maxConns: $3
        maxIdleConns: $3
        maxConnLifetime: 1h
EOF
  }
  svc() {
    cat <<EOF
  $1:
    rpc:
      grpcPort: $2
      membershipPort: $3
      bindOnLocalHost: true
EOF
  }
  {
    cat <<EOF
# Written by scripts/cluster.sh; edits are lost at the next start.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
EOF
    store default temporal 20
    store visibility temporal_visibility 10
    cat <<EOF
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
  metrics:
    prometheus:
      framework: tally
      timerType: histogram
      listenAddress: "127.0.0.1:$((port + 767))"
services:
EOF
    svc frontend "$port" $((port - 300))
    echo "      httpPort: $((port + 10))"
    svc history $((port + 1)) $((port - 299))
    svc matching $((port + 2)) $((port - 298))
    svc worker $((port + 6)) $((port - 294))
    cat <<EOF
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "$address"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$root/deploy/temporal/notebridge.yaml"
  pollInterval: 10s
EOF
  } >"$dir/temporal/temporal.yaml"
}

start_server() {
  if pid_alive "$dir/temporal.pid"; then return; fi
  write_config
  say "starting the Temporal server v$server_version on $address"
  setsid "$server_bin" --config-file "$dir/temporal/temporal.yaml" --allow-no-auth start \
    >>"$dir/temporal/server.log" 2>&1 </dev/null &
  echo $! >"$dir/temporal.pid"
  local i
  for i in $(seq 1 240); do
    if "$cli" operator cluster health --address "$address" 2>/dev/null | grep -q SERVING; then
      return
    fi
    pid_alive "$dir/temporal.pid" || die "the Temporal server exited at start: see $dir/temporal/server.log"
    sleep 0.5
  done
  die "the Temporal server did not answer on $address within 120 s: see $dir/temporal/server.log"
}

stop_pid() {
  local f=$1 name=$2 i
  if pid_alive "$f"; then
    say "stopping $name"
    kill -TERM "$(cat "$f")" 2>/dev/null || true
    for i in $(seq 1 100); do
      pid_alive "$f" || break
      sleep 0.2
    done
    if pid_alive "$f"; then kill -KILL "$(cat "$f")" 2>/dev/null || true; sleep 0.2; fi
  fi
  rm -f "$f"
}

setup_namespace() {
  local i
  for i in $(seq 1 60); do
    if "$cli" operator namespace describe --address "$address" --namespace default >/dev/null 2>&1; then
      break
    fi
    "$cli" operator namespace create --address "$address" --namespace default --retention 72h >/dev/null 2>&1 || sleep 1
  done
  # Registered once; a new namespace takes a few seconds to reach every
  # service's cache, so the first tries may be refused.
  local have sa missing
  for i in $(seq 1 60); do
    have=$("$cli" operator search-attribute list --address "$address" --namespace default 2>/dev/null || true)
    missing=0
    for sa in "${search_attributes[@]}"; do
      if ! grep -qw "$sa" <<<"$have"; then
        missing=1
        "$cli" operator search-attribute create --address "$address" --namespace default --name "$sa" --type Keyword >/dev/null 2>&1 || true
      fi
    done
    [ "$missing" = 0 ] && return
    sleep 1
  done
  die "could not register the search attributes ${search_attributes[*]}: see $dir/temporal/server.log"
}

start_ui() {
  if pid_alive "$dir/ui.pid"; then return; fi
  mkdir -p "$dir/ui/config"
  cat >"$dir/ui/config/development.yaml" <<EOF
# Written by scripts/cluster.sh.
temporalGrpcAddress: "$address"
host: 127.0.0.1
port: $ui_port
enableUi: true
defaultNamespace: default
refreshInterval: 1m
cors:
  allowOrigins:
    - "http://127.0.0.1:$ui_port"
EOF
  setsid "$ui_bin" --root "$dir/ui" --config config --env development start >>"$dir/ui/ui.log" 2>&1 </dev/null &
  echo $! >"$dir/ui.pid"
}

do_start() {
  build
  mkdir -p "$dir"
  start_postgres
  setup_schema
  start_server
  setup_namespace
  start_ui
  do_status
}

do_stop() {
  stop_pid "$dir/ui.pid" "the Web UI"
  stop_pid "$dir/temporal.pid" "the Temporal server"
  stop_postgres
}

do_status() {
  local s
  s="stopped"; pid_alive "$dir/temporal.pid" && s="running (pid $(cat "$dir/temporal.pid"))"
  echo "Temporal server v$server_version  $address  $s"
  s="stopped"; [ -f "$pg_data/PG_VERSION" ] && as_postgres "$pgbin/pg_ctl" -D "$pg_data" status >/dev/null 2>&1 && s="running"
  echo "PostgreSQL $(cat "$pg_data/PG_VERSION" 2>/dev/null || echo '?')        127.0.0.1:$pg_port  $s  (data $pg_data)"
  s="stopped"; pid_alive "$dir/ui.pid" && s="running (pid $(cat "$dir/ui.pid"))"
  echo "Web UI v$ui_version          http://127.0.0.1:$ui_port  $s"
}

do_check() {
  local fix="run \`make cluster\` (scripts/cluster.sh start)"
  if ! "$cli" operator cluster health --address "$address" 2>/dev/null | grep -q SERVING; then
    die "no Temporal server answers on $address: $fix"
  fi
  local db want have
  for db in temporal temporal_visibility; do
    want=$(want_version "$db")
    have=$(PGPASSWORD=temporal have_version "$db" || true)
    [ -n "$have" ] || die "cannot read the schema version of database $db on 127.0.0.1:$pg_port: $fix"
    [ "$have" = "$want" ] || die "database $db has schema $have, the server v$server_version needs $want: $fix (it runs update-schema)"
  done
  echo "cluster: the Temporal server v$server_version on $address answers; schemas temporal $(want_version temporal), temporal_visibility $(want_version temporal_visibility)"
}

do_env() {
  echo "ADDRESS=$address"
  echo "UI=http://127.0.0.1:$ui_port"
  echo "DIR=$dir"
  echo "PG_PORT=$pg_port"
  echo "SERVER_VERSION=$server_version"
  echo "UI_VERSION=$ui_version"
  echo "SERVER_PID=$(cat "$dir/temporal.pid" 2>/dev/null || true)"
  echo "PG_PID=$(head -1 "$pg_data/postmaster.pid" 2>/dev/null || true)"
}

do_pg_writes() {
  psql_super -tA -F ' ' -c "SELECT COALESCE(sum(tup_inserted+tup_updated+tup_deleted),0), COALESCE(sum(xact_commit),0)
    FROM pg_stat_database WHERE datname IN ('temporal','temporal_visibility')"
}

case "${1:-}" in
start) do_start ;;
stop) do_stop ;;
clean) do_stop; rm -rf "$dir" ;;
status) do_status ;;
check) do_check ;;
env) do_env ;;
restart-server)
  stop_pid "$dir/temporal.pid" "the Temporal server"
  start_server
  ;;
restart-postgres)
  stop_postgres
  start_postgres
  ;;
pg-writes) do_pg_writes ;;
*)
  echo "usage: $0 start|stop|clean|status|check|env|restart-server|restart-postgres|pg-writes" >&2
  exit 2
  ;;
esac
