//! Resources and logic depth of generated Verilog after Yosys' `synth_xilinx -family xcup`.
//!
//! One Yosys run per top: the project's flow ([`xcup_flow`]) keeps the hierarchy, so `stat -json`
//! gives every module's cells and the totals of each first-level block are summed from it; the
//! netlist is then flattened and written as JSON, and [`logic_depth`] walks it.
//!
//! [`Hierarchy::Flattened`] flattens before synthesis instead, as Vivado does by default: constant
//! inputs, unread outputs and logic duplicated across block boundaries are then optimised
//! away, so the whole NIC's figures are what a flattening tool sees (no per-block split).
//!
//! **How depth is counted** (levels between a start point — a flip-flop, shift register,
//! block/ultra RAM, a registered DSP or a top input — and an end point — any non-clock input of
//! those, or a top output):
//! - `LUT1`…`LUT6` and `INV`: one level each.
//! - `MUXF7`/`MUXF8`/`MUXF9`: no level (the slice's dedicated muxes after the LUTs, about
//!   0.1 ns each); each path reports how many it passes.
//! - `CARRY4`/`CARRY8`: one level for a whole chain: entering a carry cell from outside costs a
//!   level, carry-in from another carry cell costs none.
//! - Distributed RAM (`RAM32M`, `RAM64X1D`, …): its read output is one level after its read
//!   address (its contents are a start point, so an unregistered read of a constant address is
//!   one level); its write data, write enable and address inputs are end points.
//! - Block RAM, UltraRAM and shift registers are start and end points; their clock-to-out
//!   (about 1 ns for an unregistered block RAM output) is not in the count.
//! - A DSP48E2 with any internal register is a start and end point, one without is one level.
//! - Anything else (not expected after this flow) is one level and named in `unknown_cells`.
//!
//! Fmax estimate: about 0.28 ns per LUT level including routing on a -2 UltraScale+ part
//! ([`NS_PER_LEVEL`]), so `1000 / (0.28 × levels)` MHz — a planning figure, not a timing
//! analysis (clock-to-out, setup, clock skew and long routes are not modelled).
//!
//! `ltp -noff` is not used: it does not know the Xilinx flip-flop cells as flip-flops (it reports
//! loops through every `FDRE`) and counts every cell, carries and muxes included, as a level.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Nanoseconds per LUT level including routing on a -2 Virtex UltraScale+ part (planning rule).
pub const NS_PER_LEVEL: f64 = 0.28;

/// Deepest paths reported: the deepest path into each of this many end registers.
pub const PATHS_REPORTED: usize = 10;

/// Whether synthesis keeps the module hierarchy or flattens it first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hierarchy {
    /// Each module on its own (resources per block; nothing optimised across a block's ports).
    Kept,
    /// Flattened before synthesis (`synth_xilinx -flatten`), as Vivado does by default.
    Flattened,
}

impl Hierarchy {
    /// The option `synth_xilinx` takes for it.
    pub fn flag(self) -> &'static str {
        match self {
            Hierarchy::Kept => "",
            Hierarchy::Flattened => " -flatten",
        }
    }

    /// How the flow is described in reports.
    pub fn describe(self) -> &'static str {
        match self {
            Hierarchy::Kept => "yosys synth_xilinx -family xcup (without share), hierarchy kept for resources, flattened for depth",
            Hierarchy::Flattened => "yosys synth_xilinx -family xcup -flatten (without share): flattened before synthesis, as Vivado does",
        }
    }
}

/// The project's Yosys flow for `top` in `file`: `synth_xilinx -family xcup` with the steps
/// between `coarse` and `map_memory` spelled out minus the SAT-based `share` pass, no I/O
/// buffers and no clock buffer (an out-of-context block), hierarchy kept.
///
/// `share` (merging arithmetic under mutually exclusive conditions) ran out of memory (> 11 GB)
/// on the transmit path's packetization core, whose per-slot state is wide; skipping it can only
/// cost LUTs, never correctness, and every block goes through the same flow so counts are
/// comparable.
pub fn xcup_flow(file: &Path, top: &str) -> String {
    xcup_flow_with(file, top, Hierarchy::Kept)
}

