//! The switch (`net/switch.rs`): the queue discs' trimming and limits per band, the stage
//! context (ports, time, emitted packets, per-port state), O(1) queue accounting and occupancy
//! sampling.

use nanotransport_hdl::pisa::wire::{FLAG_CHOP, FLAG_DATA, HOMA_IP_PROTOCOL, NDP_IP_PROTOCOL, OFF_FLAGS, OFF_TOS};
use nanotransport_net::switch::*;
use nanotransport_sim::scenarios::{data_frame_for, trimmed};

fn ctx() -> StageContext {
    StageContext::new(Some(0), 0, 0, 0.0, 100.0)
}

fn data(ipp: u8, dscp: u8) -> Vec<u8> {
    let mut f = data_frame_for(ipp, 1, 2, 1, 1, 1, &[7u8; 1024], 0);
    f[OFF_TOS] = dscp << 2;
    f
}

#[test]
fn ndp_trims_at_limit_minus_one_and_queues_headers_first() {
    let mut q = PortQueues::new(2);
    let mut m = NdpTrim { limit: Limit::Packets(4) };
    let verdicts: Vec<Verdict> = (0..5).map(|_| m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0), &mut ctx())).collect();
    assert_eq!(verdicts, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.band_len(0), q.band_len(1)), (2, 3));
    let first = StrictPriority.dequeue(&mut q, &mut ctx()).unwrap();
    assert_eq!(first.len(), 64);
    assert_eq!(first[OFF_FLAGS], FLAG_DATA | FLAG_CHOP);
    for _ in 0..3 {
        m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0), &mut ctx());
    }
    assert_eq!(q.band_len(0), 4);
    assert_eq!(m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0), &mut ctx()), Verdict::Dropped, "header band full");
}

#[test]
fn homa_shares_one_limit() {
    let mut q = PortQueues::new(8);
    let mut m = HomaDropTail { limit: Limit::Packets(3) };
    let mut c = DscpClassify { bands: 8 };
    let v: Vec<Verdict> = [5, 0, 7, 0]
        .iter()
        .map(|d| {
            let f = data(HOMA_IP_PROTOCOL, *d);
            let b = c.classify(&f, &ctx());
            m.enqueue(&mut q, b, f, &mut ctx())
        })
        .collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped]);
    assert_eq!(dscp(&StrictPriority.dequeue(&mut q, &mut ctx()).unwrap()), 0);
    assert_eq!(dscp(&StrictPriority.dequeue(&mut q, &mut ctx()).unwrap()), 5);
}

#[test]
fn homa_tr_limits_each_band_and_trims_one_band_lower() {
    let mut q = PortQueues::new(8);
    let mut m = HomaTrTrim { limit: Limit::Packets(3) };
    let v: Vec<Verdict> = (0..4).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2), &mut ctx())).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.band_len(2), q.band_len(3)), (2, 2));
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7), &mut ctx()), Verdict::Enqueued);
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7), &mut ctx()), Verdict::Enqueued);
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7), &mut ctx()), Verdict::Trimmed, "lowest band trims into itself");
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7), &mut ctx()), Verdict::Dropped);
}

#[test]
fn byte_counted_limits_count_frame_bytes() {
    // 3 full frames (1088 B) fit in 3330 bytes; a 64-byte header still fits after them.
    let mut q = PortQueues::new(8);
    let mut m = HomaDropTail { limit: Limit::Bytes(3330) };
    let v: Vec<Verdict> = (0..4).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2), &mut ctx())).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped]);
    assert_eq!(m.enqueue(&mut q, 0, trimmed(&data(HOMA_IP_PROTOCOL, 0)), &mut ctx()), Verdict::Enqueued, "a header fits the last 66 bytes");
    assert_eq!(q.bytes(), 3 * 1088 + 64);

    // NDP in bytes: equal-size frames trim where the packet limit would (limit − 1).
    let (mut qp, mut qb) = (PortQueues::new(2), PortQueues::new(2));
    let (mut mp, mut mb) = (NdpTrim { limit: Limit::Packets(4) }, NdpTrim { limit: Limit::Bytes(4 * 1088) });
    for _ in 0..6 {
        let (a, b) =
            (mp.enqueue(&mut qp, 1, data(NDP_IP_PROTOCOL, 0), &mut ctx()), mb.enqueue(&mut qb, 1, data(NDP_IP_PROTOCOL, 0), &mut ctx()));
        assert_eq!(a, b);
    }
    assert_eq!((qb.band_len(0), qb.band_len(1)), (3, 3));

    // Homa-Tr in bytes: a band of 2.5 frames takes 1, then trims into the band below.
    let mut q = PortQueues::new(8);
    let mut m = HomaTrTrim { limit: Limit::Bytes(2720) };
    let v: Vec<Verdict> = (0..3).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2), &mut ctx())).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.band_len(2), q.band_len(3)), (1, 2));
}

