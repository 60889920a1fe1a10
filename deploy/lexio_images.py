"""Build Lexio's images with buildah (no Docker daemon needed): ``make images``.

    python deploy/lexio_images.py                       # every service, tag 0.1.0
    python deploy/lexio_images.py --tag dev gateway     # one image, another tag
    python deploy/lexio_images.py --base localhost/lexio/python-base:3.11-bookworm

Each service's image is built from its Dockerfile (``deploy/docker/``) and its ignore file,
with the base image as a build argument (``PYTHON_IMAGE``): the registry's
``python:3.11.7-slim-bookworm`` when it can be pulled, otherwise a base made from Debian's
python3 by ``deploy/images/debian-base.sh`` (debootstrap; built once, then reused). Images are
tagged ``localhost/lexio/<service>:<tag>``; push them with ``buildah push`` to your registry
and deploy them by digest (docs/operations.md, "Images").

buildah runs with chroot isolation and, unless ``STORAGE_DRIVER`` says otherwise, vfs storage:
what works as root in a container without a daemon, user namespaces or overlay mounts.

Exit status: 0 built, 1 a build failed, 2 bad arguments or buildah missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
DOCKER: Final = ROOT / "deploy" / "docker"
SERVICES: Final = ("lexicon", "engine", "lobby", "gateway")
REGISTRY_BASE: Final = "docker.io/library/python:3.11.7-slim-bookworm"
DEBIAN_BASE: Final = "localhost/lexio/python-base:3.11-bookworm"
PULL_TIMEOUT: Final = 60.0
#: The build machine's certificates, lent to the build stage's pip (a TLS-inspecting proxy's
#: authority is only there); mounted while RUN steps run, never part of an image.
HOST_CA_BUNDLE: Final = Path("/etc/ssl/certs/ca-certificates.crt")


def buildah_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("STORAGE_DRIVER", "vfs")
    env.setdefault("BUILDAH_ISOLATION", "chroot")
    return env


def buildah(*args: str, check: bool = True, timeout: float | None = None) -> str:
    done = subprocess.run(
        ["buildah", *args],
        env=buildah_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"buildah {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def image_exists(image: str) -> bool:
    done = subprocess.run(
        ["buildah", "inspect", "--type", "image", image],
        env=buildah_env(),
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def choose_base(say: object = print) -> str:
    """The registry's base if it can be pulled, else the Debian-made one (built if missing)."""
    if image_exists(REGISTRY_BASE):
        return REGISTRY_BASE
    try:
        buildah("pull", "--quiet", REGISTRY_BASE, timeout=PULL_TIMEOUT)
        return REGISTRY_BASE
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"cannot pull {REGISTRY_BASE} ({str(e).splitlines()[-1][:200]})", file=sys.stderr)
    if not image_exists(DEBIAN_BASE):
        print(f"building {DEBIAN_BASE} from Debian's packages (debootstrap, ~2 min)", flush=True)
        subprocess.run(
            ["sh", str(ROOT / "deploy" / "images" / "debian-base.sh"), DEBIAN_BASE],
            cwd=ROOT,
            env=buildah_env(),
            check=True,
        )
    return DEBIAN_BASE


def image_name(service: str, tag: str) -> str:
    return f"localhost/lexio/{service}:{tag}"


def build(service: str, *, base: str, tag: str, revision: str) -> str:
    """Build one service's image; its name."""
    name = image_name(service, tag)
    dockerfile = DOCKER / f"{service}.Dockerfile"
    subprocess.run(
        [
            "buildah",
            "build",
            "--layers=false",
            "--file", str(dockerfile),
            "--ignorefile", str(dockerfile.with_name(dockerfile.name + ".dockerignore")),
            "--build-arg", f"PYTHON_IMAGE={base}",
            "--build-arg", f"REVISION={revision}",
            "--tag", name,
            *(
                ["--volume", f"{HOST_CA_BUNDLE}:{HOST_CA_BUNDLE}:ro"]
                if HOST_CA_BUNDLE.is_file()
                else []
            ),
            str(ROOT),
        ],
        cwd=ROOT,
        env=buildah_env(),
        check=True,
    )  # fmt: skip
    return name


def image_size(image: str) -> str:
    """The image's size, uncompressed, as ``buildah images`` shows it ("175 MB")."""
    (entry,) = json.loads(buildah("images", "--json", image))
    return str(entry["size"])


def push(image: str, destination: str, digest_file: Path) -> str:
    """Push ``image`` to ``docker://destination``; the pushed manifest's digest."""
    digest_file.parent.mkdir(parents=True, exist_ok=True)
    buildah("push", "--digestfile", str(digest_file), image, f"docker://{destination}")
    return digest_file.read_text().strip()


def revision() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lexio_images", description=__doc__.split("\n\n")[0])
    parser.add_argument("services", nargs="*", help=f"some of {', '.join(SERVICES)} (default: all)")
    parser.add_argument("--tag", default="0.1.0")
    parser.add_argument("--base", help=f"base image (default: {REGISTRY_BASE}, else Debian's)")
    parser.add_argument("--revision", help="REVISION build argument (default: git HEAD)")
    parser.add_argument(
        "--push",
        metavar="REGISTRY",
        help="push each image to REGISTRY/<service>:<tag> and write --digests for the deploy tool",
    )
    parser.add_argument("--digests", default=str(ROOT / "build" / "images" / "digests.json"))
    args = parser.parse_args(argv)
    unknown = set(args.services) - set(SERVICES)
    if unknown:
        parser.error(f"unknown services {sorted(unknown)}: choose from {', '.join(SERVICES)}")
    if shutil.which("buildah") is None:
        print("lexio_images: buildah is missing (make images installs it)", file=sys.stderr)
        return 2
    base = args.base or choose_base()
    rev = args.revision or revision()
    built = []
    for service in args.services or SERVICES:
        print(f"== {service} on {base}", flush=True)
        try:
            built.append(build(service, base=base, tag=args.tag, revision=rev))
        except subprocess.CalledProcessError:
            print(f"lexio_images: the {service} image did not build", file=sys.stderr)
            return 1
    for name in built:
        print(f"{name}  {image_size(name)}")
    if args.push:
        digests = {}
        for service, name in zip(args.services or SERVICES, built, strict=True):
            where = f"{args.push.rstrip('/')}/{service}:{args.tag}"
            digests[service] = push(name, where, Path(args.digests).with_suffix(f".{service}"))
            print(f"pushed {where}@{digests[service]}")
        Path(args.digests).write_text(json.dumps(digests, indent=2) + "\n")
        print(f"digests in {args.digests}: lexio_deploy.py --digests {args.digests}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
