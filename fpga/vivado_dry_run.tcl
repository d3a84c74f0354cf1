# Dry run of a Vivado build script under plain tclsh (no Vivado needed).
#
#   tclsh fpga/vivado_dry_run.tcl <folder>/build.tcl
#
# Stands in for the Vivado commands the build uses and checks, without synthesising anything:
# every file it reads exists; the top given to synth_design is a module of the Verilog read;
# every port the XDC names is a port of that top (so every clock it creates is on a top port);
# every clock it refers to was created; the steps run in order (synth, opt, place, route, and
# write_bitstream for a board) and every report and checkpoint goes into a folder that exists.
# Two kinds of build: out of context (`synth_design -mode out_of_context`, no vendor cores) and
# a board (`create_project -in_memory -part P`, vendor cores made with `create_ip` into a folder
# that exists, configured through `get_ips` of a core made before, generated and synthesised
# before the design; the cores' module names count as modules of the design, as black boxes).
# Any failure ends the run with exit code 1 and a one-line message.

proc dry_fail {msg} {
    puts stderr "dry run failed: $msg"
    exit 1
}

set dry(modules) [dict create]
set dry(verilog) {}
set dry(xdc) {}
set dry(top) ""
set dry(part) ""
set dry(steps) {}
set dry(clocks) [dict create]
set dry(outputs) {}
set dry(project_part) ""
set dry(ips) {}
set dry(ips_built) 0

proc dry_need_file {path what} {
    if {![file isfile $path]} { dry_fail "$what reads $path, which does not exist" }
}

# Module headers `module name(p1,p2,...);` of a Verilog file, names or ANSI declarations.
proc dry_modules_of {path} {
    set f [open $path r]
    set text [read $f]
    close $f
    set found [dict create]
    foreach {_ name ports} [regexp -all -inline {(?:^|\n)\s*module\s+([^\s(]+)\s*\(([^)]*)\)\s*;} $text] {
        set list {}
        # rust-hdl lists names only; an ANSI header declares each (`input wire [3:0] name`).
        foreach p [split $ports ","] { lappend list [lindex [string trim $p] end] }
        dict set found $name $list
    }
    return $found
}

proc read_verilog {args} {
    global dry
    set path [lindex $args end]
    dry_need_file $path read_verilog
    lappend dry(verilog) $path
    set dry(modules) [dict merge $dry(modules) [dry_modules_of $path]]
}

proc read_xdc {args} {
    global dry
    set path [lindex $args end]
    dry_need_file $path read_xdc
    lappend dry(xdc) $path
}

proc dry_option {arglist name} {
    set i [lsearch -exact $arglist $name]
    if {$i < 0} { return "" }
    return [lindex $arglist [expr {$i + 1}]]
}

# Vendor cores (board builds).
proc create_project {args} {
    global dry
    if {[lsearch -exact $args -in_memory] < 0} { dry_fail "create_project is not -in_memory" }
    set dry(project_part) [dry_option $args -part]
    if {$dry(project_part) eq ""} { dry_fail "create_project has no -part" }
}
proc create_ip {args} {
    global dry
    if {$dry(project_part) eq ""} { dry_fail "create_ip before create_project" }
    set name [dry_option $args -module_name]
    set dir [dry_option $args -dir]
    if {$name eq ""} { dry_fail "create_ip without -module_name" }
    if {$dir ne "" && ![file isdirectory $dir]} { dry_fail "create_ip $name into $dir, which does not exist" }
    lappend dry(ips) $name
    dict set dry(modules) $name {}
}
proc get_ips {args} {
    global dry
    if {[llength $args] == 0} {
        if {[llength $dry(ips)] == 0} { dry_fail "get_ips: no core made" }
        return [list ips $dry(ips)]
    }
    foreach name $args {
        if {[lsearch -exact $dry(ips) $name] < 0} { dry_fail "get_ips $name: no such core made" }
    }
    return [list ips $args]
}
proc set_property {args} {
    set target [lindex $args end]
    if {[lsearch -exact {ips ports} [lindex $target 0]] < 0} { dry_fail "set_property on '$target', not on cores or ports" }
}
proc generate_target {args} {
    if {[lindex [lindex $args end] 0] ne "ips"} { dry_fail "generate_target not on cores" }
}
proc synth_ip {args} {
    global dry
    if {[lindex [lindex $args end] 0] ne "ips"} { dry_fail "synth_ip not on cores" }
    set dry(ips_built) 1
}

