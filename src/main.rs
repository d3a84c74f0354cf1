//! `nanotransport`: generate, lint and benchmark the nanoTransport NIC hardware model.
//!
//! The CLI only wires commands to library calls in hdl/ and sim/.

mod params;
mod report;
mod results;
#[cfg(test)]
mod documented_commands;

use clap::{Parser, Subcommand};
use nanotransport_net::experiments::incast::{self, IncastParams, IncastResult};
use nanotransport_sim::whole_nic::WholeNic;
use nanotransport_net::experiments::plot;
use nanotransport_hdl::configs::{config_names, find_config, Protocol, find_switch_config, NicConfig, SwitchConfig, CONFIGS, SWITCH_CONFIGS};
use nanotransport_hdl::generate::write_modules;
use nanotransport_flow::lint;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "nanotransport", version, about = "Hardware model of the nanoTransport NIC: Verilog generation, lint, co-simulation benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the Verilog of named configurations into verilog-out/ (one folder per configuration)
    Gen {
        /// Configuration to generate (repeatable; default: all)
        #[arg(long = "config", value_name = "NAME")]
        configs: Vec<String>,
        /// Output folder
        #[arg(long, value_name = "DIR", default_value = "verilog-out")]
        out: PathBuf,
        /// Also regenerate the co-simulation self-test fixtures in sim/cosim/fixtures
        #[arg(long)]
        fixtures: bool,
        /// A whole-NIC parameter set instead of named configurations (see `params.rs`)
        #[command(flatten)]
        params: params::ParamFlags,
    },
    /// Run `verilator --lint-only -Wall` and Yosys `synth_xilinx -family xcup` on generated files
    Lint {
        /// Configuration to check (repeatable; default: all)
        #[arg(long = "config", value_name = "NAME")]
        configs: Vec<String>,
        /// Folder holding the generated Verilog
        #[arg(long, value_name = "DIR", default_value = "verilog-out")]
        dir: PathBuf,
        /// Skip Yosys synthesis (Verilator lint only)
        #[arg(long)]
        no_synth: bool,
    },
    /// Resources per top and first-level block, and logic depth, after Yosys `synth_xilinx -family xcup`
    Synth {
        /// Configuration (see `configs`)
        #[arg(long, value_name = "NAME")]
        config: String,
        /// One block: a file of a block configuration (e.g. timer) or a first-level instance of a whole NIC
        #[arg(long, value_name = "NAME")]
        block: Option<String>,
        /// Folder holding the generated Verilog
        #[arg(long, value_name = "DIR", default_value = "verilog-out")]
        dir: PathBuf,
        /// Keep Yosys' outputs (stat.json, flattened netlist flat.json, yosys.log) in DIR/<top>/ (`$` in a block's top as `_`)
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
        /// With --keep: analyse the outputs already kept there instead of running Yosys again
        #[arg(long, requires = "keep")]
        reanalyse: bool,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// FPGA build folders (Vivado, not run here)
    Fpga {
        #[command(subcommand)]
        which: FpgaCommand,
    },
    /// Benchmarks (reports, not tests)
    Bench {
        #[command(subcommand)]
        which: BenchCommand,
    },
    /// List the named configurations
    Configs,
    /// The thesis' Fig. 3.2 incast on the whole-NIC models: N senders → 1 receiver via one switch
    Incast {
        /// Protocol
        #[arg(long, value_enum)]
        protocol: Protocol,
        #[command(flatten)]
        setup: IncastSetup,
        /// Bottleneck buffer in packets (default 110 ≈ 120 KB; the small buffer is 58 ≈ 63 KB)
        #[arg(long, value_name = "P", conflicts_with = "buffer_kb")]
        buffer_pkts: Option<usize>,
        /// Bottleneck buffer in KB (1000 B), rounded to whole 1088-byte packets
        #[arg(long, value_name = "K")]
        buffer_kb: Option<f64>,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
        /// Write SVG plots (queue over time, slowdown per message) into DIR
        #[arg(long, value_name = "DIR")]
        plot: Option<PathBuf>,
        /// Write a nanosecond pcap of every link into DIR
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
    },
    /// Incast runs over protocols × buffers, this shard's share only, one JSON file per run
    Sweep {
        /// Protocols, comma-separated
        #[arg(long, value_enum, value_delimiter = ',', default_value = "ndp,homa,homa-tr")]
        protocols: Vec<Protocol>,
        /// Bottleneck buffers in packets, comma-separated
        #[arg(long, value_delimiter = ',', default_value = "110,58")]
        buffers: Vec<usize>,
        #[command(flatten)]
        setup: IncastSetup,
        /// Run shard I of N (0-based): runs whose index mod N is I
        #[arg(long, value_name = "I/N", default_value = "0/1")]
        shard: String,
        /// Folder for the JSON files
        #[arg(long, value_name = "DIR", default_value = "sweep-out")]
        out: PathBuf,
    },
    /// Table and plots of the JSON files of `sweep` (or `incast --json`)
    Merge {
        /// JSON files or folders holding them
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Write SVG plots into DIR
        #[arg(long, value_name = "DIR")]
        plot: Option<PathBuf>,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Measured results in one folder: Verilog generated and linted, per-stage latency, throughput,
    /// simulation speed and a fuzz run of every protocol, the Fig. 3.2 incast (protocols × buffers);
    /// results.json, results.md rendered from it, SVG plots
    Report {
        /// Folder for the report
        #[arg(long, value_name = "DIR", default_value = "report")]
        out: PathBuf,
        /// Also synthesise ndp-16, ndp-128, homa-128 and homa-tr-128 with Yosys, beside Table 3.2 (long: about half an hour)
        #[arg(long)]
        synth: bool,
        /// Folder the Verilog is generated into and linted from
        #[arg(long, value_name = "DIR", default_value = "verilog-out")]
        verilog: PathBuf,
        /// Configuration to generate and lint (repeatable; default: all)
        #[arg(long = "gen-config", value_name = "NAME")]
        gen_configs: Vec<String>,
        /// Protocols, comma-separated
        #[arg(long, value_enum, value_delimiter = ',', default_value = "ndp,homa,homa-tr")]
        protocols: Vec<Protocol>,
        /// Incast bottleneck buffers in packets, comma-separated (110 ≈ 120 KB, 58 ≈ 63 KB)
        #[arg(long, value_delimiter = ',', default_value = "110,58")]
        buffers: Vec<usize>,
        /// Back-to-back packets per throughput measurement
        #[arg(long, default_value_t = 2000)]
        packets: u64,
        /// Cycles of each whole NIC's simulation-speed run
        #[arg(long, value_name = "N", default_value_t = 100_000)]
        bench_cycles: u64,
        /// Frames of each protocol's fuzz run (0: no fuzz runs)
        #[arg(long, value_name = "N", default_value_t = 10_000)]
        fuzz_frames: u64,
        /// Also render the results block of this README (between its results markers)
        #[arg(long, value_name = "FILE")]
        readme: Option<PathBuf>,
        /// Render results.md (and --readme) from a saved results.json; run nothing
        #[arg(long, value_name = "FILE")]
        from_json: Option<PathBuf>,
        #[command(flatten)]
        setup: IncastSetup,
    },
    /// Per-stage latency (Table 3.1) of one 16-byte message each way, on the Verilator model
    Latency {
        #[command(flatten)]
        nic: NicArgs,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Throughput with back-to-back 65-byte packets (1-byte messages), on the Verilator model
    Throughput {
        #[command(flatten)]
        nic: NicArgs,
        /// rx (MAC → CPU) or tx (CPU → MAC)
        #[arg(long, value_parser = direction_value())]
        direction: Direction,
        /// Packets sent
        #[arg(long, default_value_t = 2000)]
        packets: u64,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Feed a pcap into the NIC model's MAC RX, write what it transmits to a pcap (docs/replay-and-fuzz.md)
    Replay {
        #[command(flatten)]
        nic: NicArgs,
        /// BDP in packets (register 0x14; default: the register's reset value)
        #[arg(long, value_name = "N")]
        rtt_pkts: Option<u32>,
        /// Capture to replay (pcap, microsecond or nanosecond, or pcapng; link type Ethernet)
        #[arg(long = "in", value_name = "IN.pcap", required_unless_present = "bundle")]
        input: Option<PathBuf>,
        /// Frames the NIC transmits (nanosecond pcap, cycle of the first beat at 3.2 GHz)
        #[arg(long, value_name = "OUT.pcap", required_unless_present = "bundle")]
        out: Option<PathBuf>,
        /// Replay a reproducer bundle written by `fuzz` (capture, timed sends, registers) and run
        /// the whole-NIC checker on it; exit status 1 if it finds mismatches
        #[arg(long, value_name = "DIR", conflicts_with_all = ["input", "send", "set", "rtt_pkts", "nic_mac", "nic_ip", "peer_mac"])]
        bundle: Option<PathBuf>,
        /// Run the whole-NIC checker on the replayed run (exit status 1 on mismatches)
        #[arg(long)]
        check: bool,
        /// Messages delivered to the CPU, one JSON object per line
        #[arg(long, value_name = "OUT.jsonl")]
        messages: Option<PathBuf>,
        /// Messages for the CPU to send: a JSON array of {remote_ip, remote_port, local_port, bytes_hex | len, cycle (optional: written from this run cycle on)}
        #[arg(long, value_name = "MSGS.json")]
        send: Option<PathBuf>,
        /// Stop after this many cycles if the NIC is not idle before
        #[arg(long, value_name = "N", default_value_t = nanotransport_sim::replay::DEFAULT_MAX_CYCLES)]
        max_cycles: u64,
        /// The NIC's MAC address (default: the register's reset value, 02:00:00:00:00:01)
        #[arg(long, value_name = "MAC")]
        nic_mac: Option<String>,
        /// The NIC's IPv4 address (default: the register's reset value, 10.0.0.1)
        #[arg(long, value_name = "A.B.C.D")]
        nic_ip: Option<String>,
        /// Next-hop MAC address the NIC sends to (default: the register's reset value, ff:ff:ff:ff:ff:ff)
        #[arg(long, value_name = "MAC")]
        peer_mac: Option<String>,
        /// Drop frames not addressed to the NIC before MAC RX, as a MAC address filter would (default: fed, counted)
        #[arg(long)]
        filter_not_for_nic: bool,
        /// Probability that MAC TX and the CPU read-out are not ready in a cycle (random back-pressure, repeatable by --stall-seed)
        #[arg(long, value_name = "P", default_value_t = 0.0)]
        stall: f64,
        /// Seed of the back-pressure draws
        #[arg(long, value_name = "S", default_value_t = 1)]
        stall_seed: u64,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
    },
    /// Random traffic with faults and a reacting peer into a whole-NIC model, judged by the whole-NIC checker (docs/replay-and-fuzz.md)
    Fuzz {
        #[command(flatten)]
        nic: NicArgs,
        /// Start no new message once this many frames were offered to MAC RX
        #[arg(long, value_name = "N", default_value_t = 10_000)]
        packets: u64,
        /// Random seed (printed; default: from the clock)
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// Per-frame loss probability on each link
        #[arg(long, value_name = "P", default_value_t = 0.01)]
        loss: f64,
        /// Per-frame duplication probability towards the NIC
        #[arg(long, value_name = "P", default_value_t = 0.03)]
        duplicate: f64,
        /// Per-DATA-frame trimming probability (NDP, Homa-Tr)
        #[arg(long, value_name = "P", default_value_t = 0.02)]
        trim: f64,
        /// Per-frame probability of a malformed frame towards the NIC
        #[arg(long, value_name = "P", default_value_t = 0.02)]
        malformed: f64,
        /// Largest extra per-frame delay, cycles (reordering)
        #[arg(long, value_name = "CYCLES", default_value_t = 600)]
        jitter: u64,
        /// Leave out the malformed frames whose Ethernet length disagrees with their IPv4 length (trailer, cut short)
        #[arg(long)]
        no_frame_length_faults: bool,
        /// Largest extra delay of a duplicate, cycles, drawn uniformly (default 4000; 140000 with --full-horizon-duplicates)
        #[arg(long, value_name = "CYCLES")]
        duplicate_delay: Option<u64>,
        /// Delay duplicates up to the sender's full retransmission horizon (140 000 cycles) with more messages open; the delivered set must still deliver each message once
        #[arg(long)]
        full_horizon_duplicates: bool,
        /// Bound of the run, cycles
        #[arg(long, value_name = "N", default_value_t = 200_000_000)]
        max_cycles: u64,
        /// Probability that MAC TX and the CPU read-out are not ready in a cycle (random back-pressure; 0 = none)
        #[arg(long, value_name = "P", default_value_t = nanotransport_sim::fuzz::DEFAULT_STALL)]
        stall: f64,
        /// Where to write the reproducer bundle on a mismatch (default: fuzz-repro-<config>-<seed>)
        #[arg(long, value_name = "DIR")]
        repro: Option<PathBuf>,
        /// Print the summary as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum FpgaCommand {
    /// Write an out-of-context Vivado build folder (Verilog, XDC, Tcl, README) for a whole-NIC configuration
    Ooc {
        /// Whole-NIC configuration (see `configs`)
        #[arg(long, value_name = "NAME")]
        config: String,
        /// Clock on the `clock` port, MHz (50..=800)
        #[arg(long, value_name = "F", default_value_t = nanotransport_flow::fpga::DEFAULT_CLOCK_MHZ)]
        clock_mhz: f64,
        /// Output folder
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// FPGA part
        #[arg(long, value_name = "P", default_value = nanotransport_flow::fpga::DEFAULT_PART)]
        part: String,
        /// Folder holding the generated Verilog
        #[arg(long, value_name = "DIR", default_value = "verilog-out")]
        dir: PathBuf,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Simulation speed of the 128-entry timer: native rust-hdl vs Verilator, same run
    Cosim {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
        /// Cycles simulated in each model
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
    },
    /// Whole-NIC simulation speed: random traffic at line rate both ways through the test driver
    Nic {
        /// Whole-NIC configuration: a preset (e.g. ndp-16, homa-128) or a parameter-set file NAME.toml
        #[arg(long, value_name = "NAME")]
        config: String,
        /// Print JSON instead of a line
        #[arg(long)]
        json: bool,
        /// Cycles measured
        #[arg(long, default_value_t = 200_000)]
        cycles: u64,
        /// Seed of the random messages
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn selected(configs: &[String]) -> Result<Vec<NicConfig>, String> {
    if configs.is_empty() {
        return Ok(CONFIGS.to_vec());
    }
    configs.iter().filter(|c| find_switch_config(c).is_none()).map(|c| find_config(c).map_err(|e| with_switch_names(&e))).collect()
}

/// The switch configurations among `configs` (all of them when none is named).
fn selected_switch(configs: &[String]) -> Vec<SwitchConfig> {
    if configs.is_empty() {
        return SWITCH_CONFIGS.to_vec();
    }
    configs.iter().filter_map(|c| find_switch_config(c)).collect()
}

/// Adds the switch configurations to the list of valid names in an unknown-configuration error.
fn with_switch_names(err: &str) -> String {
    let names: Vec<&str> = SWITCH_CONFIGS.iter().map(|c| c.name).collect();
    format!("{err}, {}", names.join(", "))
}

/// Generates the named NIC and switch configurations (all when none is named) into `out/<name>`;
/// returns (name, module count, folder) of each.
fn generate_named(configs: &[String], out: &Path) -> Result<Vec<(String, usize, PathBuf)>, String> {
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

fn gen(configs: &[String], out: &Path, fixtures: bool, params: &params::ParamFlags) -> Result<(), String> {
    if params.any() {
        for p in params.parse()? {
            let module = p.generate()?;
            let dir = out.join(&p.name);
            write_modules(&dir, std::slice::from_ref(&module)).map_err(|e| format!("{}: {e}", dir.display()))?;
            let (rx, tx) = p.memory_bytes();
            println!(
                "{:<10} {} {} messages, payload used {} KiB receive / {} KiB transmit of {} each -> {}",
                p.name, p.protocol, p.messages, rx / 1024, tx / 1024, p.payload_memory_bytes() / 1024, dir.join(module.file_name()).display()
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

fn lint_cmd(configs: &[String], dir: &Path, no_synth: bool) -> Result<bool, String> {
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
fn config_prefix(name: &str, dir: &Path) -> Result<String, String> {
    if let Some(c) = find_switch_config(name) {
        return Ok(format!("nt_{}", c.name.replace('-', "_")));
    }
    let generated = format!("nt_{}_nic.v", name.replace('-', "_"));
    if find_config(name).is_err() && dir.join(name).join(&generated).exists() {
        return Ok(format!("nt_{}", name.replace('-', "_")));
    }
    find_config(name).map(|c| c.module_prefix()).map_err(|e| with_switch_names(&e))
}

fn synth_cmd(config: &str, block: Option<&str>, dir: &Path, keep: Option<&Path>, reanalyse: bool, json: bool) -> Result<(), String> {
    use nanotransport_flow::synth;
    let prefix = config_prefix(config, dir)?;
    let targets = synth::targets(&dir.join(config), &prefix, block)?;
    let mut reports = Vec::new();
    for t in &targets {
        let r = match keep {
            Some(k) if reanalyse => synth::analyse(&t.file, &t.top, &k.join(t.top.replace('$', "_"))),
            Some(k) => synth::synthesise(&t.file, &t.top, &k.join(t.top.replace('$', "_"))),
            None => {
                let scratch = synth::scratch_dir(&t.top);
                let r = synth::synthesise(&t.file, &t.top, &scratch);
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

fn fpga_ooc_cmd(config: &str, clock_mhz: f64, out: &Path, part: &str, dir: &Path) -> Result<(), String> {
    use nanotransport_flow::fpga;
    let whole: Vec<&str> = CONFIGS.iter().filter(|c| c.protocol.is_some()).map(|c| c.name).collect();
    let c = match find_switch_config(config) {
        Some(_) => None,
        None => Some(find_config(config).map_err(|e| with_switch_names(&e))?),
    };
    let Some(c) = c.filter(|c| c.protocol.is_some()) else {
        return Err(format!("configuration '{config}' has no whole NIC; whole-NIC configurations: {}", whole.join(", ")));
    };
    let top = format!("{}_nic", c.module_prefix());
    let folder = fpga::write_ooc_folder(&fpga::OocRequest { config, top: &top, verilog_dir: &dir.join(config), clock_mhz, part, out })?;
    println!("{folder}");
    Ok(())
}

/// The whole NIC a command runs (`latency`, `throughput`, `replay`, `fuzz`): its protocol and/or
/// configuration, and register writes after reset. Resolved once by [`NicArgs::resolve`].
#[derive(clap::Args, Debug, Clone, Default)]
struct NicArgs {
    /// Protocol program (default: the configuration's, else ndp)
    #[arg(long, value_enum)]
    protocol: Option<Protocol>,
    /// Whole-NIC configuration: a preset (default: <protocol>-16) or a parameter-set file NAME.toml
    #[arg(long, value_name = "NAME")]
    config: Option<String>,
    /// Set a configuration register before traffic, NAME=VALUE (repeatable; e.g. rtt_pkts=12, rto_cycles=19200, own_ip=10.0.0.2)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

impl NicArgs {
    /// The NIC (checked against `--protocol`) and the register writes (checked).
    fn resolve(&self) -> Result<(WholeNic, Vec<nanotransport_sim::registers::RegisterWrite>), String> {
        Ok((params::whole_nic(self.protocol, self.config.as_deref())?, nanotransport_sim::registers::parse_sets(&self.set)?))
    }
}

fn latency_cmd(nic: &NicArgs, json: bool) -> Result<(), String> {
    use nanotransport_sim::scenarios::{latency_with, CLOCK_GHZ};
    let (config, settings) = nic.resolve()?;
    let protocol = config.protocol();
    let r = latency_with(&config, &settings)?;
    let ours = [r.ingress, r.reassembly, r.packetize, r.egress];
    let paper = nanotransport_sim::scenarios::paper_cycles(protocol);
    let totals = |v: [u64; 4]| [v[0] + v[1], v[2] + v[3], v.iter().sum::<u64>()];
    let (ot, pt) = (totals(ours), totals(paper));
    if json {
        let keys = ["ingress", "reassembly", "packetize", "egress"];
        let obj = |v: [u64; 4], t: [u64; 3]| {
            let mut m = serde_json::Map::new();
            for (k, x) in keys.iter().zip(v) {
                m.insert(k.to_string(), x.into());
            }
            m.insert("rx_total".into(), t[0].into());
            m.insert("tx_total".into(), t[1].into());
            m.insert("total".into(), t[2].into());
            serde_json::Value::Object(m)
        };
        print_json(serde_json::json!({
                "protocol": protocol,
                "config": config.name(),
                "datapath_bits": 64,
                "clock_ghz": CLOCK_GHZ,
                "cycles": obj(ours, ot),
                "paper_cycles": obj(paper, pt),
                "extra": {
                    "data_in_to_ack_out": r.data_to_ack,
                    "rx_first_payload_byte": r.rx_payload,
                    "tx_first_payload_byte": r.tx_payload,
                },
            }));
    } else {
        let ns = |c: u64| c as f64 / CLOCK_GHZ;
        println!("{protocol} on {config}, 64-bit datapath, one 16-byte message (80-byte packet) each way");
        println!("first byte in -> first byte out        cycles   ns@3.2GHz   paper cycles   paper ns");
        let rows = [
            ("RX ingress (MAC RX -> reassembly)", ours[0], paper[0]),
            ("RX reassembly (-> CPU)", ours[1], paper[1]),
            ("RX total", ot[0], pt[0]),
            ("TX packetize (CPU -> packetization out)", ours[2], paper[2]),
            ("TX egress (-> MAC TX)", ours[3], paper[3]),
            ("TX total", ot[1], pt[1]),
            ("total", ot[2], pt[2]),
        ];
        for (name, c, p) in rows {
            println!("{name:<40} {c:>5} {:>10.2} {p:>13} {:>10.2}{}", ns(c), ns(p), if c <= p { "" } else { "   above the paper" });
        }
        println!("DATA first beat in -> its ACK's first beat out on MAC TX: {} cycles", r.data_to_ack);
        println!("first payload byte in (MAC RX) -> to the CPU: {} cycles", r.rx_payload);
        println!("first payload byte from the CPU -> out on MAC TX: {} cycles", r.tx_payload);
    }
    Ok(())
}

/// `--direction`: `rx` or `tx`, listed in the help.
fn direction_value() -> impl clap::builder::TypedValueParser<Value = Direction> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Direction::ALL.map(|d| d.name())).map(|name| name.parse::<Direction>().expect("a listed direction"))
}

fn throughput_cmd(nic: &NicArgs, direction: Direction, packets: u64, json: bool) -> Result<(), String> {
    let (config, settings) = nic.resolve()?;
    let protocol = config.protocol();
    let r = nanotransport_sim::scenarios::throughput_with(&config, direction, packets, &settings)?;
    if json {
        print_json(serde_json::json!({
                "direction": r.direction,
                "packet_bytes": r.packet_bytes,
                "packets": r.packets,
                "cycles": r.cycles,
                "idle_beats": r.idle_beats,
                "beats_per_cycle": r.beats_per_cycle,
                "gbps_at_3_2ghz": r.gbps_at_3_2ghz,
                "messages_done": r.messages_done,
                "control_frames": r.control_frames,
            }));
    } else {
        let measured = if direction == Direction::Rx { "MAC RX" } else { "MAC TX" };
        println!("{protocol} on {config}: {} back-to-back {}-byte packets, {direction}", r.packets, r.packet_bytes);
        println!("cycles (first to last beat on {measured}) {}", r.cycles);
        println!("idle beats                              {}", r.idle_beats);
        println!("beats per cycle                         {:.4}", r.beats_per_cycle);
        println!("Gb/s at 3.2 GHz                         {:.1}", r.gbps_at_3_2ghz);
        println!("cycles per packet                       {:.2} (line rate at 64 bits: 9)", r.cycles as f64 / r.packets as f64);
        if direction == Direction::Rx {
            println!("messages delivered {}, ACK/PULL frames sent meanwhile {}", r.messages_done, r.control_frames);
        } else {
            println!("messages completed {}, ACKs from the testbench's model peer {}", r.messages_done, r.control_frames);
        }
    }
    Ok(())
}

/// Arguments of `replay` (the command line's strings, checked by `replay_cmd`).
struct ReplayArgs {
    nic: NicArgs,
    rtt_pkts: Option<u32>,
    input: PathBuf,
    out: PathBuf,
    messages: Option<PathBuf>,
    send: Option<PathBuf>,
    max_cycles: u64,
    nic_mac: Option<String>,
    nic_ip: Option<String>,
    peer_mac: Option<String>,
    filter_not_for_nic: bool,
    json: bool,
    check: bool,
    stall: f64,
    stall_seed: u64,
}

fn replay_cmd(a: ReplayArgs) -> Result<bool, String> {
    use nanotransport_sim::replay::*;
    let (config, settings) = a.nic.resolve()?;
    let protocol = config.protocol();
    let mut opts = ReplayOptions::new(&config);
    opts.rtt_pkts = a.rtt_pkts;
    opts.max_cycles = a.max_cycles;
    opts.nic_mac = a.nic_mac.as_deref().map(parse_mac).transpose().map_err(|e| format!("--nic-mac: {e}"))?;
    opts.peer_mac = a.peer_mac.as_deref().map(parse_mac).transpose().map_err(|e| format!("--peer-mac: {e}"))?;
    opts.nic_ip = a.nic_ip.as_deref().map(parse_ipv4).transpose().map_err(|e| format!("--nic-ip: {e}"))?;
    opts.filter_not_for_nic = a.filter_not_for_nic;
    opts.settings = settings;
    opts.stalls = nanotransport_sim::nic::Stalls::with_probability(a.stall, a.stall_seed)?;
    let files = ReplayFiles { input: a.input, output: a.out, messages: a.messages, send: a.send };
    let (r, check) = replay_files_checked(&files, &opts)?;
    let check = a.check.then_some(check);
    if a.json {
        let mut v = r.to_json();
        if let Some(c) = &check {
            v["mismatches"] = c.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>().into();
        }
        print_json(v);
    } else {
        println!("{protocol} on {config}: NIC {} {}", format_mac(r.nic_mac), format_ipv4(r.nic_ip));
        println!(
            "in: {} records ({} empty, skipped), {} not addressed to the NIC ({} filtered), {} fed, {} taken by MAC RX",
            r.records, r.empty_records, r.frames_not_for_nic, r.frames_filtered, r.frames_fed, r.frames_taken
        );
        println!("out: {} frames -> {}", r.frames_out, files.output.display());
        println!(
            "messages: {} delivered{}, {} sent ({} completed, {} abandoned)",
            r.messages_delivered,
            files.messages.as_ref().map(|p| format!(" -> {}", p.display())).unwrap_or_default(),
            r.messages_sent,
            r.sends_completed,
            r.sends_abandoned
        );
        let how = if r.stopped == "idle" && !r.slots_checked { " (by the quiet horizon alone: no slot registers known)" } else { "" };
        println!("stopped: {}{how} after {} cycles ({:.3} us at 3.2 GHz)", r.stopped, r.cycles, r.cycles as f64 / 3200.0);
        let nonzero: Vec<String> = r.status.iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n}={v}")).collect();
        if !nonzero.is_empty() {
            println!("status: {}", nonzero.join(" "));
        }
        if let Some(c) = &check {
            print_mismatches(c);
        }
    }
    Ok(check.map_or(true, |c| c.mismatches.is_empty()))
}

fn print_mismatches(c: &nanotransport_reference::nic_checker::CheckReport) {
    println!("checker: {} mismatches", c.mismatches.len());
    for m in c.mismatches.iter().take(20) {
        println!("  {m}");
    }
    if c.mismatches.len() > 20 {
        println!("  … {} more", c.mismatches.len() - 20);
    }
    for s in &c.skipped {
        println!("  not checked: {s}");
    }
}

/// `replay --bundle DIR`: the bundle's run again, checked, compared with what the fuzz run found.
fn replay_bundle_cmd(dir: &Path, out: Option<PathBuf>, messages: Option<PathBuf>, json: bool) -> Result<bool, String> {
    use nanotransport_sim::replay::*;
    let b = nanotransport_sim::fuzz::replay_bundle(dir)?;
    if let Some(p) = out {
        write_atomically(&p, &output_pcap(&b.outcome.tx_frames)?)?;
    }
    if let Some(p) = messages {
        let lines: String = b.outcome.delivered.iter().map(|m| message_json(m) + "\n").collect();
        write_atomically(&p, lines.as_bytes())?;
    }
    let reproduced = b.reproduced();
    if json {
        let mut v = b.outcome.report.to_json();
        v["mismatches"] = b.check.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>().into();
        v["recorded_mismatches"] = b.recorded.clone().into();
        v["reproduced"] = reproduced.into();
        print_json(v);
    } else {
        let r = &b.outcome.report;
        println!("bundle {} on {}: {} frames in, {} out, {} delivered, {} sent, stopped {} after {} cycles", dir.display(), r.config, r.frames_fed, r.frames_out, r.messages_delivered, r.messages_sent, r.stopped, r.cycles);
        print_mismatches(&b.check);
        println!("{}", if reproduced { format!("reproduced: the same {} mismatches as the fuzz run", b.recorded.len()) } else { format!("NOT reproduced: the fuzz run recorded {} mismatches", b.recorded.len()) });
    }
    Ok(b.check.mismatches.is_empty())
}

fn fuzz_cmd(o: &nanotransport_sim::fuzz::FuzzOptions, repro: Option<PathBuf>, json: bool) -> Result<bool, String> {
    eprintln!("fuzz {} seed {} packets {}", o.nic, o.seed, o.packets);
    let bar = indicatif::ProgressBar::new(o.packets);
    bar.set_style(indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} frames in ({per_sec}, eta {eta})").unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()));
    let r = nanotransport_sim::fuzz::fuzz(o, &mut |n| bar.set_position(n.min(o.packets)))?;
    bar.finish_and_clear();
    let mut bundle = None;
    if !r.check.mismatches.is_empty() {
        let dir = repro.unwrap_or_else(|| PathBuf::from(format!("fuzz-repro-{}-{}", o.nic, o.seed)));
        nanotransport_sim::fuzz::write_bundle(&dir, &r)?;
        bundle = Some(dir);
    }
    if json {
        let mut v = r.to_json();
        v["bundle"] = bundle.as_ref().map(|d| d.display().to_string()).into();
        print_json(v);
    } else {
        println!("fuzz {} ({:?}) seed {}", o.nic, r.protocol, o.seed);
        println!("| figure | value |\n|---|---|");
        let rows: Vec<(&str, String)> = vec![
            ("frames offered to MAC RX", r.frames_in.to_string()),
            ("frames sent on MAC TX", r.frames_out.to_string()),
            ("peer messages (given up by the peer)", format!("{} ({})", r.peer_messages, r.peer_given_up)),
            ("messages delivered to the CPU", r.check.delivered.to_string()),
            ("CPU messages sent", r.cpu_messages.to_string()),
            ("completions (completed / abandoned)", format!("{} / {}", r.check.completed, r.check.abandoned)),
            ("DATA frames after their message completed (identical copies)", r.check.data_after_completion.to_string()),
            ("mismatches", r.check.mismatches.len().to_string()),
            ("output beats held by back-pressure", r.stalled_beats.to_string()),
            ("cycles", format!("{} ({})", r.cycles, r.stopped)),
            ("wall time, s", format!("{:.1}", r.wall_s)),
        ];
        for (k, v) in rows {
            println!("| {k} | {v} |");
        }
        for (k, v) in &r.injected {
            println!("| injected: {k} | {v} |");
        }
        for (k, v) in r.status.iter().filter(|(_, v)| *v != 0) {
            println!("| counter: {k} | {v} |");
        }
        print_mismatches(&r.check);
        if let Some(d) = &bundle {
            println!("reproducer: nanotransport replay --bundle {}", d.display());
        }
    }
    Ok(r.check.mismatches.is_empty())
}

fn bench_cosim(json: bool, cycles: u64) -> Result<(), String> {
    let b = nanotransport_sim::bench::bench_timer_128(cycles)?;
    if json {
        print_json(serde_json::json!({
                "block": b.block,
                "cycles": b.cycles,
                "native_cycles_per_s": b.native_cycles_per_s,
                "verilator_cycles_per_s": b.verilator_cycles_per_s,
                "ratio": b.ratio,
            }));
    } else {
        println!("block                  cycles   native cyc/s   verilator cyc/s   ratio");
        println!(
            "{:<20} {:>8} {:>14.0} {:>17.0} {:>7.1}",
            b.block, b.cycles, b.native_cycles_per_s, b.verilator_cycles_per_s, b.ratio
        );
        println!("(both runs raised {} timeouts)", b.timeouts);
    }
    Ok(())
}

fn bench_nic(config: &str, json: bool, cycles: u64, seed: u64) -> Result<(), String> {
    let b = nanotransport_sim::bench::bench_nic(&params::whole_nic(None, Some(config))?, cycles, seed)?;
    if json {
        print_json(serde_json::json!({
                "config": b.config,
                "cycles": b.cycles,
                "wall_s": b.wall_s,
                "verilator_cycles_per_s": b.verilator_cycles_per_s,
            }));
    } else {
        println!(
            "{}: {} cycles in {:.3} s = {:.0} cycles/s ({:.0} per CPU second); MAC TX {:.3} and MAC RX {:.3} \
             beats/cycle; messages {} queued, {} delivered ({} intact); seed {}",
            b.config, b.cycles, b.wall_s, b.verilator_cycles_per_s, b.cycles as f64 / b.cpu_s, b.mac_tx_load, b.mac_rx_load,
            b.messages_queued, b.messages_delivered, b.messages_intact, b.seed
        );
    }
    Ok(())
}

/// clap's errors span several lines; print them as one.
fn one_line(err: &clap::Error) -> String {
    err.to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information") && !l.starts_with("Usage:"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The incast parameters shared by `incast` and `sweep`.
#[derive(clap::Args, Clone, Debug)]
struct IncastSetup {
    /// Whole-NIC configuration: a preset (default: <protocol>-128 for the receiver) or a parameter-set file NAME.toml
    #[arg(long, value_name = "NAME")]
    config: Option<String>,
    /// The senders' NICs: a preset or parameter-set file of the same protocol (default: <protocol>-16, or --config when given)
    #[arg(long, value_name = "NAME")]
    sender_config: Option<String>,
    /// Set a configuration register on every NIC after the experiment's own, NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Number of senders
    #[arg(long, default_value_t = 10)]
    senders: usize,
    /// Packets of the first..last message, spread evenly (the thesis: 20..38)
    #[arg(long, value_name = "A..B", default_value = "18..36")]
    sizes: String,
    /// Link rate, Gb/s
    #[arg(long, default_value_t = 200.0)]
    link_gbps: f64,
    /// Propagation delay per link, ns
    #[arg(long, default_value_t = 131.0)]
    link_ns: f64,
    /// BDP in packets (the initial credit)
    #[arg(long, default_value_t = 12)]
    rtt_pkts: u32,
    /// Retransmission timeout, µs
    #[arg(long, default_value_t = 6.0)]
    rto_us: f64,
    /// Seed of the links' loss generators
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop a run after this much simulated time, µs
    #[arg(long, default_value_t = 500.0)]
    max_us: f64,
    /// Every CPU starts writing its message at cycle 0 (default: writes timed so that every
    /// sender NIC takes its message in the same cycle, as the ns-3 model starts them at once)
    #[arg(long)]
    staggered_start: bool,
    /// Count the switch buffers in bytes (the buffer's packets × 1088 B) instead of packets
    #[arg(long)]
    byte_counted: bool,
    /// Frames each switch port's device queue holds beyond the queue disc, chosen by the
    /// scheduler when they enter it (the ns-3 model's 1-packet device queue; 0: none)
    #[arg(long, default_value_t = 1)]
    device_queue_pkts: usize,
}

impl IncastSetup {
    fn params(&self, protocol: Protocol, buffer_pkts: usize) -> Result<IncastParams, String> {
        let mut p = IncastParams::defaults(protocol);
        // A configuration of the user's applies to the senders too, unless they are given apart.
        if let Some(c) = &self.config {
            p.config = params::whole_nic(None, Some(c))?;
            p.sender_config = None;
        }
        if let Some(c) = &self.sender_config {
            p.sender_config = Some(params::whole_nic(None, Some(c))?);
        }
        p.sets = nanotransport_sim::registers::parse_sets(&self.set)?.iter().map(|w| (w.addr, w.value)).collect();
        p.senders = self.senders;
        let (a, b) = self.sizes.split_once("..").ok_or_else(|| format!("--sizes {}: expected A..B, e.g. 18..36", self.sizes))?;
        let num = |t: &str| t.trim().parse::<u32>().map_err(|_| format!("--sizes {}: expected A..B with whole packet counts, e.g. 18..36", self.sizes));
        p.sizes = (num(a)?, num(b)?);
        p.buffer_pkts = buffer_pkts;
        p.link_gbps = self.link_gbps;
        p.link_ns = self.link_ns;
        p.rtt_pkts = self.rtt_pkts;
        p.rto_us = self.rto_us;
        p.seed = self.seed;
        p.max_us = self.max_us;
        p.aligned_start = !self.staggered_start;
        p.byte_counted = self.byte_counted;
        p.device_queue_pkts = self.device_queue_pkts;
        p.validate()?;
        Ok(p)
    }
}

/// One incast run with a progress bar on stderr.
fn incast_run(p: &IncastParams, trace: bool) -> Result<(IncastResult, nanotransport_net::Network), String> {
    let bar = indicatif::ProgressBar::new(1000);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {msg} ({elapsed})").unwrap().progress_chars("=> "),
    );
    bar.set_prefix(format!("{} {} pkts", p.protocol, p.buffer_pkts));
    let r = incast::run(p, trace, &mut |ns, max_ns, delivered| {
        bar.set_position((ns / max_ns * 1000.0) as u64);
        bar.set_message(format!("{:.1} µs simulated, {delivered}/{} delivered", ns / 1000.0, p.senders));
    });
    bar.finish_and_clear();
    r
}

use nanotransport_sim::scenarios::Direction;
use results::fmt_opt;

/// Prints a `--json` answer: one object carrying the layout's `schema_version`
/// ([`results::SCHEMA_VERSION`]).
fn print_json(value: serde_json::Value) {
    let mut object = match value {
        serde_json::Value::Object(m) => m,
        other => serde_json::Map::from_iter([("value".to_string(), other)]),
    };
    object.insert("schema_version".into(), results::SCHEMA_VERSION.into());
    println!("{}", serde_json::Value::Object(object));
}

/// The ns-3 model's (median, p90) for the default setup, if `r` is that setup.
fn ns3_reference(r: &IncastResult) -> Option<(f64, f64)> {
    let d = IncastParams::defaults(r.protocol);
    let same = r.params.senders == d.senders && r.params.sizes == d.sizes && r.params.link_gbps == d.link_gbps
        && r.params.link_ns == d.link_ns && r.params.rtt_pkts == d.rtt_pkts && r.params.rto_us == d.rto_us;
    if !same {
        return None;
    }
    nanotransport_net::experiments::incast::model_slowdowns(r.protocol, r.buffer_pkts)
}

fn print_incast(r: &IncastResult) {
    let p = &r.params;
    println!(
        "{} on {} (senders on {}): {} senders → 1, {} Gb/s, {} ns per link, buffer {} packets ({:.0} KB), rtt_pkts {}, RTO {} µs",
        r.protocol, r.config, p.sender_config.as_ref().unwrap_or(&r.config), p.senders, p.link_gbps, p.link_ns, r.buffer_pkts, r.buffer_kb, p.rtt_pkts, p.rto_us
    );
    println!(
        "{:>6} {:>7} {:>13} {:>9} {:>10} {:>8} {:>12} {:>11} {:>10}",
        "sender", "packets", "completion ns", "slowdown", "arrived ns", "arrived", "cpu write ns", "readout ns", "acked ns"
    );
    for m in &r.messages {
        println!(
            "{:>6} {:>7} {:>13} {:>9} {:>10} {:>8} {:>12} {:>11} {:>10}{}",
            m.sender, m.packets, fmt_opt(m.completion_ns, 1), fmt_opt(m.slowdown, 2), fmt_opt(m.arrived_ns, 1), fmt_opt(m.arrived_slowdown, 2),
            fmt_opt(m.cpu_write_ns, 1), fmt_opt(m.readout_ns, 1), fmt_opt(m.acked_ns, 1),
            m.incomplete.as_ref().map(|w| format!("  incomplete: {w}")).unwrap_or_default()
        );
    }
    let reference = ns3_reference(r).map(|(m, p90)| format!(" (ns-3 model: {m:.2} / {p90:.2})")).unwrap_or_default();
    println!("median slowdown {} p90 {}{reference}", fmt_opt(r.median_slowdown, 2), fmt_opt(r.p90_slowdown, 2));
    println!(
        "at arrival (the last packet's last byte at the receiver NIC, the model's MsgFinish point): median {} p90 {}",
        fmt_opt(r.median_arrived_slowdown, 2),
        fmt_opt(r.p90_arrived_slowdown, 2)
    );
    let c = &r.bottleneck;
    println!(
        "bottleneck port: {} enqueued, {} trimmed, {} dropped, max {} packets; NIC MAC RX drops {}",
        c.enqueued, c.trimmed, c.dropped, c.max_packets, r.nic_rx_dropped
    );
    println!(
        "{:.1} µs simulated ({} cycles, {} with a NIC stepped); wall {:.1} s, {:.0} NIC cycles/s",
        r.simulated_ns / 1000.0, r.cycles, r.stepped_cycles, r.wall_s, r.nic_cycles_per_s
    );
}

fn write_plots(results: &[IncastResult], dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    plot::queue_svg(results, &dir.join("incast-queue.svg"))?;
    plot::slowdown_svg(results, &dir.join("incast-slowdown.svg"))
}

#[allow(clippy::too_many_arguments)]
fn incast_cmd(protocol: Protocol, setup: &IncastSetup, buffer_pkts: Option<usize>, buffer_kb: Option<f64>, json: bool, plot_dir: Option<PathBuf>, pcap: Option<PathBuf>) -> Result<bool, String> {
    let pkts = match (buffer_pkts, buffer_kb) {
        (Some(p), _) => p,
        (None, Some(k)) => (k * 1000.0 / incast::MTU_BYTES as f64).round() as usize,
        (None, None) => 110,
    };
    let p = setup.params(protocol, pkts)?;
    let (r, net) = incast_run(&p, pcap.is_some())?;
    if let Some(dir) = &pcap {
        incast::write_pcaps(&net, dir)?;
    }
    if let Some(dir) = &plot_dir {
        write_plots(std::slice::from_ref(&r), dir)?;
    }
    if json {
        print_json(serde_json::to_value(&r).map_err(|e| e.to_string())?);
    } else {
        print_incast(&r);
    }
    if !r.complete {
        let which: Vec<String> = r.messages.iter().filter_map(|m| m.incomplete.as_ref().map(|w| format!("sender {} ({} packets): {w}", m.sender, m.packets))).collect();
        eprintln!("incomplete after {} µs: {}", p.max_us, which.join("; "));
    }
    Ok(r.complete)
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {text}: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

fn sweep_cmd(protocols: &[Protocol], buffers: &[usize], setup: &IncastSetup, shard: &str, out: &std::path::Path) -> Result<bool, String> {
    let (i, n) = parse_shard(shard)?;
    let runs: Vec<(Protocol, usize)> = protocols.iter().flat_map(|p| buffers.iter().map(move |b| (*p, *b))).collect();
    let mine: Vec<IncastParams> = runs.iter().enumerate().filter(|(k, _)| k % n == i).map(|(_, (p, b))| setup.params(*p, *b)).collect::<Result<_, _>>()?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut all_complete = true;
    for p in &mine {
        let (r, _) = incast_run(p, false)?;
        let path = out.join(format!("incast-{}-{}p.json", p.protocol, p.buffer_pkts));
        std::fs::write(&path, serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("{}: median {} p90 {}, wall {:.1} s", path.display(), fmt_opt(r.median_slowdown, 2), fmt_opt(r.p90_slowdown, 2), r.wall_s);
        all_complete &= r.complete;
    }
    Ok(all_complete)
}

fn merge_cmd(inputs: &[PathBuf], plot_dir: Option<PathBuf>, json: bool) -> Result<bool, String> {
    let mut files = Vec::new();
    for i in inputs {
        if i.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(i).map_err(|e| format!("{}: {e}", i.display()))?
                .filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
            v.sort();
            files.extend(v);
        } else {
            files.push(i.clone());
        }
    }
    let mut results = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let r: IncastResult = serde_json::from_str(&text).map_err(|e| format!("{}: not an incast result: {e}", f.display()))?;
        results.push(r);
    }
    if results.is_empty() {
        return Err("merge: no JSON files found".into());
    }
    results.sort_by(|a, b| (a.protocol, b.buffer_pkts).cmp(&(b.protocol, a.buffer_pkts)));
    if let Some(dir) = &plot_dir {
        write_plots(&results, dir)?;
    }
    if json {
        let rows: Vec<results::IncastRow> = results.iter().map(report::incast_row).collect();
        print_json(serde_json::json!({ "runs": rows }));
        return Ok(true);
    }
    let rows: Vec<results::IncastRow> = results.iter().map(report::incast_row).collect();
    // "at arrival" ends each message when its last packet reached the receiver NIC, the model's
    // MsgFinish point (see `net/experiments/incast.rs`).
    print!("{}", results::incast_table(&rows));
    Ok(results.iter().all(|r| r.complete))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{}", one_line(&e));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Gen { configs, out, fixtures, params } => gen(&configs, &out, fixtures, &params).map(|_| true),
        Command::Lint { configs, dir, no_synth } => lint_cmd(&configs, &dir, no_synth),
        Command::Synth { config, block, dir, keep, reanalyse, json } => {
            synth_cmd(&config, block.as_deref(), &dir, keep.as_deref(), reanalyse, json).map(|_| true)
        }
        Command::Fpga { which: FpgaCommand::Ooc { config, clock_mhz, out, part, dir } } => {
            fpga_ooc_cmd(&config, clock_mhz, &out, &part, &dir).map(|_| true)
        }
        Command::Bench { which: BenchCommand::Cosim { json, cycles } } => bench_cosim(json, cycles).map(|_| true),
        Command::Bench { which: BenchCommand::Nic { config, json, cycles, seed } } => bench_nic(&config, json, cycles, seed).map(|_| true),
        Command::Latency { nic, json } => latency_cmd(&nic, json).map(|_| true),
        Command::Throughput { nic, direction, packets, json } => {
            throughput_cmd(&nic, direction, packets, json).map(|_| true)
        }
        Command::Replay { bundle: Some(dir), out, messages, json, .. } => replay_bundle_cmd(&dir, out, messages, json),
        Command::Replay { nic, rtt_pkts, input, out, messages, send, max_cycles, nic_mac, nic_ip, peer_mac, filter_not_for_nic, json, check, bundle: None, stall, stall_seed } => {
            let a = ReplayArgs { nic, rtt_pkts, input: input.unwrap_or_default(), out: out.unwrap_or_default(), messages, send, max_cycles, nic_mac, nic_ip, peer_mac, filter_not_for_nic, json, check, stall, stall_seed };
            replay_cmd(a)
        }
        Command::Fuzz { nic, packets, seed, loss, duplicate, trim, malformed, jitter, no_frame_length_faults, duplicate_delay, full_horizon_duplicates, max_cycles, stall, repro, json } => {
            let set = nic.set.clone();
            let config = match params::whole_nic(nic.protocol, nic.config.as_deref()) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let seed = seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
            let mut o = nanotransport_sim::fuzz::FuzzOptions::new(&config, packets, seed);
            (o.loss, o.duplicate, o.trim, o.malformed, o.jitter) = (loss, duplicate, trim, malformed, jitter);
            (o.frame_length_faults, o.full_horizon_duplicates, o.duplicate_delay, o.settings, o.max_cycles, o.stall) = (!no_frame_length_faults, full_horizon_duplicates, duplicate_delay, set, max_cycles, stall);
            fuzz_cmd(&o, repro, json)
        }
        Command::Incast { protocol, setup, buffer_pkts, buffer_kb, json, plot, pcap } => {
            incast_cmd(protocol, &setup, buffer_pkts, buffer_kb, json, plot, pcap)
        }
        Command::Sweep { protocols, buffers, setup, shard, out } => sweep_cmd(&protocols, &buffers, &setup, &shard, &out),
        Command::Merge { inputs, plot, json } => merge_cmd(&inputs, plot, json),
        Command::Report { out, synth, verilog, gen_configs, protocols, buffers, packets, bench_cycles, fuzz_frames, readme, from_json, setup } => match from_json {
            Some(json) => report::render_saved(&json, &out, readme.as_deref()),
            None => {
                let r = report::ReportRequest {
                    out: &out, verilog: &verilog, gen_configs: &gen_configs, synth, protocols: &protocols, buffers: &buffers, packets,
                    bench_cycles, fuzz_frames, setup: &setup, readme: readme.as_deref(),
                };
                report::report(&r)
            }
        },
        Command::Configs => {
            for c in CONFIGS {
                println!("{:<10} messages {:>4}  datapath {} bits", c.name, c.messages, c.datapath_bits);
            }
            for c in SWITCH_CONFIGS {
                println!(
                    "{:<10} bolt ingress, {} ports, supply by {}, SRC carries {} bytes after the Bolt header{}",
                    c.name, c.ports, if c.supply_table { "table" } else { "multiplier" }, c.src_trailing_bytes,
                    if c.stream_only { " (stream wrapper only)" } else { "" }
                );
            }
            let _ = config_names;
            Ok(true)
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
