//! The switch-scheme library (`net/schemes/`): each scheme's decisions on a port's queues.

use nanotransport_hdl::pisa::wire::{HOMA_IP_PROTOCOL, OFF_TOS};
use nanotransport_net::schemes::*;
use nanotransport_net::switch::{Limit, PortQueues, QueueManager, Schedule, StageContext, Verdict};
use nanotransport_reference::pisa::ipv4_sum;
use nanotransport_sim::scenarios::data_frame_for;

/// A frame from `src` with a payload of `len` bytes (at most 1024; 64 bytes of headers before
/// it), ECN-capable (ECT(0)) or not.
fn frame(src: u32, len: usize, ect: bool) -> Vec<u8> {
    let mut f = data_frame_for(HOMA_IP_PROTOCOL, src, 99, 1, 1, 1, &vec![0u8; len], 0);
    if ect {
        f[OFF_TOS] |= 0b10;
    }
    f
}

fn ctx(now_ns: f64, gbps: f64) -> StageContext {
    StageContext::new(Some(0), 0, now_ns as u64, now_ns, gbps)
}

#[test]
fn drop_tail_drops_when_the_shared_buffer_is_full() {
    let mut q = PortQueues::new(2);
    let mut m = DropTail { limit: Limit::Packets(3) };
    let v: Vec<Verdict> = [0, 1, 0, 1].iter().map(|b| m.enqueue(&mut q, *b, frame(1, 100, false), &mut ctx(0.0, 10.0))).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped]);
    assert_eq!(DropTail::default().limit, Limit::Packets(1024));
}

#[test]
fn ce_marking_keeps_the_ipv4_checksum_valid_and_spares_frames_that_are_not_ecn_capable() {
    let mut f = frame(1, 100, true);
    assert!(ecn_capable(&f) && !is_ce(&f));
    assert!(mark_ce(&mut f));
    assert!(is_ce(&f));
    assert_eq!(ipv4_sum(&f[14..34]), 0xFFFF, "checksum valid after marking");
    let mut plain = frame(1, 100, false);
    let before = plain.clone();
    assert!(!mark_ce(&mut plain));
    assert_eq!(plain, before);
}

#[test]
fn dctcp_marks_above_k_and_drops_at_capacity() {
    let mut q = PortQueues::new(1);
    let mut m = Dctcp::new(2, 5).unwrap();
    let mut marks = Vec::new();
    for _ in 0..6 {
        let v = m.enqueue(&mut q, 0, frame(1, 100, true), &mut ctx(0.0, 10.0));
        marks.push((v, q.packets()));
    }
    let verdicts: Vec<Verdict> = marks.iter().map(|m| m.0).collect();
    assert_eq!(verdicts[..5], [Verdict::Enqueued; 5]);
    assert_eq!(verdicts[5], Verdict::Dropped);
    // Frames that found 0, 1, 2 packets are not marked; those that found 3 and 4 are.
    let ce: Vec<bool> = (0..5).map(|_| is_ce(&q.pop(0).unwrap())).collect();
    assert_eq!(ce, [false, false, false, true, true]);
    assert_eq!(m.marked, 2);
    assert!(Dctcp::new(65, 64).unwrap_err().contains("K must be below the capacity"));
}

#[test]
fn red_marks_nothing_below_min_everything_above_max_and_a_fraction_between() {
    let seed = 0x5EED_0037u64;
    println!("seed {seed:#x}");
    // The queue held at `held` packets: one arrival and one departure every 1.2 µs.
    let run = |held: usize, ecn: bool| {
        let mut m = Red::new(150.0, 300.0, 0.1, 1.0 / 32.0, ecn, 1024, seed).unwrap();
        let mut q = PortQueues::new(1);
        for _ in 0..held {
            q.push(0, frame(1, 1024, true));
        }
        let mut dropped = 0;
        for k in 0..3000 {
            match m.enqueue(&mut q, 0, frame(1, 1024, true), &mut ctx(1200.0 * k as f64, 10.0)) {
                Verdict::Dropped => dropped += 1,
                _ => {
                    q.pop(0); // keep the queue at `held`
                }
            }
        }
        (dropped, m.marked, m.average())
    };
    let (d, _, avg) = run(100, false);
    assert_eq!(d, 0, "average {avg:.1} below min");
    let (d, _, avg) = run(400, false);
    assert!(d > 2900, "average {avg:.1} above max: nearly every arrival dropped ({d})");
    // Between: pb = 0.1 · (200 − 150) / 150 = 1/30; count-based marks come every 1 … 30
    // arrivals, about one in 15.5.
    let (d, _, avg) = run(200, false);
    assert!((avg - 200.0).abs() < 1.0);
    assert!((120..=280).contains(&d), "{d} of 3000 dropped at average {avg:.1}");
    // ECN mode marks the same frames instead of dropping them.
    let (d_ecn, marked, _) = run(200, true);
    assert_eq!((d_ecn, marked), (0, d));
}

