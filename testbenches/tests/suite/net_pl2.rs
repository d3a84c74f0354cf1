//! PL2 in the network: its frames, the switch stage on the reservation block's Verilator model,
//! the senders of Algorithm 2, and the incast's targets on shortened runs.

use nanotransport_net::experiments::pl2::{run_pl2, Pl2Run, Pl2RunParams};
use nanotransport_net::pl2::frame::{MessageFields, Pl2Header, Pl2Type, CONTROL_FRAME_BYTES, FLAG_UNSOLICITED};
use nanotransport_net::pl2::host::MAX_FRAME_BYTES;
use nanotransport_net::pl2::switch::Pl2Ingress;
use nanotransport_net::switch::{Ingress, IngressVerdict, StageContext};
use nanotransport_reference::pl2::Pl2Config;

const H1: u32 = 0x0A00_0002;
const H2: u32 = 0x0A00_0003;

#[test]
fn frames_round_trip_and_other_frames_are_not_pl2() {
    let rsv = Pl2Header { demand: 4, ..Pl2Header::new(Pl2Type::Reserve, H1, H2, 7, 0xdead_beef) };
    let f = rsv.frame(0, None);
    assert_eq!(f.len(), CONTROL_FRAME_BYTES);
    assert_eq!(Pl2Header::parse(&f), Some(rsv));
    let m = MessageFields { created_ps: 123_456_789, id: 42, packets: 4, index: 3 };
    let data = Pl2Header { flags: FLAG_UNSOLICITED, index: 3, ..Pl2Header::new(Pl2Type::Data, H1, H2, 7, 9) };
    let f = data.frame(1460, Some(m));
    assert_eq!(f.len(), MAX_FRAME_BYTES);
    assert_eq!(Pl2Header::parse(&f), Some(data));
    assert_eq!(MessageFields::parse(&f), Some(m));
    let mut bad = f.clone();
    bad[34] = 9; // unknown type
    assert_eq!(Pl2Header::parse(&bad), None);
    assert_eq!(Pl2Header::parse(&f[..40]), None);
    let tcp = nanotransport_net::ipv4::frame(H1, H2, 0, 6, 20);
    assert_eq!(Pl2Header::parse(&tcp), None);
}

fn ctx(ingress: usize, egress: usize) -> StageContext {
    StageContext::new(Some(ingress), egress, 0, 0.0, 100.0)
}

/// The switch stage on the block's Verilator model: RSVs are consumed and answered with GRTs
/// carrying Algorithm 1's timeslots back out of the ingress port; data releases; unsolicited data
/// above T is dropped; frames that are not PL2 pass.
#[test]
fn the_switch_stage_answers_rsvs_from_the_rtl() {
    let mut stage = Pl2Ingress::new(Pl2Config { max_demand: 4, unsolicited_limit: 5 }).unwrap();
    let mut grants = Vec::new();
    for (src, demand) in [(1usize, 4u8), (2, 6), (1, 2)] {
        let mut f = Pl2Header { demand, ..Pl2Header::new(Pl2Type::Reserve, H1, H2, 1, src as u32) }.frame(0, None);
        let mut c = ctx(src, 3);
        assert_eq!(stage.ingress(&mut f, &mut c), IngressVerdict::Consume);
        let emitted = c.take_emitted();
        assert_eq!(emitted.len(), 1);
        assert_eq!((emitted[0].port, emitted[0].band), (src, 0));
        let g = Pl2Header::parse(&emitted[0].frame).unwrap();
        assert_eq!((g.kind, g.src_ip, g.dst_ip, g.burst), (Pl2Type::Grant, H2, H1, src as u32));
        grants.push((g.send_timeslot, g.recv_timeslot, g.demand));
    }
    // out[3]: 0 → 4 → 8 (demand 6 clamped to K = 4) → 10; in[1]: 0 → 4; in[2]: 0.
    assert_eq!(grants, vec![(0, 0, 4), (0, 4, 4), (4, 8, 2)]);
    let data = |flags: u8| Pl2Header { flags, ..Pl2Header::new(Pl2Type::Data, H1, H2, 1, 0) }.frame(1460, None);
    // out[3] = 10 > T = 5: unsolicited data is refused; scheduled data passes and releases.
    assert_eq!(stage.ingress(&mut data(FLAG_UNSOLICITED), &mut ctx(1, 3)), IngressVerdict::Drop);
    for _ in 0..5 {
        assert_eq!(stage.ingress(&mut data(0), &mut ctx(1, 3)), IngressVerdict::Forward);
    }
    assert_eq!(stage.ingress(&mut data(FLAG_UNSOLICITED), &mut ctx(1, 3)), IngressVerdict::Forward);
    let mut other = nanotransport_net::ipv4::frame(H1, H2, 0, 6, 20);
    assert_eq!(stage.ingress(&mut other, &mut ctx(1, 3)), IngressVerdict::Forward);
    let counts = stage.counts();
    assert_eq!((counts.rsv, counts.data, counts.refused, counts.clamped, counts.underflow), (3, 6, 1, 1, 0));
}

