#!/usr/bin/env bash
# Installs what AMT Studio needs to build, run and test on Debian/Ubuntu,
# and only what is missing: the Debian packages below (through sudo when not
# root) and, when no Go ≥ 1.21 is on PATH, the distribution's Go (golang-go).
# Go ≥ 1.21 fetches the exact toolchain of go.mod by itself
# (GOTOOLCHAIN=auto, through its own `go env GOPROXY`). When the
# distribution's Go is older than that, the toolchain named in go.mod is
# fetched into ~/.cache/amt-studio/go from the module proxy that Go itself
# reports (`go env GOPROXY`): no registry host is written here.
#
# Extend PACKAGES when new work needs a system library.
set -euo pipefail

PACKAGES=(
  gcc g++ pkg-config
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  libasound2-dev libopenblas-dev
  xvfb x11-utils x11-apps
  timgm6mb-soundfont
  # cluster/train.py and its end-to-end test (torchrun, gloo), the PyTorch
  # parity fixture script: Debian's CPU build, no pip.
  python3-torch python3-numpy
)
# `make run` also wants a full General MIDI SoundFont.
if [[ "${1:-}" == "--run" ]]; then
  PACKAGES+=(fluid-soundfont-gm)
fi
# `make model` also arranges a corpus with MMA (engine/arrange,
# scripts/make_model.sh); the tests that run mma skip without it.
if [[ "${1:-}" == "--model" ]]; then
  PACKAGES+=(mma)
fi

here=$(cd "$(dirname "$0")/.." && pwd)
gocache="${HOME}/.cache/amt-studio/go"

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

# go_ok: a Go ≥ 1.21 is on PATH (it fetches go.mod's toolchain itself).
go_ok() {
  command -v go >/dev/null 2>&1 || return 1
  local v major minor
  v=$(go env GOVERSION 2>/dev/null | sed -E 's/^go([0-9]+)\.([0-9]+).*/\1 \2/')
  read -r major minor <<<"${v:-0 0}"
  (( major > 1 || (major == 1 && minor >= 21) ))
}
need_go=0
if ! go_ok && [[ ! -x "$gocache/bin/go" ]]; then
  need_go=1
  command -v go >/dev/null 2>&1 || missing+=(golang-go)
  for p in curl unzip ca-certificates; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
fi

if (( ${#missing[@]} )); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: these packages are missing and this is not a Debian/Ubuntu system: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if (( need_go )) && ! go_ok && [[ ! -x "$gocache/bin/go" ]]; then
  # The distribution's Go is older than 1.21: fetch go.mod's toolchain
  # from the first module proxy that Go reports.
  ver=$(sed -nE 's/^go ([0-9.]+)$/\1/p' "$here/go.mod")
  arch=$(dpkg --print-architecture)
  proxy=""
  IFS=',|' read -ra proxies <<<"$(go env GOPROXY)"
  for p in "${proxies[@]}"; do
    if [[ "$p" == http* ]]; then proxy=${p%/}; break; fi
  done
  if [[ -z "$proxy" ]]; then
    echo "setup: Go $(go env GOVERSION) is older than 1.21 and \`go env GOPROXY\` names no proxy to fetch Go ${ver} from; install Go ${ver} and put it on PATH" >&2
    exit 1
  fi
  url="$proxy/golang.org/toolchain/@v/v0.0.1-go${ver}.linux-${arch}.zip"
  echo "setup: fetching Go ${ver} from ${url}"
  tmp=$(mktemp -d)
  curl -fsSL -o "$tmp/go.zip" "$url"
  unzip -q "$tmp/go.zip" -d "$tmp"
  mkdir -p "$(dirname "$gocache")"
  rm -rf "$gocache"
  mv "$tmp/golang.org/toolchain@v0.0.1-go${ver}.linux-${arch}" "$gocache"
  rm -rf "$tmp"
fi
