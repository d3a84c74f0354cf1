//! The out-of-context Vivado build folder of a whole-NIC configuration (`nanotransport fpga ooc`).
//!
//! The folder holds the configuration's generated Verilog, an XDC made from
//! `constraints/nic_ooc.xdc.in` (the clock on the `clock` port, input and output delays on every
//! other port), the non-project Tcl script `fpga/ooc_build.tcl` with a `settings.tcl` naming the
//! top, part and files, and a README with the one Vivado command. `fpga/vivado_dry_run.tcl`
//! checks such a folder under plain `tclsh`.

use std::path::Path;

/// The VCU118 board's part (Virtex UltraScale+ VU9P, -2L speed grade).
pub const DEFAULT_PART: &str = "xcvu9p-flga2104-2L-e";
/// Default clock of the NIC, MHz (Corundum's VCU118 core runs at 250 MHz).
pub const DEFAULT_CLOCK_MHZ: f64 = 250.0;
/// Accepted clock range, MHz.
pub const CLOCK_RANGE_MHZ: (f64, f64) = (50.0, 800.0);
/// Share of the clock period left to the logic outside the block on every input and output.
pub const IO_DELAY_FRACTION: f64 = 0.2;

/// Parts the flow is written for, with the board each is on.
pub const PARTS: &[(&str, &str)] = &[
    ("xcvu9p-flga2104-2L-e", "VCU118"),
    ("xcvu9p-flgb2104-2-i", "AWS F1"),
    ("xcvu9p-flga2104-3-e", "VU9P, fastest speed grade"),
    ("xcu200-fsgd2104-2-e", "Alveo U200"),
    ("xcu250-figd2104-2L-e", "Alveo U250"),
];

const XDC_TEMPLATE: &str = include_str!("../constraints/nic_ooc.xdc.in");
const BUILD_TCL: &str = include_str!("../fpga/ooc_build.tcl");

/// What `fpga ooc` was asked for.
pub struct OocRequest<'a> {
    pub config: &'a str,
    /// Top module (the whole NIC, `nt_<config>_nic`).
    pub top: &'a str,
    /// The configuration's generated Verilog folder.
    pub verilog_dir: &'a Path,
    pub clock_mhz: f64,
    pub part: &'a str,
    pub out: &'a Path,
}

/// Checks the part and clock; the error is one line listing the valid choices.
pub fn check_request(part: &str, clock_mhz: f64) -> Result<(), String> {
    if !PARTS.iter().any(|(p, _)| *p == part) {
        let list: Vec<String> = PARTS.iter().map(|(p, b)| format!("{p} ({b})")).collect();
        return Err(format!("unknown part '{part}'; valid parts: {}", list.join(", ")));
    }
    let (lo, hi) = CLOCK_RANGE_MHZ;
    if !(lo..=hi).contains(&clock_mhz) {
        return Err(format!("clock {clock_mhz} MHz is outside the valid range {lo}..={hi} MHz"));
    }
    Ok(())
}

/// A port of the top module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: u32,
}

/// The ports of `top` in generated Verilog: its header's names with the directions and widths
/// of the declarations that follow it (rust-hdl's `input wire [63:0] name;` style).
pub fn top_ports(verilog: &str, top: &str) -> Result<Vec<Port>, String> {
    let start = verilog.find(&format!("module {top}(")).ok_or(format!("no module {top} in the Verilog"))?;
    let body = &verilog[start..];
    let header_end = body.find(");").ok_or(format!("module {top}: unterminated header"))?;
    let names: Vec<&str> = body[format!("module {top}(").len()..header_end].split(',').map(str::trim).collect();
    let end = body.find("endmodule").unwrap_or(body.len());
    let mut ports = Vec::new();
    for name in names {
        let decl = body[header_end..end]
            .lines()
            .map(str::trim)
            .find(|l| {
                (l.starts_with("input") || l.starts_with("output")) && l.trim_end_matches(';').split_whitespace().last() == Some(name)
            })
            .ok_or(format!("module {top}: no declaration of port {name}"))?;
        let width = declared_width(decl, name)?;
        ports.push(Port { name: name.to_string(), input: decl.starts_with("input"), width });
    }
    Ok(ports)
}

