//! `nanotransport`: generate, lint and benchmark the nanoTransport NIC hardware model.
//!
//! `main` parses the command line (the clap types below) and calls the commands in [`commands`].

mod commands;
#[cfg(test)]
mod documented_commands;
mod output;
mod params;
mod results;

use clap::{Parser, Subcommand};
use commands::bolt::{bolt_dumbbell_cmd, bolt_utilisation_cmd, BoltDumbbellArgs, BoltUtilisationArgs};
use commands::flexplane::{bulk_cmd, rpc_cmd, BulkArgs, RpcArgs};
use commands::hardware::*;
use commands::incast::*;
use commands::nic::*;
use commands::pl2::{pl2_incast_cmd, pl2_outcast_cmd, pl2_rpc_cmd, Pl2IncastArgs, Pl2OutcastArgs, Pl2RpcArgs};
use commands::report;
use nanotransport_flow::synth::Hierarchy;
use nanotransport_hdl::configs::{config_names, Protocol, CONFIGS, SWITCH_CONFIGS};
use nanotransport_net::experiments::bolt_dumbbell::DumbbellEvent;
use nanotransport_sim::scenarios::Direction;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "nanotransport",
    version,
    about = "Hardware model of the nanoTransport NIC: Verilog generation, lint, co-simulation benchmarks"
)]
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
        /// Flatten before synthesis, as Vivado does (optimises across blocks; no per-block split)
        #[arg(long)]
        flatten: bool,
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
    /// Flexplane's experiments on the network testbench: TCP hosts and switch schemes
    Flexplane {
        #[command(subcommand)]
        which: FlexplaneCommand,
    },
    /// Bolt's experiments on the network testbench: its ingress block's RTL in the switch
    Bolt {
        #[command(subcommand)]
        which: BoltCommand,
    },
    /// PL2's experiments on the network testbench: its reservation block's RTL in the switch
    Pl2 {
        #[command(subcommand)]
        which: Pl2Command,
    },
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
        /// Smaller incast buffers, in packets, that Homa and Homa-Tr run under each
        /// acknowledgement policy with the thesis' sizes 20..38, beside the --buffers (none: only those)
        #[arg(long, value_delimiter = ',', default_value = "58,50,42,36,30")]
        ack_policy_buffers: Vec<usize>,
        /// Simulated seconds of each Flexplane bulk run, warm-up included (0: none)
        #[arg(long, value_name = "S", default_value_t = 11.0)]
        flexplane_seconds: f64,
        /// Seconds of requests of each Flexplane RPC run (0: none)
        #[arg(long, value_name = "S", default_value_t = 11.0)]
        rpc_seconds: f64,
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
        /// Bytes of each packet: a 64-byte header and 1 to 1024 bytes of payload (65..=1088)
        #[arg(long, default_value_t = 65)]
        packet_bytes: u64,
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Feed a pcap into the NIC model's MAC RX, write what it transmits to a pcap (docs/replay-and-fuzz.md)
    Replay(ReplayArgs),
    /// Random traffic with faults and a reacting peer into a whole-NIC model, judged by the whole-NIC checker (docs/replay-and-fuzz.md)
    Fuzz(FuzzArgs),
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
    /// Write a board's Vivado build folder (Verilog, XDC, vendor-core Tcl, build to a bitstream, README): a whole NIC between the board's 100 GbE MAC and an on-chip message echo
    Board {
        /// Board
        #[arg(long, value_enum)]
        board: nanotransport_flow::board::Board,
        /// Whole-NIC configuration (see `configs`); or give a parameter set
        #[arg(long, value_name = "NAME")]
        config: Option<String>,
        #[command(flatten)]
        params: params::ParamFlags,
        /// Output folder
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum FlexplaneCommand {
    /// §4.1: 5 TCP senders → 1 receiver at 10 Gb/s; bottleneck queue, Jain's fairness, goodput (Tables 4.1, 4.2)
    Bulk(BulkArgs),
    /// §4.2: 4 clients request 1.5 KB (80 %) and 10 MB responses from 32 servers; completion times per scheme (Fig. 4-2)
    Rpc(RpcArgs),
}

#[derive(Subcommand)]
enum BoltCommand {
    /// Table 4.1: 5 senders 15 µs apart into one receiver; utilisation with PRU and supply matching off and on
    Utilisation(BoltUtilisationArgs),
    /// Fig. 4.10: a second flow joins a dumbbell's first; the bottleneck queue's peak and drain, its utilisation
    Arrival(BoltDumbbellArgs),
    /// Fig. 4.11: two flows across a dumbbell, one completes; how fast the other takes the freed bandwidth
    Completion(BoltDumbbellArgs),
    /// Fig. 4.12: two flows across a dumbbell, one is rerouted away unannounced; how the other's window grows with and without supply matching
    Reroute(BoltDumbbellArgs),
}

#[derive(Subcommand)]
enum Pl2Command {
    /// §6.4: N senders → 1 receiver at 50–400 % load, with and without PL2; drops, goodput, queue, latency (Fig. 9)
    Incast(Pl2IncastArgs),
    /// §6.4: 1 sender → 1–4 receivers at its link's rate, with and without PL2; goodput (Fig. 10)
    Outcast(Pl2OutcastArgs),
    /// §6.2: memcached GETs against 0–4 TCP or UDP background hosts, with and without PL2; RPC latency and transactions (Figs. 3–6)
    Rpc(Pl2RpcArgs),
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
    /// Network core speed: constant-rate behavioural hosts into one switch port (events per wall second)
    Net {
        /// Senders sharing the receiver's port, each at 1/senders of the link rate
        #[arg(long, default_value_t = 5)]
        senders: usize,
        /// Link rate in Gb/s
        #[arg(long, default_value_t = 10.0)]
        gbps: f64,
        /// Simulated time in ms
        #[arg(long, default_value_t = 100.0)]
        sim_ms: f64,
        /// Print JSON instead of a line
        #[arg(long)]
        json: bool,
    },
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
        Command::Gen { configs, out, fixtures, params } => gen(&configs, &out, fixtures, &params).map(|_| true),
        Command::Lint { configs, dir, no_synth } => lint_cmd(&configs, &dir, no_synth),
        Command::Synth { config, block, dir, keep, reanalyse, flatten, json } => {
            let hierarchy = if flatten { Hierarchy::Flattened } else { Hierarchy::Kept };
            synth_cmd(&config, block.as_deref(), &dir, keep.as_deref(), reanalyse, hierarchy, json).map(|_| true)
        }
        Command::Fpga { which: FpgaCommand::Ooc { config, clock_mhz, out, part, dir } } => {
            fpga_ooc_cmd(&config, clock_mhz, &out, &part, &dir).map(|_| true)
        }
        Command::Fpga { which: FpgaCommand::Board { board, config, params, out } } => {
            fpga_board_cmd(board, config.as_deref(), &params, &out).map(|_| true)
        }
        Command::Bench { which: BenchCommand::Cosim { json, cycles } } => bench_cosim(json, cycles).map(|_| true),
        Command::Bench { which: BenchCommand::Nic { config, json, cycles, seed } } => bench_nic(&config, json, cycles, seed).map(|_| true),
        Command::Bench { which: BenchCommand::Net { senders, gbps, sim_ms, json } } => bench_net(senders, gbps, sim_ms, json).map(|_| true),
        Command::Latency { nic, json } => latency_cmd(&nic, json).map(|_| true),
        Command::Throughput { nic, direction, packets, packet_bytes, json } => {
            throughput_cmd(&nic, direction, (packet_bytes, packets), json).map(|_| true)
        }
        Command::Replay(a) => match a.bundle.clone() {
            Some(dir) => replay_bundle_cmd(&dir, a.out, a.messages, a.json),
            None => replay_cmd(a),
        },
        Command::Fuzz(a) => match a.options() {
            Ok(o) => fuzz_cmd(&o, a.repro, a.json),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        Command::Incast { protocol, setup, buffer_pkts, buffer_kb, json, plot, pcap } => {
            incast_cmd(protocol, &setup, buffer_pkts, buffer_kb, json, plot, pcap)
        }
        Command::Sweep { protocols, buffers, setup, shard, out } => sweep_cmd(&protocols, &buffers, &setup, &shard, &out),
        Command::Merge { inputs, plot, json } => merge_cmd(&inputs, plot, json),
        Command::Flexplane { which: FlexplaneCommand::Bulk(args) } => bulk_cmd(&args),
        Command::Flexplane { which: FlexplaneCommand::Rpc(args) } => rpc_cmd(&args),
        Command::Bolt { which: BoltCommand::Utilisation(args) } => bolt_utilisation_cmd(&args),
        Command::Bolt { which: BoltCommand::Arrival(args) } => bolt_dumbbell_cmd(DumbbellEvent::Arrival, &args),
        Command::Bolt { which: BoltCommand::Completion(args) } => bolt_dumbbell_cmd(DumbbellEvent::Completion, &args),
        Command::Bolt { which: BoltCommand::Reroute(args) } => bolt_dumbbell_cmd(DumbbellEvent::Reroute, &args),
        Command::Pl2 { which: Pl2Command::Incast(args) } => pl2_incast_cmd(&args),
        Command::Pl2 { which: Pl2Command::Outcast(args) } => pl2_outcast_cmd(&args),
        Command::Pl2 { which: Pl2Command::Rpc(args) } => pl2_rpc_cmd(&args),
        Command::Report {
            out,
            synth,
            verilog,
            gen_configs,
            protocols,
            buffers,
            packets,
            bench_cycles,
            fuzz_frames,
            ack_policy_buffers,
            flexplane_seconds,
            rpc_seconds,
            readme,
            from_json,
            setup,
        } => match from_json {
            Some(json) => report::render_saved(&json, &out, readme.as_deref()),
            None => {
                let r = report::ReportRequest {
                    out: &out,
                    verilog: &verilog,
                    gen_configs: &gen_configs,
                    synth,
                    protocols: &protocols,
                    buffers: &buffers,
                    ack_policy_buffers: &ack_policy_buffers,
                    packets,
                    bench_cycles,
                    fuzz_frames,
                    setup: &setup,
                    flexplane_seconds,
                    rpc_seconds,
                    readme: readme.as_deref(),
                };
                report::report(&r)
            }
        },
        Command::Configs => {
            for c in CONFIGS {
                println!("{:<10} messages {:>4}  datapath {} bits", c.name, c.messages, c.datapath_bits);
            }
            for c in SWITCH_CONFIGS {
                println!("{:<10} {}", c.name, c.describe());
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
