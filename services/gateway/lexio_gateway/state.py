"""Typed keys of the aiohttp application's state."""

from __future__ import annotations

from aiohttp import web

from lexio_gateway.config import GatewayConfig
from lexio_gateway.hub import TableHub

CONFIG = web.AppKey("config", GatewayConfig)
HUB = web.AppKey("hub", TableHub)