fn incast(senders: usize, load: f64, pl2: bool) -> Pl2Run {
    let mut p = Pl2RunParams::defaults(senders, load, pl2);
    (p.duration_us, p.warmup_us, p.drain_us) = (600.0, 100.0, 400.0);
    let r = run_pl2(&p, &mut |_| {}).unwrap();
    println!(
        "{senders} senders, {load} %, pl2 {pl2}: goodput {:.1} Gb/s, drops {} + {}, queue p50/p99 {:.0}/{:.0} B, max {} pkts, latency p50/p99 {:?}/{:?} µs, {} of {} messages, rsv {}, unsolicited {}, resent {}, dup {}, stray {}, underflow {}, wait {:.2} µs, wall {:.1} s",
        r.goodput_gbps,
        r.buffer_drops,
        r.policy_drops,
        r.queue_p50_bytes,
        r.queue_p99_bytes,
        r.queue_max_packets,
        r.latency_p50_us,
        r.latency_p99_us,
        r.messages_completed,
        r.messages_offered,
        r.rsvs,
        r.unsolicited_bursts,
        r.resent_bursts,
        r.duplicates,
        r.stray_grants,
        r.underflows,
        r.mean_wait_us,
        r.wall_s
    );
    r
}

/// The targets fixed before measuring: with PL2 no drop at any load up to 400 %, the receiver's
/// queue p99 within senders·K·MTU, goodput ≥ 90 % of the link once offered ≥ 100 %; without PL2
/// drops from 100 % load up.
#[test]
fn incast_with_pl2_loses_nothing_and_without_it_drops() {
    let senders = 4;
    let bound = (senders * 4 * MAX_FRAME_BYTES) as f64;
    for load in [50.0, 100.0, 200.0, 400.0] {
        let with = incast(senders, load, true);
        assert_eq!(with.buffer_drops + with.policy_drops, 0, "PL2 at {load} % dropped");
        assert!(with.queue_max_packets as f64 * MAX_FRAME_BYTES as f64 <= with.params.buffer_bytes as f64);
        assert!(with.queue_p99_bytes <= bound, "PL2 queue p99 {} B at {load} %", with.queue_p99_bytes);
        if load >= 100.0 {
            assert!(with.goodput_gbps >= 90.0, "PL2 goodput {:.1} Gb/s at {load} %", with.goodput_gbps);
            let without = incast(senders, load, false);
            assert!(without.buffer_drops > 0, "no drop without PL2 at {load} %");
            assert!(without.queue_p99_bytes > with.queue_p99_bytes);
        }
    }
}

/// The outcast: one saturated sender to several receivers; PL2's RSVs and waits cost it a little
/// of the raw sender's goodput (the paper: 90 against 97 Gb/s), and nothing is lost.
#[test]
fn outcast_goodput_near_the_raw_senders() {
    for receivers in [1, 3] {
        let run = |pl2: bool| {
            let mut p = Pl2RunParams::defaults(1, 200.0, pl2);
            p.receivers = receivers;
            (p.duration_us, p.warmup_us, p.drain_us) = (600.0, 100.0, 200.0);
            run_pl2(&p, &mut |_| {}).unwrap()
        };
        let (with, without) = (run(true), run(false));
        println!("1 → {receivers}: goodput {:.1} Gb/s with PL2, {:.1} without", with.goodput_gbps, without.goodput_gbps);
        assert_eq!(with.buffer_drops + with.policy_drops, 0);
        assert!(with.goodput_gbps >= 0.9 * without.goodput_gbps && with.goodput_gbps <= without.goodput_gbps);
    }
}

#[test]
fn impossible_parameters_are_one_line_errors() {
    let bad: [(&str, fn(&mut Pl2RunParams)); 6] = [
        ("--senders", |p| p.senders = 0),
        ("--receivers", |p| p.receivers = 64),
        ("--load", |p| p.load_percent = -1.0),
        ("--k", |p| p.k = 0),
        ("--buffer-bytes", |p| p.buffer_bytes = 100),
        ("--duration-us", |p| p.warmup_us = p.duration_us),
    ];
    for (name, spoil) in bad {
        let mut p = Pl2RunParams::defaults(4, 100.0, true);
        spoil(&mut p);
        let e = run_pl2(&p, &mut |_| {}).unwrap_err();
        assert!(e.starts_with(name) && !e.contains('\n'), "{e}");
    }
}

/// GRTs for no outstanding burst — duplicated, reordered, or never asked for — are counted and
/// change nothing.
#[test]
fn stray_grants_are_counted_and_ignored() {
    use nanotransport_net::host::CbrHost;
    use nanotransport_net::link::LinkSpec;
    use nanotransport_net::pl2::host::{Offer, Pl2Params, Pl2Sender, SendMode};
    use nanotransport_net::topology::{star_of, Member};
    let offer = Offer { flows: 2, message_packets: 4, gbps: 1.0, start_ns: 0.0, stop_ns: 0.0, measure_from_ns: 0.0 };
    let sender = Pl2Sender::new(H1, vec![H2], SendMode::Pl2(Pl2Params::default()), offer, 100.0, 1);
    let grant = Pl2Header { send_timeslot: 3, recv_timeslot: 9, demand: 4, ..Pl2Header::new(Pl2Type::Grant, H2, H1, 0, 77) };
    let rogue = CbrHost::new(H2, grant.frame(0, None), 1000.0, 3);
    let stages = nanotransport_net::pl2::switch::stages(200_000);
    let mut net =
        star_of(3200, vec![Member::Host(Box::new(sender)), Member::Host(Box::new(rogue))], LinkSpec::new(100.0, 500.0), stages, 1).unwrap();
    net.run(40_000, &mut |_| false, &mut |_| {});
    let s = net.host::<Pl2Sender>(0).unwrap();
    assert_eq!((s.stray_grants, s.messages, s.rsvs, s.data_packets), (3, 0, 0, 0));
}
