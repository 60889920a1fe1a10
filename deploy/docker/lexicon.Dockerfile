# syntax=docker/dockerfile:1
# lexio/lexicon — the word lists are part of the image: fr and en as package data of lexio_lexicon,
# ar built in the build stage from the shipped hunspell files (~30 s, ~3 GB of memory) into
# lexio_lexicon/data/built/ (41 MB of marisa tries that the service memory-maps).
# Build from the repository root:
#   docker build -f deploy/docker/lexicon.Dockerfile --build-arg REVISION=$(git rev-parse --short HEAD) \
#     -t lexio/lexicon:0.1.0 .
# Two stages: the first generates the gRPC stubs and builds the project's wheel with the pinned
# tools; the second holds only a virtual environment with the runtime dependencies and runs
# as an unprivileged user. The base is pinned by exact version (pin its digest in your mirror).
ARG PYTHON_IMAGE=python:3.11.7-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY requirements.txt pyproject.toml ./
# The runtime section of requirements.txt (every version pinned), and the build tools.
RUN sed -n '/^# Runtime/,/^# Build/p' requirements.txt | grep -v '^#' > runtime.txt \
 && grep -E '^(grpcio-tools|setuptools)==' requirements.txt > build.txt \
 && python -m venv /opt/build && /opt/build/bin/pip install -r build.txt \
 && python -m venv /opt/lexio && /opt/lexio/bin/pip install -r runtime.txt
COPY proto ./proto
COPY services ./services
RUN mkdir gen \
 && /opt/build/bin/python -m grpc_tools.protoc -I proto --python_out=gen --grpc_python_out=gen \
      $(find proto -name '*.proto') \
 && find gen -type d -exec touch {}/__init__.py \; && rm -f gen/__init__.py \
 && /opt/build/bin/pip wheel --no-deps --no-build-isolation -w /wheels . \
 && /opt/lexio/bin/pip install --no-deps /wheels/*.whl

# The word lists reach the pod through the image: build the Arabic one (its sha256 is checked
# against the recorded one), then fail the build unless every list opens as the service opens it.
RUN /opt/lexio/bin/python -c "import sys; from lexio_lexicon import build_lists; \
build_lists.main([]) == 0 or sys.exit('the Arabic word list did not build'); \
from lexio_lexicon.catalog import LIST_IDS, open_list; [open_list(i) for i in LIST_IDS]; \
from lexio_lexicon.words import DEFAULT_WORDLIST_PATH as p; \
assert p.stat().st_size > 1_000_000, p; print(p)"

FROM ${PYTHON_IMAGE}
ARG REVISION=unknown
LABEL org.opencontainers.image.title="lexio-lexicon" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.revision="$REVISION"
ENV PATH=/opt/lexio/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LEXIO_BUILD_REVISION=$REVISION \
    LEXIO_LEXICON_HOST=0.0.0.0
COPY --from=build /opt/lexio /opt/lexio
# Not root: a numeric user, so that Kubernetes can check runAsNonRoot.
USER 10001:10001
WORKDIR /tmp
EXPOSE 50052 9102
ENTRYPOINT ["lexio-lexicon"]
