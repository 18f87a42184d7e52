#!/usr/bin/env bash
# A local Kubernetes control plane for tests and for trying the extender by hand, from the
# binaries scripts/build-kubernetes.sh built:
#
#   scripts/local-cluster.sh up DIR [--nodes N] [--zones Z]
#   scripts/local-cluster.sh down DIR
#
# `up` starts etcd, kube-apiserver (RBAC, a service-account issuer, client certificates) and
# kube-controller-manager on free loopback ports, writes DIR/admin.kubeconfig (cluster-admin)
# and returns once the API server's /readyz answers ok. With --nodes it registers N Ready
# Node objects over Z zones (default 1), labelled kubernetes.io/hostname and
# topology.kubernetes.io/zone, with the capacity upstream's scheduler_perf gives its nodes.
# No kubelet runs: the nodes are objects only, and node lifecycle is off so that they stay
# Ready without heartbeats.
#
# `down` stops what `up` started in DIR, by the process ids it recorded, and nothing else.
# DIR keeps the logs and etcd's data until it is removed. `restart DIR COMPONENT` stops one
# of them and starts it again on the same ports and data.
#
# Files in DIR:
#   admin.kubeconfig          cluster-admin (system:masters), for kubectl and helm
#   scheduler.kubeconfig      system:kube-scheduler, for running kube-scheduler by hand
#   pki/                      the cluster CA, serving and client certificates, service-account keys
#   logs/<component>.log      each component's output
#   logs/audit.log            kube-apiserver's audit log of every Binding created
#   run/<component>.pid       "pid start-time" of each process `up` started
#   cluster.env               the ports, for scripts
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${KUBERNETES_BIN:-$repo/build/kubernetes/bin}

usage() {
  echo "usage: $0 up DIR [--nodes N] [--zones Z] | $0 down DIR | $0 restart DIR COMPONENT" >&2
  exit 2
}
die() { echo "local-cluster.sh: $*" >&2; exit 1; }

# --- processes ---------------------------------------------------------------------------

# A process is the one `up` started when its pid is alive with the start time recorded then,
# so that a pid reused after a crash or a reboot is never signalled. A zombie (a component that
# died while this script, its parent, still runs) counts as gone.
start_time() { awk '$3 != "Z" { print $22 }' "/proc/$1/stat" 2>/dev/null; }
recorded_pid() {
  local file=$dir/run/$1.pid pid started
  [ -f "$file" ] || return 1
  read -r pid started <"$file"
  [ -n "$pid" ] && [ "$(start_time "$pid")" = "$started" ] && echo "$pid"
}

start() {
  local name=$1; shift
  # setsid: the component outlives this script and the terminal that ran it.
  setsid "$@" >>"$dir/logs/$name.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid $(start_time "$pid")" >"$dir/run/$name.pid"
  printf '%-24s pid %-7s logs %s\n' "$name" "$pid" "$dir/logs/$name.log"
}

