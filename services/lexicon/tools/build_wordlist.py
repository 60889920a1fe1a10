#!/usr/bin/env python3
"""Rebuild the shipped French word list from Debian's ``wfrench`` package.

The list under ``lexio_lexicon/data/`` is committed, so games never depend on the
network; this tool exists so that anyone can check where it came from and rebuild it
byte for byte: download the pinned ``.deb`` with ``apt-get download``, unpack it with
``dpkg-deb -x``, fold every entry to the board alphabet with
:func:`lexio_lexicon.normalise.normalise`, then write the sorted, de-duplicated list and
the package's copyright notice (GPL-2+) next to it.

Run with ``make wordlist`` (or ``.venv/bin/python services/lexicon/tools/build_wordlist.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

_LEXICON_ROOT = Path(__file__).resolve().parents[1]
if str(_LEXICON_ROOT) not in sys.path:  # also works without the editable install
    sys.path.insert(0, str(_LEXICON_ROOT))

from lexio_lexicon.normalise import normalise  # noqa: E402

PACKAGE = "wfrench"
#: The version the committed list was built from; rebuilding it must give the same bytes.
PACKAGE_VERSION = "1.2.7-2"
DICT_PATH = Path("usr/share/dict/french")
COPYRIGHT_PATH = Path("usr/share/doc/wfrench/copyright")
DATA_DIR = _LEXICON_ROOT / "lexio_lexicon" / "data"
WORDS_FILE = "french.txt"
LICENSE_FILE = "LICENSE-wfrench.txt"


def download(version: str, into: Path) -> Path:
    """Fetch the ``.deb`` of the given version into ``into`` and return its path."""
    spec = f"{PACKAGE}={version}" if version else PACKAGE
    subprocess.run(["apt-get", "download", spec], cwd=into, check=True)
    debs = sorted(into.glob(f"{PACKAGE}_*.deb"))
    if len(debs) != 1:
        raise SystemExit(f"expected one {PACKAGE} .deb in {into}, found {debs}")
    return debs[0]


def deb_version(deb: Path) -> str:
    """The Version field of the package, to state in the licence file what was used."""
    out = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def extract(deb: Path, into: Path) -> None:
    subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)


def decode(raw: bytes) -> tuple[str, str]:
    """Decode the dictionary; recent wfrench is UTF-8, older releases were ISO-8859-1."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("iso-8859-1"), "iso-8859-1"


def build(entries: Iterable[str]) -> list[str]:
    """Normalise, drop what cannot be played, de-duplicate and sort."""
    return sorted({word for entry in entries if (word := normalise(entry)) is not None})


def render(words: Iterable[str]) -> bytes:
    """The on-disk form, which is also what the service hashes: one word per line."""
    return "".join(f"{word}\n" for word in words).encode("ascii")


def licence_text(copyright_text: str, version: str, encoding: str) -> str:
    return (
        copyright_text.rstrip("\n")
        + "\n\n"
        + "----\n"
        + f"{WORDS_FILE} is derived from /{DICT_PATH} of the Debian package "
        + f"{PACKAGE} {version} ({encoding}) by services/lexicon/tools/build_wordlist.py: "
        + "accents stripped (NFD, combining marks dropped), œ→OE and æ→AE, upper-cased; "
        + "entries with a hyphen, apostrophe, digit, space or any other character outside "
        + "A–Z, and entries shorter than 2 letters, dropped; de-duplicated and sorted. "
        + "It is distributed under the same licence (GPL-2+).\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--version",
        default=PACKAGE_VERSION,
        help=f"wfrench version to download (default {PACKAGE_VERSION}; '' for the candidate)",
    )
    parser.add_argument("--deb", type=Path, help="use this .deb instead of downloading")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="output directory")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="lexio-wfrench-") as tmp_name:
        tmp = Path(tmp_name)
        deb = args.deb.resolve() if args.deb else download(args.version, tmp)
        version = deb_version(deb)
        root = tmp / "root"
        extract(deb, root)
        text, encoding = decode((root / DICT_PATH).read_bytes())
        copyright_text = (root / COPYRIGHT_PATH).read_text(encoding="utf-8")

    entries = [line for line in text.splitlines() if line.strip()]
    kept = sum(1 for entry in entries if normalise(entry) is not None)
    words = build(entries)
    data = render(words)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / WORDS_FILE).write_bytes(data)
    (args.out / LICENSE_FILE).write_text(
        licence_text(copyright_text, version, encoding), encoding="utf-8"
    )

    print(f"{PACKAGE} {version}: /{DICT_PATH} ({encoding})")
    print(f"entries in:  {len(entries)}")
    print(f"dropped:     {len(entries) - kept} (not playable once normalised)")
    print(f"merged:      {kept - len(words)} (same spelling once accents are stripped)")
    print(f"words out:   {len(words)}")
    print(f"sha256:      {hashlib.sha256(data).hexdigest()}")
    print(f"wrote:       {args.out / WORDS_FILE} ({len(data)} bytes), {args.out / LICENSE_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
