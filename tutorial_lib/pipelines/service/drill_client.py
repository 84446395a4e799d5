"""The client side of a fault drill: read through the service, pause for the kill, report every element.

Run by `cluster.fault_drill` as
`python -m tutorial_lib.pipelines.service.drill_client TARGET MODE COUNT KILL_AFTER COST`. It prints one JSON
line per element, stamped with `time.monotonic()` as it arrives (on Linux the system-wide monotonic clock, which
the parent reads too), waits on stdin after KILL_AFTER elements (the parent stops a worker meanwhile), and ends
with a stamped line giving the time the whole read took. A process of its own, so a read that waits for a worker
forever can be stopped without touching the notebook's kernel.
"""

from __future__ import annotations

import json
import sys
import time

from tutorial_lib.env import import_tensorflow
from tutorial_lib.pipelines.service.cluster import busy_range, distributed


def main(target: str, mode: str, count: int, kill_after: int, cost: int) -> None:
    """Read `count` elements from the service at `target`, pausing after `kill_after` of them."""
    tf = import_tensorflow()
    policy = {"dynamic": tf.data.experimental.service.ShardingPolicy.DYNAMIC,
              "parallel_epochs": tf.data.experimental.service.ShardingPolicy.OFF}[mode]
    seen, start = [], time.perf_counter()
    for value in distributed(busy_range(count, cost), target, policy):
        seen.append(int(value))
        event = "kill" if len(seen) == kill_after else "got"
        print(json.dumps({"event": event, "value": seen[-1], "t": time.monotonic()}), flush=True)
        if len(seen) == kill_after:
            sys.stdin.readline()  # the parent stops a worker, then answers
    print(json.dumps({"event": "done", "seconds": time.perf_counter() - start, "t": time.monotonic()}), flush=True)


if __name__ == "__main__":
    target, mode, *numbers = sys.argv[1:]
    main(target, mode, *(int(n) for n in numbers))
