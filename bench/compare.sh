#!/usr/bin/env bash
# Side-by-side run of this extender and the benchmark kit's Go peer, with the kit's own
# tools, on the standard scenarios S1-S3 and S4 (10,000 nodes); prints the kit's compare.py
# tables, then ratios against the performance targets, latency against cluster size, and
# RSS under load. A scenario named sN-sampled is sN with the bodies kube-scheduler really
# sends (its adaptive percentageOfNodesToScore: about 500 feasible nodes, bench/sample_args.py).
#
#   bench/compare.sh [--scenarios "s1 s2 s3"] [--rounds N] [-n N] [--load-seconds S]
#
# Environment:
#   BENCH_KIT      the kit (default: ../shared/bench beside the repository)
#   SX_BENCH_DATA  where the scenarios are generated and kept (default /tmp/bench)
#   PEER_GO        the peer's binary, built there if missing (default /tmp/peer-go)
#   CANDIDATE      this extender's binary (default: built into build-perf/, RelWithDebInfo)
#   RESULTS        where the outputs go (default: a fresh /tmp/sx-compare-XXXX)
#
# Ratios only mean something when nothing else runs: every round prints the load average,
# and this script warns when the machine was busy before a scenario.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
kit=${BENCH_KIT:-$root/../shared/bench}
data=${SX_BENCH_DATA:-/tmp/bench}
peer=${PEER_GO:-/tmp/peer-go}
scenarios="s1 s2 s3"
rounds=3
requests=20
load_seconds=60

while [ $# -gt 0 ]; do
  case "$1" in
    --scenarios) scenarios=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    -n) requests=$2; shift ;;
    --load-seconds) load_seconds=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

fail() { echo "compare.sh: $*" >&2; exit 1; }

for f in gen_cluster.py compare.py latency.py load.sh peer-go/build.sh; do
  [ -e "$kit/$f" ] || fail "benchmark kit not found: $kit/$f is missing.
Set BENCH_KIT to the kit's directory (the shared/bench folder beside the repository)."
done
kit=$(cd "$kit" && pwd)
command -v python3 >/dev/null || fail "python3 is required"
# The peer builds with the Go the repository's other Go builds use (scripts/go-env.sh, which
# fails with a message when there is none new enough), not Debian's golang-go.
source "$root/scripts/go-env.sh"
if [ "$load_seconds" -gt 0 ]; then
  command -v wrk >/dev/null || fail "wrk is required for the load step (apt-get install -y wrk),
or pass --load-seconds 0 to skip it"
fi

results=${RESULTS:-$(mktemp -d /tmp/sx-compare-XXXX)}
mkdir -p "$results"

# The kit's standard scenarios: same seed, so every machine gets byte-identical files.
generate() {
  local name=$1 nodes=$2 pods=$3
  local dir=$data/$name
  if [ -s "$dir/cluster.json" ] && [ -s "$dir/args-names.json" ] && [ -s "$dir/args-nodes.json" ] &&
     [ -s "$dir/config.json" ]; then
    return
  fi
  echo "== generating $name into $dir"
  python3 "$kit/gen_cluster.py" --nodes "$nodes" --pods-per-node "$pods" \
          --affinity-fraction 0.3 --out "$dir"
}
for s in $scenarios; do
  case "${s%-sampled}" in
    s1) generate s1 100 10 ;;
    s2) generate s2 1000 30 ;;
    s3) generate s3 5000 30 ;;
    s4) generate s4 10000 30 ;;
    *) fail "unknown scenario $s (s1 to s4, each also as sN-sampled)" ;;
  esac
done

if [ ! -x "$peer" ]; then
  echo "== building the peer into $peer"
  "$kit/peer-go/build.sh" "$peer"
fi

if [ -z "${CANDIDATE:-}" ]; then
  echo "== building scheduler-extender into $root/build-perf (RelWithDebInfo)"
  cmake -S "$root" -B "$root/build-perf" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build-perf" --parallel 2 --target scheduler-extender >/dev/null
  CANDIDATE=$root/build-perf/scheduler-extender
fi
[ -x "$CANDIDATE" ] || fail "candidate binary not found: $CANDIDATE"

