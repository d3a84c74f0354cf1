#!/usr/bin/env bash
# Yosys `synth_xilinx -family xcup` without the SAT-based `share` pass, for blocks where that pass
# runs out of memory (the packetization core and tx_path: wide per-slot state). Prints `stat`.
# Usage: fpga/yosys_synth_noshare.sh verilog-out/nic-16/nt_nic_16_packetization.v nt_nic_16_packetization
set -euo pipefail
file=$1
top=$2
yosys -q -p "read_verilog $file; \
  synth_xilinx -family xcup -top $top -run begin:coarse; \
  techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; memory -nomap; opt_clean; \
  synth_xilinx -family xcup -top $top -run map_memory:; \
  tee -o /dev/stdout stat"
