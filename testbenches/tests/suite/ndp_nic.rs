//! The NDP NIC (ndp-16, and ndp-64/ndp-128 where more messages matter) end to end on its
//! Verilator model: two NICs in loopback (clean, trimming, lossy and wrong-length links), bad
//! input, the register interface and whole-NIC lockstep. Latency, line rate and what every
//! protocol shares: `whole_nic`.

use nanotransport_hdl::nic::register_map::*;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::Header;
use nanotransport_sim::cosim::ports::Ports;
use nanotransport_sim::nic::{NicSim, TxMessage};
use nanotransport_sim::scenarios::*;
use nanotransport_testbenches::nic_preset;
use nanotransport_testbenches::{busy_self_loop, seed, BUSY, SHORT, STALL};

const CONFIG: &str = "ndp-16";

fn status<B: Ports>(nic: &mut NicSim<B>, name: &str) -> u32 {
    let (v, resp) = nic.read_register(status_address(name).unwrap_or_else(|| panic!("no register {name}")));
    assert_eq!(resp, 0, "reading {name}");
    v
}

/// Registers for the loopback runs: short timeouts so losses recover quickly.
fn loopback_registers(rto: u32) -> Vec<(usize, u32)> {
    vec![
        (CFG_RTT_PKTS, 4),
        (CFG_RTO_CYCLES, rto),
        (CFG_TIMEOUT_THRESHOLD, 60),
        (CFG_GC_TIMEOUT, 2_000_000),
        (CFG_PACE_CYCLES, 136),
        (CFG_BUCKET_MAX, 2),
    ]
}

#[test]
fn loopback_clean_link() {
    let s = seed("loopback_clean_link", 501);
    let faults = LinkFaults { trim: 0.0, drop: 0.0, stall: STALL, ..LinkFaults::NONE };
    let r = loopback(&nic_preset(CONFIG), s, 24, 20_000, 200, faults, &loopback_registers(20_000), 3_000_000).unwrap();
    r.print("clean");
    for side in 0..2 {
        assert_eq!(r.value(side, "abandoned_msg_count"), 0);
        assert_eq!(r.value(side, "gc_count"), 0);
        assert_eq!(r.value(side, "tx_active_any"), 0, "every transmit slot free at the end");
        assert_eq!(r.value(side, "rx_busy_any"), 0, "every receive slot free at the end");
        // Messages longer than the BDP needed PULLs.
        assert!(r.value(side, "pull_sent_count") + r.value(side, "merged_count") > 0);
    }
}

#[test]
fn loopback_trimming_link_recovers_with_nacks() {
    let s = seed("loopback_trimming_link", 502);
    let faults = LinkFaults { trim: 0.05, drop: 0.0, stall: STALL, ..LinkFaults::NONE };
    // A long RTO: recovery must come from NACKs, not timeouts.
    let r = loopback(&nic_preset(CONFIG), s, 24, 20_000, 200, faults, &loopback_registers(1_000_000), 3_000_000).unwrap();
    r.print("trimming");
    assert!(r.trimmed > 10, "the link trimmed only {} packets", r.trimmed);
    let chops: u32 = (0..2).map(|side| r.value(side, "chop_count")).sum();
    assert_eq!(chops as usize, r.trimmed, "every trimmed packet reached a NIC's ingress");
    for side in 0..2 {
        assert_eq!(r.value(side, "tx_active_any"), 0);
        assert_eq!(r.value(side, "rx_busy_any"), 0);
    }
}

#[test]
fn loopback_lossy_link_recovers_with_timeouts() {
    let s = seed("loopback_lossy_link", 503);
    let faults = LinkFaults { trim: 0.0, drop: 0.05, stall: STALL, ..LinkFaults::NONE };
    let r = loopback(&nic_preset(CONFIG), s, 24, 20_000, 200, faults, &loopback_registers(6_000), 6_000_000).unwrap();
    r.print("lossy");
    assert!(r.dropped > 10, "the link dropped only {} frames", r.dropped);
    let dups: u32 = (0..2).map(|side| r.value(side, "duplicate_data_count")).sum();
    println!("duplicates re-ACKed: {dups}");
    for side in 0..2 {
        assert_eq!(r.value(side, "tx_active_any"), 0);
        assert_eq!(r.value(side, "rx_busy_any"), 0);
    }
}

#[test]
fn loopback_wrong_length_frames_are_dropped_unacknowledged_and_recovered() {
    let s = seed("loopback_wrong_length", 504);
    let faults = LinkFaults { length: 0.05, stall: STALL, ..LinkFaults::NONE };
    let r = loopback(&nic_preset(CONFIG), s, 24, 20_000, 200, faults, &loopback_registers(6_000), 6_000_000).unwrap();
    r.print("wrong length");
    r.check_length_faults(10).unwrap();
}