/// [`xcup_flow`] with the hierarchy kept or flattened.
pub fn xcup_flow_with(file: &Path, top: &str, hierarchy: Hierarchy) -> String {
    let flatten = hierarchy.flag();
    format!(
        "read_verilog {file}; \
         synth_xilinx -family xcup -noiopad -noclkbuf{flatten} -top {top} -run begin:coarse; \
         techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; memory -nomap; opt_clean; \
         synth_xilinx -family xcup -noiopad -noclkbuf{flatten} -top {top} -run map_memory:",
        file = file.display(),
    )
}

/// Cell counts of one module (with everything under it) in the categories of Table 3.2 and of
/// Vivado's utilisation report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// LUT1…LUT6 and INV (logic LUTs).
    pub lut: u64,
    /// Flip-flops and latches (FD*, LD*).
    pub ff: u64,
    /// Distributed-RAM cells (RAM32M, RAM64X1D, …).
    pub lutram_cells: u64,
    /// LUTs those cells occupy (RAM32M/RAM64M 4, RAM32M16/RAM64M8 8, …).
    pub lutram_luts: u64,
    /// Shift-register LUTs (SRL16E, SRLC32E).
    pub srl: u64,
    pub bram36: u64,
    pub bram18: u64,
    pub uram: u64,
    pub dsp: u64,
    /// CARRY4 / CARRY8 cells.
    pub carry: u64,
    /// MUXF7 / MUXF8 / MUXF9 cells.
    pub muxf: u64,
    /// Every cell, including those not in a category above.
    pub cells: u64,
}

impl Resources {
    fn add_cells(&mut self, cell_type: &str, n: u64) {
        self.cells += n;
        if let Some(luts) = lutram_luts(cell_type) {
            self.lutram_cells += n;
            self.lutram_luts += n * luts;
        } else if cell_type.starts_with("LUT") || cell_type == "INV" {
            self.lut += n;
        } else if cell_type.starts_with("FD") || cell_type.starts_with("LD") {
            self.ff += n;
        } else if cell_type.starts_with("SRL") {
            self.srl += n;
        } else if cell_type.starts_with("RAMB36") || cell_type.starts_with("FIFO36") {
            self.bram36 += n;
        } else if cell_type.starts_with("RAMB18") || cell_type.starts_with("FIFO18") {
            self.bram18 += n;
        } else if cell_type.starts_with("URAM") {
            self.uram += n;
        } else if cell_type.starts_with("DSP") {
            self.dsp += n;
        } else if cell_type.starts_with("CARRY") {
            self.carry += n;
        } else if cell_type.starts_with("MUXF") {
            self.muxf += n;
        }
    }

    fn add(&mut self, other: &Resources, times: u64) {
        self.lut += other.lut * times;
        self.ff += other.ff * times;
        self.lutram_cells += other.lutram_cells * times;
        self.lutram_luts += other.lutram_luts * times;
        self.srl += other.srl * times;
        self.bram36 += other.bram36 * times;
        self.bram18 += other.bram18 * times;
        self.uram += other.uram * times;
        self.dsp += other.dsp * times;
        self.carry += other.carry * times;
        self.muxf += other.muxf * times;
        self.cells += other.cells * times;
    }

    pub fn to_json(&self) -> Value {
        json!({
            "lut": self.lut, "ff": self.ff, "lutram_cells": self.lutram_cells, "lutram_luts": self.lutram_luts,
            "srl": self.srl, "bram36": self.bram36, "bram18": self.bram18, "uram": self.uram, "dsp": self.dsp,
            "carry": self.carry, "muxf": self.muxf, "cells": self.cells,
        })
    }
}

/// LUTs a distributed-RAM primitive occupies, `None` for other cells.
fn lutram_luts(cell_type: &str) -> Option<u64> {
    Some(match cell_type {
        "RAM16X1S" | "RAM32X1S" | "RAM64X1S" => 1,
        "RAM16X1D" | "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        "RAM128X1D" | "RAM256X1S" | "RAM32M" | "RAM64M" => 4,
        "RAM256X1D" | "RAM512X1S" | "RAM32M16" | "RAM64M8" => 8,
        t if t.starts_with("RAM") && !t.starts_with("RAMB") => 1,
        _ => return None,
    })
}

/// A first-level block: an instance directly under the top, with everything below it.
#[derive(Clone, Debug)]
pub struct BlockResources {
    /// Instance name (the module name after `<top>$`).
    pub name: String,
    pub module: String,
    pub instances: u64,
    pub resources: Resources,
}

