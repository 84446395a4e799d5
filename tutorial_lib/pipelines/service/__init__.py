"""A tf.data service on this machine (notebook 11): a dispatcher and workers, each in its own process.

* `cluster` -- start and stop the servers (`start_cluster`, `Cluster`), read through them (`distributed`),
  measure throughput, and run fault drills;
* `server` -- one server as a program (`python -m tutorial_lib.pipelines.service.server`);
* `drill_client` -- a drill's reading client as a program.

The servers have no authentication, and TensorFlow binds them to 0.0.0.0, which gRPC opens as a wildcard: every
interface, IPv6 too where the machine has it (there is no option to choose one; clients reach them at 127.0.0.1
here): use them on a trusted network only.
"""

from tutorial_lib.pipelines.service.cluster import (  # noqa: F401
    START_TIMEOUT_S,
    Cluster,
    Server,
    busy_range,
    distributed,
    fault_drill,
    start_cluster,
    throughput,
)
from tutorial_lib.pipelines.service.server import HOST, serve  # noqa: F401
