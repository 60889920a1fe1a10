# syntax=docker/dockerfile:1
# lexio/lobby — its tables in SQLite (LEXIO_LOBBY_DB, on a volume) or in Redis (LEXIO_REDIS_URL).
# Built by `make images` (buildah; deploy/lexio_images.py), from the repository root:
#   buildah build -f deploy/docker/lobby.Dockerfile --ignorefile deploy/docker/lobby.Dockerfile.dockerignore \
#     --build-arg PYTHON_IMAGE=… --build-arg REVISION=$(git rev-parse --short HEAD) -t lexio/lobby:0.1.0 .
# (`docker build` reads the same file and its .dockerignore.)
# Two stages on one base, PYTHON_IMAGE: the registry's python:3.11.7-slim-bookworm, or where
# that cannot be pulled a base made from Debian's python3 (deploy/images/debian-base.sh). The
# first installs the locked build tools and this service's own locked run time (requirements/,
# hashes required, nothing unlocked), generates the gRPC stubs and builds the project's wheel;
# the second holds only the virtual environment — no pip, no setuptools — and runs as an
# unprivileged user.
ARG PYTHON_IMAGE=python:3.11.7-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
# pip trusts the system's certificates (a build behind a TLS-inspecting proxy mounts its own
# bundle there: make images does); the build stage is not shipped.
ARG PIP_CERT=/etc/ssl/certs/ca-certificates.crt
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
WORKDIR /src
COPY requirements/build.txt requirements/lobby.txt ./requirements/
# /opt/build: the build tools. /opt/lexio: the service's run time, with no pip of its own
# (the build environment's pip installs into it).
RUN python3 -m venv /opt/build \
 && /opt/build/bin/pip install --quiet --require-hashes --no-deps -r requirements/build.txt \
 && python3 -m venv --without-pip /opt/lexio \
 && /opt/build/bin/pip --python /opt/lexio/bin/python install --quiet --require-hashes --no-deps \
      -r requirements/lobby.txt
COPY pyproject.toml ./
COPY proto ./proto
COPY services ./services
RUN mkdir gen \
 && /opt/build/bin/python -m grpc_tools.protoc -I proto --python_out=gen --grpc_python_out=gen \
      $(find proto -name '*.proto') \
 && find gen -type d -exec touch {}/__init__.py \; && rm -f gen/__init__.py \
 && /opt/build/bin/pip wheel --quiet --no-deps --no-build-isolation -w /wheels . \
 && /opt/build/bin/pip --python /opt/lexio/bin/python install --quiet --no-deps /wheels/*.whl

FROM ${PYTHON_IMAGE}
ARG REVISION=unknown
LABEL org.opencontainers.image.title="lexio-lobby" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="$REVISION"
# No package installer at run time: the base's own pip, setuptools and wheel (the registry's
# image has them) and ensurepip's bundled copies go; the build fails if one is left.
RUN python3 -m pip uninstall --yes --quiet pip setuptools wheel >/dev/null 2>&1 || true; \
    rm -rf /usr/local/lib/python3.11/ensurepip /usr/lib/python3.11/ensurepip \
      /usr/share/python-wheels /usr/local/bin/pip*; \
    for m in pip setuptools ensurepip; do \
      ! python3 -c "import $m" 2>/dev/null || { echo "$m is still installed" >&2; exit 1; }; \
    done
ENV PATH=/opt/lexio/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LEXIO_BUILD_REVISION=$REVISION \
    LEXIO_LOBBY_HOST=0.0.0.0
COPY --from=build /opt/lexio /opt/lexio
# Not root: a numeric user, so that Kubernetes can check runAsNonRoot.
USER 10001:10001
WORKDIR /tmp
EXPOSE 50053 9103
ENTRYPOINT ["lexio-lobby"]
