//! `nanotransport`: generate, lint and benchmark the nanoTransport NIC hardware model.
//!
//! The CLI only wires commands to library calls in hdl/ and sim/.

use clap::{Parser, Subcommand};
use nanotransport_hdl::configs::{config_names, find_config, find_switch_config, NicConfig, SwitchConfig, CONFIGS, SWITCH_CONFIGS};
use nanotransport_hdl::generate::write_modules;
use nanotransport_sim::tools::lint;
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
    /// Benchmarks (reports, not tests)
    Bench {
        #[command(subcommand)]
        which: BenchCommand,
    },
    /// List the named configurations
    Configs,
    /// Per-stage latency (Table 3.1) of one 16-byte message each way, on the Verilator model
    Latency {
        /// Protocol program (ndp, homa, homa-tr)
        #[arg(long, default_value = "ndp")]
        protocol: String,
        /// Whole-NIC configuration (default: <protocol>-16)
        #[arg(long, value_name = "NAME")]
        config: Option<String>,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Throughput with back-to-back 65-byte packets (1-byte messages), on the Verilator model
    Throughput {
        /// Protocol program (ndp, homa, homa-tr)
        #[arg(long, default_value = "ndp")]
        protocol: String,
        /// Whole-NIC configuration (default: <protocol>-16)
        #[arg(long, value_name = "NAME")]
        config: Option<String>,
        /// rx (MAC → CPU) or tx (CPU → MAC)
        #[arg(long)]
        direction: String,
        /// Packets sent
        #[arg(long, default_value_t = 2000)]
        packets: u64,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Feed a pcap into the NIC model's MAC RX, write what it transmits to a pcap (see README)
    Replay {
        /// Protocol program (ndp)
        #[arg(long, default_value = "ndp")]
        protocol: String,
        /// Whole-NIC configuration (default: <protocol>-16)
        #[arg(long, value_name = "NAME")]
        config: Option<String>,
        /// BDP in packets (register 0x14; default: the register's reset value)
        #[arg(long, value_name = "N")]
        rtt_pkts: Option<u32>,
        /// Capture to replay (pcap, microsecond or nanosecond, or pcapng; link type Ethernet)
        #[arg(long = "in", value_name = "IN.pcap")]
        input: PathBuf,
        /// Frames the NIC transmits (nanosecond pcap, cycle of the first beat at 3.2 GHz)
        #[arg(long, value_name = "OUT.pcap")]
        out: PathBuf,
        /// Messages delivered to the CPU, one JSON object per line
        #[arg(long, value_name = "OUT.jsonl")]
        messages: Option<PathBuf>,
        /// Messages for the CPU to send: a JSON array of {remote_ip, remote_port, local_port, bytes_hex | len}
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
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
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
        /// Whole-NIC configuration (e.g. ndp-16, homa-128)
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

fn gen(configs: &[String], out: &Path, fixtures: bool) -> Result<(), String> {
    for config in selected(configs)? {
        let modules = config.generate();
        let dir = out.join(config.name);
        write_modules(&dir, &modules).map_err(|e| format!("{}: {e}", dir.display()))?;
        println!("{:<10} {} modules -> {}", config.name, modules.len(), dir.display());
    }
    for config in selected_switch(configs) {
        let modules = config.generate();
        let dir = out.join(config.name);
        write_modules(&dir, &modules).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (file, text) in config.data_files() {
            std::fs::write(dir.join(&file), text).map_err(|e| format!("{}: {e}", dir.join(&file).display()))?;
        }
        println!("{:<10} {} modules -> {}", config.name, modules.len(), dir.display());
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
            "{}  {}  verilator: {}{}",
            if r.ok() { "ok  " } else { "FAIL" },
            r.file.display(),
            r.verilator.summary,
            yosys
        );
        failed += (!r.ok()) as usize;
    }
    println!("lint: {} files, {} passed, {} failed", reports.len(), reports.len() - failed, failed);
    Ok(failed == 0)
}

/// The whole-NIC configuration for `protocol` (checked against the named configurations).
fn nic_config(protocol: &str, config: Option<String>) -> Result<String, String> {
    if !["ndp", "homa", "homa-tr"].contains(&protocol) {
        return Err(format!("unknown protocol '{protocol}'; available: ndp, homa, homa-tr"));
    }
    let name = config.unwrap_or_else(|| format!("{protocol}-16"));
    let c = find_config(&name).map_err(|e| with_switch_names(&e))?;
    if c.protocol != Some(protocol) {
        return Err(format!("configuration '{name}' is not a whole NIC running {protocol}"));
    }
    Ok(name)
}

fn latency_cmd(protocol: &str, config: Option<String>, json: bool) -> Result<(), String> {
    use nanotransport_sim::scenarios::{latency, Protocol, CLOCK_GHZ};
    let config = nic_config(protocol, config)?;
    let r = latency(&config)?;
    let ours = [r.ingress, r.reassembly, r.packetize, r.egress];
    let paper = Protocol::of_config(&config).paper_cycles();
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
        println!(
            "{}",
            serde_json::json!({
                "protocol": protocol,
                "config": config,
                "datapath_bits": 64,
                "clock_ghz": CLOCK_GHZ,
                "cycles": obj(ours, ot),
                "paper_cycles": obj(paper, pt),
                "extra": {
                    "data_in_to_ack_out": r.data_to_ack,
                    "rx_first_payload_byte": r.rx_payload,
                    "tx_first_payload_byte": r.tx_payload,
                },
            })
        );
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

fn throughput_cmd(protocol: &str, config: Option<String>, direction: &str, packets: u64, json: bool) -> Result<(), String> {
    let config = nic_config(protocol, config)?;
    let r = nanotransport_sim::scenarios::throughput(&config, direction, packets)?;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "direction": r.direction,
                "packet_bytes": r.packet_bytes,
                "packets": r.packets,
                "cycles": r.cycles,
                "idle_beats": r.idle_beats,
                "beats_per_cycle": r.beats_per_cycle,
                "gbps_at_3_2ghz": r.gbps_at_3_2ghz,
                "messages_done": r.messages_done,
                "control_frames": r.control_frames,
            })
        );
    } else {
        let measured = if direction == "rx" { "MAC RX" } else { "MAC TX" };
        println!("{protocol} on {config}: {} back-to-back {}-byte packets, {direction}", r.packets, r.packet_bytes);
        println!("cycles (first to last beat on {measured}) {}", r.cycles);
        println!("idle beats                              {}", r.idle_beats);
        println!("beats per cycle                         {:.4}", r.beats_per_cycle);
        println!("Gb/s at 3.2 GHz                         {:.1}", r.gbps_at_3_2ghz);
        println!("cycles per packet                       {:.2} (line rate at 64 bits: 9)", r.cycles as f64 / r.packets as f64);
        if direction == "rx" {
            println!("messages delivered {}, ACK/PULL frames sent meanwhile {}", r.messages_done, r.control_frames);
        } else {
            println!("messages completed {}, ACKs from the testbench's model peer {}", r.messages_done, r.control_frames);
        }
    }
    Ok(())
}

