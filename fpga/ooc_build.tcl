# Non-project, out-of-context Vivado build of one generated NIC top.
#
# Run from anywhere: vivado -mode batch -source <folder>/build.tcl
# Reads settings.tcl beside this script (top, part, Verilog files, XDC), writes checkpoints and
# reports into build/ beside it. Written into each folder by `nanotransport fpga ooc`.

set here [file dirname [file normalize [info script]]]
source [file join $here settings.tcl]
set out [file join $here build]
file mkdir $out

foreach f $nt_verilog {
    read_verilog [file join $here $f]
}
read_xdc -mode out_of_context [file join $here $nt_xdc]

synth_design -mode out_of_context -top $nt_top -part $nt_part
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
# Logic levels per path, to set beside `nanotransport synth`'s Yosys-based depth estimate.
report_design_analysis -logic_level_distribution -file [file join $out logic_levels.rpt]

set worst [get_timing_paths -max_paths 1 -nworst 1 -setup]
puts "nanotransport: $nt_top on $nt_part at $nt_clock_mhz MHz: worst setup slack [get_property SLACK $worst] ns; reports in $out"