/// Per-top and per-first-level-block resources from Yosys' `stat -json` on the hierarchy.
pub fn hierarchy_resources(stat: &Value, top: &str) -> Result<(Resources, Resources, Vec<BlockResources>), String> {
    let modules = stat["modules"].as_object().ok_or("stat -json: no modules")?;
    let strip = |n: &str| n.trim_start_matches('\\').to_string();
    let by_name: HashMap<String, &Value> = modules.iter().map(|(k, v)| (strip(k), v)).collect();
    fn total(name: &str, by_name: &HashMap<String, &Value>, memo: &mut HashMap<String, Resources>) -> Resources {
        if let Some(r) = memo.get(name) {
            return r.clone();
        }
        let mut r = Resources::default();
        if let Some(cells) = by_name.get(name).and_then(|m| m["num_cells_by_type"].as_object()) {
            for (t, n) in cells {
                let (t, n) = (t.trim_start_matches('\\'), n.as_u64().unwrap_or(0));
                if by_name.contains_key(t) {
                    let sub = total(t, by_name, memo);
                    r.add(&sub, n);
                } else {
                    r.add_cells(t, n);
                }
            }
        }
        memo.insert(name.to_string(), r.clone());
        r
    }
    let top_cells = by_name.get(top).and_then(|m| m["num_cells_by_type"].as_object()).ok_or(format!("stat -json: no module {top}"))?;
    let mut memo = HashMap::new();
    let whole = total(top, &by_name, &mut memo);
    let mut own = Resources::default();
    let mut blocks = Vec::new();
    for (t, n) in top_cells {
        let (t, n) = (t.trim_start_matches('\\'), n.as_u64().unwrap_or(0));
        if by_name.contains_key(t) {
            let name = t.strip_prefix(&format!("{top}$")).unwrap_or(t).to_string();
            blocks.push(BlockResources { name, module: t.to_string(), instances: n, resources: total(t, &by_name, &mut memo) });
        } else {
            own.add_cells(t, n);
        }
    }
    blocks.sort_by(|a, b| b.resources.lut.cmp(&a.resources.lut).then(a.name.cmp(&b.name)));
    Ok((whole, own, blocks))
}

/// One of the deepest paths.
#[derive(Clone, Debug)]
pub struct DepthPath {
    pub levels: u32,
    /// Start point: a register (named by its output net), RAM or top input, with the bit.
    pub start: String,
    /// End point: a register (named by its output net), RAM input or top output, with the bit.
    pub end: String,
    pub luts: u32,
    pub carry_chains: u32,
    pub muxf: u32,
    pub lutram_reads: u32,
    /// Named (not Yosys-internal) nets the path passes between its start and its end, in order:
    /// where to cut it.
    pub through: Vec<String>,
}

impl DepthPath {
    pub fn to_json(&self) -> Value {
        json!({
            "levels": self.levels, "start": self.start, "end": self.end, "luts": self.luts,
            "carry_chains": self.carry_chains, "muxf": self.muxf, "lutram_reads": self.lutram_reads,
            "start_block": first_level(&self.start), "end_block": first_level(&self.end),
            "through": self.through,
        })
    }
}

/// The first-level block a flattened name belongs to ("" for the top itself).
pub fn first_level(name: &str) -> &str {
    match name.find('.') {
        Some(i) if !name[..i].contains('[') => &name[..i],
        _ => "",
    }
}

/// Logic depth of a flattened netlist.
#[derive(Clone, Debug, Default)]
pub struct Depth {
    pub levels: u32,
    /// Deepest paths, one per end register (or port, or RAM), deepest first.
    pub paths: Vec<DepthPath>,
    /// End points with a combinational path into them.
    pub endpoints: usize,
    /// Combinational loops broken while walking (a correct design has none).
    pub loops: usize,
    /// Cell types not in the counting rules (each counted as one level).
    pub unknown_cells: Vec<String>,
}

impl Depth {
    /// Fmax from the planning rule; `None` when no path has a level.
    pub fn fmax_mhz(&self) -> Option<f64> {
        (self.levels > 0).then(|| 1000.0 / (NS_PER_LEVEL * self.levels as f64))
    }
}

