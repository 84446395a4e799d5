"""One tf.data service server (dispatcher or worker) as a program: `python -m tutorial_lib.pipelines.service.server`.

Arguments: KIND DISPATCHER_ADDRESS TIMEOUT_MS PORT PARENT_PID. `Cluster` starts one such process per server;
`python -m tutorial_lib serve dispatcher|worker` runs `serve` in the foreground for a real multi-machine try.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from tutorial_lib.env import import_tensorflow

HOST = "127.0.0.1"


def exit_with_parent(parent: int) -> None:
    """End this process once `parent` has gone: a server started for a notebook ends with its kernel."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def serve(kind: str, dispatcher_address: str, timeout_ms: int, port: int = 0, host: str = HOST) -> None:
    """Run one tf.data service server in this process until it is stopped; print `ready PORT TIME` once listening
    (TIME: `time.monotonic()` then, the system-wide monotonic clock on Linux, which other processes read too).

    `kind` is "dispatcher" or "worker"; a worker registers with `dispatcher_address` and tells clients to
    reach it at `host` (on a real cluster: this machine's name as the trainers see it).
    """
    service = import_tensorflow().data.experimental.service
    if kind == "dispatcher":
        server = service.DispatchServer(service.DispatcherConfig(port=port, worker_timeout_ms=timeout_ms))
        bound = server.target.rsplit(":", 1)[1]
    elif kind == "worker":
        server = service.WorkerServer(service.WorkerConfig(
            dispatcher_address=dispatcher_address, worker_address=f"{host}:%port%", port=port,
            heartbeat_interval_ms=100))  # a short interval: a new job reaches the workers quickly
        bound = server._address.rsplit(":", 1)[1]
    else:
        raise ValueError(f"unknown server kind {kind!r}; choose 'dispatcher' or 'worker'")
    print(f"ready {bound} {time.monotonic()}", flush=True)
    try:
        while True:  # sleep, not server.join(): a sleeping main thread still answers Ctrl+C
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        (getattr(server, "stop", None) or server._stop)()


def main(argv: list[str]) -> None:
    """Serve until stopped, exiting with the parent process named in argv."""
    kind, dispatcher_address, timeout_ms, port, parent = argv
    threading.Thread(target=exit_with_parent, args=(int(parent),), daemon=True).start()
    serve(kind, dispatcher_address, int(timeout_ms), int(port))


if __name__ == "__main__":
    main(sys.argv[1:])
