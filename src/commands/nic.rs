//! The commands that run one whole NIC: `latency`, `throughput`, `replay`, `fuzz`, `bench`.

use crate::output::print_json;
use crate::params;
use nanotransport_hdl::configs::Protocol;
use nanotransport_sim::scenarios::Direction;
use nanotransport_sim::whole_nic::WholeNic;
use std::path::{Path, PathBuf};

/// The whole NIC a command runs (`latency`, `throughput`, `replay`, `fuzz`): its protocol and/or
/// configuration, and register writes after reset. Resolved once by [`NicArgs::resolve`].
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct NicArgs {
    /// Protocol program (default: the configuration's, else ndp)
    #[arg(long, value_enum)]
    pub(crate) protocol: Option<Protocol>,
    /// Whole-NIC configuration: a preset (default: <protocol>-16) or a parameter-set file NAME.toml
    #[arg(long, value_name = "NAME")]
    pub(crate) config: Option<String>,
    /// Set a configuration register before traffic, NAME=VALUE (repeatable; e.g. rtt_pkts=12, rto_cycles=19200, rto_ns=6000, own_ip=10.0.0.2; a time register in ns is converted with the NIC's clock)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub(crate) set: Vec<String>,
}

impl NicArgs {
    /// The NIC (checked against `--protocol`) and the register writes (checked).
    pub(crate) fn resolve(&self) -> Result<(WholeNic, Vec<nanotransport_sim::registers::RegisterWrite>), String> {
        let nic = params::whole_nic(self.protocol, self.config.as_deref())?;
        let writes = nanotransport_sim::registers::parse_sets(&self.set, nic.params())?;
        Ok((nic, writes))
    }
}

pub(crate) fn latency_cmd(nic: &NicArgs, json: bool) -> Result<(), String> {
    use nanotransport_sim::scenarios::{latency_with, CLOCK_GHZ};
    let (config, settings) = nic.resolve()?;
    let protocol = config.protocol();
    let r = latency_with(&config, &settings)?;
    let clock = config.params().clock;
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
            "clock_ghz": clock.hz() as f64 / 1e9,
            "cycles": obj(ours, ot),
            "paper_cycles": obj(paper, pt),
            "extra": {
                "data_in_to_ack_out": r.data_to_ack,
                "rx_first_payload_byte": r.rx_payload,
                "tx_first_payload_byte": r.tx_payload,
            },
        }));
    } else {
        // Ours at the NIC's clock, the thesis' at its 3.2 GHz.
        let (ns, paper_ns) = (|c: u64| clock.ns_of_cycles(c), |c: u64| c as f64 / CLOCK_GHZ);
        println!("{protocol} on {config}, 64-bit datapath, one 16-byte message (80-byte packet) each way");
        println!("first byte in -> first byte out        cycles   ns@{}GHz   paper cycles   paper ns", clock.hz() as f64 / 1e9);
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
            println!("{name:<40} {c:>5} {:>10.2} {p:>13} {:>10.2}{}", ns(c), paper_ns(p), if c <= p { "" } else { "   above the paper" });
        }
        println!("DATA first beat in -> its ACK's first beat out on MAC TX: {} cycles", r.data_to_ack);
        println!("first payload byte in (MAC RX) -> to the CPU: {} cycles", r.rx_payload);
        println!("first payload byte from the CPU -> out on MAC TX: {} cycles", r.tx_payload);
    }
    Ok(())
}

/// `--direction`: `rx` or `tx`, listed in the help.
pub(crate) fn direction_value() -> impl clap::builder::TypedValueParser<Value = Direction> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Direction::ALL.map(|d| d.name()))
        .map(|name| name.parse::<Direction>().expect("a listed direction"))
}