/// How a cell type takes part in a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Start and end point (flip-flop, SRL, block RAM, registered DSP).
    Sequential,
    /// Combinational with this many levels.
    Logic(u32),
    /// Carry cell: one level, none from another carry cell's carry-out.
    Carry,
    /// Distributed RAM: read address to output one level; every input also an end point.
    LutRam,
}

fn role(cell_type: &str, params: &Value) -> (Role, bool) {
    let known = |r| (r, true);
    if cell_type.starts_with("FD") || cell_type.starts_with("LD") || cell_type.starts_with("SRL") {
        return known(Role::Sequential);
    }
    if cell_type.starts_with("RAMB") || cell_type.starts_with("FIFO") || cell_type.starts_with("URAM") {
        return known(Role::Sequential);
    }
    if lutram_luts(cell_type).is_some() {
        return known(Role::LutRam);
    }
    if cell_type.starts_with("DSP") {
        let registered = params
            .as_object()
            .is_some_and(|p| p.iter().any(|(k, v)| k.ends_with("REG") && v.as_str().is_some_and(|s| s.trim_start_matches('0').len() > 0)));
        return known(if registered { Role::Sequential } else { Role::Logic(1) });
    }
    match cell_type {
        t if t.starts_with("LUT") || t == "INV" => known(Role::Logic(1)),
        "MUXF7" | "MUXF8" | "MUXF9" | "BUF" | "BUFG" | "IBUF" | "OBUF" | "GND" | "VCC" => known(Role::Logic(0)),
        "CARRY4" | "CARRY8" => known(Role::Carry),
        _ => (Role::Logic(1), false),
    }
}

fn is_clock_pin(pin: &str) -> bool {
    pin == "C" || pin.contains("CLK")
}

/// Distributed-RAM read-address pins (combinational to the read outputs).
fn is_read_address_pin(pin: &str) -> bool {
    pin.starts_with("ADDR")
        || pin.starts_with("DPRA")
        || pin == "A"
        || (pin.len() == 2 && pin.starts_with('A') && pin.as_bytes()[1].is_ascii_digit())
}

struct Cell {
    cell_type: String,
    role: Role,
    /// (pin, bit) for every input bit.
    inputs: Vec<(String, u64)>,
    outputs: Vec<u64>,
}

