//! The VCU118 board constraints (`constraints/vcu118.xdc`), checked without Vivado: the board
//! top's ports each on one pin, I/O standards where they belong, clocks only on the board clock
//! and the transceiver reference clock, every slow asynchronous port cut from timing.

use nanotransport_flow::xdc::{parse, PortClock};
use nanotransport_testbenches::repo_root;

fn vcu118() -> String {
    std::fs::read_to_string(repo_root().join("constraints/vcu118.xdc")).unwrap()
}

#[test]
fn vcu118_constraints_pass_the_board_checks() {
    let c = parse(&vcu118()).unwrap();
    c.check_board().unwrap();
    let mut ports: Vec<&str> = c.ports.iter().map(|p| p.port.as_str()).collect();
    ports.sort();
    let mut expected: Vec<String> = ["clk_125mhz_p", "clk_125mhz_n", "reset", "qsfp1_mgt_refclk_0_p", "qsfp1_mgt_refclk_0_n"]
        .iter()
        .chain(&["qsfp1_modsell", "qsfp1_resetl", "qsfp1_lpmode", "qsfp1_modprsl", "qsfp1_intl"])
        .map(|s| s.to_string())
        .chain((0..4).flat_map(|k| ["rx_p", "rx_n", "tx_p", "tx_n"].map(|s| format!("qsfp1_{s}[{k}]"))))
        .chain((0..8).map(|k| format!("led[{k}]")))
        .collect();
    expected.sort();
    assert_eq!(ports, expected);
    assert_eq!(
        c.clocks,
        vec![
            PortClock { name: "clk_125mhz".into(), period_ns: 8.0, port: "clk_125mhz_p".into() },
            PortClock { name: "qsfp1_mgt_refclk_0".into(), period_ns: 6.4, port: "qsfp1_mgt_refclk_0_p".into() },
        ]
    );
}

#[test]
fn the_board_checks_find_a_wrong_file() {
    let good = vcu118();
    let cases = [
        // A pin given twice.
        (good.replace("PACKAGE_PIN AV34", "PACKAGE_PIN AT32"), "pin AT32 given to"),
        // An LED without an I/O standard.
        (good.replace("PACKAGE_PIN BA37 IOSTANDARD LVCMOS12", "PACKAGE_PIN BA37"), "led[7]: no IOSTANDARD"),
        // A transceiver pin with one.
        (
            good.replace("set_property PACKAGE_PIN Y2 ", "set_property -dict {PACKAGE_PIN Y2 IOSTANDARD LVDS} "),
            "a transceiver pin with IOSTANDARD",
        ),
        // The button no longer cut from timing.
        (good.replace("set_false_path -from [get_ports reset]\n", ""), "reset: an asynchronous port without set_false_path"),
        // A constraint on a port that has no pin.
        (
            good.replace("set_output_delay 0 [get_ports {led[*]}]", "set_output_delay 0 [get_ports {leds[*]}]"),
            "leds[*]: named in a constraint but has no pin",
        ),
    ];
    for (text, finding) in cases {
        let err = parse(&text).unwrap().check_board().unwrap_err();
        assert!(err.contains(finding), "expected '{finding}' in:\n{err}");
    }
    // A command the checks do not know is refused, not skipped.
    let err = parse(&format!("{good}\nset_max_delay 2 -from [get_ports reset]\n")).unwrap_err();
    assert!(err.contains("set_max_delay is not one the checks know"), "{err}");
}

/// The board's logic end to end, native and Verilator in lockstep on every cycle: a peer's
/// one-packet messages arrive on the MAC's 512-bit receive stream (with a frame the MAC flags bad
/// between them); the NIC delivers each, the echo sends it back, and the board transmits it to the
/// peer whole on the 512-bit stream (with the NIC's ACK and PULL for the original); the peer's
/// ACKs of the echoes complete them. The one AXI4-Lite port reaches the NIC's registers and the
/// board's.
#[test]
fn board_nic_echoes_every_message_back_to_its_sender() {
    std::thread::Builder::new().stack_size(1 << 30).spawn(board_echo).unwrap().join().unwrap();
}

