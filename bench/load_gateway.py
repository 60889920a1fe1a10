"""The gateway for bench/load.py when players replay games found ahead of time.

It is ``lexio-gateway`` (the same configuration from the environment, the same start-up and
shutdown, the same application) but for one thing: each game's seed comes from its table id,
through :func:`load_scripts.script_seed`, so that the simulated players know which of the
games in the script file they are playing and replay its moves instead of searching for them.

This file is the only way to choose seeds in a running gateway: it lives in bench/, which no
image contains (deploy/docker/gateway.Dockerfile.dockerignore admits services/ only), and
``lexio_gateway.server.main`` never passes seeds, whatever the environment says.

Usage (bench/load_services.py starts it): ``python bench/load_gateway.py SEED_BASE COUNT``.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_scripts import script_seed

from lexio_common.service import run_service
from lexio_gateway.config import GatewayConfig
from lexio_gateway.server import start_gateway


def main() -> None:
    base, count = int(sys.argv[1]), int(sys.argv[2])
    run_service(
        "gateway",
        load_config=GatewayConfig.from_env,
        start=functools.partial(
            start_gateway, seeds=lambda table_id: script_seed(table_id, base, count)
        ),
        grace=lambda config: config.shutdown_grace,
        metrics=lambda config: (config.host, config.metrics_port),
    )


if __name__ == "__main__":
    main()
