"""Client channels between the site's services.

gRPC's default reconnection backoff starts at 1 s and grows to 120 s: after an outage of a
minute, a caller could go on failing for two more minutes against a service that is back.
Between services on one cluster network a reconnection attempt is cheap, so every channel of
the site retries within a second.
"""

from __future__ import annotations

from typing import Final

import grpc

RECONNECT_OPTIONS: Final = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
)


def insecure_channel(address: str) -> grpc.aio.Channel:
    """A channel to another service of the site (plaintext inside the cluster, as every
    hop is: docs/operations.md) that reconnects within a second of the service coming back."""
    return grpc.aio.insecure_channel(address, options=list(RECONNECT_OPTIONS))