/// The width of port `name` in its declaration `decl` (`input wire [63:0] name`: 64; no range: 1).
pub(crate) fn declared_width(decl: &str, name: &str) -> Result<u32, String> {
    match (decl.find('['), decl.find(':'), decl.find(']')) {
        (Some(a), Some(c), Some(b)) if a < c && c < b => {
            let bound = |text: &str| text.trim().parse::<u32>().map_err(|_| format!("port {name}: width in '{decl}'"));
            Ok(bound(&decl[a + 1..c])?.abs_diff(bound(&decl[c + 1..b])?) + 1)
        }
        _ => Ok(1),
    }
}

/// The interface a port belongs to, for grouping constraints: `s_axis_rx`, `s_axil`, or
/// `sideband` for single signals.
fn interface_of(port: &str) -> String {
    if port.starts_with("s_axil_") || port.starts_with("m_axil_") {
        return port[..6].to_string();
    }
    if port.starts_with("s_axis_") || port.starts_with("m_axis_") {
        return port.rsplit_once('_').map_or(port, |(head, _)| head).to_string();
    }
    if port.starts_with("probe_") {
        return "probe".into();
    }
    "sideband".into()
}

/// The XDC for `top`: the clock and one input- and output-delay line per interface.
pub fn xdc_text(config: &str, top: &str, ports: &[Port], clock_mhz: f64) -> Result<String, String> {
    if !ports.iter().any(|p| p.name == "clock" && p.input && p.width == 1) {
        return Err(format!("{top} has no one-bit input port 'clock'"));
    }
    let period = 1000.0 / clock_mhz;
    let delay = period * IO_DELAY_FRACTION;
    let mut groups: Vec<(String, bool, Vec<String>)> = Vec::new();
    for p in ports.iter().filter(|p| p.name != "clock") {
        let key = (interface_of(&p.name), p.input);
        let pattern = if p.width > 1 { format!("{}[*]", p.name) } else { p.name.clone() };
        match groups.iter_mut().find(|(i, d, _)| (i.clone(), *d) == key) {
            Some(g) => g.2.push(pattern),
            None => groups.push((key.0, key.1, vec![pattern])),
        }
    }
    let mut delays = String::new();
    for (interface, input, patterns) in groups {
        let (cmd, dir) = if input { ("set_input_delay", "inputs") } else { ("set_output_delay", "outputs") };
        delays += &format!("# {interface} {dir}\n{cmd} -clock [get_clocks clock] {delay:.3} [get_ports {{{}}}]\n", patterns.join(" "));
    }
    Ok(XDC_TEMPLATE
        .replace("@TOP@", top)
        .replace("@CONFIG@", config)
        .replace("@CLOCK_MHZ@", &format!("{clock_mhz}"))
        .replace("@IO_DELAY_NS@", &format!("{delay:.3}"))
        .replace("@IO_DELAY_PERCENT@", &format!("{:.0}", IO_DELAY_FRACTION * 100.0))
        .replace("@PERIOD_NS@", &format!("{period:.3}"))
        .replace("@PORT_DELAYS@", delays.trim_end()))
}

