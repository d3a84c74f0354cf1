//! Whole-NIC tests every protocol shares, each run on the Verilator model of every preset listed
//! with it (`<test>::<preset>`): per-stage latency against the protocol's row of Table 3.1, line
//! rate in both directions, wrong-length frames, and at-most-once delivery over the horizon. The
//! protocol-specific behaviour is in `ndp_nic` and `homa_nic`.

use nanotransport_sim::scenarios::*;
use nanotransport_testbenches::cases;

/// Every stage at or below the protocol's row of Table 3.1.
fn latency_every_stage_at_or_below_table_3_1(config: &str) {
    let r = latency(config).unwrap();
    println!("{config}: {r:?}");
    let paper = if Protocol::of_config(config) == Protocol::Ndp { PAPER_NDP_CYCLES } else { PAPER_HOMA_CYCLES };
    let ours = [r.ingress, r.reassembly, r.packetize, r.egress];
    for (stage, (c, p)) in ["ingress", "reassembly", "packetize", "egress"].iter().zip(ours.iter().zip(paper)) {
        assert!(*c <= p, "{config} {stage}: {c} cycles, paper {p}");
    }
    // The parser cannot see the whole 64-byte header before beat 7: the floor is 8 cycles.
    assert!(r.ingress >= 8 && r.rx_payload >= 8, "{r:?}");
    // The reply needs the whole header (8 beats) and the GetRxMsgInfo answer first.
    assert!(r.data_to_ack > 9, "{r:?}");
}

/// `packets` one-packet messages each way at line rate: no idle beat, every message done; on
/// receive, NDP answers every packet (the last reply may still be on its way).
fn line_rate_both_directions((config, packets): (&str, u64)) {
    for dir in ["rx", "tx"] {
        let r = throughput(config, dir, packets).unwrap();
        println!("{config} {dir}: {r:?}");
        assert_eq!((r.idle_beats, r.cycles, r.messages_done), (0, 9 * packets, packets), "{config} {dir}");
        if dir == "rx" && Protocol::of_config(config) == Protocol::Ndp {
            assert!(r.control_frames >= packets - 1, "{r:?}");
        }
    }
}

fn wrong_length_frames_draw_no_reply_and_good_copies_complete_the_message(config: &str) {
    let r = wrong_length_then_good(config, Protocol::of_config(config).ip_protocol()).unwrap();
    println!("{config}: replies to bad {}, to good {}, delivered {}", r.replies_to_bad, r.replies_to_good, r.delivered.len());
    r.check().unwrap();
}

/// At-most-once delivery over the whole horizon at the highest completion rate (one one-packet
/// message every 9 cycles for 17/16 of the horizon): copies of messages delivered up to the
/// horizon ago are answered and not delivered; a copy older than the set's memory is delivered
/// again (the stated limit). The 16-entry table this replaced forgot a message after 16 others.
fn copies_within_the_horizon_are_never_delivered_twice_at_the_highest_completion_rate(config: &str) {
    let r = at_most_once_over_the_horizon(config).unwrap();
    println!("{config}: {r:?}");
    r.check();
}

cases!(
    [ndp_16 => "ndp-16", ndp_64 => "ndp-64", ndp_128 => "ndp-128", homa_16 => "homa-16", homa_tr_16 => "homa-tr-16", homa_128 => "homa-128"];
    latency_every_stage_at_or_below_table_3_1,
);
cases!(
    [ndp_16 => ("ndp-16", 1000), ndp_64 => ("ndp-64", 600), ndp_128 => ("ndp-128", 600), homa_16 => ("homa-16", 600), homa_tr_16 => ("homa-tr-16", 600), homa_128 => ("homa-128", 600)];
    line_rate_both_directions,
);
cases!(
    [ndp_16 => "ndp-16", ndp_128 => "ndp-128", homa_16 => "homa-16", homa_tr_16 => "homa-tr-16", homa_128 => "homa-128"];
    wrong_length_frames_draw_no_reply_and_good_copies_complete_the_message,
);
cases!(
    [ndp_16 => "ndp-16", homa_128 => "homa-128"];
    copies_within_the_horizon_are_never_delivered_twice_at_the_highest_completion_rate,
);
