# The judge's image: its API, its workers (and, in docker-compose.yml, Redis too).
#
# The base is a plain Debian bookworm. No image registry is needed: `scripts/compose_test.sh` makes
# codefrontier/base:bookworm with debootstrap and `docker import`; where a registry is reachable,
# `--build-arg BASE_IMAGE=debian:bookworm-slim` works as well (the packages are then installed here).
# Python packages come from build/wheelhouse/ when it holds wheels (compose_test.sh fills it on the
# host, so the build needs no network), else from the package index.
ARG BASE_IMAGE=codefrontier/base:bookworm
FROM ${BASE_IMAGE}

ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8
# python3 runs the judge and Python submissions, g++ compiles C++ ones, util-linux has unshare(1)
RUN if ! command -v python3 >/dev/null || ! command -v g++ >/dev/null || ! command -v unshare >/dev/null \
        || ! command -v redis-server >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends \
        python3 python3-venv g++ util-linux ca-certificates curl redis-server \
      && rm -rf /var/lib/apt/lists/*; \
    fi

# the other languages' toolchains: gcc (C), a JDK (Java), Go, rustc (Rust) and Node.js, from the distribution
RUN if ! command -v javac >/dev/null || ! command -v go >/dev/null || ! [ -x /usr/bin/rustc ] \
        || ! command -v node >/dev/null || ! command -v gcc >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends \
        gcc default-jdk-headless golang-go rustc nodejs \
      && rm -rf /var/lib/apt/lists/*; \
    fi

WORKDIR /app
# the glob makes the wheelhouse optional: with none, only pyproject.toml lands in /wheels
COPY pyproject.toml build/wheelhous[e] /wheels/
# the judge's share of the dependencies: pyproject's `judge` extra (no torch)
RUN python3 -c "import tomllib; print('\n'.join(tomllib.load(open('/wheels/pyproject.toml', 'rb'))['project']['optional-dependencies']['judge']))" \
      > /tmp/requirements.txt \
 && python3 -m venv /opt/venv \
 && if ls /wheels/*.whl >/dev/null 2>&1; then \
      /opt/venv/bin/pip install --no-cache-dir --no-index --find-links /wheels -r /tmp/requirements.txt; \
    else \
      /opt/venv/bin/pip install --no-cache-dir -r /tmp/requirements.txt; \
    fi \
 && rm -rf /wheels /tmp/requirements.txt

COPY services/ /app/services/
ENV PATH=/opt/venv/bin:$PATH PYTHONPATH=/app \
    FRONTIER_STATE_DIR=/var/lib/codefrontier FRONTIER_JUDGE_HOST=0.0.0.0 FRONTIER_JUDGE_PORT=8000
EXPOSE 8000
CMD ["python", "-m", "services.judge.cli", "serve"]