# sN-sampled: the bodies kube-scheduler sends with its adaptive percentageOfNodesToScore
# (about 500 feasible nodes of a large cluster), taken from the candidate's /filter answer.
sample() {
  local base=$1 dir=$data/$1-sampled port=18591 pid
  [ -s "$dir/args-names.json" ] && return
  echo "== sampling $base's feasible nodes into $dir"
  "$CANDIDATE" --cluster-state "$data/$base/cluster.json" --config "$data/$base/config.json" \
               --listen "127.0.0.1:$port" >"$results/sample-$base.log" 2>&1 &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || fail "the candidate exited; see $results/sample-$base.log"
    sleep 0.1
  done
  curl -sf -X POST -H 'Content-Type: application/json' \
       --data-binary "@$data/$base/args-names.json" "http://127.0.0.1:$port/filter" \
       >"$results/feasible-$base.json"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  python3 "$root/bench/sample_args.py" "$data/$base" "$results/feasible-$base.json" "$dir"
}
for s in $scenarios; do
  case "$s" in *-sampled) sample "${s%-sampled}" ;; esac
done

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then commit="$commit (working tree differs)"; fi
{
  echo "commit: $commit"
  echo "candidate: $CANDIDATE"
  echo "peer: $peer ($(go version 2>/dev/null | cut -d' ' -f3))"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), nproc $(nproc)"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB, " $7 " GiB available"}')"
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$results/machine.txt"

# The servers under test lift the 1-minute load average themselves (the peer loads S3 on
# both CPUs for ~20 s), so a value up to ~2 right after a run is ours; above, or before the
# first run, something else competes.
busy_warning() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  if python3 -c "import sys; sys.exit(0 if float('$load') > 1.0 else 1)"; then
    echo "WARNING: 1-minute load average is $load before this run (the previous run's servers" \
         "account for up to ~2): if it stays high, something else is using the CPUs and the" \
         "figures will be noisy; re-run on a quiet machine." | tee -a "$results/warnings.txt"
  fi
}

for s in $scenarios; do
  echo
  echo "== $s: compare.py --rounds $rounds -n $requests"
  busy_warning
  python3 "$kit/compare.py" --scenario "$data/$s" --peer "$peer" --candidate "$CANDIDATE" \
          --rounds "$rounds" -n "$requests" --json "$results/$s.json" | tee "$results/$s.txt"
done

# Memory under load, on the largest scenario: RSS once warm (full-Nodes requests on two
# connections, then a few of each kind), then after LOAD_SECONDS of /prioritize and /filter
# (NodeNames, 4 connections) and the same few requests again; "flat" means growth under 10%.
largest=${scenarios##* }
if [ "$load_seconds" -gt 0 ]; then
  echo
  echo "== $largest: RSS under ${load_seconds}s of load"
  busy_warning
  port=18590
  "$CANDIDATE" --cluster-state "$data/$largest/cluster.json" --config "$data/$largest/config.json" \
               --listen "127.0.0.1:$port" >"$results/load-server.log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true' EXIT
  until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || fail "the candidate exited; see $results/load-server.log"
    sleep 0.1
  done
  rss() { awk '/^VmRSS:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
  # Three requests of each endpoint and mode.
  each_kind() {
    for mode in names nodes; do
      for endpoint in filter prioritize; do
        python3 "$kit/latency.py" "http://127.0.0.1:$port/$endpoint" \
                "$data/$largest/args-$mode.json" -n 3 >/dev/null
      done
    done
  }
  ready=$(rss)
  # Warm-up: full-Nodes bodies on 2 connections, so that every compute thread has served
  # one (each keeps its own 52 MB buffers for reuse in its malloc arena), then one of each.
  for endpoint in filter prioritize; do
    "$kit/load.sh" "http://127.0.0.1:$port/$endpoint" "$data/$largest/args-nodes.json" 5 2 >/dev/null
  done
  each_kind
  warm=$(rss)
  half=$((load_seconds / 2))
  "$kit/load.sh" "http://127.0.0.1:$port/prioritize" "$data/$largest/args-names.json" "$half" 4
  "$kit/load.sh" "http://127.0.0.1:$port/filter" "$data/$largest/args-names.json" \
                 "$((load_seconds - half))" 4
  each_kind
  loaded=$(rss)
  peak=$(awk '/^VmHWM:/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  trap - EXIT
  printf '{"ready": %s, "warm": %s, "loaded": %s, "peak": %s, "seconds": %s}\n' \
         "$ready" "$warm" "$loaded" "$peak" "$load_seconds" >"$results/load.json"
  echo "RSS (MiB): ready $ready, after warm-up $warm, after ${load_seconds}s of load $loaded, peak $peak"
fi

echo
# summarize.py exits 1 when a target is missed: say where the outputs are all the same.
status=0
python3 "$root/bench/summarize.py" "$results" $scenarios || status=$?
echo
echo "outputs: $results"
exit "$status"
