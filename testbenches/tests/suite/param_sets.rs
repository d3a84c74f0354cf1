//! A parameter set with no preset and no shipped Verilog (Homa-Tr, 32 messages, its own size
//! classes and register defaults): made a [`WholeNic`] at run time, its Verilator model generated, built
//! and loaded on first use, then run by the same drivers as a preset — per-stage latency against
//! Table 3.1, rust-hdl in lockstep with the model on a trimming self-loop, and the refusals.

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::configs::NicParams;
use nanotransport_hdl::nic::register_map::*;
use nanotransport_hdl::nic::tx_path::TxSizeClass;
use nanotransport_sim::nic::NicSim;
use nanotransport_sim::scenarios::*;
use nanotransport_sim::whole_nic::WholeNic;
use nanotransport_testbenches::{busy_self_loop, seed, SHORT};

const NAME: &str = "homa-tr-32-own";

/// 32 messages per direction with classes of its own: 8 maximum-size messages each way, at the
/// 100 GbE MAC's clock (its time registers' defaults converted to it).
fn params() -> NicParams {
    let mut p = NicParams::preset_at(NAME, Protocol::HomaTr, 32, NicClock::CMAC_USER);
    p.rx_classes = [(1, 8), (4, 8), (16, 8), (38, 8)];
    p.tx_classes = vec![TxSizeClass { buffers: 24, bytes: 4096 }, TxSizeClass { buffers: 8, bytes: 38 * 1024 }];
    p.config_defaults[CFG_RTT_PKTS] = 3;
    p
}

fn loaded() -> WholeNic {
    let clock = std::time::Instant::now();
    let nic = WholeNic::from_params(params()).unwrap();
    println!("{NAME}: model ready in {:.1} s (generated, built and loaded, or loaded from the cache)", clock.elapsed().as_secs_f64());
    nic
}

#[test]
fn runs_like_a_preset_within_table_3_1() {
    let w = loaded();
    assert_eq!((w.protocol(), w.messages(), w.name()), (Protocol::HomaTr, 32, NAME));
    let mut nic = nic_with_ip(&w, NIC_IP).unwrap();
    let (rtt, resp) = nic.read_register(4 * CFG_RTT_PKTS as u64);
    assert_eq!((rtt, resp), (3, 0), "the set's own register default");
    // 6.25 µs and 62.5 µs at 322.265625 MHz.
    assert_eq!(nic.read_register(4 * CFG_RTO_CYCLES as u64), (2_014, 0));
    assert_eq!(nic.read_register(4 * CFG_GC_TIMEOUT as u64), (20_142, 0));
    let r = latency(&w).unwrap();
    println!("{NAME}: {r:?}");
    for (stage, (c, p)) in ["ingress", "reassembly", "packetize", "egress"]
        .iter()
        .zip([r.ingress, r.reassembly, r.packetize, r.egress].iter().zip(PAPER_HOMA_CYCLES))
    {
        assert!(*c <= p, "{NAME} {stage}: {c} cycles, paper {p}");
    }
}

#[test]
fn lockstep_trimming_self_loop() {
    std::thread::Builder::new().stack_size(1 << 30).spawn(lockstep_self_loop).unwrap().join().unwrap();
}

fn lockstep_self_loop() {
    use nanotransport_hdl::protocols::homa::ingress::HomaNic;
    use nanotransport_sim::cosim::ports::Lockstep;
    use rand::SeedableRng;
    let w = loaded();
    let s = seed("param_set_lockstep_trimming_self_loop", 701);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    let native = HomaNic::<32, 5, 4, 17>::new(&params().shell_params());
    let backend = Lockstep::<HomaNic<32, 5, 4, 17>>::with_native(native, &w.module()).unwrap();
    let mut nic = NicSim::with_backend(backend, &w.module()).unwrap();
    let mut trims = 0;
    let (_, looped) = busy_self_loop(&mut nic, &mut rng, s, SHORT, &mut trimming_link(0.1, &mut trims));
    println!(
        "{NAME} whole-NIC lockstep: {} cycles, {} comparisons, {looped} frames looped, {trims} trimmed",
        nic.cycle, nic.model.comparisons
    );
    assert!(trims > 0, "the loop trimmed something");
}

#[test]
fn refusals_are_one_line_errors() {
    let mut preset_named = params();
    preset_named.name = "homa-tr-16".into();
    let e = WholeNic::from_params(preset_named).unwrap_err();
    assert!(e.contains("preset") && !e.contains('\n'), "{e}");
    let mut not_compiled = params();
    not_compiled.messages = 48;
    let e = WholeNic::from_params(not_compiled).unwrap_err();
    assert!(e.contains("messages 48") && !e.contains('\n'), "{e}");
    let e = WholeNic::preset("no-such-nic").unwrap_err();
    assert!(e.contains("ndp-16") && e.contains(".toml") && !e.contains('\n'), "{e}");
    loaded();
    let mut other = params();
    other.config_defaults[CFG_RTT_PKTS] = 5;
    let e = WholeNic::from_params(other).unwrap_err();
    assert!(e.contains("already in use"), "{e}");
}

