//! The ingress front (parser, match stage, GetRxMsgInfo call, payload path; hdl/pisa/ingress_front.rs)
//! on its own, as NDP loads it: rust-hdl beside Verilator on its generated Verilog, every output
//! compared every cycle, with frames of every kind, random gaps, a table that is sometimes not
//! ready, random answers, and a reassembly that stalls.

use nanotransport_hdl::pisa::ingress_front::IngressFront;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_hdl::protocols::ndp::ingress::ndp_ingress_program;
use nanotransport_reference::pisa::Header;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::nic::frame_beats;
use nanotransport_sim::scenarios::{data_frame, length_fault, trimmed, NIC_IP, PEER_IP};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a random frame is, for the counts the front must reach.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// DATA or trimmed DATA of the right length: one `done_*` each.
    TableCall,
    /// A control packet of the right length: one `act_*` each.
    Control,
    /// A DATA frame whose Ethernet length disagrees with its IPv4 length (a trailer, or cut
    /// short): dropped at its last beat, no `done_*`.
    FrameLength,
    /// Dropped before any call: IPv4 length wrong for the message, or shorter than the headers.
    Other,
}

fn random_frame(rng: &mut ChaCha8Rng) -> (Vec<u8>, Kind) {
    let len = rng.gen_range(1..=2500usize);
    let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let off = rng.gen_range(0..len.div_ceil(1024));
    let f = data_frame(PEER_IP, NIC_IP, rng.gen_range(1..4), 80, rng.gen_range(0..6), &msg, off);
    match rng.gen_range(0..12) {
        0 => (trimmed(&f), Kind::TableCall),
        1 => {
            // a control packet: ACK / NACK / PULL
            let mut h = Header::decode(&f);
            h.flags = [FLAG_ACK, FLAG_NACK, FLAG_PULL, FLAG_ACK | FLAG_PULL][rng.gen_range(0..4)];
            h.ip_total_len = 51;
            (h.frame(NDP_IP_PROTOCOL, &[0]), Kind::Control)
        }
        2 => {
            // wrong IPv4 length for its offset
            let mut h = Header::decode(&f);
            h.msg_len = h.msg_len.wrapping_add(1);
            // Still right when the packet is not the message's last (it carries 1024 bytes).
            let expected = (h.msg_len as usize - 1024 * h.pkt_offset as usize).min(1024);
            let kind = if f.len() - 64 == expected { Kind::TableCall } else { Kind::Other };
            (h.frame(NDP_IP_PROTOCOL, &f[64..]), kind)
        }
        3 => (f[..rng.gen_range(20..64)].to_vec(), Kind::Other),
        4 => (length_fault(&f, true), Kind::FrameLength),
        5 => (length_fault(&f, false), Kind::FrameLength),
        _ => (f, Kind::TableCall),
    }
}

#[test]
fn lockstep_frames_with_random_table_answers_and_stalls() {
    std::thread::Builder::new().stack_size(256 << 20).spawn(run).unwrap().join().unwrap();
}

fn run() {
    let s = seed("ingress_front_lockstep", 701);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let front = IngressFront::<4>::new(NDP_IP_PROTOCOL, &ndp_ingress_program());
    let mut io = Lockstep::with_stepper(NativeStepper::new(front), "nt_blocks_16_ingress_front").unwrap();
    io.set("reset", 1);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let mut beats: Vec<(u64, u64, bool)> = Vec::new();
    let (mut frames, mut requests, mut answers, mut acts, mut first_beats_out) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut offered = [0u64; 4];
    let (mut answer_next, mut in_packet) = (false, false);
    while io.cycle < 12_000 {
        if beats.is_empty() && rng.gen_bool(0.7) {
            let (frame, kind) = random_frame(&mut rng);
            offered[kind as usize] += 1;
            beats = frame_beats(&frame);
            beats.reverse();
            frames += 1;
        }
        let offer = !beats.is_empty() && rng.gen_bool(0.85);
        if let Some(&(d, k, l)) = beats.last() {
            io.set("s_axis$tdata", d);
            io.set("s_axis$tkeep", k);
            io.set("s_axis$tlast", l as u64);
        }
        io.set("s_axis$tvalid", offer as u64);
        let out_ready = rng.gen_bool(0.7);
        io.set("m_axis$tready", out_ready as u64);
        let table_ready = rng.gen_bool(0.8);
        io.set("req$ready", table_ready as u64);
        // The table answers one cycle after it takes a request.
        io.set("resp$valid", answer_next as u64);
        io.set("resp$fail", rng.gen_bool(0.1) as u64);
        io.set("resp$rx_msg_id", if rng.gen_bool(0.1) { 0x8000 } else { rng.gen_range(0..0x1000) });
        io.set("resp$is_new_msg", rng.gen_bool(0.3) as u64);
        io.set("resp$is_new_pkt", rng.gen_bool(0.8) as u64);
        io.set("resp$is_last_pkt", rng.gen_bool(0.3) as u64);
        io.set("resp$ack_no", rng.gen_range(0..40));
        io.eval();
        if offer && io.get("s_axis$tready") == 1 {
            beats.pop();
        }
        answer_next = io.get("req$valid") == 1 && table_ready;
        requests += answer_next as u64;
        answers += io.get("done$valid");
        acts += io.get("act$valid");
        if io.get("m_axis$tvalid") == 1 && out_ready {
            first_beats_out += (!in_packet) as u64;
            in_packet = io.get("m_axis$tlast") == 0;
        }
        io.tick();
    }
    // Drain: the frame under way is finished, then no more input; table and reassembly ready.
    io.set("m_axis$tready", 1);
    io.set("req$ready", 1);
    for _ in 0..800 {
        if let Some(&(d, k, l)) = beats.last() {
            io.set("s_axis$tdata", d);
            io.set("s_axis$tkeep", k);
            io.set("s_axis$tlast", l as u64);
        }
        io.set("s_axis$tvalid", (!beats.is_empty()) as u64);
        io.set("resp$valid", answer_next as u64);
        io.eval();
        if !beats.is_empty() && io.get("s_axis$tready") == 1 {
            beats.pop();
        }
        answer_next = io.get("req$valid") == 1;
        requests += answer_next as u64;
        answers += io.get("done$valid");
        acts += io.get("act$valid");
        if io.get("m_axis$tvalid") == 1 {
            first_beats_out += (!in_packet) as u64;
            in_packet = io.get("m_axis$tlast") == 0;
        }
        io.tick();
    }
    io.eval();
    let accepted = io.get("frame_count");
    let forwarded = io.get("forwarded_count");
    let length_drops = io.get("bad_frame_length_count");
    let [table_frames, controls, length_faults, _] = offered;
    println!(
        "ingress front lockstep: {} cycles, {} comparisons; {frames} frames offered, {accepted} passed the parser, \
         {requests} GetRxMsgInfo calls, {answers} results, {forwarded} packets forwarded, {length_drops} dropped for their frame length",
        io.cycle, io.comparisons
    );
    // The frame under way when the run stopped offering may be cut off; the drain finishes it.
    assert_eq!(acts, controls, "one action per control frame");
    assert_eq!(answers, table_frames, "one result per good DATA or trimmed frame, none for a bad one");
    assert_eq!(length_drops, length_faults, "every frame-length fault dropped and counted");
    assert!(requests >= answers && requests <= 2 * (table_frames + length_faults), "one or two calls per frame");
    assert_eq!(first_beats_out, forwarded, "every forwarded packet left on m_axis");
    assert!(forwarded > 50 && requests > 100, "the run exercised the forward path");
}
