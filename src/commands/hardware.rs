//! `gen`, `lint`, `synth`, `fpga ooc` and `fpga board`: the Verilog of named configurations and parameter sets,
//! and the flow on it.

use crate::output::print_json;
use crate::params;
use nanotransport_flow::lint;
use nanotransport_hdl::configs::{find_config, find_switch_config, NicConfig, SwitchConfig, CONFIGS, SWITCH_CONFIGS};
use nanotransport_hdl::generate::write_modules;
use std::path::{Path, PathBuf};

pub(crate) fn selected(configs: &[String]) -> Result<Vec<NicConfig>, String> {
    if configs.is_empty() {
        return Ok(CONFIGS.to_vec());
    }
    configs.iter().filter(|c| find_switch_config(c).is_none()).map(|c| find_config(c).map_err(|e| with_switch_names(&e))).collect()
}

/// The switch configurations among `configs` (all of them when none is named).
pub(crate) fn selected_switch(configs: &[String]) -> Vec<SwitchConfig> {
    if configs.is_empty() {
        return SWITCH_CONFIGS.to_vec();
    }
    configs.iter().filter_map(|c| find_switch_config(c)).collect()
}

/// Adds the switch configurations to the list of valid names in an unknown-configuration error.
pub(crate) fn with_switch_names(err: &str) -> String {
    let names: Vec<&str> = SWITCH_CONFIGS.iter().map(|c| c.name).collect();
    format!("{err}, {}", names.join(", "))
}

/// Generates the named NIC and switch configurations (all when none is named) into `out/<name>`;
/// returns (name, module count, folder) of each.
pub(crate) fn generate_named(configs: &[String], out: &Path) -> Result<Vec<(String, usize, PathBuf)>, String> {
    let mut done = Vec::new();
    for config in selected(configs)? {
        let modules = config.generate();
        let dir = out.join(config.name);
        write_modules(&dir, &modules).map_err(|e| format!("{}: {e}", dir.display()))?;
        done.push((config.name.to_string(), modules.len(), dir));
    }
    for config in selected_switch(configs) {
        let modules = config.generate();
        let dir = out.join(config.name);
        write_modules(&dir, &modules).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (file, text) in config.data_files() {
            std::fs::write(dir.join(&file), text).map_err(|e| format!("{}: {e}", dir.join(&file).display()))?;
        }
        done.push((config.name.to_string(), modules.len(), dir));
    }
    Ok(done)
}

pub(crate) fn gen(configs: &[String], out: &Path, fixtures: bool, params: &params::ParamFlags) -> Result<(), String> {
    if params.any() {
        for p in params.parse()? {
            let module = p.generate()?;
            let dir = out.join(&p.name);
            write_modules(&dir, std::slice::from_ref(&module)).map_err(|e| format!("{}: {e}", dir.display()))?;
            let (rx, tx) = p.memory_bytes();
            println!(
                "{:<10} {} {} messages, payload memory {} KiB receive / {} KiB transmit (addresses span {} KiB each) -> {}",
                p.name,
                p.protocol,
                p.messages,
                rx / 1024,
                tx / 1024,
                p.payload_memory_bytes() / 1024,
                dir.join(module.file_name()).display()
            );
        }
        if configs.is_empty() {
            return Ok(());
        }
    }
    for (name, modules, dir) in generate_named(configs, out)? {
        println!("{name:<10} {modules} modules -> {}", dir.display());
    }
    if fixtures {
        let dir = Path::new(nanotransport_sim::cosim::fixtures::FIXTURE_DIR);
        let modules = nanotransport_sim::cosim::fixtures::generate();
        write_modules(dir, &modules).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("{:<10} {} modules -> {}", "fixtures", modules.len(), dir.display());
    }
    Ok(())
}

pub(crate) fn lint_cmd(configs: &[String], dir: &Path, no_synth: bool) -> Result<bool, String> {
    let mut files = Vec::new();
    let names = selected(configs)?.iter().map(|c| c.name).chain(selected_switch(configs).iter().map(|c| c.name)).collect::<Vec<_>>();
    for name in names {
        let d = dir.join(name);
        let found = lint::verilog_files_under(&d);
        if found.is_empty() {
            return Err(format!("{}: no generated Verilog; run `nanotransport gen` first", d.display()));
        }
        files.extend(found);
    }
    let reports = lint::check_files(Path::new("."), &files, !no_synth);
    let mut failed = 0;
    for r in &reports {
        let yosys = r.yosys.as_ref().map(|y| format!("  yosys: {}", y.summary)).unwrap_or_default();
        println!(
            "{}  {}  verilator: {}  rule: {}{}",
            if r.ok() { "ok  " } else { "FAIL" },
            r.file.display(),
            r.verilator.summary,
            r.rule.summary,
            yosys
        );
        failed += (!r.ok()) as usize;
    }
    println!("lint: {} files, {} passed, {} failed", reports.len(), reports.len() - failed, failed);
    Ok(failed == 0)
}

/// The module prefix of any named configuration (NIC or switch), or of a parameter set
/// generated into `dir/<name>`; the error lists every name.
pub(crate) fn config_prefix(name: &str, dir: &Path) -> Result<String, String> {
    if let Some(c) = find_switch_config(name) {
        return Ok(format!("nt_{}", c.name.replace('-', "_")));
    }
    let generated = format!("nt_{}_nic.v", name.replace('-', "_"));
    if find_config(name).is_err() && dir.join(name).join(&generated).exists() {
        return Ok(format!("nt_{}", name.replace('-', "_")));
    }
    find_config(name).map(|c| c.module_prefix()).map_err(|e| with_switch_names(&e))
}