/// A switch routing with `route`, DSCP bands, a drop-tail of `limit` packets, strict priority,
/// and `ports` ports of 100 Gb/s with two bands.
fn drop_tail_switch(route: Box<dyn Route>, limit: usize, ports: usize) -> Switch {
    let mut s = Switch::new(
        route,
        Box::new(DscpClassify { bands: 2 }),
        Box::new(HomaDropTail { limit: Limit::Packets(limit) }),
        Box::new(StrictPriority),
    );
    for link in 0..ports {
        s.add_port(link, 100.0, 2);
    }
    s
}

struct ToPortZero;
impl Route for ToPortZero {
    fn route(&mut self, _: &[u8], _: usize) -> Option<usize> {
        Some(0)
    }
}

#[test]
fn device_queue_holds_one_frame_beyond_the_queue_disc_chosen_when_it_entered() {
    let switch = |device_queue_pkts| {
        let mut s = drop_tail_switch(Box::new(ToPortZero), 2, 1);
        s.device_queue_pkts = device_queue_pkts;
        s.occupancy_sampling = OccupancySampling::OnChange;
        s
    };
    // Without a device queue the wire takes the highest band at each frame's end.
    let mut s = switch(0);
    s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0);
    assert_eq!(s.next_frame(0, 0).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.ports[0].counters.max_packets, 1, "a frame passing an idle port is counted in the queue");
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 1), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 2), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 3), None, "the disc's limit is 2");
    assert_eq!(s.next_frame(0, 4).map(|f| dscp(&f)), Some(0), "band 0 overtakes");

    // With one: the low-priority frame that found the device queue empty goes next, and
    // the disc still takes 2 beyond it (it is not counted, nor is the frame on the wire).
    let mut s = switch(1);
    s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0);
    assert_eq!(s.next_frame(0, 0).map(|f| dscp(&f)), Some(0));
    assert!(s.ports[0].busy);
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 1), Some(0));
    assert_eq!((s.ports[0].device.len(), s.ports[0].queues.packets()), (1, 0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 2), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 3), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 4), None, "the disc's limit is 2");
    assert_eq!(s.ports[0].occupancy.last().map(|o| o.1), Some(2), "occupancy is the disc's");
    assert_eq!(s.next_frame(0, 5).map(|f| dscp(&f)), Some(1), "chosen when it entered the device queue");
    assert_eq!((s.ports[0].device.len(), s.ports[0].queues.packets()), (1, 1));
    assert_eq!(s.next_frame(0, 6).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.next_frame(0, 7).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.next_frame(0, 8), None);
    assert!(!s.ports[0].busy);
    assert_eq!(s.ports[0].counters.sent, 4);
}

/// A queue manager that counts the frames it saw (per-port state) and emits a notice back out of
/// the ingress port, in band 0, for every one (as Bolt's SRC and PL2's GRT do): the frame's first
/// 64 bytes and one byte more per frame seen so far; `bad` emits to a port that does not exist.
#[derive(Clone, Default)]
struct Echoing {
    seen: u64,
    bad: bool,
}

impl QueueManager for Echoing {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, ctx: &mut StageContext) -> Verdict {
        self.seen += 1;
        let mut notice = frame[..64].to_vec();
        notice.resize(64 + self.seen as usize, 0);
        let back = if self.bad { 9 } else { ctx.ingress_port.expect("an arriving frame has an ingress port") };
        ctx.emit(back, 0, notice);
        q.push(band, frame);
        Verdict::Enqueued
    }
}

