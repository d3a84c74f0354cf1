//! 4-state cleanliness of every whole-NIC preset: no X or Z on any output port after reset when
//! memories start uninitialised, the same behaviour as the 2-state model, and every `ready`
//! independent of the data it accepts.
//!
//! Verilator is 2-state: every bit it simulates is 0 or 1 and it starts memories at zero, so X
//! never appears in the lockstep and scenario tests. A 4-state simulator (Icarus here; Questa or
//! xsim in a user's flow) starts every memory word at X unless something initialises it, and a
//! bus model may drive X on the data of an idle stream. Three tests:
//!
//! * `no_x_on_any_output_after_reset`: the shipped `verilog-out/<preset>/nt_<preset>_nic.v` of
//!   the 16-message preset of every protocol and of the largest preset (`homa-tr-128`: the most
//!   state, 128-entry tables; the other sizes are the same code with other parameters), compiled with Icarus (`iverilog -g2012`) beside a generated
//!   testbench. Reset for 4 cycles; from cycle 20 every data input (`tdata`, `tkeep`, `tlast`,
//!   AXI4-Lite addresses, data and strobes) is X whenever its valid is low, as a bus model drives
//!   idle data; 4 600 idle cycles (the receive path's 4 096-cycle init after reset is among
//!   them), then a short traffic phase (two CPU messages, DATA frames of
//!   two messages, a trimmed frame, an ACK, AXI4-Lite reads and a write, output streams stalled
//!   one cycle in four), then idle again to cycle 6 100. Every output port is checked with
//!   `$isunknown` in every cycle from the end of reset; the first offending cycle and the number
//!   of X cycles of each port are printed, and there must be none. The traffic must have its
//!   effect (every beat taken, both complete messages delivered, frames sent, registers read
//!   back). Then the inputs Icarus applied are replayed (X as 0) into the Verilator model of the
//!   same file and every output is compared in every cycle: a 4-state simulator takes the `else`
//!   branch of an `if` whose condition is X, so an X that never reaches a port can still change
//!   what the NIC does (it did: a receive generation read from uninitialised memory made every
//!   message undeliverable in Icarus while every output stayed clean).
//!
//!   No memory is initialised: the testbench has no `$readmemh`, and the test checks that every
//!   `initial` block of the NIC is a flip-flop's power-up value (`q = 0`, which rust-hdl gives
//!   every flip-flop, as an FPGA's configuration does) — rust-hdl's RAMs carry none. So the test
//!   covers X from memories and from the inputs, not flip-flops without a reset.
//! * `ready_never_depends_on_data`: the same blind spot can hide a `tready` that depends on
//!   `tdata`, so this is checked on the structure: Yosys reads the NIC, runs `proc` and
//!   `flatten`, and selects the input cone of every `*ready` output (`%ci*`, stopping at
//!   flip-flops). No data input (anything but the clock, the reset, valids and readies) may be in
//!   it: a ready depends on registered state and handshake inputs only (the conventions in `hdl/lib.rs`: `tready` never
//!   depends on `tdata`). Yosys takes 10–45 s per whole NIC, so it runs on the three 16-message
//!   presets, one per protocol (the larger sizes are the same code with other parameters).
//! * `the_cone_check_catches_a_data_dependent_ready`: the same check on a small fixture whose
//!   ready depends on `tdata` directly and through an `if`, and on a register loaded from `tdata`
//!   (allowed); it must flag exactly the first two.
//!
//! Measured on 2 shared cores, in a cold run of the whole suite: the X test 78 s (4 presets, two at
//! a time in Icarus), the ready cones 29 s (Yosys 10–25 s per preset).

use nanotransport_hdl::configs::CONFIGS;
use nanotransport_hdl::nic::status_bank::REGISTER_MAP_VERSION;
use nanotransport_sim::cosim::verilated::{model_spec, PortId, VerilatedModel};
use nanotransport_sim::nic::{frame_beats, message_words};
use nanotransport_sim::scenarios::{ack_for, data_frame_for, trimmed, NIC_IP, PEER_IP};
use nanotransport_testbenches::nic_preset;
use nanotransport_testbenches::repo_root;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