/// Longest combinational paths of the top module of a flattened Yosys JSON netlist.
pub fn logic_depth(netlist: &Value, top: &str) -> Result<Depth, String> {
    let module = &netlist["modules"][top];
    let cells_json = module["cells"].as_object().ok_or(format!("netlist: no module {top}"))?;
    let mut unknown = std::collections::BTreeSet::new();
    let mut cells = Vec::with_capacity(cells_json.len());
    for c in cells_json.values() {
        let t = c["type"].as_str().unwrap_or("").to_string();
        let (role, known) = role(&t, &c["parameters"]);
        if !known {
            unknown.insert(t.clone());
        }
        let dirs = c["port_directions"].as_object();
        let mut cell = Cell { cell_type: t, role, inputs: Vec::new(), outputs: Vec::new() };
        for (pin, bits) in c["connections"].as_object().into_iter().flatten() {
            let dir = dirs.and_then(|d| d.get(pin)).and_then(|d| d.as_str()).unwrap_or("input");
            for b in bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()) {
                if dir == "output" {
                    cell.outputs.push(b);
                } else if !is_clock_pin(pin) {
                    cell.inputs.push((pin.clone(), b));
                }
            }
        }
        cells.push(cell);
    }
    // Net names: a visible name for every bit where one exists.
    let mut bit_name: HashMap<u64, (bool, String)> = HashMap::new();
    for (name, n) in module["netnames"].as_object().into_iter().flatten() {
        let hidden = n["hide_name"].as_u64().unwrap_or(0) != 0;
        let bits = n["bits"].as_array().cloned().unwrap_or_default();
        let wide = bits.len() > 1;
        for (i, b) in bits.iter().enumerate() {
            let Some(b) = b.as_u64() else { continue };
            let full = if wide { format!("{name}[{i}]") } else { name.clone() };
            // Prefer visible names, then a register's output (`$q`) over the net feeding it.
            let rank = |hidden: bool, n: &str| (hidden, n.contains("$d") || n.contains("$next"), !n.contains("$q"), n.len());
            if bit_name.get(&b).is_none_or(|(h, old)| rank(hidden, &full) < rank(*h, old)) {
                bit_name.insert(b, (hidden, full));
            }
        }
    }
    // rust-hdl names a register's output `<name>$q`: show `<name>`.
    let name_of = |b: u64| {
        bit_name
            .get(&b)
            .map(|(_, n)| n.replace("$flatten\\", "").replace("$q[", "[").trim_end_matches("$q").to_string())
            .unwrap_or_else(|| format!("net {b}"))
    };
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, c) in cells.iter().enumerate() {
        for &b in &c.outputs {
            driver.insert(b, i);
        }
    }
    // Arrival per combinational cell: (levels, the input bit it came from).
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Busy,
        Done(Option<(u32, Option<u64>)>),
    }
    let mut state = vec![State::New; cells.len()];
    let loops = std::cell::Cell::new(0usize);
    // Arrival at a bit: None = constant/undriven (no path), Some(levels).
    let bit_arrival = |b: u64, state: &[State]| -> Result<Option<u32>, usize> {
        match driver.get(&b) {
            None => Ok(None),
            Some(&d) if cells[d].role == Role::Sequential => Ok(Some(0)),
            Some(&d) => match state[d] {
                State::Done(a) => Ok(a.map(|(l, _)| l)),
                State::Busy => {
                    loops.set(loops.get() + 1);
                    Ok(None)
                }
                State::New => Err(d),
            },
        }
    };
    let inputs_of_module: std::collections::HashSet<u64> = module["ports"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, p)| p["direction"] != "output")
        .flat_map(|(_, p)| p["bits"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b.as_u64())
        .collect();
    let arrival_at = |b: u64, state: &[State]| -> Result<Option<u32>, usize> {
        if inputs_of_module.contains(&b) {
            return Ok(Some(0));
        }
        bit_arrival(b, state)
    };
    for root in 0..cells.len() {
        if cells[root].role == Role::Sequential || state[root] != State::New {
            continue;
        }
        let mut stack = vec![root];
        while let Some(&c) = stack.last() {
            if let State::Done(_) = state[c] {
                stack.pop();
                continue;
            }
            state[c] = State::Busy;
            let mut pending = None;
            let mut best: Option<(u32, Option<u64>)> = None;
            let carry_in_free =
                |pin: &str, b: u64| (pin == "CI" || pin == "CI_TOP") && driver.get(&b).is_some_and(|&d| cells[d].role == Role::Carry);
            for (pin, b) in &cells[c].inputs {
                let weight = match cells[c].role {
                    Role::Logic(w) => w,
                    Role::Carry => u32::from(!carry_in_free(pin, *b)),
                    Role::LutRam if is_read_address_pin(pin) => 1,
                    Role::LutRam => continue,
                    Role::Sequential => unreachable!(),
                };
                match arrival_at(*b, &state) {
                    Err(d) => {
                        pending = Some(d);
                        break;
                    }
                    Ok(Some(a)) if best.is_none_or(|(l, _)| a + weight > l) => best = Some((a + weight, Some(*b))),
                    Ok(_) => {}
                }
            }
            if let Some(d) = pending {
                stack.push(d);
                continue;
            }
            if cells[c].role == Role::LutRam && best.is_none_or(|(l, _)| l < 1) {
                best = Some((1, None)); // the stored contents, read at a constant address
            }
            state[c] = State::Done(best);
            stack.pop();
        }
    }
    let arrival = |b: u64| arrival_at(b, &state).ok().flatten();
    // End points: non-clock inputs of sequential and distributed-RAM cells, and top outputs.
    let mut ends: Vec<(u32, u64, String)> = Vec::new();
    for c in &cells {
        if matches!(c.role, Role::Sequential | Role::LutRam) {
            let reg = c.outputs.first().map(|&q| name_of(q)).unwrap_or_else(|| c.cell_type.clone());
            for (pin, b) in &c.inputs {
                if let Some(a) = arrival(*b) {
                    ends.push((
                        a,
                        *b,
                        if c.role == Role::Sequential && pin == "D" { reg.clone() } else { format!("{reg} ({} {pin})", c.cell_type) },
                    ));
                }
            }
        }
    }
    for (name, p) in module["ports"].as_object().into_iter().flatten() {
        if p["direction"] == "output" {
            let bits = p["bits"].as_array().cloned().unwrap_or_default();
            for (i, b) in bits.iter().enumerate() {
                if let Some(a) = b.as_u64().and_then(arrival) {
                    let n = if bits.len() > 1 { format!("{name}[{i}] (output)") } else { format!("{name} (output)") };
                    ends.push((a, b.as_u64().unwrap(), n));
                }
            }
        }
    }
    ends.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let levels = ends.first().map_or(0, |e| e.0);
    // One path per end register; the RAM cells Yosys splits a memory into count as one.
    let base = |n: &str| n.split("$auto$").next().unwrap_or(n).split('[').next().unwrap_or(n).trim().to_string();
    let mut seen = std::collections::HashSet::new();
    let mut paths = Vec::new();
    for (a, bit, end) in &ends {
        // Walk back to the start point, counting what the path passes.
        let mut p = DepthPath {
            levels: *a,
            start: String::new(),
            end: end.clone(),
            luts: 0,
            carry_chains: 0,
            muxf: 0,
            lutram_reads: 0,
            through: Vec::new(),
        };
        let mut b = *bit;
        loop {
            let d = driver.get(&b).copied();
            match d.map(|d| (d, &cells[d])) {
                Some((d, c)) if c.role != Role::Sequential && !inputs_of_module.contains(&b) => {
                    if bit_name.get(&b).is_some_and(|(hidden, _)| !hidden) && b != *bit {
                        p.through.push(name_of(b));
                    }
                    match c.role {
                        Role::LutRam => p.lutram_reads += 1,
                        Role::Carry => {
                            p.carry_chains += u32::from(
                                matches!(state[d], State::Done(Some((_, Some(from)))) if !driver.get(&from).is_some_and(|&x| cells[x].role == Role::Carry)),
                            )
                        }
                        _ if c.cell_type.starts_with("MUXF") => p.muxf += 1,
                        Role::Logic(1) => p.luts += 1,
                        _ => {}
                    }
                    match state[d] {
                        State::Done(Some((_, Some(from)))) => b = from,
                        _ => {
                            p.start = format!("{} ({})", name_of(c.outputs[0]), c.cell_type);
                            break;
                        }
                    }
                }
                Some((_, c)) if !inputs_of_module.contains(&b) => {
                    let q = name_of(b);
                    p.start = if c.cell_type.starts_with("FD") { q } else { format!("{q} ({})", c.cell_type) };
                    break;
                }
                _ => {
                    p.start = format!("{} (input)", name_of(b));
                    break;
                }
            }
        }
        if seen.insert(base(&p.end)) {
            p.through.reverse();
            p.through.dedup();
            paths.push(p);
            if paths.len() == PATHS_REPORTED {
                break;
            }
        }
    }
    Ok(Depth { levels, paths, endpoints: ends.len(), loops: loops.get(), unknown_cells: unknown.into_iter().collect() })
}