#[test]
fn bad_input_is_counted_and_the_pipeline_keeps_running() {
    let mut nic = nic_with_ip(&nic_preset(CONFIG), NIC_IP).unwrap();
    let good = |id: u16| data_frame(PEER_IP, NIC_IP, 7000, 80, id, &[1, 2, 3, 4, 5], 0);
    let mut frames = Vec::new();
    // not IPv4
    let mut f = good(1);
    f[12] = 0x86;
    f[13] = 0xDD;
    frames.push(f);
    // unknown IP protocol (checksum made right for it)
    let h = Header::decode(&good(2));
    frames.push(h.frame(HOMA_IP_PROTOCOL, &[1, 2, 3, 4, 5]));
    // shorter than the 64-byte header
    frames.push(good(3)[..40].to_vec());
    // no DATA/ACK/NACK/PULL flag
    let mut h = Header::decode(&good(4));
    h.flags = 0;
    frames.push(h.frame(NDP_IP_PROTOCOL, &[1, 2, 3, 4, 5]));
    // CHOP alone (no DATA): the parser finds no DATA/ACK/NACK/PULL flag
    let mut h = Header::decode(&good(5));
    h.flags = FLAG_CHOP;
    frames.push(h.frame(NDP_IP_PROTOCOL, &[0]));
    // ACK, NACK and PULL for messages this NIC never sent
    for flags in [FLAG_ACK, FLAG_NACK, FLAG_PULL | FLAG_ACK] {
        let mut h = Header::decode(&good(6));
        h.flags = flags;
        h.ip_total_len = 51;
        h.pull_offset = 3;
        frames.push(h.frame(NDP_IP_PROTOCOL, &[0]));
    }
    // DATA whose IPv4 length disagrees with msg_len/pkt_offset
    let mut h = Header::decode(&good(7));
    h.msg_len = 9;
    frames.push(h.frame(NDP_IP_PROTOCOL, &[1, 2, 3, 4, 5]));
    // a packet offset beyond the message
    let mut h = Header::decode(&good(8));
    h.pkt_offset = 3;
    h.ip_total_len = 50;
    frames.push(h.frame(NDP_IP_PROTOCOL, &[]));
    // then a good message
    frames.push(good(9));
    for f in &frames {
        nic.push_frame(f, 0);
    }
    assert!(nic.run_until(3000, |n| n.delivered.len() == 1), "the good message after the bad input was not delivered");
    assert_eq!(nic.delivered[0].payload, vec![1, 2, 3, 4, 5]);
    nic.run(200);
    assert_eq!(nic.delivered.len(), 1);
    let expect = [
        ("not_ipv4_count", 1),
        ("wrong_protocol_count", 1),
        ("too_short_count", 1),
        ("bad_flags_count", 2),
        ("no_action_count", 0),
        ("control_count", 3),
        ("stale_delivered_count", 2),
        ("stale_credit_count", 2),
        ("bad_length_count", 1),
        ("fail_bad_offset_count", 1),
        ("rx_fail_count", 1),
        ("data_count", 3),
        ("forwarded_count", 1),
        ("rx_delivered_count", 1),
        ("frame_count", 6),
    ];
    let mut seen = Vec::new();
    for (name, want) in expect {
        let got = status(&mut nic, name);
        seen.push(format!("{name}={got}"));
        assert_eq!(got, want, "{name}");
    }
    println!("{}", seen.join(" "));
    // Replies: one ACK for the good message only.
    let acks = nic.tx_frames.iter().filter(|(_, f)| f[OFF_FLAGS] & FLAG_ACK != 0).count();
    assert_eq!(acks, 1);
}

#[test]
fn registers_read_back_and_reject_bad_addresses() {
    let mut nic = NicSim::new(&nic_preset(CONFIG).module()).unwrap();
    for (i, d) in nanotransport_hdl::presets::NDP_CONFIG_DEFAULTS.iter().enumerate() {
        assert_eq!(nic.read_register(4 * i as u64), (*d, 0), "default of register {i}");
    }
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 12), 0);
    assert_eq!(nic.read_register(4 * CFG_RTT_PKTS as u64), (12, 0));
    // Status registers are read-only; addresses beyond the map answer SLVERR.
    assert_eq!(nic.write_register(0x100, 5), 2);
    assert_eq!(nic.read_register(0x800).1, 2);
    assert_eq!(status(&mut nic, "csr_error_count"), 2);
    // rtt_pkts reaches the transmit path: a 20-packet message sends 12 packets before any PULL.
    let payload: Vec<u8> = (0..20 * 1024).map(|i| i as u8).collect();
    nic.send(&TxMessage { remote_ip: PEER_IP, remote_port: 1, local_port: 2, payload });
    nic.run(6000);
    assert_eq!(nic.tx_frames.len(), 12, "initial credit = rtt_pkts");
}

/// rust-hdl and Verilator side by side on the whole NIC, every output compared every cycle: the
/// NIC sends messages to its own address through a looped-back MAC (so its receive path, ACKs
/// and PULLs all run), with a register read-back and a few bad frames mixed in.
#[test]
fn lockstep_whole_nic_self_loop() {
    // The native NIC is a large value: build and step it on a thread with a big stack.
    on_big_stack(lockstep_self_loop);
}

