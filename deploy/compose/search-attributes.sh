#!/bin/sh
# Creates the namespace when it is missing and registers Note Bridge's
# search attributes (Keyword) when they are missing, so that a second run
# changes nothing. Errors are printed, not hidden: a namespace just created
# takes a few seconds to reach every service, so a refused step is retried,
# each refusal shown, and the job fails (the workers, which wait for it,
# then do not start) if the server still refuses after a minute.
#
# Settings (environment): TEMPORAL_ADDRESS (read by the temporal CLI),
# TEMPORAL_NAMESPACE (default), NAMESPACE_RETENTION (72h), TEMPORAL_CLI
# (temporal), SETUP_ATTEMPTS (30 tries, two seconds apart).
set -eu

ns=${TEMPORAL_NAMESPACE:-default}
cli=${TEMPORAL_CLI:-temporal}
attempts=${SETUP_ATTEMPTS:-30}

# retry runs a command until it succeeds, at most $attempts times, two
# seconds apart; the command's own output says why a try failed.
retry() {
  i=1
  until "$@"; do
    if [ "$i" -ge "$attempts" ]; then
      echo "search-attributes: giving up after $attempts tries: $*" >&2
      return 1
    fi
    i=$((i + 1))
    sleep 2
  done
}

ensure_namespace() {
  if "$cli" operator namespace describe --namespace "$ns" >/dev/null 2>&1; then
    echo "search-attributes: namespace $ns exists"
    return 0
  fi
  "$cli" operator namespace create --namespace "$ns" --retention "${NAMESPACE_RETENTION:-72h}" &&
    echo "search-attributes: created namespace $ns"
}

# ensure_attribute registers one Keyword attribute unless the namespace
# already lists it.
ensure_attribute() {
  list=$("$cli" operator search-attribute list --namespace "$ns") || return 1
  if printf '%s\n' "$list" | grep -qw "$1"; then
    echo "search-attributes: $1 is registered"
    return 0
  fi
  "$cli" operator search-attribute create --namespace "$ns" --name "$1" --type Keyword &&
    echo "search-attributes: registered $1"
}

retry "$cli" operator cluster health
retry ensure_namespace
for name in NoteBridgeUser NoteBridgeNotebook NoteBridgeStatus; do
  retry ensure_attribute "$name"
done