/// Sends `frame` as 512-bit beats on the CMAC receive stream, one beat a cycle (it has no tready).
fn send_wide(dut: &mut BoardDut, frame: &[u8], bad: bool, sink: &mut WideSink) {
    use nanotransport_sim::cosim::ports::Ports;
    let chunks: Vec<&[u8]> = frame.chunks(64).collect();
    for (k, c) in chunks.iter().enumerate() {
        let mut words = [0u64; 8];
        for (i, b) in c.iter().enumerate() {
            words[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        let keep = if c.len() == 64 { u64::MAX } else { (1u64 << c.len()) - 1 };
        let last = k + 1 == chunks.len();
        let data = dut.port_named("rx_axis_tdata");
        dut.set_words(data, &words);
        dut.set("rx_axis_tkeep", keep);
        dut.set("rx_axis_tlast", last as u64);
        dut.set("rx_axis_tuser", (last && bad) as u64);
        dut.set("rx_axis_tvalid", 1);
        cycle(dut, sink);
    }
    dut.set("rx_axis_tvalid", 0);
    dut.set("rx_axis_tuser", 0);
}

/// Frames the board transmits, assembled from the 512-bit stream.
#[derive(Default)]
struct WideSink {
    frames: Vec<Vec<u8>>,
    partial: Vec<u8>,
}

/// One cycle: checks both models' outputs, takes a transmitted beat (tready is 1), ticks.
fn cycle(dut: &mut BoardDut, sink: &mut WideSink) {
    use nanotransport_sim::cosim::ports::Ports;
    dut.eval();
    if dut.get("tx_axis_tvalid") == 1 {
        let data = dut.port_named("tx_axis_tdata");
        let words = dut.verilated.get_words(data);
        let keep_port = dut.port_named("tx_axis_tkeep");
        let keep = dut.verilated.get_words(keep_port)[0];
        for i in 0..64 {
            if keep >> i & 1 == 1 {
                sink.partial.push((words[i / 8] >> (8 * (i % 8))) as u8);
            }
        }
        if dut.get("tx_axis_tlast") == 1 {
            sink.frames.push(std::mem::take(&mut sink.partial));
        }
    }
    dut.tick();
}

use nanotransport_hdl::board::board_nic::NdpBoardNic;
/// The ndp-16 board NIC, native and Verilator in lockstep.
type BoardDut = nanotransport_sim::cosim::ports::Lockstep<NdpBoardNic<16, 4, 4, 17>>;

fn board_echo() {
    use nanotransport_hdl::pisa::wire::{FLAG_ACK, FLAG_DATA, NDP_IP_PROTOCOL};
    use nanotransport_reference::pisa::{parse, Header};
    use nanotransport_sim::cosim::ports::Ports;
    use nanotransport_sim::scenarios::{ack_for, data_frame, NIC_IP, PEER_IP};
    let nic = nanotransport_testbenches::nic_preset("ndp-16");
    let module = nic.load_board_nic().unwrap();
    let mut dut = BoardDut::new(&module).unwrap();
    let mut sink = WideSink::default();
    dut.set("tx_axis_tready", 1);
    dut.set("reset", 1);
    cycle(&mut dut, &mut sink);
    dut.set("reset", 0);
    // The NIC clears its tables after reset; frames arriving meanwhile would wait in the MAC
    // edge's receive FIFO.
    for _ in 0..nanotransport_sim::nic::RESET_INIT_CYCLES {
        cycle(&mut dut, &mut sink);
    }

    // Messages of 1 byte, a partial last beat, and one whole 1 KiB packet.
    let messages: Vec<Vec<u8>> = [1usize, 77, 500, 1024].iter().map(|&n| (0..n).map(|i| (i * 7 + n) as u8).collect()).collect();
    for (k, m) in messages.iter().enumerate() {
        let frame = data_frame(PEER_IP, NIC_IP, 4000 + k as u16, 80, k as u16, m, 0);
        if k == 2 {
            // A frame the MAC flags bad (its FCS): dropped whole before the NIC.
            send_wide(&mut dut, &frame, true, &mut sink);
        }
        send_wide(&mut dut, &frame, false, &mut sink);
        for _ in 0..40 {
            cycle(&mut dut, &mut sink);
        }
    }
    for _ in 0..3_000 {
        cycle(&mut dut, &mut sink);
    }
    let parsed: Vec<(Header, Vec<u8>)> = sink.frames.iter().map(|f| parse(f, NDP_IP_PROTOCOL).expect("a frame the NIC sent")).collect();
    // NDP's receiver acknowledges each packet and pulls (the first ACK and PULL in one frame).
    let acks = parsed.iter().filter(|(h, _)| h.flags & FLAG_ACK != 0).count();
    let echoes: Vec<&(Header, Vec<u8>)> = parsed.iter().filter(|(h, _)| h.flags & FLAG_DATA != 0).collect();
    assert_eq!(acks, messages.len(), "the NIC acknowledges each message once");
    assert_eq!(echoes.len(), messages.len(), "each message is sent back once");
    for (k, m) in messages.iter().enumerate() {
        let port = 4000 + k as u16;
        let (h, payload) = echoes.iter().find(|(h, _)| h.dst_context == port).unwrap_or_else(|| panic!("no echo to port {port}"));
        assert_eq!((h.src_ip, h.dst_ip, h.src_context), (NIC_IP, PEER_IP, 80), "echo {k} addressed back to its sender");
        assert_eq!(h.msg_len as usize, m.len());
        assert_eq!(&payload[..m.len()], &m[..], "echo {k} carries the message");
    }
    assert_eq!(dut.get("rx_frame_count"), messages.len() as u64);
    assert_eq!(dut.get("rx_bad_frame_count"), 1);
    assert_eq!(dut.get("echoed_count"), messages.len() as u64);
    assert_eq!(dut.get("tx_frame_count"), sink.frames.len() as u64, "the edge counts every frame sent");
    assert_eq!(dut.get("rx_overflow_count") + dut.get("tx_overflow_count") + dut.get("malformed_count"), 0);

    // The peer acknowledges each echo: every send completes.
    let echo_frames: Vec<Vec<u8>> =
        sink.frames.iter().filter(|f| parse(f, NDP_IP_PROTOCOL).is_ok_and(|(h, _)| h.flags & FLAG_DATA != 0)).cloned().collect();
    for f in &echo_frames {
        send_wide(&mut dut, &ack_for(f), false, &mut sink);
        for _ in 0..40 {
            cycle(&mut dut, &mut sink);
        }
    }
    for _ in 0..500 {
        cycle(&mut dut, &mut sink);
    }
    assert_eq!(dut.get("completed_count"), messages.len() as u64, "every echo completed");
    assert_eq!(dut.get("abandoned_count"), 0);

    // Registers over the one AXI4-Lite port: the NIC's below 0x800, the board's above.
    use nanotransport_hdl::board::board_registers::{BOARD_MAP_VERSION, BOARD_REGISTER_BASE, BOARD_REGISTER_NAMES};
    use nanotransport_sim::cosim::axil::{axil_read, axil_write};
    let board = |name: &str| BOARD_REGISTER_BASE + 4 * BOARD_REGISTER_NAMES.iter().find(|r| r.1 == name).unwrap().0 as u64;
    for name in ["rx_frame_count", "rx_bad_frame_count", "tx_frame_count", "echoed_count", "completed_count", "malformed_count"] {
        let expected = dut.get(name);
        assert_eq!(axil_read(&mut dut, board(name)), (expected, 0), "board register {name}");
    }
    assert_eq!(axil_read(&mut dut, board("board_map_version")), (BOARD_MAP_VERSION as u64, 0));
    dut.set("link_up", 1);
    assert_eq!(axil_read(&mut dut, board("link_up")), (1, 0));
    assert_eq!(axil_read(&mut dut, 0x840), (0, 2), "past the board registers: SLVERR");
    assert_eq!(axil_write(&mut dut, board("echoed_count"), 7), 2, "the board registers are read-only");
    assert_eq!(axil_read(&mut dut, board("echoed_count")), (messages.len() as u64, 0));
    let data_count = nanotransport_hdl::nic::status_bank::status_address("data_count").unwrap();
    assert_eq!(axil_read(&mut dut, data_count), (messages.len() as u64, 0), "the NIC's status");
    let rtt = 4 * nanotransport_hdl::nic::register_map::CFG_RTT_PKTS as u64;
    assert_eq!(axil_write(&mut dut, rtt, 5), 0);
    assert_eq!(axil_read(&mut dut, rtt), (5, 0), "a NIC configuration register written and read back");
    println!("board NIC lockstep: {} cycles, {} comparisons, {} frames sent", dut.cycle, dut.comparisons, sink.frames.len());
}