/// A size above 128 (256 messages per direction, the preset classes of its size, no shipped
/// Verilog): 200 single-packet messages sent to itself while the CPU reads nothing hold 200
/// receive slots at once — more than any 128-message NIC has — then all 200 are read out intact.
#[test]
fn holds_more_than_128_messages_at_once() {
    use rand::{Rng, SeedableRng};
    const BIG: &str = "ndp-256-own";
    const HELD: usize = 200;
    let clock = std::time::Instant::now();
    let w = WholeNic::from_params(NicParams::preset(BIG, Protocol::Ndp, 256)).unwrap();
    println!("{BIG}: model ready in {:.1} s", clock.elapsed().as_secs_f64());
    assert_eq!((w.protocol(), w.messages()), (Protocol::Ndp, 256));
    let s = seed("param_set_holds_more_than_128_messages", 702);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    let mut nic = nic_with_ip(&w, NIC_IP).unwrap();
    nic.msg_ready = false;
    let sent: Vec<_> = (0..HELD as u16)
        .map(|k| {
            let payload: Vec<u8> = (0..rng.gen_range(1..=1024)).map(|_| rng.gen()).collect();
            nanotransport_sim::nic::TxMessage { remote_ip: NIC_IP, remote_port: 1000 + k, local_port: 2000 + k, payload }
        })
        .collect();
    for m in &sent {
        nic.send(m);
    }
    // Loop every frame back until every message is acknowledged; the CPU reads nothing.
    let mut looped = 0;
    while nic.completions.len() < HELD && nic.cycle < 400_000 {
        while looped < nic.tx_frames.len() {
            let (f, at) = (nic.tx_frames[looped].1.clone(), nic.cycle + 20);
            nic.push_frame(&f, at);
            looped += 1;
        }
        nic.step();
    }
    let acked = nic.completions.len() == HELD;
    assert!(acked, "{} of {HELD} acknowledged after {} cycles", nic.completions.len(), nic.cycle);
    assert!(nic.completions.iter().all(|c| !c.abandoned));
    assert!(nic.delivered.is_empty(), "nothing read out yet");
    let status = read_status(&mut nic);
    let get = |name: &str| status.iter().find(|s| s.0 == name).unwrap().1;
    assert_eq!((get("fail_no_id_count"), get("fail_no_buffer_count"), get("fail_bucket_full_count")), (0, 0, 0));
    println!("{BIG}: {HELD} messages held at cycle {}, {looped} frames looped", nic.cycle);
    nic.msg_ready = true;
    assert!(nic.run_until(nic.cycle + 400_000, |n| n.delivered.len() == HELD), "{} of {HELD} read out", nic.delivered.len());
    let mut want: Vec<_> = sent.iter().map(|m| m.payload.clone()).collect();
    let mut got: Vec<_> = nic.delivered.iter().map(|m| m.payload.clone()).collect();
    want.sort();
    got.sort();
    assert_eq!(got, want, "every message read out intact, once");
}

/// The set's NICs (322.265625 MHz) in the network testbench: the network runs at their clock, a
/// 3-packet message each way over 10 Gb/s links arrives whole, and its time comes out in ns at
/// that clock; a preset's NIC (3.2 GHz) in the same network is refused.
#[test]
fn runs_in_a_network_at_its_clock() {
    use nanotransport_net::endpoint::{Endpoint, NicEndpoint, ScheduledMessage};
    use nanotransport_net::link::LinkSpec;
    use nanotransport_net::switch::{DscpClassify, HomaDropTail, Limit, StrictPriority};
    use nanotransport_net::topology::star;
    use nanotransport_sim::nic::TxMessage;
    let w = loaded();
    let clock = w.params().clock;
    assert_eq!(clock, NicClock::CMAC_USER);
    let (a, b) = (0x0A00_0001, 0x0A00_0002);
    let stages = || {
        (
            Box::new(DscpClassify { bands: 8 }) as _,
            Box::new(HomaDropTail { limit: Limit::Packets(100) }) as _,
            Box::new(StrictPriority) as _,
            8,
        )
    };
    let payload = |k: u8| (0..3000).map(|i| (i as u8) ^ k).collect::<Vec<u8>>();
    let endpoint = |ip: u32, to: u32, k: u8| {
        let mut e = NicEndpoint::new(&w, ip, &[], 20_000).unwrap();
        let message = TxMessage { remote_ip: to, remote_port: 7000, local_port: 8000, payload: payload(k) };
        e.schedule([ScheduledMessage { at: e.cycle() + 10, message }]);
        Box::new(e) as Box<dyn Endpoint>
    };
    let mut net = star(clock, vec![endpoint(a, b, 1), endpoint(b, a, 2)], LinkSpec::new(10.0, 500.0), stages(), 1).unwrap();
    let start = net.cycle;
    net.run(
        start + 400_000,
        &mut |n| n.endpoints.iter().all(|e| !e.as_any().downcast_ref::<NicEndpoint>().unwrap().nic.delivered.is_empty()),
        &mut |_| {},
    );
    for (i, k) in [(0, 2u8), (1, 1u8)] {
        let e = net.endpoints[i].as_any().downcast_ref::<NicEndpoint>().unwrap();
        assert_eq!(e.nic.delivered.len(), 1, "endpoint {i}");
        assert_eq!(e.nic.delivered[0].payload, payload(k), "endpoint {i}");
    }
    // Three 1 088-byte packets at 10 Gb/s are 2.6 µs on the wire: the message cannot be there
    // sooner, and at this clock that is 841 cycles (at 3.2 GHz it would be 8 356).
    let took_ns = net.cycle_ns(net.cycle - start);
    println!("{NAME} network: both messages delivered after {took_ns:.0} ns ({} cycles at {clock})", net.cycle - start);
    assert!(took_ns > 2_611.2 && took_ns < 200_000.0, "{took_ns} ns");
    let preset = WholeNic::preset("homa-tr-16").unwrap();
    let e = star(
        clock,
        vec![endpoint(a, b, 1), Box::new(NicEndpoint::new(&preset, b, &[], 20_000).unwrap())],
        LinkSpec::new(10.0, 500.0),
        stages(),
        1,
    )
    .err()
    .unwrap();
    assert!(e.contains("3200 MHz") && e.contains("322.265625 MHz") && !e.contains('\n'), "{e}");
}
