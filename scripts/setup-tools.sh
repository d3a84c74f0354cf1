#!/usr/bin/env bash
# Makes sure the tools the project needs are on this machine, installing missing ones with
# apt-get (through sudo when not root): Verilator >= 5, Yosys, Icarus Verilog, a C++ compiler,
# make, binutils and tshark (for the Wireshark dissector's test). Rust (cargo) must already be
# installed.
set -euo pipefail

need_packages=()
have() { command -v "$1" >/dev/null 2>&1; }

have verilator || need_packages+=(verilator)
have yosys || need_packages+=(yosys)
have iverilog || need_packages+=(iverilog)
have g++ || need_packages+=(g++)
have make || need_packages+=(make)
have ar || need_packages+=(binutils)
have tshark || need_packages+=(tshark)

if [ ${#need_packages[@]} -gt 0 ]; then
  if [ "${NANOTRANSPORT_NO_INSTALL:-}" = 1 ]; then
    echo "error: missing tools: ${need_packages[*]} (installation disabled by NANOTRANSPORT_NO_INSTALL=1)" >&2
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    as_root=()
  elif have sudo; then
    as_root=(sudo)
  else
    echo "error: missing tools: ${need_packages[*]}; not root and no sudo to install them with apt-get" >&2
    exit 1
  fi
  if ! have apt-get; then
    echo "error: missing tools: ${need_packages[*]}; this script installs them with apt-get (Debian 12 / Ubuntu 24.04)" >&2
    exit 1
  fi
  echo "installing: ${need_packages[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  if [[ " ${need_packages[*]} " == *" tshark "* ]]; then
    # wireshark-common asks whether non-root users may capture; answer no beforehand so
    # nothing can prompt.
    echo "wireshark-common wireshark-common/install-setuid boolean false" | "${as_root[@]}" debconf-set-selections
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null
  for tool in verilator yosys iverilog g++ make ar tshark; do
    have "$tool" || { echo "error: $tool is still missing after apt-get install" >&2; exit 1; }
  done
fi

# Verilator 4 (Ubuntu 22.04 ships 4.038) cannot build the co-simulation models.
version_line=$(verilator --version 2>/dev/null || true)
major=$(printf '%s\n' "$version_line" | awk '{print $2}' | cut -d. -f1)
if ! [ "${major:-0}" -ge 5 ] 2>/dev/null; then
  echo "error: found '${version_line:-no version}', but Verilator 5 or newer is required (Ubuntu 22.04 ships 4.038; use Debian 12 or Ubuntu 24.04, or install Verilator 5 from source)" >&2
  exit 1
fi

if ! have cargo; then
  echo "error: cargo (Rust) is not installed; install Rust 1.89 or newer, e.g. with rustup" >&2
  exit 1
fi
# rustfmt: the tests check that every file is formatted (a minimal Rust profile leaves it out).
if ! cargo fmt --version >/dev/null 2>&1; then
  if have rustup; then
    rustup component add rustfmt
  else
    echo "error: rustfmt is not installed; install it with your Rust toolchain (rustup component add rustfmt)" >&2
    exit 1
  fi
fi