pub(crate) fn throughput_cmd(nic: &NicArgs, direction: Direction, run: (u64, u64), json: bool) -> Result<(), String> {
    let (config, settings) = nic.resolve()?;
    let protocol = config.protocol();
    let r = nanotransport_sim::scenarios::throughput_with(&config, direction, run, &settings)?;
    let clock = config.params().clock;
    // The packet rate at the NIC's own clock (the thesis' rate is `gbps_at_3_2ghz`).
    let mpps = r.packets as f64 / clock.ns_of_cycles(r.cycles) * 1e3;
    let gbps = mpps * r.packet_bytes as f64 * 8.0 / 1e3;
    if json {
        print_json(serde_json::json!({
            "direction": r.direction,
            "packet_bytes": r.packet_bytes,
            "beats_per_packet": r.beats_per_packet,
            "packets": r.packets,
            "cycles": r.cycles,
            "idle_beats": r.idle_beats,
            "beats_per_cycle": r.beats_per_cycle,
            "gbps_at_3_2ghz": r.gbps_at_3_2ghz,
            "clock_mhz": clock.mhz(),
            "mpps_at_nic_clock": mpps,
            "gbps_at_nic_clock": gbps,
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
        if clock != nanotransport_hdl::clock::NicClock::THESIS {
            println!("Mpps, Gb/s at the NIC's {clock:<14}  {mpps:.2}, {gbps:.1}");
        }
        println!("beats per packet                        {}", r.beats_per_packet);
        println!(
            "cycles per packet                       {:.2} (line rate at 64 bits: {})",
            r.cycles as f64 / r.packets as f64,
            r.beats_per_packet
        );
        if direction == Direction::Rx {
            println!("messages delivered {}, ACK/PULL frames sent meanwhile {}", r.messages_done, r.control_frames);
        } else {
            println!("messages completed {}, ACKs from the testbench's model peer {}", r.messages_done, r.control_frames);
        }
    }
    Ok(())
}

/// Arguments of `replay` (the command line's strings, checked by `replay_cmd`).
#[derive(clap::Args, Debug)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    pub(crate) nic: NicArgs,
    /// BDP in packets (register 0x14; default: the register's reset value)
    #[arg(long, value_name = "N")]
    pub(crate) rtt_pkts: Option<u32>,
    /// Capture to replay (pcap, microsecond or nanosecond, or pcapng; link type Ethernet)
    #[arg(long = "in", value_name = "IN.pcap", required_unless_present = "bundle")]
    pub(crate) input: Option<PathBuf>,
    /// Frames the NIC transmits (nanosecond pcap, cycle of the first beat at the NIC's clock)
    #[arg(long, value_name = "OUT.pcap", required_unless_present = "bundle")]
    pub(crate) out: Option<PathBuf>,
    /// Replay a reproducer bundle written by `fuzz` (capture, timed sends, registers) and run
    /// the whole-NIC checker on it; exit status 1 if it finds mismatches
    #[arg(long, value_name = "DIR", conflicts_with_all = ["input", "send", "set", "rtt_pkts", "nic_mac", "nic_ip", "peer_mac"])]
    pub(crate) bundle: Option<PathBuf>,
    /// Run the whole-NIC checker on the replayed run (exit status 1 on mismatches)
    #[arg(long)]
    pub(crate) check: bool,
    /// Messages delivered to the CPU, one JSON object per line
    #[arg(long, value_name = "OUT.jsonl")]
    pub(crate) messages: Option<PathBuf>,
    /// Messages for the CPU to send: a JSON array of {remote_ip, remote_port, local_port, bytes_hex | len, cycle (optional: written from this run cycle on)}
    #[arg(long, value_name = "MSGS.json")]
    pub(crate) send: Option<PathBuf>,
    /// Stop after this many cycles if the NIC is not idle before
    #[arg(long, value_name = "N", default_value_t = nanotransport_sim::replay::DEFAULT_MAX_CYCLES)]
    pub(crate) max_cycles: u64,
    /// The NIC's MAC address (default: the register's reset value, 02:00:00:00:00:01)
    #[arg(long, value_name = "MAC")]
    pub(crate) nic_mac: Option<String>,
    /// The NIC's IPv4 address (default: the register's reset value, 10.0.0.1)
    #[arg(long, value_name = "A.B.C.D")]
    pub(crate) nic_ip: Option<String>,
    /// Next-hop MAC address the NIC sends to (default: the register's reset value, ff:ff:ff:ff:ff:ff)
    #[arg(long, value_name = "MAC")]
    pub(crate) peer_mac: Option<String>,
    /// Drop frames not addressed to the NIC before MAC RX, as a MAC address filter would (default: fed, counted)
    #[arg(long)]
    pub(crate) filter_not_for_nic: bool,
    /// Probability that MAC TX and the CPU read-out are not ready in a cycle (random back-pressure, repeatable by --stall-seed)
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub(crate) stall: f64,
    /// Seed of the back-pressure draws
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub(crate) stall_seed: u64,
    /// Print the report as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn replay_cmd(a: ReplayArgs) -> Result<bool, String> {
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
    let files = ReplayFiles { input: a.input.unwrap_or_default(), output: a.out.unwrap_or_default(), messages: a.messages, send: a.send };
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
        let clock = opts.nic.params().clock;
        println!("stopped: {}{how} after {} cycles ({:.3} us at {clock})", r.stopped, r.cycles, clock.ns_of_cycles(r.cycles) / 1e3);
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

pub(crate) fn print_mismatches(c: &nanotransport_reference::nic_checker::CheckReport) {
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
pub(crate) fn replay_bundle_cmd(dir: &Path, out: Option<PathBuf>, messages: Option<PathBuf>, json: bool) -> Result<bool, String> {
    use nanotransport_sim::replay::*;
    let b = nanotransport_sim::fuzz::replay_bundle(dir)?;
    if let Some(p) = out {
        write_atomically(&p, &output_pcap(&b.outcome.tx_frames, b.clock)?)?;
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
        println!(
            "bundle {} on {}: {} frames in, {} out, {} delivered, {} sent, stopped {} after {} cycles",
            dir.display(),
            r.config,
            r.frames_fed,
            r.frames_out,
            r.messages_delivered,
            r.messages_sent,
            r.stopped,
            r.cycles
        );
        print_mismatches(&b.check);
        println!(
            "{}",
            if reproduced {
                format!("reproduced: the same {} mismatches as the fuzz run", b.recorded.len())
            } else {
                format!("NOT reproduced: the fuzz run recorded {} mismatches", b.recorded.len())
            }
        );
    }
    Ok(b.check.mismatches.is_empty())
}

/// Arguments of `fuzz` (the command line's values, turned into the run's options by
/// [`FuzzArgs::options`]).
#[derive(clap::Args, Debug)]
pub(crate) struct FuzzArgs {
    #[command(flatten)]
    pub(crate) nic: NicArgs,
    /// Start no new message once this many frames were offered to MAC RX
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) packets: u64,
    /// Random seed (printed; default: from the clock)
    #[arg(long, value_name = "S")]
    pub(crate) seed: Option<u64>,
    /// Per-frame loss probability on each link
    #[arg(long, value_name = "P", default_value_t = 0.01)]
    pub(crate) loss: f64,
    /// Per-frame duplication probability towards the NIC
    #[arg(long, value_name = "P", default_value_t = 0.03)]
    pub(crate) duplicate: f64,
    /// Per-DATA-frame trimming probability (NDP, Homa-Tr)
    #[arg(long, value_name = "P", default_value_t = 0.02)]
    pub(crate) trim: f64,
    /// Per-frame probability of a malformed frame towards the NIC
    #[arg(long, value_name = "P", default_value_t = 0.02)]
    pub(crate) malformed: f64,
    /// Largest extra per-frame delay, cycles (reordering)
    #[arg(long, value_name = "CYCLES", default_value_t = 600)]
    pub(crate) jitter: u64,
    /// Leave out the malformed frames whose Ethernet length disagrees with their IPv4 length (trailer, cut short)
    #[arg(long)]
    pub(crate) no_frame_length_faults: bool,
    /// Largest extra delay of a duplicate, cycles, drawn uniformly (default 4000; 140000 with --full-horizon-duplicates)
    #[arg(long, value_name = "CYCLES")]
    pub(crate) duplicate_delay: Option<u64>,
    /// Delay duplicates up to the sender's full retransmission horizon (140 000 cycles) with more messages open; the delivered set must still deliver each message once
    #[arg(long)]
    pub(crate) full_horizon_duplicates: bool,
    /// Bound of the run, cycles
    #[arg(long, value_name = "N", default_value_t = 200_000_000)]
    pub(crate) max_cycles: u64,
    /// Probability that MAC TX and the CPU read-out are not ready in a cycle (random back-pressure; 0 = none)
    #[arg(long, value_name = "P", default_value_t = nanotransport_sim::fuzz::DEFAULT_STALL)]
    pub(crate) stall: f64,
    /// Where to write the reproducer bundle on a mismatch (default: fuzz-repro-<config>-<seed>)
    #[arg(long, value_name = "DIR")]
    pub(crate) repro: Option<PathBuf>,
    /// Print the summary as JSON
    #[arg(long)]
    pub(crate) json: bool,
}

impl FuzzArgs {
    /// The run's options: the configuration resolved, the seed drawn from the clock when not given.
    pub(crate) fn options(&self) -> Result<nanotransport_sim::fuzz::FuzzOptions, String> {
        let config = params::whole_nic(self.nic.protocol, self.nic.config.as_deref())?;
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
        let mut o = nanotransport_sim::fuzz::FuzzOptions::new(&config, self.packets, seed);
        (o.loss, o.duplicate, o.trim, o.malformed, o.jitter) = (self.loss, self.duplicate, self.trim, self.malformed, self.jitter);
        (o.frame_length_faults, o.full_horizon_duplicates, o.duplicate_delay, o.settings, o.max_cycles, o.stall) = (
            !self.no_frame_length_faults,
            self.full_horizon_duplicates,
            self.duplicate_delay,
            self.nic.set.clone(),
            self.max_cycles,
            self.stall,
        );
        Ok(o)
    }
}

pub(crate) fn fuzz_cmd(o: &nanotransport_sim::fuzz::FuzzOptions, repro: Option<PathBuf>, json: bool) -> Result<bool, String> {
    eprintln!("fuzz {} seed {} packets {}", o.nic, o.seed, o.packets);
    let bar = indicatif::ProgressBar::new(o.packets);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} frames in ({per_sec}, eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
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

pub(crate) fn bench_cosim(json: bool, cycles: u64) -> Result<(), String> {
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
        println!("{:<20} {:>8} {:>14.0} {:>17.0} {:>7.1}", b.block, b.cycles, b.native_cycles_per_s, b.verilator_cycles_per_s, b.ratio);
        println!("(both runs raised {} timeouts)", b.timeouts);
    }
    Ok(())
}

pub(crate) fn bench_nic(config: &str, json: bool, cycles: u64, seed: u64) -> Result<(), String> {
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
            b.config,
            b.cycles,
            b.wall_s,
            b.verilator_cycles_per_s,
            b.cycles as f64 / b.cpu_s,
            b.mac_tx_load,
            b.mac_rx_load,
            b.messages_queued,
            b.messages_delivered,
            b.messages_intact,
            b.seed
        );
    }
    Ok(())
}