/// Cycles with `reset` high.
const RESET_CYCLES: u64 = 4;
/// From this cycle, data inputs are X while their valid is low.
const X_FROM: u64 = 20;
/// First cycle of the traffic phase.
const TRAFFIC_FROM: u64 = 4600;
/// Simulated cycles in all.
const TOTAL_CYCLES: u64 = 6100;

#[derive(Clone, Copy, Debug)]
struct Port {
    name: &'static str,
    input: bool,
    width: usize,
}

/// The ports of a whole-NIC top, as its Verilator model was built with them.
fn top_ports(top: &str) -> Vec<Port> {
    let spec = model_spec(top).unwrap_or_else(|e| panic!("{e}"));
    spec.ports.iter().map(|p| Port { name: p.name, input: p.input, width: p.width }).collect()
}

fn decl(p: &Port) -> String {
    if p.width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", p.width - 1)
    }
}

/// One input stream of the testbench: beats `(data, keep, last)`, each with the cycle before which
/// it may not be offered.
struct Stream {
    prefix: &'static str,
    beats: Vec<(u64, u64, bool, u64)>,
}

/// AXI4-Lite transactions: (cycle, write?, byte address, data).
type Axil = Vec<(u64, bool, u64, u32)>;

/// The traffic of the short valid phase for `preset`.
fn traffic(preset: &str) -> (Stream, Stream, Axil) {
    let proto = nic_preset(preset).protocol().ip_protocol();
    let t = TRAFFIC_FROM;
    // CPU: a 100-byte and a 3000-byte message.
    let mut cpu = Stream { prefix: "s_axis_msg", beats: vec![] };
    for (k, len) in [100usize, 3000].into_iter().enumerate() {
        let payload: Vec<u8> = (0..len).map(|i| (i * 7 + k) as u8).collect();
        for (i, (d, kp, l)) in message_words(len as u16, None, 0, PEER_IP, 7000 + k as u16, 80, &payload).into_iter().enumerate() {
            cpu.beats.push((d, kp as u64, l, if i == 0 { t + 40 * k as u64 } else { 0 }));
        }
    }
    // MAC: one single-packet message, a two-packet message, a trimmed packet of a third, and an
    // ACK of the NIC's first packet (tx_msg_id 0, slot 0 from power-up).
    let m1: Vec<u8> = (0..200).map(|i| i as u8).collect();
    let m2: Vec<u8> = (0..1500).map(|i| (i * 3) as u8).collect();
    let m3: Vec<u8> = (0..2048).map(|i| (i * 5) as u8).collect();
    let sent: Vec<u8> = (0..100).map(|i| (i * 7) as u8).collect();
    let frames = [
        data_frame_for(proto, PEER_IP, NIC_IP, 9000, 81, 7, &m1, 0),
        data_frame_for(proto, PEER_IP, NIC_IP, 9001, 81, 8, &m2, 0),
        data_frame_for(proto, PEER_IP, NIC_IP, 9001, 81, 8, &m2, 1),
        trimmed(&data_frame_for(proto, PEER_IP, NIC_IP, 9002, 81, 9, &m3, 1)),
        ack_for(&data_frame_for(proto, NIC_IP, PEER_IP, 80, 7000, 0, &sent, 0)),
    ];
    let mut rx = Stream { prefix: "s_axis_rx", beats: vec![] };
    for (k, f) in frames.iter().enumerate() {
        for (i, (d, kp, l)) in frame_beats(f).into_iter().enumerate() {
            rx.beats.push((d, kp, l, if i == 0 { t + 10 + 60 * k as u64 } else { 0 }));
        }
    }
    // Registers: identification, a configuration write (own_ip, its reset value), read back.
    let axil = vec![(t, false, 0x400, 0), (t + 20, true, 0x10, NIC_IP), (t + 40, false, 0x10, 0)];
    (cpu, rx, axil)
}