stop() {
  local name=$1 pid
  pid=$(recorded_pid "$name") || { rm -f "$dir/run/$name.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    [ "$(start_time "$pid")" = "" ] && break
    sleep 0.1
  done
  if [ -n "$(start_time "$pid")" ]; then
    echo "local-cluster.sh: $name (pid $pid) did not stop within 10 s of SIGTERM; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/run/$name.pid"
  printf '%-24s stopped (pid %s)\n' "$name" "$pid"
}

# Waits until CHECK succeeds; fails naming the component and its log when TIMEOUT seconds
# pass or the process exits first.
wait_for() {
  local name=$1 timeout=$2; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! recorded_pid "$name" >/dev/null; then
      tail -n 20 "$dir/logs/$name.log" >&2 || true
      die "$name exited while starting; its log is $dir/logs/$name.log"
    fi
    if [ $SECONDS -ge $deadline ]; then
      tail -n 20 "$dir/logs/$name.log" >&2 || true
      die "$name not ready after ${timeout} s; its log is $dir/logs/$name.log"
    fi
    sleep 0.2
  done
}

# A free loopback port: bound to 0, read, released. Another process could take it before the
# component binds it; on this single-user test machine that has not been seen.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- certificates ------------------------------------------------------------------------

pki() {
  local p=$dir/pki
  mkdir -p "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=local-cluster-ca" \
    -keyout "$p/ca.key" -out "$p/ca.crt" 2>/dev/null
  # NAME SUBJECT [SAN]: a key and a certificate signed by the cluster CA.
  issue() {
    local name=$1 subject=$2 san=${3:-} ext
    ext=$(mktemp)
    if [ -n "$san" ]; then
      printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" >"$ext"
    else
      printf 'extendedKeyUsage=clientAuth\n' >"$ext"
    fi
    openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$p/$name.key" \
      -out "$p/$name.csr" 2>/dev/null
    openssl x509 -req -in "$p/$name.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial \
      -days 3650 -extfile "$ext" -out "$p/$name.crt" 2>/dev/null
    rm -f "$ext" "$p/$name.csr"
  }
  # 10.96.0.1 is the `kubernetes` Service's ClusterIP (the first of --service-cluster-ip-range),
  # the address in-cluster clients dial.
  issue apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  issue admin "/O=system:masters/CN=kubernetes-admin"
  issue controller-manager "/CN=system:kube-controller-manager"
  issue scheduler "/CN=system:kube-scheduler"
  openssl genrsa -out "$p/service-account.key" 2048 2>/dev/null
  openssl rsa -in "$p/service-account.key" -pubout -out "$p/service-account.pub" 2>/dev/null
}

kubeconfig() {
  local user=$1 out=$2
  cat >"$out" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: https://127.0.0.1:$APISERVER_PORT
      certificate-authority: $dir/pki/ca.crt
users:
  - name: $user
    user:
      client-certificate: $dir/pki/$user.crt
      client-key: $dir/pki/$user.key
contexts:
  - name: local
    context: {cluster: local, user: $user}
current-context: local
EOF
}

# --- nodes -------------------------------------------------------------------------------

# N Ready nodes over Z zones, as scheduler_perf's node-default template (4 CPUs, 32 Gi, 110
# pods; allocatable defaults to capacity).
register_nodes() {
  local count=$1 zones=$2
  python3 - "$count" "$zones" >"$dir/nodes.json" <<'EOF'
import json, sys
count, zones = int(sys.argv[1]), int(sys.argv[2])
width = len(str(count - 1))
items = []
for i in range(count):
    name = f"node-{i:0{width}d}"
    items.append({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "topology.kubernetes.io/zone": f"zone-{i % zones}"}},
        "status": {
            "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "registered by local-cluster.sh; no kubelet runs"}],
            "phase": "Running"}})
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout)
EOF
  # A cluster brought up again in the same DIR already has them.
  local out
  if ! out=$("$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" create -f "$dir/nodes.json" 2>&1 >/dev/null) &&
     grep -qv AlreadyExists <<<"$out"; then
    die "registering nodes: $out"
  fi
  echo "nodes                    $count Ready over $zones zone(s)"
}

# --- components --------------------------------------------------------------------------

# Each starts one component on the ports in cluster.env and waits until it is ready, so that
# `restart` brings one back where it was.

start_etcd() {
  # etcd keeps its data in DIR/etcd across restarts. fsync off: the data is a test's, and a
  # disk flush per write would dominate its time.
  start etcd "$bin/etcd" --name local --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "local=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync --log-level warn
  wait_for etcd 30 curl -sf "http://127.0.0.1:$ETCD_PORT/health"
}

start_kube_apiserver() {
  # Every Binding created, by whom and with what answer, goes to logs/audit.log: the
  # end-to-end suite counts them per pod.
  cat >"$dir/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    verbs: [create]
    resources: [{group: "", resources: [pods/binding]}]
  - level: None
EOF
  # The endpoint reconciler is off: it would publish 127.0.0.1 as the `kubernetes` Service's
  # endpoint, which endpoint validation refuses. In-cluster clients reach 10.96.0.1 through
  # whatever routes it here (the end-to-end suite's node agent). TaintNodesByCondition is off,
  # as in upstream's integration tests: it taints each new node not-ready until a kubelet
  # reports, and none will.
  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$APISERVER_PORT" --advertise-address 127.0.0.1 \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
    --client-ca-file "$dir/pki/ca.crt" \
    --authorization-mode RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$dir/pki/service-account.pub" \
    --service-account-signing-key-file "$dir/pki/service-account.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --endpoint-reconciler-type none --disable-admission-plugins TaintNodesByCondition \
    --audit-policy-file "$dir/audit-policy.yaml" --audit-log-path "$dir/logs/audit.log" \
    --audit-log-format json \
    --allow-privileged=true --profiling=false
  wait_for kube-apiserver 120 curl -sf --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" \
    --key "$dir/pki/admin.key" "https://127.0.0.1:$APISERVER_PORT/readyz"
}