/// Everything `nanotransport synth` reports for one top.
#[derive(Clone, Debug)]
pub struct SynthReport {
    pub file: PathBuf,
    pub top: String,
    pub hierarchy: Hierarchy,
    /// The top with everything under it.
    pub total: Resources,
    /// Cells in the top module itself, outside any block.
    pub top_own: Resources,
    pub blocks: Vec<BlockResources>,
    pub depth: Depth,
    pub yosys_seconds: f64,
}

impl SynthReport {
    pub fn to_json(&self) -> Value {
        json!({
            "file": self.file.display().to_string(),
            "top": self.top,
            "flow": self.hierarchy.describe(),
            "resources": self.total.to_json(),
            "top_own_resources": self.top_own.to_json(),
            "blocks": self.blocks.iter().map(|b| json!({
                "name": b.name, "module": b.module, "instances": b.instances, "resources": b.resources.to_json(),
            })).collect::<Vec<_>>(),
            "depth": {
                "levels": self.depth.levels,
                "ns_per_level": NS_PER_LEVEL,
                "fmax_mhz_estimate": self.depth.fmax_mhz(),
                "endpoints": self.depth.endpoints,
                "loops": self.depth.loops,
                "unknown_cells": self.depth.unknown_cells,
                "counting": "LUT/INV 1 level; MUXF7/8/9 0; a CARRY4/CARRY8 chain 1; distributed-RAM read 1 (address to output); FF, SRL, block RAM, URAM and registered DSP are start/end points",
                "paths": self.depth.paths.iter().map(DepthPath::to_json).collect::<Vec<_>>(),
            },
            "yosys_seconds": self.yosys_seconds,
        })
    }

