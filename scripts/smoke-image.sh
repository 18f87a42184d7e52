#!/usr/bin/env bash
# Runs the image that scripts/build-image.sh built the way the chart's Deployment runs it —
# read-only root filesystem, the image's numeric non-root user, every capability dropped,
# the chart's flags (templates/_helpers.tpl, extenderContainer), its two listeners included —
# on loopback, with the example cluster mounted where the chart mounts its configuration, and
# checks:
#   - the image: no more than --max-mb, no shell and no package manager, a numeric non-root
#     USER, the entrypoint, the version label matching the binary's --version, the licenses
#     label Apache-2.0 and the repository's LICENSE in the image;
#   - the process: its uid and gid, no effective capabilities, its root mounted read-only;
#   - on the metrics listener (where kubelet probes): /healthz, /readyz, /metrics;
#   - on the scheduling listener (where kube-scheduler calls): the README's /filter and
#     /prioritize answers, which must equal examples/responses/ (the same JSON, keys in the
#     same order; whitespace aside);
#   - each listener answers 404 for the other's paths;
#   - SIGTERM: exit status 0 and "stopped" in the log.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/image-env.sh

usage() {
  cat <<EOF
usage: scripts/smoke-image.sh [--tag NAME] [--max-mb N]

Runs and checks the image built by scripts/build-image.sh (same image store).

  --tag NAME   image to run (default: scheduler-extender:VERSION, VERSION from CMakeLists.txt)
  --max-mb N   fail when the image's files take more than N MB (default 40; 1 MB = 10^6 bytes)

Needs root (buildah's chroot isolation). Serves on 127.0.0.1 only, on two ports the kernel
picks.
EOF
}

tag=scheduler-extender:$(sx_project_version)
max_mb=40
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --tag|--max-mb)
      [ $# -ge 2 ] || { echo "smoke-image.sh: $1 needs a value" >&2; exit 2; }
      case "$1" in --tag) tag=$2 ;; --max-mb) max_mb=$2 ;; esac
      shift ;;
    *) echo "smoke-image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
sx_require_root smoke-image.sh
started=$SECONDS
command -v buildah >/dev/null && command -v curl >/dev/null && command -v python3 >/dev/null ||
  scripts/install-deps.sh --image

fail() { echo "smoke-image.sh: FAIL: $*" >&2; exit 1; }
say() { echo "smoke-image.sh: $*" >&2; }

sx_buildah inspect --type image "$tag" >/dev/null 2>&1 ||
  fail "no image $tag in $sx_image_cache/storage: build it first with scripts/build-image.sh"

# --- The image's configuration. -------------------------------------------------------------
config=$(sx_buildah inspect --type image "$tag")
# One field of the image's OCI configuration, as JSON for lists ("Entrypoint") and as text
# otherwise; a label by its name after "org.opencontainers.image.".
config_field() {
  python3 -c '
import json, sys
config = json.loads(sys.stdin.read())["OCIv1"]["config"]
value = config.get(sys.argv[1])
if sys.argv[1] == "Labels":
    value = (value or {}).get("org.opencontainers.image." + sys.argv[2], "")
print(value if isinstance(value, str) else json.dumps(value))' "$@" <<<"$config"
}
user=$(config_field User)
# The chart's podSecurityContext runs as 65532:65532 with runAsNonRoot, which kubelet can only
# verify for a numeric user.
[[ "$user" =~ ^[0-9]+:[0-9]+$ ]] || fail "USER is \"$user\", not numeric uid:gid"
[ "${user%%:*}" -ne 0 ] || fail "USER is root ($user)"
[ "$user" = 65532:65532 ] || fail "USER is $user; the chart runs as 65532:65532"
entrypoint=$(config_field Entrypoint)
[ "$entrypoint" = '["/usr/local/bin/scheduler-extender"]' ] || fail "ENTRYPOINT is $entrypoint"
label() { config_field Labels "$1"; }
for l in version revision source licenses; do say "label org.opencontainers.image.$l=$(label $l)"; done
# The repository's license, as LICENSE states it (scripts/build-image.sh derives the label).
[ "$(label licenses)" = Apache-2.0 ] ||
  fail "label org.opencontainers.image.licenses is \"$(label licenses)\", not Apache-2.0"

