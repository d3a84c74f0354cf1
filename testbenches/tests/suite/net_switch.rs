//! The switch's queue discs (`net/switch.rs`): trimming and limits per band.

use nanotransport_hdl::pisa::wire::{FLAG_CHOP, FLAG_DATA, HOMA_IP_PROTOCOL, NDP_IP_PROTOCOL, OFF_FLAGS, OFF_TOS};
use nanotransport_net::switch::*;
use nanotransport_sim::scenarios::{data_frame_for, trimmed};

fn data(ipp: u8, dscp: u8) -> Vec<u8> {
    let mut f = data_frame_for(ipp, 1, 2, 1, 1, 1, &[7u8; 1024], 0);
    f[OFF_TOS] = dscp << 2;
    f
}

#[test]
fn ndp_trims_at_limit_minus_one_and_queues_headers_first() {
    let mut q = PortQueues::new(2);
    let mut m = NdpTrim { limit: Limit::Packets(4) };
    let verdicts: Vec<Verdict> = (0..5).map(|_| m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0))).collect();
    assert_eq!(verdicts, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.bands[0].len(), q.bands[1].len()), (2, 3));
    let first = StrictPriority.dequeue(&mut q).unwrap();
    assert_eq!(first.len(), 64);
    assert_eq!(first[OFF_FLAGS], FLAG_DATA | FLAG_CHOP);
    for _ in 0..3 {
        m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0));
    }
    assert_eq!(q.bands[0].len(), 4);
    assert_eq!(m.enqueue(&mut q, 1, data(NDP_IP_PROTOCOL, 0)), Verdict::Dropped, "header band full");
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
            let b = c.classify(&f);
            m.enqueue(&mut q, b, f)
        })
        .collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped]);
    assert_eq!(dscp(&StrictPriority.dequeue(&mut q).unwrap()), 0);
    assert_eq!(dscp(&StrictPriority.dequeue(&mut q).unwrap()), 5);
}

#[test]
fn homa_tr_limits_each_band_and_trims_one_band_lower() {
    let mut q = PortQueues::new(8);
    let mut m = HomaTrTrim { limit: Limit::Packets(3) };
    let v: Vec<Verdict> = (0..4).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2))).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.bands[2].len(), q.bands[3].len()), (2, 2));
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7)), Verdict::Enqueued);
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7)), Verdict::Enqueued);
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7)), Verdict::Trimmed, "lowest band trims into itself");
    assert_eq!(m.enqueue(&mut q, 7, data(HOMA_IP_PROTOCOL, 7)), Verdict::Dropped);
}

#[test]
fn byte_counted_limits_count_frame_bytes() {
    // 3 full frames (1088 B) fit in 3330 bytes; a 64-byte header still fits after them.
    let mut q = PortQueues::new(8);
    let mut m = HomaDropTail { limit: Limit::Bytes(3330) };
    let v: Vec<Verdict> = (0..4).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2))).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped]);
    assert_eq!(m.enqueue(&mut q, 0, trimmed(&data(HOMA_IP_PROTOCOL, 0))), Verdict::Enqueued, "a header fits the last 66 bytes");
    assert_eq!(q.bytes(), 3 * 1088 + 64);

    // NDP in bytes: equal-size frames trim where the packet limit would (limit − 1).
    let (mut qp, mut qb) = (PortQueues::new(2), PortQueues::new(2));
    let (mut mp, mut mb) = (NdpTrim { limit: Limit::Packets(4) }, NdpTrim { limit: Limit::Bytes(4 * 1088) });
    for _ in 0..6 {
        let (a, b) = (mp.enqueue(&mut qp, 1, data(NDP_IP_PROTOCOL, 0)), mb.enqueue(&mut qb, 1, data(NDP_IP_PROTOCOL, 0)));
        assert_eq!(a, b);
    }
    assert_eq!((qb.bands[0].len(), qb.bands[1].len()), (3, 3));

    // Homa-Tr in bytes: a band of 2.5 frames takes 1, then trims into the band below.
    let mut q = PortQueues::new(8);
    let mut m = HomaTrTrim { limit: Limit::Bytes(2720) };
    let v: Vec<Verdict> = (0..3).map(|_| m.enqueue(&mut q, 2, data(HOMA_IP_PROTOCOL, 2))).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Trimmed, Verdict::Trimmed]);
    assert_eq!((q.bands[2].len(), q.bands[3].len()), (1, 2));
}

struct ToPortZero;
impl Route for ToPortZero {
    fn route(&mut self, _: &[u8]) -> Option<usize> {
        Some(0)
    }
}

#[test]
fn device_queue_holds_one_frame_beyond_the_queue_disc_chosen_when_it_entered() {
    let switch = |device_queue_pkts| {
        let mut s = Switch::new(
            Box::new(ToPortZero),
            Box::new(DscpClassify { bands: 2 }),
            Box::new(HomaDropTail { limit: Limit::Packets(2) }),
            Box::new(StrictPriority),
        );
        s.ports.push(Port::new(0, 2));
        s.device_queue_pkts = device_queue_pkts;
        s
    };
    // Without a device queue the wire takes the highest band at each frame's end.
    let mut s = switch(0);
    s.accept(data(HOMA_IP_PROTOCOL, 0), 0);
    assert_eq!(s.next_frame(0, 0).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.ports[0].counters.max_packets, 1, "a frame passing an idle port is counted in the queue");
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 1), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 2), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 3), None, "the disc's limit is 2");
    assert_eq!(s.next_frame(0, 4).map(|f| dscp(&f)), Some(0), "band 0 overtakes");

    // With one: the low-priority frame that found the device queue empty goes next, and
    // the disc still takes 2 beyond it (it is not counted, nor is the frame on the wire).
    let mut s = switch(1);
    s.accept(data(HOMA_IP_PROTOCOL, 0), 0);
    assert_eq!(s.next_frame(0, 0).map(|f| dscp(&f)), Some(0));
    assert!(s.ports[0].busy);
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 1), Some(0));
    assert_eq!((s.ports[0].device.len(), s.ports[0].queues.packets()), (1, 0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 2), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 0), 3), Some(0));
    assert_eq!(s.accept(data(HOMA_IP_PROTOCOL, 1), 4), None, "the disc's limit is 2");
    assert_eq!(s.ports[0].occupancy.last().map(|o| o.1), Some(2), "occupancy is the disc's");
    assert_eq!(s.next_frame(0, 5).map(|f| dscp(&f)), Some(1), "chosen when it entered the device queue");
    assert_eq!((s.ports[0].device.len(), s.ports[0].queues.packets()), (1, 1));
    assert_eq!(s.next_frame(0, 6).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.next_frame(0, 7).map(|f| dscp(&f)), Some(0));
    assert_eq!(s.next_frame(0, 8), None);
    assert!(!s.ports[0].busy);
    assert_eq!(s.ports[0].counters.sent, 4);
}