    /// A readable table: resources per top and first-level block, then the deepest paths.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let head = format!(
            "{:<28} {:>7} {:>7} {:>7} {:>5} {:>6} {:>6} {:>5} {:>4} {:>6} {:>6}\n",
            "block", "LUT", "FF", "LUTRAM", "SRL", "BRAM36", "BRAM18", "URAM", "DSP", "CARRY", "MUXF"
        );
        let row = |n: &str, r: &Resources| {
            format!(
                "{:<28} {:>7} {:>7} {:>7} {:>5} {:>6} {:>6} {:>5} {:>4} {:>6} {:>6}\n",
                n, r.lut, r.ff, r.lutram_luts, r.srl, r.bram36, r.bram18, r.uram, r.dsp, r.carry, r.muxf
            )
        };
        let flag = self.hierarchy.flag();
        s += &format!("{} ({}), Yosys synth_xilinx -family xcup{flag}, {:.0} s\n", self.top, self.file.display(), self.yosys_seconds);
        s += &head;
        s += &row(&format!("{} (total)", self.top), &self.total);
        for b in &self.blocks {
            let n = if b.instances > 1 { format!("  {} ×{}", b.name, b.instances) } else { format!("  {}", b.name) };
            s += &row(&n, &b.resources);
        }
        if !self.blocks.is_empty() {
            s += &row("  (top's own logic)", &self.top_own);
        }
        s += "(LUTRAM in LUTs; LUT excludes LUTRAM and SRL)\n";
        let fmax = self.depth.fmax_mhz().map_or("—".to_string(), |f| format!("{f:.0} MHz"));
        s += &format!("logic depth: {} LUT levels -> Fmax estimate {fmax} (at {NS_PER_LEVEL} ns per level, -2 part)\n", self.depth.levels);
        if self.depth.loops > 0 {
            s += &format!("warning: {} combinational loop(s) broken while walking\n", self.depth.loops);
        }
        if !self.depth.unknown_cells.is_empty() {
            s += &format!("cells counted as one level by default: {}\n", self.depth.unknown_cells.join(", "));
        }
        s += "deepest paths (levels = LUTs + carry chains + LUTRAM reads; MUXF passed not counted)\n";
        s += &format!("{:>6} {:>4} {:>5} {:>4}  start -> end\n", "levels", "LUT", "carry", "MUXF");
        for p in &self.depth.paths {
            s += &format!("{:>6} {:>4} {:>5} {:>4}  {} -> {}\n", p.levels, p.luts, p.carry_chains, p.muxf, p.start, p.end);
        }
        s
    }
}

/// Synthesises `top` in `file` (which may be a submodule of the file's top) with the project's
/// flow and reports resources and logic depth. `outputs` receives Yosys' outputs (`stat.json`,
/// the flattened netlist `flat.json`, `yosys.log`, and `seconds.txt`, its wall time).
pub fn synthesise(file: &Path, top: &str, outputs: &Path, hierarchy: Hierarchy) -> Result<SynthReport, String> {
    run_yosys(file, top, outputs, hierarchy)?;
    analyse(file, top, outputs, hierarchy)
}

/// Runs the flow, writing its outputs into `outputs`.
pub fn run_yosys(file: &Path, top: &str, outputs: &Path, hierarchy: Hierarchy) -> Result<(), String> {
    std::fs::create_dir_all(outputs).map_err(|e| format!("{}: {e}", outputs.display()))?;
    let script = format!(
        "{}; tee -q -o {} stat -json; flatten; opt_clean; write_json {}",
        xcup_flow_with(file, top, hierarchy),
        outputs.join("stat.json").display(),
        outputs.join("flat.json").display()
    );
    let started = std::time::Instant::now();
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-l")
        .arg(outputs.join("yosys.log"))
        .arg("-p")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run yosys ({e}); install it with scripts/setup-tools.sh"))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        let first = text.lines().find(|l| l.contains("ERROR")).unwrap_or("yosys failed").trim().to_string();
        return Err(format!("{}: {first}", file.display()));
    }
    let seconds = outputs.join("seconds.txt");
    std::fs::write(&seconds, format!("{:.1}\n", started.elapsed().as_secs_f64())).map_err(|e| format!("{}: {e}", seconds.display()))
}

