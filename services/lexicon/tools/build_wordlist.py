#!/usr/bin/env python3
"""Rebuild the shipped word-list sources from Debian's packages.

Everything under ``lexio_lexicon/data/`` is committed, so games never depend on the
network; this tool exists so that anyone can check where it came from and rebuild it
byte for byte: download the pinned ``.deb`` files with ``apt-get download``, unpack them
with ``dpkg-deb -x``, then

* ``fr`` (``make wordlist``): fold every entry of ``wfrench`` 1.2.7-2 to the board
  alphabet with :func:`lexio_lexicon.normalise.normalise` and write ``french.txt``;
* ``en`` (``make wordlist-en``): the union of ``wamerican-large`` and ``wbritish-large``
  2020.12.07-2 (SCOWL size 70), entries starting with a capital (proper nouns) dropped
  *before* normalising (al-Mishqaq M39, C.2), then the same folding: ``english.txt``;
* ``ar`` (``--list ar``): copy ``ar.aff`` and ``ar.dic`` of ``hunspell-ar`` 3.2-1.2 as
  they are; the Arabic list itself is built from them by ``make wordlist-ar``;

and each package's copyright notice next to the output (``LICENSE-*.txt``). For the
text lists the sha256 printed is the one the service reports (canonical form).

Run with ``make wordlist`` / ``make wordlist-en`` (or
``.venv/bin/python services/lexicon/tools/build_wordlist.py --list en``).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_LEXICON_ROOT = Path(__file__).resolve().parents[1]
if str(_LEXICON_ROOT) not in sys.path:  # also works without the editable install
    sys.path.insert(0, str(_LEXICON_ROOT))

from lexio_lexicon.normalise import normalise  # noqa: E402

DATA_DIR = _LEXICON_ROOT / "lexio_lexicon" / "data"

# The French source, as before (names kept: tests and habits use them).
PACKAGE = "wfrench"
#: The version the committed list was built from; rebuilding it must give the same bytes.
PACKAGE_VERSION = "1.2.7-2"
DICT_PATH = Path("usr/share/dict/french")
COPYRIGHT_PATH = Path("usr/share/doc/wfrench/copyright")
WORDS_FILE = "french.txt"
LICENSE_FILE = "LICENSE-wfrench.txt"


@dataclass(frozen=True)
class Package:
    """One Debian package to fetch: name, pinned version, files wanted from it."""

    name: str
    version: str
    files: tuple[Path, ...]
    copyright: Path


FRENCH = (Package(PACKAGE, PACKAGE_VERSION, (DICT_PATH,), COPYRIGHT_PATH),)
ENGLISH = tuple(
    Package(
        f"w{variant}-large",
        "2020.12.07-2",
        (Path(f"usr/share/dict/{variant}-english-large"),),
        Path(f"usr/share/doc/w{variant}-large/copyright"),
    )
    for variant in ("american", "british")
)
ARABIC = (
    Package(
        "hunspell-ar",
        "3.2-1.2",
        (Path("usr/share/hunspell/ar.aff"), Path("usr/share/hunspell/ar.dic")),
        Path("usr/share/doc/hunspell-ar/copyright"),
    ),
)
ENGLISH_WORDS_FILE = "english.txt"
ENGLISH_LICENSE_FILE = "LICENSE-scowl.txt"
ARABIC_LICENSE_FILE = "LICENSE-hunspell-ar.txt"


def download(package: str, version: str, into: Path) -> Path:
    """Fetch the ``.deb`` of the given version into ``into`` and return its path."""
    spec = f"{package}={version}" if version else package
    subprocess.run(["apt-get", "download", spec], cwd=into, check=True)
    debs = sorted(into.glob(f"{package}_*.deb"))
    if len(debs) != 1:
        raise SystemExit(f"expected one {package} .deb in {into}, found {debs}")
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
    """Decode a dictionary; recent word lists are UTF-8, older releases were ISO-8859-1."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("iso-8859-1"), "iso-8859-1"


def build(entries: Iterable[str]) -> list[str]:
    """Normalise, drop what cannot be played, de-duplicate and sort."""
    return sorted({word for entry in entries if (word := normalise(entry)) is not None})


def build_english(entries: Iterable[str]) -> list[str]:
    """As :func:`build`, after dropping entries whose first letter is a capital (M39).

    >>> build_english(["colour", "Colour", "Paris", "naïve", "o'clock", "x"])
    ['COLOUR', 'NAIVE']
    """
    return build(entry for entry in entries if not entry.strip()[:1].isupper())


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