/// Port 0 ↔ port 1.
struct ToTheOtherPort;
impl Route for ToTheOtherPort {
    fn route(&mut self, _: &[u8], ingress_port: usize) -> Option<usize> {
        Some(1 - ingress_port)
    }
}

/// Records the context it is called with.
#[derive(Clone, Default)]
struct Recording(std::rc::Rc<std::cell::RefCell<Vec<(Option<usize>, usize, u64, f64, f64)>>>);
impl Classify for Recording {
    fn classify(&mut self, _: &[u8], ctx: &StageContext) -> usize {
        self.0.borrow_mut().push((ctx.ingress_port, ctx.egress_port, ctx.now_ticks, ctx.now_ns, ctx.link_gbps));
        0
    }
}

fn echo_switch(bad: bool, classify: Box<dyn Classify>) -> Switch {
    let mut s = Switch::new(Box::new(ToTheOtherPort), classify, Box::new(Echoing { seen: 0, bad }), Box::new(StrictPriority));
    s.add_port(0, 10.0, 2);
    s.add_port(1, 100.0, 2);
    s.ns_per_tick = 0.5;
    s
}

#[test]
fn stages_see_ports_time_and_rate_and_emit_their_own_packets() {
    let seen = Recording::default();
    let mut s = echo_switch(false, Box::new(seen.clone()));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 40), Some(1));
    assert_eq!(*seen.0.borrow(), [(Some(0), 1, 40, 20.0, 100.0)], "ingress 0, egress 1, tick 40 = 20 ns, the egress link's rate");
    // The notice went out of the ingress port, in band 0, without passing a queue manager.
    assert_eq!((s.ports[0].queues.packets(), s.ports[0].queues.band_len(0), s.ports[0].counters.enqueued), (1, 1, 1));
    assert_eq!(s.next_frame(0, 41).map(|f| f.len()), Some(65));
    assert_eq!(s.next_frame(1, 41).map(|f| f.len()), Some(1088));
    assert_eq!(s.stage_errors, 0);
}

#[test]
fn each_port_has_its_own_stage_state() {
    // Two frames in on port 0 (to port 1), one in on port 1 (to port 0): port 1's queue manager
    // sees two, port 0's one — a manager shared by the ports would have counted three.
    let mut s = echo_switch(false, Box::new(DscpClassify { bands: 2 }));
    s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 0);
    s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 1);
    s.accept(data(HOMA_IP_PROTOCOL, 1), 1, 2);
    let lengths = |s: &mut Switch, port| std::iter::from_fn(|| s.next_frame(port, 3)).map(|f| f.len()).collect::<Vec<_>>();
    assert_eq!(lengths(&mut s, 0), [65, 66, 1088], "port 0: port 1's notices, then the frame from port 1");
    assert_eq!(lengths(&mut s, 1), [65, 1088, 1088], "port 1: port 0's notice first (band 0), then the two frames");
}

#[test]
fn impossible_stage_requests_are_counted_not_panics() {
    let mut s = echo_switch(true, Box::new(DscpClassify { bands: 2 }));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0), Some(1), "the frame itself is queued");
    assert_eq!(s.stage_errors, 1);
    let e = s.last_stage_error.clone().unwrap();
    assert!(e.contains("queue manager") && e.contains("port 9") && e.contains("2 ports"), "{e}");

    // A classifier asking for a band the port lacks: queued in the last band, counted.
    let mut s = echo_switch(false, Box::new(DscpClassify { bands: 8 }));
    s.accept(data(HOMA_IP_PROTOCOL, 5), 0, 0);
    assert_eq!((s.stage_errors, s.ports[1].queues.band_len(1)), (1, 1));
    assert!(s.last_stage_error.unwrap().contains("band 5 at port 1"));
}

