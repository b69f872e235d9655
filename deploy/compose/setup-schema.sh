#!/bin/sh
# Creates Temporal's two PostgreSQL databases when they are missing, sets
# their schemas up once and updates them to the version of the
# temporal-sql-tool running this (the admin-tools image pinned with the
# server). Every step is safe to repeat: a second run changes nothing.
# Any failure stops the script with temporal-sql-tool's own message, so the
# server (which waits for this job) does not start on a missing schema.
#
# Settings (environment), read by temporal-sql-tool itself: SQL_PLUGIN,
# SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD. SCHEMA_DIR is where
# admin-tools keeps the schema folders (/etc/temporal/schema/postgresql/v12).
set -eu

schema_dir=${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}
sql_tool=${SQL_TOOL:-temporal-sql-tool}

for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}
  dir=$schema_dir/${pair#*:}/versioned
  [ -d "$dir" ] || { echo "setup-schema: no schema folder $dir" >&2; exit 1; }
  # create-database succeeds when the database exists (the PostgreSQL
  # plugin treats "already exists" as done), so it runs every time.
  "$sql_tool" --db "$db" create-database
  # Without a schema file, setup-schema only adds the version tables (if
  # missing) and records 0.0 on a fresh database; update-schema then
  # applies every versioned step the database lacks.
  "$sql_tool" --db "$db" setup-schema -v 0.0
  "$sql_tool" --db "$db" update-schema -d "$dir"
  echo "setup-schema: database $db is at the schema of $dir"
done
