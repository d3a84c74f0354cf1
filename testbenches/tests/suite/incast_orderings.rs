//! The thesis' Fig. 3.2 orderings on the full incast (10 senders, the ns-3 model's setup) on the
//! 128-message whole-NIC models. Orderings only, never values: the values are reported by
//! `nanotransport sweep` / `merge` beside the ns-3 model's.

use nanotransport_sim::experiments::incast::{self, IncastParams, IncastResult};

fn run(protocol: &str, buffer_pkts: usize) -> IncastResult {
    let mut p = IncastParams::defaults(protocol);
    p.buffer_pkts = buffer_pkts;
    let (r, _) = incast::run(&p, false, &mut |_, _, _| {}).unwrap();
    let per_message: Vec<String> = r.messages.iter().map(|m| format!("{}:{:.2}", m.packets, m.slowdown.unwrap_or(f64::NAN))).collect();
    println!("{protocol} {buffer_pkts} packets: median {:?} p90 {:?}; {}", r.median_slowdown, r.p90_slowdown, per_message.join(" "));
    assert!(r.complete, "{protocol} {buffer_pkts}: incomplete: {:?}", r.messages);
    // Every delivered message arrived whole at the receiver NIC first: its arrival time is known
    // and no later than its delivery (the NIC's own time is what lies between them).
    for m in &r.messages {
        let (arrived, delivered) = (m.arrived_ns.unwrap(), m.completion_ns.unwrap());
        assert!(arrived > 0.0 && arrived <= delivered, "{protocol} {buffer_pkts}: sender {} arrived at {arrived} ns, delivered at {delivered} ns", m.sender);
    }
    println!("  at arrival: median {:?} p90 {:?}", r.median_arrived_slowdown, r.p90_arrived_slowdown);
    r
}

fn median(r: &IncastResult) -> f64 {
    r.median_slowdown.unwrap()
}

#[test]
fn large_buffer_homa_below_ndp_and_homa_rising_with_size() {
    let (ndp, homa) = (run("ndp", 110), run("homa", 110));
    assert!(median(&homa) < median(&ndp), "120 KB: Homa {} should be below NDP {}", median(&homa), median(&ndp));
    let s: Vec<f64> = homa.messages.iter().map(|m| m.slowdown.unwrap()).collect();
    assert!(s.windows(2).all(|w| w[1] >= w[0]), "120 KB: Homa's slowdown should rise with size (SRPT): {s:?}");
}

#[test]
fn small_buffer_homa_tr_below_ndp_below_homa() {
    let (ndp, homa, homa_tr) = (run("ndp", 58), run("homa", 58), run("homa-tr", 58));
    assert!(median(&ndp) < median(&homa), "63 KB: NDP {} should be below Homa {}", median(&ndp), median(&homa));
    assert!(median(&homa_tr) < median(&ndp), "63 KB: Homa-Tr {} should be below NDP {}", median(&homa_tr), median(&ndp));
}