proc synth_design {args} {
    global dry
    set ooc [expr {[dry_option $args -mode] eq "out_of_context"}]
    if {!$ooc && $dry(project_part) eq ""} { dry_fail "synth_design of a board without create_project" }
    if {$ooc && [llength $dry(ips)] > 0} { dry_fail "synth_design -mode out_of_context with vendor cores" }
    if {[llength $dry(ips)] > 0 && !$dry(ips_built)} { dry_fail "synth_design before synth_ip of the cores" }
    set dry(top) [dry_option $args -top]
    set dry(part) [dry_option $args -part]
    if {$dry(part) eq ""} { dry_fail "synth_design has no -part" }
    if {!$ooc && $dry(part) ne $dry(project_part)} { dry_fail "synth_design -part $dry(part), the project's is $dry(project_part)" }
    if {![dict exists $dry(modules) $dry(top)]} { dry_fail "top '$dry(top)' is not a module of the Verilog read" }
    if {[llength $dry(xdc)] == 0} { dry_fail "no XDC read before synth_design" }
    # The XDC applies at synthesis: evaluate it here, against the top's ports.
    foreach x $dry(xdc) { uplevel #0 [list source $x] }
    if {[dict size $dry(clocks)] == 0} { dry_fail "the XDC creates no clock" }
    lappend dry(steps) synth_design
}

proc dry_step {name before} {
    global dry
    if {[lindex $dry(steps) end] ne $before} { dry_fail "$name runs after '[lindex $dry(steps) end]', expected after $before" }
    lappend dry(steps) $name
}
proc opt_design {args} { dry_step opt_design synth_design }
proc place_design {args} { dry_step place_design opt_design }
proc route_design {args} { dry_step route_design place_design }

proc dry_output {path} {
    global dry
    if {![file isdirectory [file dirname $path]]} { dry_fail "writes $path into a folder that does not exist" }
    if {$dry(top) eq ""} { dry_fail "writes $path before synth_design" }
    lappend dry(outputs) [file tail $path]
}
proc write_checkpoint {args} { dry_output [lindex $args end] }
proc report_utilization {args} { dry_output [dry_option $args -file] }
proc report_timing_summary {args} { dry_output [dry_option $args -file] }
proc report_design_analysis {args} { dry_output [dry_option $args -file] }
proc report_clock_interaction {args} { dry_output [dry_option $args -file] }
proc write_bitstream {args} {
    dry_step write_bitstream route_design
    dry_output [lindex $args end]
}
proc get_timing_paths {args} { return timing_path }
proc get_property {name object} { return "(dry run: none)" }

# XDC commands.
proc get_ports {patterns} {
    global dry
    set ports [dict get $dry(modules) $dry(top)]
    foreach p $patterns {
        set base [regsub {\[[0-9*]+\]$} $p ""]
        if {[lsearch -exact $ports $base] < 0} { dry_fail "XDC names port '$p', not a port of $dry(top)" }
    }
    return [list ports $patterns]
}
proc get_clocks {name} {
    global dry
    if {![dict exists $dry(clocks) $name]} { dry_fail "XDC refers to clock '$name' before creating it" }
    return [list clock $name]
}
proc create_clock {args} {
    global dry
    set period [dry_option $args -period]
    set name [dry_option $args -name]
    set source [lindex $args end]
    if {[lindex $source 0] ne "ports" || [llength [lindex $source 1]] != 1} { dry_fail "clock '$name' is not on one top port" }
    if {![string is double -strict $period] || $period <= 0} { dry_fail "clock '$name' has period '$period'" }
    dict set dry(clocks) $name [list [lindex $source 1 0] $period]
}
# A delay names its clock with -clock [get_clocks ...]; a board's asynchronous pins (cut from
# timing with set_false_path) take a delay of 0 without one.
proc dry_delay {cmd arglist} {
    global dry
    set clock [dry_option $arglist -clock]
    if {$clock eq "" && $dry(project_part) ne ""} {
        if {[lindex $arglist 0] != 0} { dry_fail "$cmd [lindex $arglist 0] without -clock" }
    } elseif {[lindex $clock 0] ne "clock"} { dry_fail "$cmd without -clock \[get_clocks ...\]" }
    if {[lindex [lindex $arglist end] 0] ne "ports"} { dry_fail "$cmd not on ports" }
}
proc set_false_path {args} {
    set from [dry_option $args -from]
    set to [dry_option $args -to]
    if {[lindex $from 0] ne "ports" && [lindex $to 0] ne "ports"} { dry_fail "set_false_path neither from nor to ports" }
}
proc set_input_delay {args} { dry_delay set_input_delay $args }
proc set_output_delay {args} { dry_delay set_output_delay $args }

if {$argc != 1} { dry_fail "usage: tclsh vivado_dry_run.tcl <folder>/build.tcl" }
set script [lindex $argv 0]
dry_need_file $script tclsh
source $script
set expected {synth_design opt_design place_design route_design}
if {$dry(project_part) ne ""} { lappend expected write_bitstream }
if {$dry(steps) ne $expected} { dry_fail "steps were: $dry(steps), expected: $expected" }
set clocks {}
dict for {name v} $dry(clocks) { lappend clocks "$name on port [lindex $v 0] ([lindex $v 1] ns)" }
puts "dry run ok: top $dry(top), part $dry(part), [llength $dry(verilog)] Verilog file(s), [llength $dry(xdc)] XDC file(s), [llength $dry(ips)] vendor core(s)"
puts "clocks: [join $clocks {, }]"
puts "steps: $dry(steps)"
puts "outputs: [join $dry(outputs) {, }]"
