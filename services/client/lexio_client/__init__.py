"""A reference client of the gateway's protocol (docs/protocol.md), used by the tests and
the load tools, and readable as the protocol's executable documentation."""

from __future__ import annotations

from lexio_client.backoff import Backoff
from lexio_client.client import ConnectionLostError, GatewayClient, ServerError

__all__ = ["Backoff", "ConnectionLostError", "GatewayClient", "ServerError"]
