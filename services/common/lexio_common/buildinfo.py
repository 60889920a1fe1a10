"""``lexio_build_info``: which build of which service answers, as a constant-1 gauge.

The version is the installed ``lexio`` distribution's; the revision comes from
``LEXIO_BUILD_REVISION``, which the images set from their build argument (``unknown`` when
run from a work tree).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Gauge

__all__ = ["BUILD_INFO", "build_labels", "record_build_info"]

_NAME: Final = "lexio_build_info"
_HELP: Final = "Always 1; the labels say which build of which service this process runs."
_LABELS: Final = ("service", "version", "revision", "python_version")
BUILD_INFO: Final = Gauge(_NAME, _HELP, _LABELS)


def build_labels(service: str) -> dict[str, str]:
    try:
        version = metadata.version("lexio")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {
        "service": service,
        "version": version,
        "revision": os.environ.get("LEXIO_BUILD_REVISION", "") or "unknown",
        "python_version": platform.python_version(),
    }


def record_build_info(service: str, registry: CollectorRegistry | None = None) -> dict[str, str]:
    """Set ``lexio_build_info{service=...} 1`` (on ``registry``, default: the process's)."""
    labels = build_labels(service)
    gauge = BUILD_INFO
    if registry is not None and registry is not REGISTRY:
        gauge = Gauge(_NAME, _HELP, _LABELS, registry=registry)
    gauge.labels(**labels).set(1)
    return labels
