//! PL2 in the network: its frames, the switch stage on the reservation block's Verilator model,
//! the senders of Algorithm 2, and the incast's targets on shortened runs.

use nanotransport_hdl::clock::NicClock;
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
    let mut net = star_of(
        NicClock::THESIS,
        vec![Member::Host(Box::new(sender)), Member::Host(Box::new(rogue))],
        LinkSpec::new(100.0, 500.0),
        stages,
        1,
    )
    .unwrap();
    net.run(40_000, &mut |_| false, &mut |_| {});
    let s = net.host::<Pl2Sender>(0).unwrap();
    assert_eq!((s.counts().stray_grants, s.messages, s.counts().rsvs, s.counts().data_packets), (3, 0, 0, 0));
}

/// Three hosts of four TCP connections each (congestion control off, a 64-segment window) send
/// 1 MB per connection into one receiver through the PL2 switch, all under the PL2 layer.
/// Returns the network after 2 ms.
fn tcp_over_pl2(unsolicited: bool) -> nanotransport_net::network::Network {
    use nanotransport_net::link::LinkSpec;
    use nanotransport_net::pl2::host::Pl2Params;
    use nanotransport_net::pl2::layer::{Pl2Layer, MAX_INNER_FRAME_BYTES};
    use nanotransport_net::tcp::{CongestionControl, TcpConfig, TcpHost, TCP_FRAME_HEADERS};
    use nanotransport_net::topology::{star_of, Member};
    let config = TcpConfig {
        cc: CongestionControl::Off,
        mss: MAX_INNER_FRAME_BYTES - TCP_FRAME_HEADERS,
        initial_window_segments: 64,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let params = Pl2Params { unsolicited, ..Pl2Params::default() };
    let receiver = TcpHost::new(H1, config.clone()).unwrap();
    let mut members = vec![Member::Host(Box::new(Pl2Layer::new(receiver, 100.0, params)))];
    for s in 0..3u32 {
        let mut host = TcpHost::new(H2 + s, config.clone()).unwrap();
        for c in 0..4 {
            host.open(H1, 6000 + c, 5001, TCP_BYTES, 0.0);
        }
        members.push(Member::Host(Box::new(Pl2Layer::new(host, 100.0, params))));
    }
    let mut net =
        star_of(NicClock::THESIS, members, LinkSpec::new(100.0, 500.0), nanotransport_net::pl2::switch::stages(200_000), 1).unwrap();
    net.switches[0].ingress = Some(Box::new(Pl2Ingress::new(Pl2Config { max_demand: 4, unsolicited_limit: 64 }).unwrap()));
    net.run(3200 * 2_000, &mut |_| false, &mut |_| {});
    net
}

const TCP_BYTES: u64 = 1_000_000;

fn buffer_drops(net: &nanotransport_net::network::Network) -> u64 {
    net.switches[0].ports.iter().map(|p| p.counters.dropped).sum()
}

/// TCP under the PL2 layer with scheduled bursts only: every transfer completes, nothing is
/// dropped, no RTO; data goes in reserved bursts, the receiver's pure ACKs as they are.
#[test]
fn tcp_over_pl2_moves_bulk_transfers_without_loss() {
    use nanotransport_net::pl2::layer::Pl2Layer;
    use nanotransport_net::tcp::TcpHost;
    let net = tcp_over_pl2(false);
    let receiver = net.host::<Pl2Layer<TcpHost>>(0).unwrap();
    println!("receiver {:?}, drops {} + {}", receiver.counts, buffer_drops(&net), net.switches[0].ingress_dropped);
    assert_eq!(buffer_drops(&net) + net.switches[0].ingress_dropped, 0);
    assert_eq!(receiver.host.connections.iter().map(|c| c.stats.bytes_received).sum::<u64>(), 12 * TCP_BYTES);
    assert!(
        receiver.counts.pure_acks > 0 && receiver.counts.frames_reserved == 0,
        "the receiver sends only pure ACKs, outside reservations"
    );
    for s in 1..4 {
        let sender = net.host::<Pl2Layer<TcpHost>>(s).unwrap();
        let reserved = sender.reservation_counts();
        println!("sender {s}: {:?} {reserved:?}", sender.counts);
        assert!(sender.host.connections.iter().all(|c| c.acked() == TCP_BYTES && c.stats.timeouts == 0), "a transfer did not finish");
        assert!(reserved.rsvs > 0 && reserved.data_packets == sender.counts.frames_reserved && reserved.unsolicited_bursts == 0);
        assert_eq!((sender.counts.oversized, sender.counts.malformed, sender.counts.pure_acks), (0, 0, 0));
    }
}

/// The same transfers with unsolicited bursts (t = 15): twelve flows' reservations keep the
/// receiver port's counters low, because unsolicited data releases its reservation as it
/// arrives, so the senders keep choosing timeslots below t and keep sending unsolicited, three
/// links' worth into one: the port's buffer overflows while T (64) is never reached. Pinned
/// here; the memcached runs' 48 background flows keep the counters above t and lose nothing.
#[test]
fn unsolicited_bursts_overflow_a_port_that_few_flows_share() {
    use nanotransport_net::pl2::layer::Pl2Layer;
    use nanotransport_net::tcp::TcpHost;
    let net = tcp_over_pl2(true);
    let unsolicited: u64 = (1..4).map(|s| net.host::<Pl2Layer<TcpHost>>(s).unwrap().reservation_counts().unsolicited_bursts).sum();
    println!("buffer drops {}, refused {}, unsolicited bursts {unsolicited}", buffer_drops(&net), net.switches[0].ingress_dropped);
    assert!(unsolicited > 1000 && buffer_drops(&net) > 1000);
    assert_eq!(net.switches[0].ingress_dropped, 0, "T was reached");
}

/// What the layer does with frames it cannot carry or should not deliver: a host's oversized and
/// non-IPv4 frames are counted and dropped; a second copy of an unsolicited frame is dropped; an
/// encapsulated frame whose payload is not IPv4, and another host's PL2 messages, are counted and
/// not handed to the host.
#[test]
fn the_layer_counts_what_it_cannot_carry_or_deliver() {
    use nanotransport_net::host::CbrHost;
    use nanotransport_net::link::LinkSpec;
    use nanotransport_net::pl2::frame::FLAG_ENCAPSULATED;
    use nanotransport_net::pl2::host::Pl2Params;
    use nanotransport_net::pl2::layer::{Pl2Layer, MAX_INNER_FRAME_BYTES};
    use nanotransport_net::topology::{star_of, Member};
    let run = |sender_frame: Vec<u8>, layered_sender: bool| {
        let receiver = Pl2Layer::new(CbrHost::new(H1, vec![], 1e9, 0), 100.0, Pl2Params::default());
        let sender = CbrHost::new(H2, sender_frame, 1000.0, 3);
        let sender: Member = if layered_sender {
            Member::Host(Box::new(Pl2Layer::new(sender, 100.0, Pl2Params::default())))
        } else {
            Member::Host(Box::new(sender))
        };
        let stages = nanotransport_net::pl2::switch::stages(200_000);
        let mut net =
            star_of(NicClock::THESIS, vec![Member::Host(Box::new(receiver)), sender], LinkSpec::new(100.0, 500.0), stages, 1).unwrap();
        net.run(3200 * 10, &mut |_| false, &mut |_| {});
        let receiver = net.host::<Pl2Layer<CbrHost>>(0).unwrap();
        let s = if layered_sender { Some(net.host::<Pl2Layer<CbrHost>>(1).unwrap().counts) } else { None };
        ((receiver.counts, receiver.host.received), s)
    };
    // A host under the layer sending a frame too large to carry, and one that is not IPv4.
    let oversized = nanotransport_net::ipv4::frame(H2, H1, 0, 17, MAX_INNER_FRAME_BYTES - 34 + 1);
    let (_, s) = run(oversized, true);
    assert_eq!((s.unwrap().oversized, s.unwrap().frames_reserved), (3, 0));
    let (_, s) = run(vec![0u8; 100], true);
    assert_eq!((s.unwrap().malformed, s.unwrap().frames_reserved), (3, 0));
    // The same unsolicited encapsulated frame three times: one delivery, two duplicates.
    let inner = nanotransport_net::ipv4::frame(H2, H1, 0, 17, 100);
    let wrapped =
        Pl2Header { flags: FLAG_ENCAPSULATED | FLAG_UNSOLICITED, ..Pl2Header::new(Pl2Type::Data, H2, H1, 0, 5) }.data_frame(&inner[14..]);
    let ((r, delivered), _) = run(wrapped, false);
    assert_eq!((r.duplicates, r.malformed, delivered), (2, 0, 1));
    // An encapsulated frame whose payload is not an IPv4 packet.
    let garbage = Pl2Header { flags: FLAG_ENCAPSULATED, ..Pl2Header::new(Pl2Type::Data, H2, H1, 0, 5) }.data_frame(&[0x99; 40]);
    let ((r, delivered), _) = run(garbage, false);
    assert_eq!((r.malformed, delivered), (3, 0));
    // Another host's PL2 message data (not encapsulated).
    let message =
        Pl2Header::new(Pl2Type::Data, H2, H1, 0, 5).frame(1000, Some(MessageFields { created_ps: 0, id: 1, packets: 1, index: 0 }));
    let ((r, delivered), _) = run(message, false);
    assert_eq!((r.foreign_frames, r.malformed, r.duplicates, delivered), (3, 0, 0, 0));
}

fn memcached(
    background: nanotransport_net::experiments::pl2_rpc::Background,
    senders: usize,
    pl2: bool,
) -> nanotransport_net::experiments::pl2_rpc::Pl2RpcRun {
    use nanotransport_net::experiments::pl2_rpc::{run_pl2_rpc, Pl2RpcParams};
    let p = Pl2RpcParams { duration_us: 800.0, warmup_us: 100.0, ..Pl2RpcParams::defaults(background, senders, pl2) };
    let r = run_pl2_rpc(&p, &mut |_| {}).unwrap();
    println!(
        "{background:?} × {senders}, PL2 {pl2}: p50/p99 {:?}/{:?} µs, {} of {} answered, drops {} + {}, client link {:.1} Gb/s",
        r.latency_p50_us, r.latency_p99_us, r.answered, r.requests, r.buffer_drops, r.policy_drops, r.client_link_gbps
    );
    r
}

/// §6.2 on shortened runs: against 4 background hosts at 400 % (UDP) or 4 × 12 TCP connections,
/// the memcached client under PL2 keeps answering with no buffer drop, its p99 at least 2× below
/// the run without PL2 (whose RPC waits on a 200 ms RTO after a drop) and within its unloaded p99
/// plus the reservation horizon (48 flows × K timeslots) and one RSV-GRT exchange. (The issue's
/// other target, p99 ≤ 3× the unloaded p99, is not met: the horizon alone is 5× our 4.5 µs
/// unloaded p99; the paper's unloaded latency includes its software stack.)
#[test]
fn memcached_under_pl2_keeps_answering_against_400_percent_background() {
    use nanotransport_net::experiments::pl2_rpc::Background;
    let unloaded = memcached(Background::Udp, 0, true);
    let base = unloaded.latency_p99_us.unwrap();
    let horizon_us = 4.0 * 12.0 * 4.0 * 1514.0 * 8.0 / 100.0 / 1e3;
    for background in [Background::Udp, Background::Tcp] {
        let with = memcached(background, 4, true);
        let without = memcached(background, 4, false);
        assert_eq!(with.buffer_drops, 0, "{background:?}: PL2 dropped");
        assert!(with.answered > 20, "{background:?}: {} answered", with.answered);
        let p99 = with.latency_p99_us.unwrap();
        assert!(p99 <= base + horizon_us + 2.0, "{background:?}: p99 {p99:.1} µs beyond {base:.1} + {horizon_us:.1} + 2");
        assert!(without.buffer_drops > 0);
        assert!(without.latency_p99_us.unwrap() >= 2.0 * p99, "{background:?}: without PL2 p99 {:?}", without.latency_p99_us);
    }
}

#[test]
fn impossible_memcached_parameters_are_one_line_errors() {
    use nanotransport_net::experiments::pl2_rpc::{run_pl2_rpc, Background, Pl2RpcParams};
    let bad: [(&str, fn(&mut Pl2RpcParams)); 5] = [
        ("--senders", |p| p.senders = 63),
        ("--flows", |p| p.flows = 0),
        ("--value-bytes", |p| p.value_bytes = 0),
        ("--tcp-window-segments", |p| p.tcp_window_segments = 0),
        ("--duration-us", |p| p.warmup_us = p.duration_us),
    ];
    for (name, spoil) in bad {
        let mut p = Pl2RpcParams::defaults(Background::Tcp, 1, true);
        spoil(&mut p);
        let e = run_pl2_rpc(&p, &mut |_| {}).unwrap_err();
        assert!(e.starts_with(name) && !e.contains('\n'), "{e}");
    }
}

/// RSVs and GRTs lost on a lossy link: an RSV unanswered for 100 µs is sent again, so no flow
/// waits for ever — every message leaves the sender (data lost on the link is not resent: the
/// raw sender has no retransmission).
#[test]
fn lost_rsvs_and_grts_are_retried_and_no_flow_stalls() {
    use nanotransport_net::link::LinkSpec;
    use nanotransport_net::pl2::host::{Offer, Pl2Params, Pl2Receiver, Pl2Sender, SendMode};
    use nanotransport_net::topology::{star_with_links, Member};
    let offer = Offer { flows: 4, message_packets: 4, gbps: 20.0, start_ns: 0.0, stop_ns: 200_000.0, measure_from_ns: 0.0 };
    let sender = Pl2Sender::new(H1, vec![H2], SendMode::Pl2(Pl2Params::default()), offer, 100.0, 1);
    let lossy = LinkSpec { loss: 0.05, ..LinkSpec::new(100.0, 500.0) };
    let members = vec![
        (Member::Host(Box::new(sender)), lossy),
        (Member::Host(Box::new(Pl2Receiver::new(H2, 0.0, 1e9))), LinkSpec::new(100.0, 500.0)),
    ];
    let mut net = star_with_links(NicClock::THESIS, members, nanotransport_net::pl2::switch::stages(200_000), 1).unwrap();
    net.switches[0].ingress = Some(Box::new(Pl2Ingress::new(Pl2Config { max_demand: 4, unsolicited_limit: 64 }).unwrap()));
    net.run(3200 * 2_000, &mut |_| false, &mut |_| {});
    let s = net.host::<Pl2Sender>(0).unwrap();
    let c = s.counts();
    println!("messages {}, RSVs {}, retries {}, data {}, backlog {:?}", s.messages, c.rsvs, c.rsv_retries, c.data_packets, s.backlog());
    assert!(c.rsv_retries > 0, "no RSV or GRT was lost: the test proves nothing");
    assert_eq!(s.backlog(), (0, 0), "a flow is stuck");
    assert_eq!(c.data_packets, s.messages as u64 * 4 + 4 * c.resent_bursts);
}