/// Arguments of `replay` (the command line's strings, checked by `replay_cmd`).
struct ReplayArgs {
    protocol: String,
    config: Option<String>,
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
}

fn replay_cmd(a: ReplayArgs) -> Result<(), String> {
    use nanotransport_sim::replay::*;
    let config = nic_config(&a.protocol, a.config)?;
    let mut opts = ReplayOptions::new(&config);
    opts.rtt_pkts = a.rtt_pkts;
    opts.max_cycles = a.max_cycles;
    opts.nic_mac = a.nic_mac.as_deref().map(parse_mac).transpose().map_err(|e| format!("--nic-mac: {e}"))?;
    opts.peer_mac = a.peer_mac.as_deref().map(parse_mac).transpose().map_err(|e| format!("--peer-mac: {e}"))?;
    opts.nic_ip = a.nic_ip.as_deref().map(parse_ipv4).transpose().map_err(|e| format!("--nic-ip: {e}"))?;
    opts.filter_not_for_nic = a.filter_not_for_nic;
    let files = ReplayFiles { input: a.input, output: a.out, messages: a.messages, send: a.send };
    let r = replay_files(&files, &opts)?;
    if a.json {
        println!("{}", r.to_json());
    } else {
        println!("{} on {config}: NIC {} {}", a.protocol, format_mac(r.nic_mac), format_ipv4(r.nic_ip));
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
    }
    Ok(())
}

fn bench_cosim(json: bool, cycles: u64) -> Result<(), String> {
    let b = nanotransport_sim::bench::bench_timer_128(cycles)?;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "block": b.block,
                "cycles": b.cycles,
                "native_cycles_per_s": b.native_cycles_per_s,
                "verilator_cycles_per_s": b.verilator_cycles_per_s,
                "ratio": b.ratio,
            })
        );
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
    let c = find_config(config).map_err(|e| with_switch_names(&e))?;
    if c.protocol.is_none() {
        return Err(format!("configuration '{config}' is not a whole NIC"));
    }
    let b = nanotransport_sim::bench::bench_nic(config, cycles, seed)?;
    if json {
        println!(
            "{}",
            serde_json::json!({
                "config": b.config,
                "cycles": b.cycles,
                "wall_s": b.wall_s,
                "verilator_cycles_per_s": b.verilator_cycles_per_s,
            })
        );
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
        Command::Gen { configs, out, fixtures } => gen(&configs, &out, fixtures).map(|_| true),
        Command::Lint { configs, dir, no_synth } => lint_cmd(&configs, &dir, no_synth),
        Command::Bench { which: BenchCommand::Cosim { json, cycles } } => bench_cosim(json, cycles).map(|_| true),
        Command::Bench { which: BenchCommand::Nic { config, json, cycles, seed } } => bench_nic(&config, json, cycles, seed).map(|_| true),
        Command::Latency { protocol, config, json } => latency_cmd(&protocol, config, json).map(|_| true),
        Command::Throughput { protocol, config, direction, packets, json } => {
            throughput_cmd(&protocol, config, &direction, packets, json).map(|_| true)
        }
        Command::Replay { protocol, config, rtt_pkts, input, out, messages, send, max_cycles, nic_mac, nic_ip, peer_mac, filter_not_for_nic, json } => {
            let a = ReplayArgs { protocol, config, rtt_pkts, input, out, messages, send, max_cycles, nic_mac, nic_ip, peer_mac, filter_not_for_nic, json };
            replay_cmd(a).map(|_| true)
        }
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