/// Writes the folder; returns a one-line summary.
pub fn write_ooc_folder(r: &OocRequest) -> Result<String, String> {
    check_request(r.part, r.clock_mhz)?;
    let files = crate::lint::verilog_files_under(r.verilog_dir);
    let main = files.iter().find(|f| crate::lint::top_of(f) == r.top).ok_or(format!(
        "{}: no {}.v; run `nanotransport gen --config {}` first",
        r.verilog_dir.display(),
        r.top,
        r.config
    ))?;
    let verilog = std::fs::read_to_string(main).map_err(|e| format!("{}: {e}", main.display()))?;
    let ports = top_ports(&verilog, r.top)?;
    let xdc = xdc_text(r.config, r.top, &ports, r.clock_mhz)?;
    let io = |e: std::io::Error, p: &Path| format!("{}: {e}", p.display());
    for sub in ["verilog", "constraints"] {
        std::fs::create_dir_all(r.out.join(sub)).map_err(|e| io(e, &r.out.join(sub)))?;
    }
    let mut verilog_list = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let to = r.out.join("verilog").join(&name);
        std::fs::copy(f, &to).map_err(|e| io(e, &to))?;
        verilog_list.push(format!("verilog/{name}"));
    }
    let xdc_rel = format!("constraints/{}_ooc.xdc", r.top);
    let settings = format!(
        "# Written by `nanotransport fpga ooc --config {config} --clock-mhz {mhz} --part {part}`; read by build.tcl.\n\
         set nt_top {top}\nset nt_part {part}\nset nt_clock_mhz {mhz}\nset nt_verilog [list {verilog}]\nset nt_xdc {xdc_rel}\n",
        config = r.config,
        mhz = r.clock_mhz,
        part = r.part,
        top = r.top,
        verilog = verilog_list.join(" "),
    );
    let inputs = ports.iter().filter(|p| p.input).count();
    let readme = format!(
        "# Out-of-context Vivado build: {config} ({top})\n\n\
         ```sh\nvivado -mode batch -source build.tcl\n```\n\n\
         Run it in this folder (or give the script's path from anywhere). It reads `{verilog}` and\n\
         `{xdc_rel}`, runs `synth_design -mode out_of_context -top {top} -part {part}`, `opt_design`,\n\
         `place_design` and `route_design`, and writes into `build/`: checkpoints after synthesis,\n\
         placement and routing; utilisation (flat and hierarchical, after synthesis and after routing);\n\
         the timing summary; and the logic-level distribution (`report_design_analysis`), to set beside\n\
         the Yosys depth estimate of `nanotransport synth --config {config}`.\n\n\
         Constraints: one clock on the `clock` port at {mhz} MHz ({period:.3} ns); every other port\n\
         ({inputs} inputs, {outputs} outputs: the AXI4-Stream, AXI4-Lite and side-band ports) has\n\
         {delay:.3} ns ({pct:.0} % of the period) of input or output delay for the logic outside the block.\n\
         Out of context, Vivado inserts no I/O or clock buffers; the clock's insertion delay is\n\
         estimated (add `HD.CLK_SRC` on the clock port to name the buffer it will come from).\n\n\
         **What has been run on this folder's Verilog:** Verilator (lint and cycle-accurate\n\
         co-simulation) and Yosys (`synth_xilinx -family xcup`: resources and a logic-depth estimate).\n\
         `build.tcl` has been dry-run under `tclsh` with stand-ins for the Vivado commands\n\
         (`fpga/vivado_dry_run.tcl` in the nanotransport repository: files exist, the top is a module,\n\
         every constrained port and clock is a port of the top, steps in order).\n\
         **What has not been run:** Vivado. No synthesis, placement, routing or timing result from\n\
         Vivado exists for this design yet; the first run of this script is the first such result.\n",
        config = r.config,
        top = r.top,
        part = r.part,
        mhz = r.clock_mhz,
        verilog = verilog_list.join("`, `"),
        period = 1000.0 / r.clock_mhz,
        outputs = ports.len() - inputs,
        delay = 1000.0 / r.clock_mhz * IO_DELAY_FRACTION,
        pct = IO_DELAY_FRACTION * 100.0,
    );
    let writes = [
        (r.out.join(&xdc_rel), xdc),
        (r.out.join("settings.tcl"), settings),
        (r.out.join("build.tcl"), BUILD_TCL.to_string()),
        (r.out.join("README.md"), readme),
    ];
    for (path, text) in writes {
        std::fs::write(&path, text).map_err(|e| io(e, &path))?;
    }
    Ok(format!(
        "{}: {} for {} at {} MHz on {} ({} ports); run `vivado -mode batch -source {}`",
        r.out.display(),
        r.top,
        r.config,
        r.clock_mhz,
        r.part,
        ports.len(),
        r.out.join("build.tcl").display()
    ))
}