#[test]
fn red_forgets_its_average_over_an_idle_queue() {
    let mut m = Red::default();
    let mut q = PortQueues::new(1);
    for k in 0..2000 {
        m.enqueue(&mut q, 0, frame(1, 1024, false), &mut ctx(k as f64, 10.0));
    }
    let busy = m.average();
    assert!(busy > 150.0, "average {busy:.1}");
    while q.pop(0).is_some() {}
    // 100 ms later (the queue drained long before): (1 − 2⁻⁵)^(idle / 1.2 µs) ≈ 0.
    m.enqueue(&mut q, 0, frame(1, 1024, false), &mut ctx(100e6, 10.0));
    assert!(m.average() < 1e-3, "average {} after the idle time", m.average());
}

#[test]
fn bad_parameters_are_one_line_errors_naming_the_parameter() {
    assert!(Red::new(300.0, 150.0, 0.1, 0.03, false, 1024, 1).unwrap_err().contains("min 300"));
    assert!(Red::new(150.0, 300.0, 1.5, 0.03, false, 1024, 1).unwrap_err().contains("max_p 1.5"));
    assert!(Drr::new(0, vec![]).unwrap_err().contains("quantum 0"));
    assert!(Drr::new(1500, vec![1, 0]).unwrap_err().contains("band 1 is 0"));
    assert!(Hull::new(1.5, 15_000.0).unwrap_err().contains("drain fraction"));
    assert!(PerSourceQueues::new(0).is_err());
}

/// Bytes each band sent in the first `frames` frames a scheduler picked.
fn served(s: &mut dyn Schedule, q: &mut PortQueues, frames: usize) -> Vec<usize> {
    let mut bytes = vec![0; q.band_count()];
    for _ in 0..frames {
        let f = s.dequeue(q, &mut ctx(0.0, 10.0)).unwrap();
        // Band by source address: source b + 1 was queued in band b.
        bytes[f[29] as usize - 1] += f.len();
    }
    bytes
}

#[test]
fn drr_shares_bytes_by_weight_whatever_the_frame_sizes() {
    let fill = |q: &mut PortQueues| {
        for _ in 0..400 {
            q.push(0, frame(1, 1024, false)); // 1088-byte frames
            q.push(1, frame(2, 436, false)); // 500-byte frames
        }
    };
    let mut q = PortQueues::new(2);
    fill(&mut q);
    let b = served(&mut Drr::default(), &mut q, 300);
    assert!((b[0] as f64 / b[1] as f64 - 1.0).abs() < 0.05, "equal weights: {b:?}");
    let mut q = PortQueues::new(2);
    fill(&mut q);
    let b = served(&mut Drr::new(1500, vec![3, 1]).unwrap(), &mut q, 300);
    assert!((b[0] as f64 / b[1] as f64 - 3.0).abs() < 0.15, "weights 3:1: {b:?}");
}

#[test]
fn per_source_queues_give_each_source_its_own_buffer() {
    let mut q = PortQueues::new(4);
    let mut m = PerSourceQueues::new(2).unwrap();
    let v: Vec<Verdict> = [1, 1, 1, 2].iter().map(|s| m.enqueue(&mut q, 0, frame(*s, 100, false), &mut ctx(0.0, 10.0))).collect();
    assert_eq!(v, [Verdict::Enqueued, Verdict::Enqueued, Verdict::Dropped, Verdict::Enqueued], "source 1's queue holds 2");
    assert_eq!((q.band_len(0), q.band_len(1)), (2, 1));
}

#[test]
fn hull_marks_once_its_phantom_queue_passes_the_threshold() {
    // Back-to-back 1088-byte frames leaving at the line rate (870.4 ns each at 10 Gb/s): the
    // phantom queue, draining at 95 % of it, keeps 5 % of each frame — 54.4 bytes — so it
    // passes 15 KB at the 257th frame (1088 + 256 · 54.4 = 15 014.4 bytes).
    let mut h = Hull::default();
    let mut q = PortQueues::new(1);
    for _ in 0..400 {
        q.push(0, frame(1, 1024, true));
    }
    let first_mark = (0..400)
        .position(|k| {
            let f = h.dequeue(&mut q, &mut ctx(k as f64 * 870.4, 10.0)).unwrap();
            assert_eq!(f.len(), 1088);
            is_ce(&f)
        })
        .unwrap();
    assert_eq!(first_mark, 256, "phantom {:.0} bytes", h.phantom_bytes());
}
