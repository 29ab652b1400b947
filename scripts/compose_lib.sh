# Shared by scripts/compose_up.sh, compose_down.sh and compose_test.sh (sourced, not run): which compose
# to call, a Docker engine, and the offline build inputs (a debootstrapped base image, two wheelhouses).
#
# Compose: `docker compose` (v2, the plugin) where it answers, else `docker-compose` (v1); FRONTIER_COMPOSE
# overrides both (e.g. FRONTIER_COMPOSE="docker-compose"). Where neither exists and apt-get does,
# `ensure_compose` installs one (docker-compose-v2, else docker-compose).
# Host ports: FRONTIER_COMPOSE_JUDGE_PORT (8100), FRONTIER_COMPOSE_MERGER_PORT (8101),
# FRONTIER_COMPOSE_EVALUATOR_PORT (8102): not `make up`'s 8000-8002, so both can run on one machine.

PY=${PY:-.venv/bin/python}
TORCH_WHEEL=${TORCH_WHEEL:-/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl}
BASE_IMAGE=codefrontier/base:bookworm
ROOTFS=build/rootfs
export FRONTIER_COMPOSE_JUDGE_PORT=${FRONTIER_COMPOSE_JUDGE_PORT:-8100}
export FRONTIER_COMPOSE_MERGER_PORT=${FRONTIER_COMPOSE_MERGER_PORT:-8101}
export FRONTIER_COMPOSE_EVALUATOR_PORT=${FRONTIER_COMPOSE_EVALUATOR_PORT:-8102}

# COMPOSE_BIN: the compose command line, found as the header says; returns 1 when there is none
detect_compose() {
  if [[ -n ${FRONTIER_COMPOSE:-} ]]; then
    read -r -a COMPOSE_BIN <<<"$FRONTIER_COMPOSE"
  elif docker compose version >/dev/null 2>&1; then
    COMPOSE_BIN=(docker compose)
  elif command -v docker-compose >/dev/null 2>&1; then
    COMPOSE_BIN=(docker-compose)
  else
    return 1
  fi
}

ensure_compose() {
  if detect_compose; then return 0; fi
  step "installing compose (docker-compose-v2, else docker-compose)"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-compose-v2 2>/dev/null \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker-compose
  detect_compose || { echo "no docker compose nor docker-compose; install one" >&2; exit 1; }
}

step() { echo "== $*"; }

ensure_engine() {
  if docker info >/dev/null 2>&1; then return 0; fi
  if ! command -v dockerd >/dev/null; then
    step "installing docker.io and debootstrap"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io debootstrap
  fi
  step "starting dockerd (log: build/dockerd.log)"
  nohup dockerd >build/dockerd.log 2>&1 &
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "dockerd did not start; see build/dockerd.log" >&2
  exit 1
}

ensure_base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then return 0; fi
  command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
  step "making $BASE_IMAGE with debootstrap (a few minutes, once)"
  rm -rf "$ROOTFS"
  debootstrap --variant=minbase \
    --include=python3,python3-venv,g++,util-linux,ca-certificates,curl,procps,redis-server \
    bookworm "$ROOTFS" >build/debootstrap.log
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  tar -C "$ROOTFS" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$ROOTFS"
}

ensure_wheelhouse() {
  step "wheelhouse of the judge's packages (build/wheelhouse)"
  "$PY" -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['judge']))" \
    >build/judge-requirements.txt
  # wheels for the image's interpreter (Debian bookworm's Python 3.11.2), not the host's; pip evaluates
  # environment markers for the host, so add what redis needs below Python 3.11.3 by hand
  echo 'async-timeout>=4.0.3' >>build/judge-requirements.txt
  "$PY" -m pip download -q -d build/wheelhouse -r build/judge-requirements.txt \
    --only-binary=:all: --python-version 3.11.2 --implementation cp --abi cp311 --abi abi3 --abi none \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    --platform linux_x86_64 2>&1 | { grep -v "is ignored: it is neither" || true; }
}

ensure_stack_wheelhouse() {
  step "wheelhouse of the whole project, CPU torch (build/wheelhouse-stack)"
  mkdir -p build/wheelhouse-stack
  if ! ls build/wheelhouse-stack/torch-2.13.0+cpu-*.whl >/dev/null 2>&1; then
    [[ -f "$TORCH_WHEEL" ]] || { echo "no CPU torch wheel at $TORCH_WHEEL (set TORCH_WHEEL)" >&2; exit 1; }
    cp "$TORCH_WHEEL" build/wheelhouse-stack/
  fi
  # pyproject.toml's dependencies, torch pinned to the CPU wheel above (found through --find-links)
  "$PY" - >build/stack-requirements.txt <<'PY'
import tomllib

deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
print("\n".join("torch==2.13.0+cpu" if d.replace(" ", "").startswith("torch==") else d for d in deps))
print("async-timeout>=4.0.3")  # redis below Python 3.11.3 (see ensure_wheelhouse)
PY
  "$PY" -m pip download -q -d build/wheelhouse-stack -r build/stack-requirements.txt \
    --find-links build/wheelhouse-stack \
    --only-binary=:all: --python-version 3.11.2 --implementation cp --abi cp311 --abi abi3 --abi none \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    --platform linux_x86_64 2>&1 | { grep -v "is ignored: it is neither" || true; }
  if ls build/wheelhouse-stack/torch-*.whl | grep -v '+cpu' >/dev/null; then
    echo "a non-CPU torch wheel landed in build/wheelhouse-stack" >&2
    exit 1
  fi
}
