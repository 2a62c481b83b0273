#!/usr/bin/env bash
# Issue 36's drains and intake, before and now, in one run: the queue drain (bench/queue.ts), the HIGH
# campaign drain (bench/campaign.ts) and status-webhook intake (bench/webhooks.ts), each run from a
# `git archive` of BEFORE (this checkout's node_modules beside it) and from this checkout, in turns,
# ROUNDS times, on PostgreSQL. The send path has its own before/now run: BENCH_SEND_BEFORE (bench/send.ts).
#   BEFORE=0da2fca ROUNDS=2 PG=postgres://postgres@127.0.0.1:5432/test bash bench/house.sh > /tmp/house.txt
set -euo pipefail
BEFORE="${BEFORE:-0da2fca}"
ROUNDS="${ROUNDS:-2}"
PG="${PG:-postgres://postgres@127.0.0.1:5432/test}"
here="$(cd "$(dirname "$0")/.." && pwd)"
tree="$(mktemp -d /tmp/outbound-house-XXXXXX)"
trap 'rm -rf "$tree"' EXIT
git -C "$here" archive --format=tar "$BEFORE" | tar -x -C "$tree"
ln -s "$here/node_modules" "$tree/node_modules"

run () { # side bench env…
  local side="$1" bench="$2"; shift 2
  local root="$here"; [ "$side" = before ] && root="$tree"
  echo "### $bench at $side ($( [ "$side" = before ] && echo "$BEFORE" || git -C "$here" rev-parse --short HEAD)), $(date -u +%H:%M:%S)"
  (cd "$root" && env "$@" npx tsx "bench/$bench.ts" 2>&1 | grep -v '^\s*$' | tail -n 25)
}

for round in $(seq 1 "$ROUNDS"); do
  for side in before now; do
    run "$side" queue BENCH_DATABASE_URL="$PG" BENCH_QUEUE_DEEP="${QUEUE_DEEP:-2000}" BENCH_QUEUE_MEMORY=postgres
    run "$side" campaign TEST_DATABASE_URL="$PG" BENCH_CAMPAIGN_N="${CAMPAIGN_N:-20000}"
    run "$side" webhooks BENCH_DATABASE_URL="$PG" BENCH_WEBHOOK_ONLY=postgres BENCH_WEBHOOK_POSTS="${WEBHOOK_POSTS:-10000}"
  done
done