/// The generated testbench around `top` (see the module documentation).
fn testbench(top: &str, ports: &[Port], preset: &str) -> String {
    let (cpu, rx, axil) = traffic(preset);
    let streams = [&rx, &cpu];
    let mut v = String::new();
    writeln!(v, "`timescale 1ns/1ps\nmodule nt_four_state_tb;").unwrap();
    for p in ports {
        writeln!(v, "  {} {}{};", if p.input { "reg" } else { "wire" }, decl(p), p.name).unwrap();
    }
    let conns: Vec<String> = ports.iter().map(|p| format!(".{0}({0})", p.name)).collect();
    writeln!(v, "  {top} dut({});", conns.join(", ")).unwrap();

    // Classify every input: an unknown one must be given a role here.
    let stream_of = |name: &str| streams.iter().position(|s| name.starts_with(&format!("{}_t", s.prefix)));
    let mut drive_x = vec![]; // data inputs of AXI4-Lite channels: (name, channel valid)
    for p in ports.iter().filter(|p| p.input) {
        let n = p.name;
        let known = n == "clock"
            || n == "reset"
            || stream_of(n).is_some()
            || ["m_axis_tx_tready", "m_axis_msg_tready", "done_ready", "s_axil_bready", "s_axil_rready"].contains(&n)
            || ["s_axil_awvalid", "s_axil_wvalid", "s_axil_arvalid"].contains(&n);
        if ["s_axil_awaddr"].contains(&n) {
            drive_x.push((n, "s_axil_awvalid"));
        } else if ["s_axil_wdata", "s_axil_wstrb"].contains(&n) {
            drive_x.push((n, "s_axil_wvalid"));
        } else if n == "s_axil_araddr" {
            drive_x.push((n, "s_axil_arvalid"));
        } else {
            assert!(known, "{top}: input {n} has no role in the 4-state testbench; add one");
        }
    }

    // Stimulus tables (testbench memories, filled here; the DUT's memories stay uninitialised).
    for (k, s) in streams.iter().enumerate() {
        let n = s.beats.len();
        writeln!(
            v,
            "  reg [63:0] st{k}_d [0:{}]; reg [7:0] st{k}_k [0:{}]; reg st{k}_l [0:{}]; integer st{k}_t [0:{}];",
            n - 1,
            n - 1,
            n - 1,
            n - 1
        )
        .unwrap();
        writeln!(v, "  integer st{k}_i = 0, st{k}_taken = 0;").unwrap();
        writeln!(v, "  initial begin").unwrap();
        for (i, (d, kp, l, t)) in s.beats.iter().enumerate() {
            writeln!(v, "    st{k}_d[{i}] = 64'h{d:016x}; st{k}_k[{i}] = 8'h{kp:02x}; st{k}_l[{i}] = {}; st{k}_t[{i}] = {t};", *l as u8)
                .unwrap();
        }
        writeln!(v, "  end").unwrap();
    }
    let na = axil.len();
    writeln!(v, "  integer ax_t [0:{}]; reg ax_w [0:{}]; reg [11:0] ax_a [0:{}]; reg [31:0] ax_d [0:{}];", na - 1, na - 1, na - 1, na - 1)
        .unwrap();
    writeln!(v, "  initial begin").unwrap();
    for (i, (t, w, a, d)) in axil.iter().enumerate() {
        writeln!(v, "    ax_t[{i}] = {t}; ax_w[{i}] = {}; ax_a[{i}] = 12'h{a:03x}; ax_d[{i}] = 32'h{d:08x};", *w as u8).unwrap();
    }
    writeln!(v, "  end").unwrap();
    writeln!(v, "  integer ax_i = 0; reg ax_addr_done = 0, ax_data_done = 0; integer bresps = 0, rresps = 0;").unwrap();
    writeln!(v, "  integer tx_beats = 0, tx_frames = 0, msg_beats = 0, msg_frames = 0, ids = 0, dones = 0;").unwrap();
    for p in ports.iter().filter(|p| !p.input) {
        writeln!(v, "  integer xf_{0} = -1, xc_{0} = 0;", p.name).unwrap();
    }

    writeln!(v, "  integer cycle;\n  initial begin\n    clock = 0;").unwrap();
    writeln!(v, "    for (cycle = 0; cycle < {TOTAL_CYCLES}; cycle = cycle + 1) begin").unwrap();
    writeln!(v, "      reset = cycle < {RESET_CYCLES};").unwrap();
    // Output streams stall one cycle in four; AXI4-Lite responses are always taken.
    writeln!(v, "      m_axis_tx_tready = (cycle % 4) != 3; m_axis_msg_tready = (cycle % 4) != 1; done_ready = (cycle % 4) != 2;").unwrap();
    writeln!(v, "      s_axil_bready = 1; s_axil_rready = 1;").unwrap();
    for (k, s) in streams.iter().enumerate() {
        let p = s.prefix;
        writeln!(v, "      {p}_tvalid = (st{k}_i < {n}) && (cycle >= st{k}_t[st{k}_i < {n} ? st{k}_i : 0]);", n = s.beats.len()).unwrap();
        writeln!(
            v,
            "      if ({p}_tvalid) begin {p}_tdata = st{k}_d[st{k}_i]; {p}_tkeep = st{k}_k[st{k}_i]; {p}_tlast = st{k}_l[st{k}_i]; end"
        )
        .unwrap();
        writeln!(v, "      else if (cycle >= {X_FROM}) begin {p}_tdata = 'x; {p}_tkeep = 'x; {p}_tlast = 1'bx; end").unwrap();
        writeln!(v, "      else begin {p}_tdata = 0; {p}_tkeep = 0; {p}_tlast = 0; end").unwrap();
    }
    writeln!(v, "      s_axil_awvalid = 0; s_axil_wvalid = 0; s_axil_arvalid = 0;").unwrap();
    writeln!(v, "      if (ax_i < {na} && cycle >= ax_t[ax_i < {na} ? ax_i : 0]) begin").unwrap();
    writeln!(v, "        if (ax_w[ax_i]) begin s_axil_awvalid = !ax_addr_done; s_axil_wvalid = !ax_data_done; end").unwrap();
    writeln!(v, "        else s_axil_arvalid = 1;").unwrap();
    writeln!(v, "      end").unwrap();
    for (n, valid) in &drive_x {
        let value = match *n {
            "s_axil_awaddr" | "s_axil_araddr" => "ax_a[ax_i]",
            "s_axil_wdata" => "ax_d[ax_i]",
            _ => "4'hf",
        };
        writeln!(v, "      if ({valid}) {n} = {value}; else if (cycle >= {X_FROM}) {n} = 'x; else {n} = 0;").unwrap();
    }
    writeln!(v, "      #1;").unwrap();
    // Checks: every output, every cycle from the end of reset (sampled where the clock edge
    // samples them).
    writeln!(v, "      if (cycle >= {RESET_CYCLES}) begin").unwrap();
    for p in ports.iter().filter(|p| !p.input) {
        writeln!(
            v,
            "        if ($isunknown({0})) begin if (xf_{0} < 0) begin xf_{0} = cycle; $display(\"XFIRST {0} %0d %b\", cycle, {0}); end xc_{0} = xc_{0} + 1; end",
            p.name
        )
        .unwrap();
    }
    writeln!(v, "      end").unwrap();
    // The cycle's inputs and outputs, for the comparison with Verilator.
    let traced: Vec<&Port> = ports.iter().filter(|p| p.name != "clock").collect();
    let fmt = vec!["%h"; traced.len()].join(" ");
    let args: Vec<&str> = traced.iter().map(|p| p.name).collect();
    writeln!(v, "      $display(\"T %0d {fmt}\", cycle, {});", args.join(", ")).unwrap();
    // Handshakes of this cycle (=== 1: an X ready does not count as taken).
    for (k, s) in streams.iter().enumerate() {
        writeln!(
            v,
            "      if ({p}_tvalid && {p}_tready === 1'b1) begin st{k}_i = st{k}_i + 1; st{k}_taken = st{k}_taken + 1; end",
            p = s.prefix
        )
        .unwrap();
    }
    writeln!(v, "      if (s_axil_awvalid && s_axil_awready === 1'b1) ax_addr_done = 1;").unwrap();
    writeln!(v, "      if (s_axil_wvalid && s_axil_wready === 1'b1) ax_data_done = 1;").unwrap();
    writeln!(v, "      if (ax_addr_done && ax_data_done) begin ax_addr_done = 0; ax_data_done = 0; ax_i = ax_i + 1; end").unwrap();
    writeln!(v, "      if (s_axil_arvalid && s_axil_arready === 1'b1) ax_i = ax_i + 1;").unwrap();
    writeln!(v, "      if (s_axil_bvalid === 1'b1) begin bresps = bresps + 1; $display(\"BRESP %0d\", s_axil_bresp); end").unwrap();
    writeln!(v, "      if (s_axil_rvalid === 1'b1) begin rresps = rresps + 1; $display(\"RDATA %0d %h\", s_axil_rresp, s_axil_rdata); end")
        .unwrap();
    writeln!(v, "      if (m_axis_tx_tvalid === 1'b1 && m_axis_tx_tready) begin tx_beats = tx_beats + 1; if (m_axis_tx_tlast === 1'b1) tx_frames = tx_frames + 1; end").unwrap();
    writeln!(v, "      if (m_axis_msg_tvalid === 1'b1 && m_axis_msg_tready) begin msg_beats = msg_beats + 1; if (m_axis_msg_tlast === 1'b1) msg_frames = msg_frames + 1; end").unwrap();
    writeln!(v, "      if (msg_id_valid === 1'b1) ids = ids + 1;").unwrap();
    writeln!(v, "      if (done_valid === 1'b1 && done_ready) dones = dones + 1;").unwrap();
    writeln!(v, "      clock = 1; #1; clock = 0;").unwrap();
    writeln!(v, "    end").unwrap();
    for p in ports.iter().filter(|p| !p.input) {
        writeln!(v, "    if (xc_{0} > 0) $display(\"XCOUNT {0} %0d %0d\", xf_{0}, xc_{0});", p.name).unwrap();
    }
    writeln!(
        v,
        "    $display(\"STATS rx_taken=%0d cpu_taken=%0d tx_beats=%0d tx_frames=%0d msg_beats=%0d msg_frames=%0d ids=%0d dones=%0d bresps=%0d rresps=%0d\", st0_taken, st1_taken, tx_beats, tx_frames, msg_beats, msg_frames, ids, dones, bresps, rresps);"
    )
    .unwrap();
    writeln!(v, "    $finish;\n  end\nendmodule").unwrap();
    let _ = cpu.prefix;
    v
}