def english_licence_text(copyright_text: str, versions: dict[str, str]) -> str:
    used = " and ".join(f"{name} {version}" for name, version in versions.items())
    return (
        copyright_text.rstrip("\n")
        + "\n\n----\n"
        + f"{ENGLISH_WORDS_FILE} is derived from /usr/share/dict/american-english-large and "
        + f"/usr/share/dict/british-english-large of the Debian packages {used} (SCOWL "
        + "size 70, identical copyright files, reproduced above) by "
        + "services/lexicon/tools/build_wordlist.py: entries whose first letter is a "
        + "capital (proper nouns) dropped; accents stripped (NFD, combining marks dropped), "
        + "œ→OE and æ→AE, upper-cased; entries with a hyphen, apostrophe, digit, space or "
        + "any other character outside A–Z, and entries shorter than 2 letters, dropped; "
        + "the union de-duplicated and sorted. It is distributed under the same terms.\n"
    )


def arabic_licence_text(copyright_text: str, version: str) -> str:
    return (
        copyright_text.rstrip("\n")
        + "\n\n----\n"
        + "ar.aff and ar.dic are /usr/share/hunspell/ar.aff and ar.dic of the Debian package "
        + f"hunspell-ar {version} (Ayaspell), unchanged. The Arabic word list that "
        + "`make wordlist-ar` builds from them (lexio_lexicon.arabic_list: expansion with "
        + "the al-Mishqaq game clitic profile, then folding) is a derived work under the "
        + "same licences (GPL-2 / LGPL-2.1 / MPL-1.1).\n"
    )


def fetch(packages: tuple[Package, ...], tmp: Path) -> tuple[Path, dict[str, str]]:
    """Download and unpack every package under ``tmp/root``; their exact versions."""
    root = tmp / "root"
    versions = {}
    for package in packages:
        deb = download(package.name, package.version, tmp)
        versions[package.name] = deb_version(deb)
        extract(deb, root)
    return root, versions


def _report(name: str, entries: int, words: list[str], data: bytes, out: Path) -> None:
    print(f"{name}: entries in {entries}, words out {len(words)}")
    print(f"sha256:      {hashlib.sha256(data).hexdigest()}")
    print(f"wrote:       {out} ({len(data)} bytes)")


def make_french(tmp: Path, out: Path, deb: Path | None, version: str) -> None:
    if deb is None:
        deb = download(PACKAGE, version, tmp)
    root = tmp / "root"
    extract(deb, root)
    text, encoding = decode((root / DICT_PATH).read_bytes())
    copyright_text = (root / COPYRIGHT_PATH).read_text(encoding="utf-8")
    entries = [line for line in text.splitlines() if line.strip()]
    kept = sum(1 for entry in entries if normalise(entry) is not None)
    words = build(entries)
    data = render(words)
    (out / WORDS_FILE).write_bytes(data)
    (out / LICENSE_FILE).write_text(
        licence_text(copyright_text, deb_version(deb), encoding), encoding="utf-8"
    )
    print(f"{PACKAGE} {deb_version(deb)}: /{DICT_PATH} ({encoding})")
    print(f"dropped:     {len(entries) - kept} (not playable once normalised)")
    print(f"merged:      {kept - len(words)} (same spelling once accents are stripped)")
    _report("fr", len(entries), words, data, out / WORDS_FILE)


def make_english(tmp: Path, out: Path) -> None:
    root, versions = fetch(ENGLISH, tmp)
    entries: list[str] = []
    for package in ENGLISH:
        text, _ = decode((root / package.files[0]).read_bytes())
        entries.extend(line for line in text.splitlines() if line.strip())
    words = build_english(entries)
    data = render(words)
    (out / ENGLISH_WORDS_FILE).write_bytes(data)
    copyright_text = (root / ENGLISH[0].copyright).read_text(encoding="utf-8")
    (out / ENGLISH_LICENSE_FILE).write_text(
        english_licence_text(copyright_text, versions), encoding="utf-8"
    )
    _report("en", len(entries), words, data, out / ENGLISH_WORDS_FILE)


def make_arabic(tmp: Path, out: Path) -> None:
    root, versions = fetch(ARABIC, tmp)
    for path in ARABIC[0].files:
        shutil.copyfile(root / path, out / path.name)
        digest = hashlib.sha256((out / path.name).read_bytes()).hexdigest()
        print(f"wrote:       {out / path.name} (sha256 {digest})")
    copyright_text = (root / ARABIC[0].copyright).read_text(encoding="utf-8")
    (out / ARABIC_LICENSE_FILE).write_text(
        arabic_licence_text(copyright_text, versions["hunspell-ar"]), encoding="utf-8"
    )
    print("now run `make wordlist-ar` to rebuild the Arabic tries from them")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--list", choices=("fr", "en", "ar"), default="fr", dest="list_id")
    parser.add_argument(
        "--version",
        default=PACKAGE_VERSION,
        help=f"fr only: wfrench version (default {PACKAGE_VERSION}; '' for the candidate)",
    )
    parser.add_argument("--deb", type=Path, help="fr only: use this .deb instead of downloading")
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="output directory")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lexio-wordlist-") as tmp_name:
        tmp = Path(tmp_name)
        if args.list_id == "fr":
            make_french(tmp, args.out, args.deb.resolve() if args.deb else None, args.version)
        elif args.list_id == "en":
            make_english(tmp, args.out)
        else:
            make_arabic(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