# --- Its files. A working container gives the image's filesystem as a directory (vfs). -------
ctr=""
mnt=""
run_pid=""
work=$(mktemp -d)
# The extender processes under our own buildah run (pid $1): buildah does not pass signals
# on, and killing it would leave the extender running, so a stop must reach them directly.
extender_pids() {
  python3 - "$1" <<'EOF'
import os, sys
children = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        continue
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    ppid = stat[stat.rindex(")") + 2:].split()[1]
    children.setdefault(ppid, []).append((pid, comm))
todo = [sys.argv[1]]
while todo:
    for pid, comm in children.get(todo.pop(), []):
        if comm == "scheduler-exten":  # the kernel keeps 15 characters
            print(pid)
        todo.append(pid)
EOF
}
cleanup() {
  # Should a check fail while the extender serves: stop it, then its buildah run.
  if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
    for pid in $(extender_pids "$run_pid"); do kill -KILL "$pid" 2>/dev/null || true; done
    local deadline=$((SECONDS + 10))
    while kill -0 "$run_pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -KILL "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  if [ -n "$mnt" ]; then
    while mountpoint -q "$mnt/run" || mountpoint -q "$mnt"; do
      umount -R "$mnt" 2>/dev/null || umount -R "$mnt/run" 2>/dev/null || break
    done
  fi
  [ -z "$ctr" ] || sx_buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
ctr=$(sx_buildah from --pull=never --name "sx-smoke-$$" "$tag")
mnt=$(sx_buildah mount "$ctr")

bytes=$(du -sb "$mnt" | cut -f1)
size_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
say "image $tag: $size_mb MB ($bytes bytes in $(find "$mnt" -type f | wc -l) files; limit $max_mb MB)"
[ "$bytes" -le $((max_mb * 1000000)) ] || fail "the image takes $size_mb MB, more than $max_mb MB"
for f in bin/sh usr/bin/sh bin/bash usr/bin/bash bin/busybox usr/bin/busybox \
         usr/bin/apt usr/bin/apt-get usr/bin/dpkg; do
  [ ! -e "$mnt/$f" ] && [ ! -L "$mnt/$f" ] || fail "the image has /$f"
done
[ -s "$mnt/etc/ssl/certs/ca-certificates.crt" ] || fail "the image has no CA certificates"
grep -q ':65532:65532:' "$mnt/etc/passwd" || fail "/etc/passwd has no entry for 65532"
cmp -s LICENSE "$mnt/usr/share/doc/scheduler-extender/LICENSE" ||
  fail "the image's /usr/share/doc/scheduler-extender/LICENSE is missing or not the repository's LICENSE"

# --- A read-only root. buildah bind-mounts /etc/hosts, /etc/resolv.conf, /etc/hostname,
# /run/.containerenv and the volume into the container, so the mount points are made in the
# working container (as a container engine makes them in its own layer; the image is
# untouched), and then its root is bind-mounted read-only over itself. /run stays a writable
# mount, root's and mode 0755, so still not writable by the extender: buildah 1.28 deletes
# /run/.containerenv after the run and panics, losing the exit status, when it cannot.
mkdir -p "$mnt/proc" "$mnt/sys" "$mnt/dev" "$mnt/run" "$mnt/etc/scheduler-extender/config"
touch "$mnt/etc/hosts" "$mnt/etc/resolv.conf" "$mnt/etc/hostname" "$mnt/run/.containerenv"
mount --bind "$mnt/run" "$mnt/run"
mount --rbind "$mnt" "$mnt"
mount -o remount,bind,ro "$mnt"

# Called only in a subshell ($(...) or &), which exec makes buildah itself: $! is then
# buildah's pid, whose exit status is the extender's.
run_image() {
  exec buildah "${sx_buildah_flags[@]}" run --isolation chroot --network host --user "$user" \
    --cap-drop ALL -v "$PWD/examples:/etc/scheduler-extender/config:ro" "$ctr" -- \
    /usr/local/bin/scheduler-extender "$@"
}

version=$(run_image --version 2>&1) || fail "scheduler-extender --version: $version"
[[ "$version" == *"$(label version)"* ]] ||
  fail "the binary says \"$version\"; the image's version label is \"$(label version)\""
say "$version"

# --- Serve. The chart's flags (sidecar mode, plain HTTP), except the addresses: both
# listeners on loopback, port 0 (the kernel picks free ones and the extender logs them); and
# the cluster comes from the example's file instead of the API server.
log=$work/extender.log
# Created here, not by the background shell's redirection: the readiness loop below may read
# it before that shell has run.
: >"$log"
run_image \
  --listen=127.0.0.1:0 \
  --metrics-listen=127.0.0.1:0 \
  --scheduler-names=scheduler-extender \
  --config=/etc/scheduler-extender/config/config.yaml \
  --v=0 --log-format=text --shutdown-grace=10s --in-flight-wait=1s \
  --cluster-state=/etc/scheduler-extender/config/cluster-state.json >"$log" 2>&1 &
run_pid=$!

died() { echo "--- extender log:" >&2; cat "$log" >&2; fail "$*"; }
# "serving on http://127.0.0.1:P for the scheduling verbs and http://127.0.0.1:Q for /healthz,
# /readyz and /metrics; ..."
port=""
metrics_port=""
deadline=$((SECONDS + 60))
until [ -n "$metrics_port" ] &&
      curl -fsS -m 2 "http://127.0.0.1:$metrics_port/readyz" >/dev/null 2>&1; do
  kill -0 "$run_pid" 2>/dev/null || died "the extender exited before it was ready"
  [ $SECONDS -lt $deadline ] || died "not ready within 60 s"
  if [ -z "$metrics_port" ]; then
    ports=$(sed -n 's|.* serving on http://127\.0\.0\.1:\([0-9][0-9]*\) for the scheduling verbs and http://127\.0\.0\.1:\([0-9][0-9]*\) for /healthz.*|\1 \2|p' "$log" | head -n 1)
    if [ -n "$ports" ]; then
      port=${ports% *}
      metrics_port=${ports#* }
    fi
  fi
  sleep 0.2
done
[ "$port" != "$metrics_port" ] || died "one port, $port, for both listeners"
base=http://127.0.0.1:$port
metrics_base=http://127.0.0.1:$metrics_port
say "serving the scheduling verbs on $base and the probes and /metrics on $metrics_base"

# The extender's own process, to check and to signal.
ext_pid=$(extender_pids "$run_pid")
ext_pid=${ext_pid%%$'\n'*}
[ -n "$ext_pid" ] || died "no scheduler-extender process under buildah run (pid $run_pid)"

status=/proc/$ext_pid/status
uid=$(awk '/^Uid:/ { print $2 " " $3 " " $4 " " $5 }' "$status")
gid=$(awk '/^Gid:/ { print $2 " " $3 " " $4 " " $5 }' "$status")
[ "$uid" = "65532 65532 65532 65532" ] || died "runs with uids $uid, not 65532"
[ "$gid" = "65532 65532 65532 65532" ] || died "runs with gids $gid, not 65532"
capeff=$(awk '/^CapEff:/ { print $2 }' "$status")
[ "$capeff" = 0000000000000000 ] || died "runs with effective capabilities $capeff"
root_options=$(awk '$5 == "/" { print $6 }' "/proc/$ext_pid/mountinfo")
[[ "$root_options" == ro* ]] || died "its root filesystem is mounted $root_options, not read-only"
say "process $ext_pid: uid and gid 65532, no capabilities, root filesystem $root_options"
# The image's environment reaches the process: the Dockerfile's malloc tunable.
tunables=$(tr '\0' '\n' <"/proc/$ext_pid/environ" | sed -n 's/^GLIBC_TUNABLES=//p')
[ "$tunables" = glibc.malloc.hugetlb=1 ] ||
  died "runs with GLIBC_TUNABLES=\"$tunables\", not the image's glibc.malloc.hugetlb=1"
say "process $ext_pid: GLIBC_TUNABLES=$tunables"

# kubelet's probes and Prometheus, on the metrics listener.
probe() {
  local body
  body=$(curl -sS -m 10 --fail-with-body "$metrics_base$1") || died "GET $1: $body"
  [ "$body" = ok ] || died "GET $1 answered \"$body\", not \"ok\""
  say "GET $1 on the metrics port: ok"
}
probe /healthz
probe /readyz
metrics=$(curl -sS -m 10 --fail-with-body "$metrics_base/metrics") || died "GET /metrics: $metrics"
grep -q '^scheduler_extender_' <<<"$metrics" || died "GET /metrics shows no scheduler_extender_ metric"
say "GET /metrics on the metrics port: $(grep -c '^scheduler_extender_' <<<"$metrics") samples"

# Neither listener serves the other's paths: a probe or a scrape pointed at the scheduling
# port fails, and so does a scheduling verb sent to the metrics port.
status_of() { curl -sS -m 10 -o /dev/null -w '%{http_code}' "$@" || true; }
for path in /healthz /readyz /metrics; do
  code=$(status_of "$base$path")
  [ "$code" = 404 ] || died "GET $path on the scheduling port answered $code, not 404"
done
code=$(status_of "$metrics_base/filter" -d @examples/requests/filter-names.json)
[ "$code" = 404 ] || died "POST /filter on the metrics port answered $code, not 404"
say "each listener answers 404 for the other's paths"

# The README's requests, on the scheduling listener; the answers must be examples/responses/
# (the test suite's reference).
post() {
  local answer
  answer=$(curl -sS -m 10 --fail-with-body "$base/$1" -d "@examples/requests/$1-names.json") ||
    died "POST /$1: $answer"
  python3 - "examples/responses/$1-names.json" "$answer" <<'EOF' || died "POST /$1: wrong answer"
import json, sys
want = json.dumps(json.load(open(sys.argv[1])), sort_keys=False)
got = json.dumps(json.loads(sys.argv[2]), sort_keys=False)
if want != got:
    print(f"want {want}\ngot  {got}", file=sys.stderr)
    sys.exit(1)
EOF
  say "POST /$1: equals examples/responses/$1-names.json"
}
post filter
post prioritize

# --- SIGTERM, as kubelet sends it: the extender drains, logs "stopped" and exits 0, which
# buildah run passes on.
kill -TERM "$ext_pid"
deadline=$((SECONDS + 20))
while kill -0 "$run_pid" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || died "still running 20 s after SIGTERM"
  sleep 0.2
done
rc=0
wait "$run_pid" || rc=$?
run_pid=""
[ "$rc" -eq 0 ] || died "exited with status $rc after SIGTERM"
grep -q '\bstopped$' "$log" || died "no \"stopped\" in the log after SIGTERM"
say "SIGTERM: exit status 0, log: $(grep 'stopped$' "$log" | tail -n 1)"
say "PASS: $tag ($size_mb MB) in $((SECONDS - started)) s"