start_kube_controller_manager() {
  # The controllers a Deployment needs (deployment, replicaset, garbage collector), the ones
  # that give pods their service accounts and tokens, namespace deletion, PodDisruptionBudget
  # status (preemption counts it) and EndpointSlices. Node lifecycle stays off: no kubelet
  # sends heartbeats, and it would taint every node unreachable.
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$dir/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$dir/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$dir/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$CONTROLLER_MANAGER_PORT" --leader-elect=false \
    --controllers deployment-controller,replicaset-controller,garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller,root-ca-certificate-publisher-controller,namespace-controller,disruption-controller,endpointslice-controller \
    --service-account-private-key-file "$dir/pki/service-account.key" \
    --root-ca-file "$dir/pki/ca.crt" --use-service-account-credentials
  wait_for kube-controller-manager 60 curl -sfk "https://127.0.0.1:$CONTROLLER_MANAGER_PORT/healthz"
}

# --- up / down / restart -----------------------------------------------------------------------

up() {
  local nodes=0 zones=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes=$2; shift ;;
      --zones) zones=$2; shift ;;
      *) usage ;;
    esac
    shift
  done
  [[ $nodes =~ ^[0-9]+$ && $zones =~ ^[1-9][0-9]*$ ]] || die "--nodes takes a count, --zones a positive count"
  for b in etcd kube-apiserver kube-controller-manager kubectl; do
    [ -x "$bin/$b" ] || die "$bin/$b is missing: run scripts/build-kubernetes.sh first"
  done
  for c in etcd kube-apiserver kube-controller-manager; do
    if pid=$(recorded_pid "$c"); then die "$c is already running in $dir (pid $pid): run '$0 down $dir' first"; fi
  done
  mkdir -p "$dir/logs" "$dir/run"
  [ -f "$dir/pki/ca.crt" ] || pki

  cat >"$dir/cluster.env" <<EOF
ETCD_PORT=$(free_port)
ETCD_PEER_PORT=$(free_port)
APISERVER_PORT=$(free_port)
CONTROLLER_MANAGER_PORT=$(free_port)
EOF
  source "$dir/cluster.env"
  kubeconfig admin "$dir/admin.kubeconfig"
  kubeconfig controller-manager "$dir/controller-manager.kubeconfig"
  kubeconfig scheduler "$dir/scheduler.kubeconfig"
  start_etcd
  start_kube_apiserver
  start_kube_controller_manager
  # The default namespace's ServiceAccount is the service-account controller's first work;
  # a pod created before it exists is refused.
  wait_for kube-controller-manager 60 "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" \
    get serviceaccount default --namespace default

  [ "$nodes" -eq 0 ] || register_nodes "$nodes" "$zones"
  echo "API server               https://127.0.0.1:$APISERVER_PORT (ready)"
  echo "kubectl                  $bin/kubectl --kubeconfig $dir/admin.kubeconfig get nodes"
  echo "stop with                $0 down $dir"
}

# Stops one component and starts it again on the same ports, with the same data: what a
# test needs to restart kube-apiserver under the informers.
restart() {
  local component=$1
  case "$component" in
    etcd | kube-apiserver | kube-controller-manager) ;;
    *) die "restart takes etcd, kube-apiserver or kube-controller-manager, not '$component'" ;;
  esac
  [ -f "$dir/cluster.env" ] || die "$dir holds no cluster that $0 started"
  source "$dir/cluster.env"
  stop "$component"
  "start_${component//-/_}"
}

down() {
  [ -d "$dir/run" ] || die "$dir holds no cluster that $0 started"
  stop kube-controller-manager
  stop kube-apiserver
  stop etcd
}

[ $# -ge 2 ] || usage
command=$1 dir=$2; shift 2
[ "$command" != up ] || mkdir -p "$dir"
[ -d "$dir" ] || die "$dir does not exist"
dir=$(cd "$dir" && pwd)
case "$command" in
  up) up "$@" ;;
  down) [ $# -eq 0 ] || usage; down ;;
  restart) [ $# -eq 1 ] || usage; restart "$1" ;;
  *) usage ;;
esac
