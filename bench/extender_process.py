"""Starting the extender for a measurement: a free loopback port, and the wait for /readyz."""
import socket
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(process, port, label):
    """Polls /readyz until it answers 200; exits naming `label` if the extender exits first."""
    while True:
        if process.poll() is not None:
            sys.exit(f"{label}: the extender exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