pub(crate) fn synth_cmd(
    config: &str,
    block: Option<&str>,
    dir: &Path,
    keep: Option<&Path>,
    reanalyse: bool,
    hierarchy: nanotransport_flow::synth::Hierarchy,
    json: bool,
) -> Result<(), String> {
    use nanotransport_flow::synth;
    let prefix = config_prefix(config, dir)?;
    let targets = synth::targets(&dir.join(config), &prefix, block)?;
    let mut reports = Vec::new();
    for t in &targets {
        let r = match keep {
            Some(k) if reanalyse => synth::analyse(&t.file, &t.top, &k.join(t.top.replace('$', "_")), hierarchy),
            Some(k) => synth::synthesise(&t.file, &t.top, &k.join(t.top.replace('$', "_")), hierarchy),
            None => {
                let scratch = synth::scratch_dir(&t.top);
                let r = synth::synthesise(&t.file, &t.top, &scratch, hierarchy);
                let _ = std::fs::remove_dir_all(&scratch);
                r
            }
        };
        let r = r?;
        if !json {
            println!("{}", r.to_table());
        }
        reports.push(r);
    }
    if json {
        let v: Vec<_> = reports.iter().map(|r| r.to_json()).collect();
        print_json(serde_json::json!({ "config": config, "reports": v }));
    }
    Ok(())
}

/// The whole-NIC configuration named `config`; the error lists the whole-NIC configurations.
fn whole_nic_config(config: &str) -> Result<NicConfig, String> {
    let whole: Vec<&str> = CONFIGS.iter().filter(|c| c.protocol.is_some()).map(|c| c.name).collect();
    let c = match find_switch_config(config) {
        Some(_) => None,
        None => Some(find_config(config).map_err(|e| with_switch_names(&e))?),
    };
    c.filter(|c| c.protocol.is_some())
        .ok_or_else(|| format!("configuration '{config}' has no whole NIC; whole-NIC configurations: {}", whole.join(", ")))
}

pub(crate) fn fpga_ooc_cmd(config: &str, clock_mhz: f64, out: &Path, part: &str, dir: &Path) -> Result<(), String> {
    use nanotransport_flow::fpga;
    let top = format!("{}_nic", whole_nic_config(config)?.module_prefix());
    let folder = fpga::write_ooc_folder(&fpga::OocRequest { config, top: &top, verilog_dir: &dir.join(config), clock_mhz, part, out })?;
    println!("{folder}");
    Ok(())
}

/// `fpga board`: the board design of one whole NIC, a preset (`config`) or a parameter set.
pub(crate) fn fpga_board_cmd(
    board: nanotransport_flow::board::Board,
    config: Option<&str>,
    flags: &params::ParamFlags,
    out: &Path,
) -> Result<(), String> {
    use nanotransport_hdl::clock::NicClock;
    use nanotransport_hdl::configs::NicTop;
    use nanotransport_hdl::nic::register_map::{CFG_GC_TIMEOUT, CFG_PACE_CYCLES, CFG_RTO_CYCLES};
    // The NIC runs at the MAC's user clock: a preset's time registers keep their time at it, a
    // parameter set without a clock gets it, and one with another clock is refused.
    let clock = NicClock::from_mhz(board.core_clock_mhz())?;
    let mut sets = flags.parse_at(clock)?;
    let params = match (config, sets.len()) {
        (Some(c), 0) => whole_nic_config(c)?.params().with_clock(clock),
        (None, 1) if sets[0].clock != clock => {
            return Err(format!(
            "parameter set '{}' runs at {}; the {} board clocks the NIC at {clock} (the MAC's user clock): leave the clock out or give {}",
            sets[0].name,
            sets[0].clock,
            board.name(),
            clock.mhz()
        ))
        }
        (None, 1) => sets.remove(0),
        (Some(_), _) => return Err("give --config or a parameter set, not both".into()),
        (None, 0) => {
            return Err(
                "give --config NAME (a whole-NIC configuration) or a parameter set (--params FILE, --protocol P --messages N)".into()
            )
        }
        (None, n) => return Err(format!("one parameter set per board design, {n} given")),
    };
    eprintln!("generating {} …", params.top_module(NicTop::BoardNic));
    let core = params.generate_top(NicTop::BoardNic)?;
    let d = &params.config_defaults;
    let time = |cycles: u32| format!("{cycles} cycles ({:.1} ns)", clock.ns_of_cycles(cycles as u64));
    let time_registers = format!(
        "retransmission timeout {}, receive garbage collection {}, PULL pacing {}",
        time(d[CFG_RTO_CYCLES]),
        time(d[CFG_GC_TIMEOUT]),
        if d[CFG_PACE_CYCLES] == 0 { "off".to_string() } else { time(d[CFG_PACE_CYCLES]) }
    );
    let request = nanotransport_flow::board::BoardRequest {
        board,
        time_registers: &time_registers,
        config: &params.name,
        core_module: &core.module,
        core_verilog: &core.verilog,
        out,
    };
    println!("{}", nanotransport_flow::board::write_folder(&request)?);
    Ok(())
}
