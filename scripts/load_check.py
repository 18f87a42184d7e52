#!/usr/bin/env python3
"""CI's bounded load check: the built server on the example cluster, 64 keep-alive
connections sending /filter and /prioritize bodies for a fixed time. Fails unless every
request got a 200 and the server's RSS stayed bounded (at most 1.5x, plus 32 MiB, of its RSS
after a short warm-up), then sends SIGTERM and expects exit 0.

usage: load_check.py BINARY [SECONDS]
"""
import http.client
import os
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONNECTIONS = 64


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start(binary):
    server = subprocess.Popen(
        [binary, "--cluster-state", f"{ROOT}/examples/cluster-state.json",
         "--config", f"{ROOT}/examples/config.yaml", "--listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True)
    port = None
    for line in server.stderr:
        if "serving on http://127.0.0.1:" in line:
            port = int(line.split("127.0.0.1:")[1].split(";")[0])
        if line.rstrip().endswith("] ready"):
            break
    if port is None:
        raise RuntimeError("server did not start")
    # Keep draining its log so it never blocks on a full pipe.
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    return server, port


def load(port, seconds, bodies, counts, errors):
    deadline = time.monotonic() + seconds
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    i = 0
    while time.monotonic() < deadline:
        path, body = bodies[i % len(bodies)]
        i += 1
        try:
            connection.request("POST", path, body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            counts[response.status] = counts.get(response.status, 0) + 1
        except (OSError, http.client.HTTPException) as error:
            errors.append(repr(error))
            return


def run_load(port, seconds):
    bodies = [(f"/{name.split('-')[0]}", open(f"{ROOT}/examples/requests/{name}.json", "rb").read())
              for name in ("filter-names", "prioritize-names", "filter-nodes", "prioritize-nodes")]
    counts, errors = {}, []
    threads = [threading.Thread(target=load, args=(port, seconds, bodies, counts, errors))
               for _ in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts, errors


def main():
    binary = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    server, port = start(binary)
    try:
        run_load(port, 3)  # warm-up: allocator arenas, thread pools
        baseline = rss_kib(server.pid)
        counts, errors = run_load(port, seconds)
        after = rss_kib(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=30)
    total = sum(counts.values())
    print(f"{total} requests over {CONNECTIONS} connections in {seconds:.0f}s: {counts}; "
          f"RSS {baseline} KiB after warm-up, {after} KiB after load; exit {code}")
    failures = []
    if errors:
        failures.append(f"{len(errors)} connection errors, first: {errors[0]}")
    if set(counts) != {200}:
        failures.append(f"answers other than 200: {counts}")
    if after > baseline * 1.5 + 32 * 1024:
        failures.append("RSS grew past its bound")
    if code != 0:
        failures.append(f"exit code {code} after SIGTERM")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
