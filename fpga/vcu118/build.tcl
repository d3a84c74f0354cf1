# Non-project Vivado build of a board design, from the sources to the bitstream.
#
# Run from anywhere: vivado -mode batch -source <folder>/build.tcl
# Reads settings.tcl beside this script (top, part, Verilog files, XDC, IP scripts), makes the
# vendor cores the IP scripts name, and writes checkpoints, reports and the bitstream into build/
# beside it. Written into each folder by `nanotransport fpga board`.

set here [file dirname [file normalize [info script]]]
source [file join $here settings.tcl]
set out [file join $here build]
set nt_ip_dir [file join $out ip]
file mkdir $out
file mkdir $nt_ip_dir

create_project -in_memory -part $nt_part

# Vendor cores: made from their scripts, synthesised out of context, then read as black boxes.
foreach f $nt_ip_tcl {
    source [file join $here $f]
}
generate_target all [get_ips]
synth_ip [get_ips]

foreach f $nt_verilog {
    read_verilog [file join $here $f]
}
read_xdc [file join $here $nt_xdc]

synth_design -top $nt_top -part $nt_part
write_checkpoint -force [file join $out ${nt_top}_synth.dcp]
report_utilization -hierarchical -hierarchical_depth 2 -file [file join $out utilization_synth_hierarchical.rpt]
report_timing_summary -file [file join $out timing_summary_synth.rpt]

opt_design
place_design
write_checkpoint -force [file join $out ${nt_top}_placed.dcp]
route_design
write_checkpoint -force [file join $out ${nt_top}_routed.dcp]

report_utilization -file [file join $out utilization.rpt]
report_utilization -hierarchical -hierarchical_depth 3 -file [file join $out utilization_hierarchical.rpt]
report_timing_summary -max_paths 10 -report_unconstrained -file [file join $out timing_summary.rpt]
report_clock_interaction -file [file join $out clock_interaction.rpt]
report_design_analysis -logic_level_distribution -file [file join $out logic_levels.rpt]

write_bitstream -force [file join $out ${nt_top}.bit]

set worst [get_timing_paths -max_paths 1 -nworst 1 -setup]
puts "nanotransport: $nt_top on $nt_part: worst setup slack [get_property SLACK $worst] ns; bitstream and reports in $out"