fn lockstep_self_loop() {
    use nanotransport_hdl::protocols::ndp::ingress::NdpNic;
    use nanotransport_sim::cosim::ports::Lockstep;
    use rand::{Rng, SeedableRng};
    let s = seed("lockstep_whole_nic_self_loop", 504);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    let backend = Lockstep::<NdpNic<16, 4, 4, 17>>::new(&nic_preset(CONFIG).module()).unwrap();
    let mut nic = NicSim::with_backend(backend, &nic_preset(CONFIG).module()).unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 2), 0);
    let (mut bad, mut wrong_length) = (0, 0);
    let mut link = |f: &[u8], rng: &mut rand_chacha::ChaCha8Rng| {
        let mut out = Vec::new();
        if rng.gen_bool(0.1) {
            // a wrong-length copy first: dropped at its last beat, before the good one arrives
            out.push(length_fault(f, rng.gen_bool(0.5)));
            wrong_length += 1;
        }
        out.push(f.to_vec());
        if rng.gen_bool(0.1) {
            // a corrupted copy: bad checksum
            let mut g = f.to_vec();
            g[24] ^= 0x5A;
            out.push(g);
            bad += 1;
        }
        out
    };
    let (_, looped) = busy_self_loop(&mut nic, &mut rng, s, BUSY, &mut link);
    assert_eq!(status(&mut nic, "bad_checksum_count"), bad);
    assert_eq!(status(&mut nic, "bad_frame_length_count") + status(&mut nic, "too_short_count"), wrong_length);
    let comparisons = nic.model.comparisons;
    println!(
        "whole-NIC lockstep: {} cycles, {comparisons} comparisons, {} frames looped, {bad} corrupted, {wrong_length} of the wrong length",
        nic.cycle, looped
    );
}

/// The ndp-128 NIC with more messages in flight than the 16-message NIC holds, over a trimming link
/// (latency and line rate: `whole_nic`).
#[test]
fn ndp_128_trimming_loopback() {
    trimming_loopback("ndp-128", seed("ndp_128_loopback", 505), 48);
}

/// `messages` messages of up to 38 KiB each way over a link that trims 3 % of the packets: every
/// message completes and both NICs end idle.
fn trimming_loopback(config: &str, seed: u64, messages: usize) {
    let l = loopback(
        &nic_preset(config),
        seed,
        messages,
        38 * 1024,
        200,
        LinkFaults { trim: 0.03, drop: 0.0, stall: STALL, ..LinkFaults::NONE },
        &loopback_registers(1_000_000),
        4_000_000,
    )
    .unwrap();
    l.print(&format!("{config} trimming"));
    for side in 0..2 {
        assert_eq!(l.value(side, "tx_active_any"), 0);
        assert_eq!(l.value(side, "rx_busy_any"), 0);
    }
}

/// rust-hdl beside Verilator on the whole 128-message NIC, MAC looped back.
#[test]
fn ndp_128_lockstep_whole_nic_self_loop() {
    use nanotransport_hdl::protocols::ndp::ingress::NdpNic;
    on_big_stack(|| lockstep_self_loop_of::<NdpNic<128, 7, 6, 17>>("ndp-128", 506));
}

/// rust-hdl beside Verilator on the whole 64-message NIC (a size without an earlier preset).
#[test]
fn ndp_64_lockstep_whole_nic_self_loop() {
    use nanotransport_hdl::protocols::ndp::ingress::NdpNic;
    on_big_stack(|| lockstep_self_loop_of::<NdpNic<64, 6, 5, 17>>("ndp-64", 507));
}

/// Runs `f` on a thread with a 1 GiB stack: a native whole NIC is a large value.
fn on_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(1 << 30).spawn(f).unwrap().join().unwrap();
}

fn lockstep_self_loop_of<D: nanotransport_sim::cosim::native::NativeDut>(config: &str, default_seed: u64) {
    use nanotransport_sim::cosim::ports::Lockstep;
    use rand::SeedableRng;
    let s = seed(&format!("{config} lockstep_whole_nic_self_loop"), default_seed);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    let backend = Lockstep::<D>::new(&nic_preset(config).module()).unwrap();
    let mut nic = NicSim::with_backend(backend, &nic_preset(config).module()).unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 2), 0);
    let (_, looped) = busy_self_loop(&mut nic, &mut rng, s, SHORT, &mut |f, _| vec![f.to_vec()]);
    println!("{config} whole-NIC lockstep: {} cycles, {} comparisons, {looped} frames looped", nic.cycle, nic.model.comparisons);
}

/// The ndp-64 NIC with more messages in flight than the 16-message NIC holds, over a trimming link
/// (latency and line rate: `whole_nic`).
#[test]
fn ndp_64_trimming_loopback() {
    trimming_loopback("ndp-64", seed("ndp_64_loopback", 508), 40);
}