#[test]
fn running_counts_match_the_queued_frames() {
    let seed = 0x5EED_0035u64;
    println!("seed {seed:#x}");
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
    let mut q = PortQueues::new(4);
    let mut model: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); 4];
    for _ in 0..10_000 {
        let band = rand::Rng::gen_range(&mut rng, 0..4);
        if rand::Rng::gen_bool(&mut rng, 0.55) {
            let len = rand::Rng::gen_range(&mut rng, 64..1500);
            q.push(band, vec![0; len]);
            model[band].push_back(len);
        } else {
            assert_eq!(q.pop(band).map(|f| f.len()), model[band].pop_front());
        }
        for b in 0..4 {
            assert_eq!((q.band_len(b), q.band_bytes(b)), (model[b].len(), model[b].iter().sum()));
        }
        assert_eq!((q.packets(), q.bytes()), (model.iter().map(|b| b.len()).sum(), model.iter().flatten().sum()));
    }
}

#[test]
fn occupancy_is_sampled_at_an_interval_when_asked() {
    let run = |sampling| {
        let mut s = drop_tail_switch(Box::new(ToPortZero), 1000, 1);
        s.occupancy_sampling = sampling;
        // One frame in every 10 ticks for 10 000 ticks, the port never sending: 1000 changes.
        for t in 0..1000u64 {
            s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 10 * t + 5);
        }
        s.ports[0].occupancy.clone()
    };
    let every = run(OccupancySampling::OnChange);
    assert_eq!(every.len(), 1001);
    let sampled = run(OccupancySampling::EveryNs(1000.0));
    // Tick 0, then 1000, 2000 … 9000: the occupancy just before each boundary's frame.
    assert_eq!(sampled.len(), 10);
    for (k, (t, n, _)) in sampled.iter().enumerate() {
        assert_eq!((*t, *n), (1000 * k as u64, 100 * k), "sample {k}");
    }
    assert_eq!(run(OccupancySampling::Off), [(0, 0, 0)]);
}

#[test]
fn any_ipv4_protocol_is_routed_and_a_frame_too_short_for_its_headers_is_counted() {
    let mut s = drop_tail_switch(Box::new(IpRoute { table: vec![(2, 1)] }), 8, 2);
    // Bolt's protocol number, a control frame at DSCP 0: routed on its IPv4 destination.
    let bolt = data_frame_for(153, 1, 2, 1, 1, 1, &[0u8; 8], 0);
    assert_eq!(s.accept(bolt, 0, 0), Some(1));
    // 20 bytes: no IPv4 destination at all.
    assert_eq!(s.accept(vec![0u8; 20], 0, 1), None);
    assert_eq!((s.unroutable, s.stage_errors), (1, 0));
}

/// A switch-wide ingress stage that forwards, drops or consumes by the frame's DSCP and records
/// the egress queue's bytes it was shown.
struct ByDscp(std::rc::Rc<std::cell::RefCell<Vec<usize>>>);
impl Ingress for ByDscp {
    fn ingress(&mut self, frame: &mut Vec<u8>, ctx: &mut StageContext) -> IngressVerdict {
        self.0.borrow_mut().push(ctx.egress_queue_bytes);
        match dscp(frame) {
            0 => IngressVerdict::Forward,
            1 => IngressVerdict::Drop,
            _ => {
                ctx.emit(ctx.ingress_port.unwrap(), 0, frame.clone());
                IngressVerdict::Consume
            }
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn the_ingress_stage_forwards_drops_or_consumes_and_sees_the_egress_queue() {
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut s = drop_tail_switch(Box::new(ToTheOtherPort), 8, 2);
    s.ingress = Some(Box::new(ByDscp(seen.clone())));
    let len = data(HOMA_IP_PROTOCOL, 0).len();
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0), Some(1));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0), Some(1));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 0, 0), Some(1));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 0, 0), None);
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 2), 0, 0), None);
    // Each stage call saw the bytes queued at port 1 before its frame (no network sends them).
    assert_eq!(*seen.borrow(), [0, len, 2 * len, 3 * len, 3 * len]);
    assert_eq!((s.ingress_dropped, s.ingress_consumed), (1, 1));
    assert_eq!((s.ports[1].counters.dropped, s.ports[0].queues.packets()), (0, 1), "the consumed frame's answer went back out of port 0");
}