/// What one preset's 4-state run found.
struct Run {
    preset: String,
    seconds: f64,
    /// Port → (first X cycle, X cycles).
    x: BTreeMap<String, (u64, u64)>,
    stats: BTreeMap<String, u64>,
    rdata: Vec<(u32, u32)>,
    bresp: Vec<u32>,
    first_lines: Vec<String>,
    /// The first cycle and port where Verilator (2-state, memories zero) saw another output.
    divergence: Option<String>,
}

fn run_preset(preset: &str, dir: &Path) -> Run {
    let top = nic_preset(preset).module();
    let file = repo_root().join("verilog-out").join(preset).join(format!("{top}.v"));
    let verilog = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert!(!verilog.contains("$readmem"), "{}: a memory is initialised from a file", file.display());
    // Every `initial` block must belong to a flip-flop (`q = 0`), never to a memory.
    for (i, _) in verilog.match_indices("initial begin") {
        let body = &verilog[i..i + verilog[i..].find("end").unwrap()];
        assert!(
            body.lines().skip(1).all(|l| l.trim().is_empty() || l.trim().starts_with("q = ")),
            "{}: an initial block that is not a flip-flop's power-up value: {body}",
            file.display()
        );
    }
    let ports = top_ports(&top);
    let tb = dir.join(format!("{preset}_tb.v"));
    std::fs::write(&tb, testbench(&top, &ports, preset)).unwrap();
    let exe = dir.join(format!("{preset}.vvp"));
    let start = std::time::Instant::now();
    let out = Command::new("iverilog")
        .args(["-g2012", "-s", "nt_four_state_tb", "-o"])
        .arg(&exe)
        .arg(&tb)
        .arg(&file)
        .output()
        .expect("iverilog (Icarus Verilog) not found: run scripts/setup-tools.sh");
    assert!(out.status.success(), "{preset}: iverilog failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new("vvp").arg("-n").arg(&exe).output().expect("vvp not found");
    assert!(out.status.success(), "{preset}: vvp failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let mut run = Run {
        preset: preset.to_string(),
        seconds,
        x: BTreeMap::new(),
        stats: BTreeMap::new(),
        rdata: vec![],
        bresp: vec![],
        first_lines: vec![],
        divergence: None,
    };
    for line in stdout.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.first().copied() {
            Some("XCOUNT") => {
                run.x.insert(t[1].to_string(), (t[2].parse().unwrap(), t[3].parse().unwrap()));
            }
            Some("XFIRST") => run.first_lines.push(line.to_string()),
            Some("STATS") => {
                for kv in &t[1..] {
                    let (k, v) = kv.split_once('=').unwrap();
                    run.stats.insert(k.to_string(), v.parse().unwrap());
                }
            }
            Some("RDATA") => run.rdata.push((t[1].parse().unwrap(), u32::from_str_radix(t[2], 16).unwrap_or(u32::MAX))),
            Some("BRESP") => run.bresp.push(t[1].parse().unwrap()),
            _ => {}
        }
    }
    assert!(!run.stats.is_empty(), "{preset}: the testbench did not finish:\n{stdout}");
    if run.x.is_empty() {
        run.divergence = compare_with_verilator(&top, &ports, &stdout);
    }
    run
}