/// Resources and depth from the outputs of [`run_yosys`] in `outputs` (run with `hierarchy`).
pub fn analyse(file: &Path, top: &str, outputs: &Path, hierarchy: Hierarchy) -> Result<SynthReport, String> {
    let read = |name: &str| -> Result<String, String> {
        let p = outputs.join(name);
        std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let json = |name: &str| -> Result<Value, String> { serde_json::from_str(&read(name)?).map_err(|e| format!("{name}: {e}")) };
    let (total, top_own, blocks) = hierarchy_resources(&stat_json(&read("stat.json")?)?, top)?;
    let depth = logic_depth(&json("flat.json")?, top)?;
    let yosys_seconds = read("seconds.txt").ok().and_then(|t| t.trim().parse().ok()).unwrap_or(f64::NAN);
    Ok(SynthReport { file: file.to_path_buf(), top: top.to_string(), hierarchy, total, top_own, blocks, depth, yosys_seconds })
}

/// Parses `stat -json`. Yosys 0.23 writes the text of the design hierarchy into its "design"
/// section when the top has submodules, which makes the file invalid JSON; only "modules" is
/// needed, so the file is cut after it when the whole does not parse.
pub fn stat_json(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).or_else(|whole_err| {
        let modules_end =
            text.find("\"modules\"").and_then(|m| text[m..].find("\n   },").map(|e| m + e)).ok_or(format!("stat.json: {whole_err}"))?;
        serde_json::from_str(&format!("{}\n   }}\n}}", &text[..modules_end])).map_err(|e| format!("stat.json: {e}"))
    })
}

/// A unit of synthesis in a configuration folder: a generated file's top, or one first-level
/// block inside a whole-NIC file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthTarget {
    /// Block name as given to `--block` (the file's or instance's name without the prefix).
    pub block: String,
    pub file: PathBuf,
    pub top: String,
}

/// The targets of a configuration folder: with `block`, the one it names (a file of a block
/// configuration, or a first-level instance of a single-file configuration's top); without, every
/// file's top. The error lists the valid block names.
pub fn targets(dir: &Path, prefix: &str, block: Option<&str>) -> Result<Vec<SynthTarget>, String> {
    let files = crate::verilog_files::verilog_files_under(dir);
    if files.is_empty() {
        return Err(format!("{}: no generated Verilog; run `nanotransport gen` first", dir.display()));
    }
    let whole: Vec<SynthTarget> = files
        .iter()
        .map(|f| {
            let top = crate::verilog_files::top_of(f);
            let block = top.strip_prefix(&format!("{prefix}_")).unwrap_or(&top).to_string();
            SynthTarget { block, file: f.clone(), top }
        })
        .collect();
    let Some(block) = block else { return Ok(whole) };
    let mut choices: Vec<SynthTarget> = whole.clone();
    if let [only] = whole.as_slice() {
        let text = std::fs::read_to_string(&only.file).map_err(|e| format!("{}: {e}", only.file.display()))?;
        for sub in first_level_instances(&text, &only.top) {
            choices.push(SynthTarget { block: sub.clone(), file: only.file.clone(), top: format!("{}${sub}", only.top) });
        }
    }
    match choices.iter().find(|t| t.block == block) {
        Some(t) => Ok(vec![t.clone()]),
        None => Err(format!(
            "unknown block '{block}' in {}; valid blocks: {}",
            dir.display(),
            choices.iter().map(|t| t.block.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// Instance names directly under `top` in rust-hdl's generated Verilog (modules `top$name`).
fn first_level_instances(verilog: &str, top: &str) -> Vec<String> {
    let marker = format!("module {top}$");
    let mut names: Vec<String> = verilog
        .match_indices(&marker)
        .filter_map(|(i, _)| {
            let rest = &verilog[i + marker.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$').collect();
            (!name.contains('$') && !name.is_empty()).then_some(name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The report folder for a run: a fresh directory under the system temporary folder.
pub fn scratch_dir(tag: &str) -> PathBuf {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("nt-synth-{}-{n}-{}", std::process::id(), tag.replace('$', "_")))
}
