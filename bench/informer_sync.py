#!/usr/bin/env python3
"""Time to ready and memory of the extender following an API server, at realistic sizes.

Serves a generated cluster (the benchmark kit's cluster.json) the way kube-apiserver does for
/api/v1/{namespaces,nodes,pods} and /apis/policy/v1/poddisruptionbudgets: LIST in pages with limit/continue (or whole, with
--ignore-limit, as a server may), the pod field selector, and WATCH streams held open with a
bookmark every few seconds. Then starts the extender with a kubeconfig pointing at it, waits
for /readyz, and prints the time it took and the extender's memory: RSS when ready and the
peak (VmHWM) during the initial lists, and the CPU time it spent (which, unlike the wall
time, does not depend on how fast this Python server serves). With --compare-file it does the same with
--cluster-state on the same file, so the two can be read side by side.

    python3 bench/informer_sync.py --cluster /tmp/bench/s3/cluster.json \\
        --binary build/scheduler-extender [--ignore-limit] [--compare-file] [--rounds N]

Several --binary (two builds, say) are measured in turn against the one server, --rounds
times, so that they can be compared without loading the cluster again for each.

Loading S3's 754 MB file takes this script about half a minute and several GB: it is a
measuring tool, not a test.
"""
import argparse
import http.server
import json
import os
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from extender_process import free_port, wait_ready

POD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
KINDS = {"Pod": "pods", "Node": "nodes", "Namespace": "namespaces",
         "PodDisruptionBudget": "poddisruptionbudgets"}
PATHS = {"/api/v1/pods": "pods", "/api/v1/nodes": "nodes", "/api/v1/namespaces": "namespaces",
         "/apis/policy/v1/poddisruptionbudgets": "poddisruptionbudgets"}
RESOURCE_VERSION = "1000"


def load(path):
    print(f"loading {path} ...", file=sys.stderr, flush=True)
    with open(path, "rb") as f:
        data = json.load(f)
    items = {resource: [] for resource in KINDS.values()}
    finished = 0
    for item in data["items"]:
        resource = KINDS.get(item.get("kind"))
        if resource is None:
            continue
        if resource == "pods" and item.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            finished += 1
            continue  # what the field selector leaves out
        del item["kind"], item["apiVersion"]  # typed list items carry neither
        items[resource].append(json.dumps(item, separators=(",", ":")).encode())
    del data
    print("serving " + ", ".join(f"{len(v)} {k}" for k, v in items.items()) +
          f" ({finished} finished pods left out by the field selector)", file=sys.stderr)
    return items


def make_handler(items, ignore_limit, bookmark_seconds):
    kinds = {resource: kind for kind, resource in KINDS.items()}

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            resource = PATHS.get(url.path)
            if resource is None:
                return self.answer(404, b'{"kind":"Status","code":404}')
            if resource == "pods" and query.get("fieldSelector") != POD_SELECTOR:
                return self.answer(400, b'{"kind":"Status","code":400,"message":"selector"}')
            if query.get("watch") in ("true", "1"):
                return self.watch(resource, int(query.get("timeoutSeconds", "300")))
            self.list(resource, query)

        def answer(self, status, body):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def list(self, resource, query):
            objects = items[resource]
            start = int(query.get("continue") or 0)
            limit = 0 if ignore_limit else int(query.get("limit") or 0)
            end = len(objects) if limit == 0 else min(len(objects), start + limit)
            meta = {"resourceVersion": RESOURCE_VERSION}
            if end < len(objects):
                meta["continue"] = str(end)
            head = (f'{{"kind":"{kinds[resource]}List","apiVersion":"v1","metadata":'
                    f'{json.dumps(meta)},"items":[').encode()
            # Chunked, as kube-apiserver streams large lists: never one buffer of it all.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.chunk(head)
            batch = []
            for i in range(start, end):
                batch.append(objects[i] if i == start else b"," + objects[i])
                if len(batch) == 200:
                    self.chunk(b"".join(batch))
                    batch = []
            self.chunk(b"".join(batch) + b"]}")
            self.wfile.write(b"0\r\n\r\n")

        def chunk(self, data):
            if data:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        def watch(self, resource, timeout_seconds):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            bookmark = json.dumps({"type": "BOOKMARK", "object": {
                "kind": kinds[resource], "apiVersion": "v1",
                "metadata": {"resourceVersion": RESOURCE_VERSION}}}).encode() + b"\n"
            deadline = time.monotonic() + timeout_seconds
            try:
                while time.monotonic() < deadline:
                    self.chunk(bookmark)
                    self.wfile.flush()
                    time.sleep(bookmark_seconds)
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def memory_of(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


def cpu_seconds_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def measure(binary, args, label):
    port = free_port()
    start = time.monotonic()
    process = subprocess.Popen([binary, *args, "--listen", f"127.0.0.1:{port}"],
                               stderr=subprocess.DEVNULL)
    try:
        wait_ready(process, port, label)
        ready = time.monotonic() - start
        memory = memory_of(process.pid)
        cpu = cpu_seconds_of(process.pid)
        print(f"{label:28s} ready in {ready:6.2f} s (CPU {cpu:5.2f} s)   "
              f"RSS {memory['VmRSS']:7.1f} MiB   peak {memory['VmHWM']:7.1f} MiB")
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", required=True, help="the kit's cluster.json")
    parser.add_argument("--binary", required=True, action="append",
                        help="the scheduler-extender binary (repeat to compare builds)")
    parser.add_argument("--ignore-limit", action="store_true",
                        help="answer every LIST whole, ignoring limit")
    parser.add_argument("--compare-file", action="store_true",
                        help="also start from --cluster-state on the same file")
    parser.add_argument("--bookmark-seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every binary this many times, in turn")
    args = parser.parse_args()

    items = load(args.cluster)
    server = Server(("127.0.0.1", 0), make_handler(items, args.ignore_limit,
                                                   args.bookmark_seconds))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.NamedTemporaryFile("w", suffix=".kubeconfig", delete=False) as kubeconfig:
        kubeconfig.write(
            "apiVersion: v1\nkind: Config\ncurrent-context: bench\n"
            "contexts: [{name: bench, context: {cluster: bench, user: bench}}]\n"
            f"clusters: [{{name: bench, cluster: {{server: 'http://127.0.0.1:"
            f"{server.server_address[1]}'}}}}]\n"
            "users: [{name: bench, user: {token: bench}}]\n")
    try:
        for _ in range(args.rounds):
            for binary in args.binary:
                named = f" [{binary}]" if len(args.binary) > 1 else ""
                label = "--kubeconfig" + (" (limit ignored)" if args.ignore_limit else "")
                measure(binary, ["--kubeconfig", kubeconfig.name], label + named)
                if args.compare_file:
                    measure(binary, ["--cluster-state", args.cluster], "--cluster-state" + named)
    finally:
        os.unlink(kubeconfig.name)
        server.shutdown()


if __name__ == "__main__":
    main()