/// Replays the inputs Icarus applied (X as 0) into the Verilator model of the same file and
/// compares every output in every cycle: a difference means the 4-state run took another path
/// (an X hidden in a condition, or behaviour that depends on memory contents at power-up).
fn compare_with_verilator(top: &str, ports: &[Port], icarus: &str) -> Option<String> {
    let mut model = VerilatedModel::new(top).unwrap_or_else(|e| panic!("{e}"));
    let traced: Vec<&Port> = ports.iter().filter(|p| p.name != "clock").collect();
    let ids: Vec<PortId> = traced.iter().map(|p| model.port_or_panic(p.name)).collect();
    let mut cycles = 0;
    for line in icarus.lines().filter(|l| l.starts_with("T ")) {
        let t: Vec<&str> = line.split_whitespace().collect();
        let cycle = t[1];
        let values: Vec<u64> = t[2..].iter().map(|h| u64::from_str_radix(&h.replace(['x', 'X', 'z', 'Z'], "0"), 16).unwrap()).collect();
        for (k, _) in traced.iter().enumerate().filter(|(_, p)| p.input) {
            model.set(ids[k], values[k]);
        }
        model.eval();
        for (k, p) in traced.iter().enumerate().filter(|(_, p)| !p.input) {
            if model.get(ids[k]) != values[k] {
                return Some(format!("cycle {cycle}: {} is {:#x} in Icarus, {:#x} in Verilator", p.name, values[k], model.get(ids[k])));
            }
        }
        model.tick();
        cycles += 1;
    }
    assert_eq!(cycles, TOTAL_CYCLES, "{top}: cycles traced");
    None
}

