"""Where built word lists live, and the metadata file that vouches for each one.

The Arabic list is not committed (its text would be 199 MB): it is built from the shipped
hunspell files into a cache directory, as marisa tries that the service memory-maps, with
a small JSON file beside them. That file records what the build produced (count, the
canonical sha256, each trie file's own sha256 and size) and from what (the sha256 of the
inputs), so that loading can refuse a truncated or foreign trie, or one left over from
other inputs, with a message that says how to rebuild it.

The cache directory is, in order: ``LEXIO_LEXICON_CACHE`` if set; ``build/lexicon/`` of
the source checkout when the package runs from one (``make setup`` builds there, ``make
clean`` removes it, git ignores it); otherwise ``lexio_lexicon/data/built/`` next to the
installed package (where the image's build stage writes it).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "METADATA_FORMAT",
    "BuiltFile",
    "ListMetadata",
    "MetadataError",
    "cache_dir",
    "file_sha256",
]

#: The ``format`` field of a metadata file; bumped if its meaning changes.
METADATA_FORMAT = "lexio-lexicon-built/1"

_PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE_DIR.parents[2]


class MetadataError(Exception):
    """A metadata file is missing, unreadable or not one this code wrote."""


def cache_dir() -> Path:
    """The directory built lists are read from and written to (see the module docstring)."""
    configured = os.environ.get("LEXIO_LEXICON_CACHE", "").strip()
    if configured:
        return Path(configured)
    checkout = _SOURCE_ROOT / "pyproject.toml"
    if checkout.is_file() and (_SOURCE_ROOT / "services" / "lexicon" / "lexio_lexicon").is_dir():
        return _SOURCE_ROOT / "build" / "lexicon"
    return _PACKAGE_DIR / "data" / "built"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class BuiltFile:
    """One file of a build (a trie), as it was written."""

    name: str
    sha256: str
    size: int


@dataclass(frozen=True)
class ListMetadata:
    """What ``<id>.json`` says about a built list."""

    id: str
    word_count: int
    #: sha256 of the sorted unique words, one per line, '\n'-terminated (as for French).
    sha256: str
    source: str
    licence: str
    files: dict[str, BuiltFile]
    #: sha256 of each input file, by name: a build from other inputs is stale.
    inputs: dict[str, str]
    #: Free-form figures of the build (counts, seconds), for humans and the benchmark.
    stats: dict[str, Any] = field(default_factory=dict)
    format: str = METADATA_FORMAT

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n", "utf-8")

    @classmethod
    def read(cls, path: Path) -> ListMetadata:
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            raise MetadataError(f"{path} does not exist") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MetadataError(f"{path} cannot be read: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != METADATA_FORMAT:
            raise MetadataError(f"{path} is not a {METADATA_FORMAT} file")
        try:
            files = {name: BuiltFile(**entry) for name, entry in data.pop("files").items()}
            return cls(files=files, **data)
        except (TypeError, KeyError, AttributeError) as exc:
            raise MetadataError(f"{path} is malformed: {exc}") from None