/// Runs `f` over `items` on up to two threads (the Icarus and Yosys runs are single-threaded).
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(vec![]);
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(2);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(i, _)| *i);
    r.into_iter().map(|(_, r)| r).collect()
}

fn whole_nic_presets() -> Vec<&'static str> {
    CONFIGS.iter().filter(|c| c.protocol.is_some()).map(|c| c.name).collect()
}

/// The presets the 4-state run covers: each protocol's smallest and the largest NIC.
fn four_state_presets() -> Vec<&'static str> {
    let all = whole_nic_presets();
    let mut chosen: Vec<&'static str> = all.iter().copied().filter(|p| p.ends_with("-16")).collect();
    chosen.push("homa-tr-128");
    assert!(chosen.iter().all(|p| all.contains(p)), "a chosen preset is gone: {chosen:?} of {all:?}");
    chosen
}

#[test]
fn no_x_on_any_output_after_reset() {
    let presets = four_state_presets();
    assert_eq!(presets.len(), 4, "expected one 16-message preset per protocol and homa-tr-128, found {presets:?}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let start = std::time::Instant::now();
    let runs = parallel(&presets, |p| run_preset(p, &dir));
    let mut failures = vec![];
    for r in &runs {
        let s = &r.stats;
        println!(
            "{}: {:.1} s, {} X ports; traffic: {} RX beats and {} CPU words taken, {} MAC TX frames, {} CPU messages, {} msg_id, reads {:x?}",
            r.preset, r.seconds, r.x.len(), s["rx_taken"], s["cpu_taken"], s["tx_frames"], s["msg_frames"], s["ids"], r.rdata
        );
        for (port, (first, count)) in &r.x {
            println!("  {port}: X from cycle {first}, {count} cycles");
            failures.push(format!("{} {port} (first X at cycle {first}, {count} cycles)", r.preset));
        }
        for l in r.first_lines.iter().take(3) {
            println!("  {l}");
        }
        if let Some(d) = &r.divergence {
            println!("  differs from Verilator: {d}");
            failures.push(format!("{} differs from Verilator at {d}", r.preset));
        }
    }
    println!("all presets: {:.1} s", start.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "X on output ports after reset, or another behaviour than Verilator's: {failures:?}");
    // The traffic phase did what it meant to: every beat taken, the messages written and
    // delivered, frames sent, the registers answered.
    let (cpu, rx, _) = traffic("ndp-16");
    for r in &runs {
        let s = &r.stats;
        assert_eq!(s["rx_taken"], rx.beats.len() as u64, "{}: every MAC RX beat taken", r.preset);
        assert_eq!(s["cpu_taken"], cpu.beats.len() as u64, "{}: every CPU word taken", r.preset);
        assert_eq!(s["ids"], 2, "{}: both messages got a tx_msg_id", r.preset);
        assert!(s["tx_frames"] >= 2, "{}: frames sent", r.preset);
        assert_eq!(s["msg_frames"], 2, "{}: the two complete messages delivered", r.preset);
        assert_eq!(r.rdata, vec![(0, REGISTER_MAP_VERSION), (0, NIC_IP)], "{}: register reads", r.preset);
        assert_eq!(r.bresp, vec![0], "{}: register write", r.preset);
    }
}

/// Flip-flop cell types at which an input cone stops (after `proc`).
const FLIP_FLOPS: &str = "$dff,$dffe,$adff,$adffe,$sdff,$sdffe,$sdffce,$dffsr,$dffsre,$aldff,$aldffe";

/// Input ports that carry data: everything but the clock, the reset, valids and readies.
fn is_data_input(p: &Port) -> bool {
    p.input && p.name != "clock" && p.name != "reset" && !p.name.ends_with("valid") && !p.name.ends_with("ready")
}

/// For every output of `top` ending in `ready`: the input ports in its combinational input cone
/// (Yosys: read, `proc`, `flatten`, `select o:READY %ci*` stopping at flip-flops).
fn ready_cones(file: &Path, top: &str, ports: &[Port], dir: &Path) -> BTreeMap<String, Vec<String>> {
    let readies: Vec<&Port> = ports.iter().filter(|p| !p.input && p.name.ends_with("ready")).collect();
    assert!(!readies.is_empty(), "{top}: no ready outputs");
    let mut script = format!("read_verilog {}\nhierarchy -check -top {top}\nproc\nflatten\n", file.display());
    for r in &readies {
        let list = dir.join(format!("{top}.{}.cone", r.name));
        writeln!(script, "tee -q -o {} select -list o:{} %ci*:-{FLIP_FLOPS} i:* %i", list.display(), r.name).unwrap();
    }
    let ys = dir.join(format!("{top}.ys"));
    std::fs::write(&ys, script).unwrap();
    let out = Command::new("yosys").arg("-q").arg("-s").arg(&ys).output().expect("yosys not found: run scripts/setup-tools.sh");
    assert!(out.status.success(), "{top}: yosys failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    readies
        .iter()
        .map(|r| {
            let list = std::fs::read_to_string(dir.join(format!("{top}.{}.cone", r.name))).unwrap();
            let inputs = list.lines().filter_map(|l| l.trim().strip_prefix(&format!("{top}/"))).map(str::to_string).collect();
            (r.name.to_string(), inputs)
        })
        .collect()
}

/// The data inputs in each ready's cone, as `ready ← input` strings.
fn data_in_ready_cones(file: &Path, top: &str, ports: &[Port], dir: &Path) -> Vec<String> {
    let data: Vec<&str> = ports.iter().filter(|p| is_data_input(p)).map(|p| p.name).collect();
    let mut bad = vec![];
    for (ready, inputs) in ready_cones(file, top, ports, dir) {
        println!("  {top}: {ready} ← {}", if inputs.is_empty() { "registers only".to_string() } else { inputs.join(", ") });
        bad.extend(inputs.iter().filter(|i| data.contains(&i.as_str())).map(|i| format!("{top}: {ready} ← {i}")));
    }
    bad
}

#[test]
fn ready_never_depends_on_data() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let presets: Vec<&str> = CONFIGS.iter().filter(|c| c.protocol.is_some() && c.messages == 16).map(|c| c.name).collect();
    assert_eq!(presets.len(), 3, "one 16-message preset per protocol: {presets:?}");
    let start = std::time::Instant::now();
    let bad: Vec<String> = parallel(&presets, |preset| {
        let top = nic_preset(preset).module();
        let file = repo_root().join("verilog-out").join(preset).join(format!("{top}.v"));
        let ports = top_ports(&top);
        let t = std::time::Instant::now();
        let bad = data_in_ready_cones(&file, &top, &ports, &dir);
        println!("{preset}: {:.1} s", t.elapsed().as_secs_f64());
        bad
    })
    .into_iter()
    .flatten()
    .collect();
    println!("all presets: {:.1} s", start.elapsed().as_secs_f64());
    assert!(bad.is_empty(), "ready outputs depending on data inputs: {bad:?}");
}

#[test]
fn the_cone_check_catches_a_data_dependent_ready() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("nt_ready_fixture.v");
    std::fs::write(
        &file,
        "module nt_ready_fixture(clock, s_axis_a_tdata, s_axis_a_tvalid, s_axis_a_tready, s_axis_b_tdata, s_axis_b_tvalid, s_axis_b_tready, s_axis_c_tdata, s_axis_c_tvalid, s_axis_c_tready);
    input wire clock;
    input wire [7:0] s_axis_a_tdata;
    input wire s_axis_a_tvalid;
    output reg s_axis_a_tready;
    input wire [7:0] s_axis_b_tdata;
    input wire s_axis_b_tvalid;
    output reg s_axis_b_tready;
    input wire [7:0] s_axis_c_tdata;
    input wire s_axis_c_tvalid;
    output reg s_axis_c_tready;
    reg held;
    always @(posedge clock) held <= s_axis_c_tdata[1] & s_axis_c_tvalid;
    always @(*) begin
        // a: directly from the data
        s_axis_a_tready = s_axis_a_tdata[0] | !s_axis_a_tvalid;
        // b: through a condition (what a 4-state simulator hides)
        s_axis_b_tready = 1'b1;
        if (s_axis_b_tvalid) begin
            if (s_axis_b_tdata[7]) s_axis_b_tready = 1'b0;
        end
        // c: from a register loaded from the data, and its valid: allowed
        s_axis_c_tready = held | s_axis_c_tvalid;
    end
endmodule
",
    )
    .unwrap();
    let port = |name: &'static str, input| Port { name, input, width: if name.ends_with("tdata") { 8 } else { 1 } };
    let ports = [
        port("clock", true),
        port("s_axis_a_tdata", true),
        port("s_axis_a_tvalid", true),
        port("s_axis_a_tready", false),
        port("s_axis_b_tdata", true),
        port("s_axis_b_tvalid", true),
        port("s_axis_b_tready", false),
        port("s_axis_c_tdata", true),
        port("s_axis_c_tvalid", true),
        port("s_axis_c_tready", false),
    ];
    let bad = data_in_ready_cones(&file, "nt_ready_fixture", &ports, &dir);
    assert_eq!(
        bad,
        vec![
            "nt_ready_fixture: s_axis_a_tready ← s_axis_a_tdata".to_string(),
            "nt_ready_fixture: s_axis_b_tready ← s_axis_b_tdata".to_string()
        ]
    );
}
