//! The reassembly module (hdl/nic/reassembly.rs) on the Verilator model of its generated
//! Verilog, at 16 and 128 messages with the same test code: directed delivery, latency and
//! throughput figures, every bad input with its counter, back-pressure, every table fail reason.

use nanotransport_hdl::nic::get_rx_msg_info::{fail_reason, hash0, hash1};
use nanotransport_reference::rx::{app_header, key_of, RxMeta, RxRequest, RxResponse};
use nanotransport_sim::cosim::rx_harness::{RxHarness, RxPacket};
use nanotransport_testbenches::cases;
use nanotransport_testbenches::rx::RxSize;
use nanotransport_testbenches::rx::{RX_128, RX_16};

fn harness(size: &RxSize, timeout: u64) -> RxHarness {
    RxHarness::new(&size.module("reassembly"), timeout)
}

fn request(ip: u32, port: u16, tx: u16, len: u16, off: u8) -> RxRequest {
    RxRequest { mark_received: true, peek: false, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len: len, pkt_offset: off }
}

/// Calls GetRxMsgInfo (offered until the table takes it) and returns the response, which
/// comes three cycles after the request was taken; nothing else moves meanwhile.
fn call(h: &mut RxHarness, r: &RxRequest) -> RxResponse {
    for _ in 0..200 {
        if h.step(Some(r), false, true).request_taken {
            assert!(h.step(None, false, true).response.is_none());
            assert!(h.step(None, false, true).response.is_none());
            return h.step(None, false, true).response.expect("response three cycles after the request was taken");
        }
    }
    panic!("request never taken")
}

/// Messages holding a slot (the N-bit `busy_slots` output).
fn busy(h: &RxHarness) -> u32 {
    h.m.get_words(h.m.port_or_panic("busy_slots")).iter().map(|w| w.count_ones()).sum()
}

fn packet(r: &RxRequest, resp: &RxResponse, local_port: u16, payload: Vec<u8>) -> RxPacket {
    RxPacket {
        meta: RxMeta {
            remote_ip: r.src_ip,
            remote_port: r.src_port,
            msg_len: r.msg_len,
            pkt_offset: r.pkt_offset,
            local_port,
            rx_msg_id: resp.rx_msg_id,
            tx_msg_id: r.tx_msg_id,
            is_last_pkt: resp.is_last_pkt,
        },
        payload,
    }
}

fn bytes(n: usize, salt: u8) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt)).collect()
}

/// Runs until `n` messages were read out (or `limit` cycles pass), CPU always ready.
fn drain(h: &mut RxHarness, n: usize, limit: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for _ in 0..limit {
        let c = h.step(None, true, true);
        out.extend(c.message_done);
        if out.len() == n && h.packets.is_empty() {
            break;
        }
    }
    out
}

fn three_packets_out_of_order_are_delivered_in_order(size: &RxSize) {
    let mut h = harness(size, 100_000);
    let len = 2 * 1024 + 100;
    let data = bytes(len, 3);
    for off in [2u8, 0, 1] {
        let r = request(0x0a000001, 4000, 9, len as u16, off);
        let resp = call(&mut h, &r);
        assert!(!resp.fail, "{resp:?}");
        let o = off as usize * 1024;
        h.packets.push_back(packet(&r, &resp, 80, data[o..(o + 1024).min(len)].to_vec()));
    }
    let msgs = drain(&mut h, 1, 2000);
    let mut want = app_header(0x0a000001, 4000, 80, len as u16).to_vec();
    want.extend_from_slice(&data);
    assert_eq!(msgs, vec![want]);
    let c = h.counters();
    assert_eq!(c.delivered, 1);
    for _ in 0..4 {
        h.step(None, false, true);
    }
    assert_eq!(h.output("free_lists_full"), 0x1f, "ID and buffer freed after read-out");
    assert_eq!(busy(&h), 0);
}

/// Table 3.1's reassembly figure: first beat of a single-packet message with a 16-byte payload
/// entering the module → first beat leaving towards the CPU, and → first payload byte leaving.
fn latency_of_a_single_packet_16_byte_message(size: &RxSize) {
    let mut h = harness(size, 100_000);
    let r = request(0x0a000002, 5000, 1, 16, 0);
    let resp = call(&mut h, &r);
    assert!(!resp.fail && resp.is_last_pkt);
    let data = bytes(16, 7);
    h.packets.push_back(packet(&r, &resp, 81, data.clone()));
    let mut first_in = None;
    let mut first_out = None;
    let mut first_payload_out = None;
    let mut msg = Vec::new();
    for _ in 0..50 {
        let cycle = h.cycle;
        let c = h.step(None, true, true);
        if c.packet_started {
            first_in.get_or_insert(cycle);
        }
        if c.beat_out {
            let beat_index = {
                let b = first_out.map_or(0, |f: u64| cycle - f);
                b
            };
            first_out.get_or_insert(cycle);
            // The header is 16 bytes = 2 beats; the third beat carries payload bytes 0..7.
            if beat_index == 2 {
                first_payload_out.get_or_insert(cycle);
            }
        }
        if let Some(m) = c.message_done {
            msg = m;
            break;
        }
    }
    let mut want = app_header(0x0a000002, 5000, 81, 16).to_vec();
    want.extend_from_slice(&data);
    assert_eq!(msg, want);
    let (i, o, p) = (first_in.unwrap(), first_out.unwrap(), first_payload_out.unwrap());
    println!("reassembly latency: first beat in -> first beat out {} cycles, -> first payload byte out {} cycles", o - i, p - i);
    assert!(o - i <= 3, "Table 3.1 target: 3 cycles");
    assert_eq!(p - i, o - i + 2, "two header beats, then the payload");
}

/// Runs `n` idle cycles (CPU ready, stream fed), collecting messages and releases.
fn run_idle(h: &mut RxHarness, n: usize) -> (Vec<Vec<u8>>, Vec<(usize, u64)>) {
    let (mut msgs, mut rels) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let c = h.step(None, true, true);
        msgs.extend(c.message_done);
        rels.extend(c.release);
    }
    (msgs, rels)
}

/// Every bad input at the reassembly, each with its own counter, next to a good message that
/// must come through intact; then a message that loses a packet is garbage-collected.
fn bad_inputs_are_counted_and_never_touch_another_message(size: &RxSize) {
    let mut h = harness(size, 2_000);
    let good_len = 1024 + 300;
    let good = bytes(good_len, 11);
    let g0 = request(1, 1, 1, good_len as u16, 0);
    let g0r = call(&mut h, &g0);
    let victim_len = 2000;
    let v0 = request(2, 2, 1, victim_len, 0); // same tx_msg_id, other sender
    let v0r = call(&mut h, &v0);
    assert_ne!(g0r.rx_msg_id, v0r.rx_msg_id);

    // Stale: no entry (rx_msg_id of a failed call) and a wrong generation.
    let mut p = packet(&v0, &v0r, 90, bytes(1024, 1));
    p.meta.rx_msg_id = 0x8000;
    h.packets.push_back(p.clone());
    p.meta.rx_msg_id = v0r.rx_msg_id + (1 << size.slot_bits);
    h.packets.push_back(p.clone());
    // Metadata that disagrees with the entry (another sender's key on this rx_msg_id).
    p.meta.rx_msg_id = v0r.rx_msg_id;
    p.meta.remote_ip = 3;
    h.packets.push_back(p);
    // Offset beyond the message's packet count.
    let mut p = packet(&g0, &g0r, 90, bytes(1024, 2));
    p.meta.pkt_offset = 2;
    h.packets.push_back(p);
    // The good message's first packet, then a duplicate of it.
    h.packets.push_back(packet(&g0, &g0r, 90, good[..1024].to_vec()));
    h.packets.push_back(packet(&g0, &g0r, 90, bytes(1024, 99)));
    // The victim's first packet one byte short, then four bytes long (a trailer left on): each
    // is dropped whole, and its message goes on.
    h.packets.push_back(packet(&v0, &v0r, 90, bytes(1023, 3)));
    h.packets.push_back(packet(&v0, &v0r, 90, bytes(1028, 3)));
    let (msgs, rels) = run_idle(&mut h, 1_200);
    assert!(msgs.is_empty());
    assert!(rels.is_empty(), "a packet of the wrong length releases nothing");
    let c = h.counters();
    println!("after the bad packets: {c:?}");
    assert_eq!((c.drop_stale, c.drop_bad_offset, c.drop_duplicate, c.drop_bad_length), (3, 1, 1, 2));
    // Good copies of the victim's packets complete it.
    let victim = bytes(victim_len as usize, 4);
    h.packets.push_back(packet(&v0, &v0r, 90, victim[..1024].to_vec()));
    let v1 = request(2, 2, 1, victim_len, 1);
    let v1r = call(&mut h, &v1);
    assert_eq!(v1r.rx_msg_id, v0r.rx_msg_id);
    h.packets.push_back(packet(&v1, &v1r, 90, victim[1024..].to_vec()));
    // The good message completes with its own bytes (the duplicate did not overwrite them).
    let g1 = request(1, 1, 1, good_len as u16, 1);
    let g1r = call(&mut h, &g1);
    assert!(g1r.is_last_pkt);
    h.packets.push_back(packet(&g1, &g1r, 90, good[1024..].to_vec()));
    let (msgs, _) = run_idle(&mut h, 1_000);
    let mut want_victim = app_header(2, 2, 90, victim_len).to_vec();
    want_victim.extend_from_slice(&victim);
    let mut want = app_header(1, 1, 90, good_len as u16).to_vec();
    want.extend_from_slice(&good);
    assert_eq!(msgs, vec![want_victim, want]);
    assert_eq!(h.counters().drop_stale, 3);
    // A late retransmission of the delivered message: a duplicate, never delivered again.
    let late = call(&mut h, &g1);
    assert_eq!((late.fail, late.is_new_pkt, late.is_last_pkt, late.rx_msg_id), (false, false, true, 0x8000));
    h.packets.push_back(packet(&g1, &late, 90, good[1024..].to_vec()));
    let (msgs, _) = run_idle(&mut h, 200);
    assert!(msgs.is_empty());
    // A message that loses its second packet is garbage-collected after the timeout.
    let l0 = request(4, 4, 4, 3000, 0);
    let l0r = call(&mut h, &l0);
    h.packets.push_back(packet(&l0, &l0r, 90, bytes(1024, 5)));
    let (msgs, rels) = run_idle(&mut h, 1_900);
    assert!(msgs.is_empty() && rels.is_empty(), "not before the timeout");
    let (_, rels) = run_idle(&mut h, 300);
    assert_eq!(rels, vec![(size.slot_of(l0r.rx_msg_id), 3)]);
    // A late packet of the garbage-collected message, with its old rx_msg_id: dropped as stale.
    let l1 = request(4, 4, 4, 3000, 1);
    h.packets.push_back(packet(&l1, &l0r, 90, bytes(1024, 6)));
    run_idle(&mut h, 200);
    // A new call for the collected key starts a fresh message (the sender is retransmitting).
    let again = call(&mut h, &l1);
    assert!(again.is_new_msg && again.rx_msg_id != l0r.rx_msg_id, "{again:?}");
    let (_, rels) = run_idle(&mut h, 2_300);
    assert_eq!(rels.len(), 1, "the fresh, incomplete message is collected too");
    let c = h.counters();
    println!("final counters: {c:?}");
    assert_eq!((c.drop_stale, c.gc, c.delivered, c.recent_duplicate), (5, 2, 2, 1));
    assert_eq!(h.output("free_lists_full"), 0x1f);
    assert_eq!(busy(&h), 0);
}

/// CPU-side back-pressure in random stretches: nothing lost, nothing reordered.
fn back_pressure_loses_and_reorders_nothing(size: &RxSize) {
    let mut h = harness(size, 1_000_000);
    let mut want = Vec::new();
    let mut state = 12345u64;
    let mut rnd = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for tx in 0..12u16 {
        let len = 1 + (rnd() % 3000) as usize;
        let data = bytes(len, tx as u8);
        for off in 0..len.div_ceil(1024) {
            let r = request(7, 7, tx, len as u16, off as u8);
            let resp = call(&mut h, &r);
            assert!(!resp.fail, "{resp:?}");
            h.packets.push_back(packet(&r, &resp, 9, data[off * 1024..((off + 1) * 1024).min(len)].to_vec()));
        }
        let mut m = app_header(7, 7, 9, len as u16).to_vec();
        m.extend_from_slice(&data);
        want.push(m);
    }
    let mut got = Vec::new();
    let mut stalled = 0;
    for _ in 0..100_000 {
        let ready = rnd() % 8 < 3;
        stalled += !ready as u32;
        let c = h.step(None, true, ready);
        got.extend(c.message_done);
        if got.len() == want.len() {
            break;
        }
    }
    println!("back-pressure: {} messages, CPU not ready in {stalled} cycles", got.len());
    assert!(got == want);
}

/// Steady-state throughput: multi-packet messages streamed back to back (every beat valid, CPU
/// always ready), and a stream of 1-byte single-packet messages (the thesis's worst case).
fn throughput_in_beats_per_cycle(size: &RxSize) {
    let mut h = harness(size, 1_000_000);
    let mut in_beats = 0u64;
    let mut messages = 0;
    // Eight 4-packet messages (4 KB class).
    for tx in 0..8u16 {
        for off in 0..4u8 {
            let r = request(5, 5, tx, 4096, off);
            let resp = call(&mut h, &r);
            assert!(!resp.fail);
            h.packets.push_back(packet(&r, &resp, 9, bytes(1024, off)));
            in_beats += 128;
        }
        messages += 1;
    }
    let (mut first_in, mut last_in, mut first_out, mut last_out, mut out_beats, mut done) = (None, 0, None, 0, 0u64, 0);
    for _ in 0..20_000 {
        let cycle = h.cycle;
        let c = h.step(None, true, true);
        if c.packet_started || c.packet_done.is_some() {
            first_in.get_or_insert(cycle);
            last_in = cycle;
        }
        if c.beat_out {
            first_out.get_or_insert(cycle);
            last_out = cycle;
            out_beats += 1;
        }
        done += c.message_done.is_some() as usize;
        if done == messages {
            break;
        }
    }
    let in_rate = in_beats as f64 / (last_in - first_in.unwrap() + 1) as f64;
    let out_rate = out_beats as f64 / (last_out - first_out.unwrap() + 1) as f64;
    println!("throughput, 1 KB packets: input {in_beats} beats in {} cycles = {in_rate:.3} beats/cycle; output {out_beats} beats in {} cycles = {out_rate:.3} beats/cycle",
        last_in - first_in.unwrap() + 1, last_out - first_out.unwrap() + 1);
    assert_eq!(done, messages);
    assert!(in_rate == 1.0 && out_rate == 1.0, "one beat per cycle each way");

    // 1-byte messages back to back: one input beat each, three output beats each.
    let mut h = harness(size, 1_000_000);
    let n = 400u16;
    let (mut first_out, mut last_out, mut out_msgs, mut next_tx) = (None, 0u64, 0u16, 0u16);
    let mut taken: std::collections::VecDeque<RxRequest> = Default::default();
    let mut offered: Option<RxRequest> = None;
    for _ in 0..20_000 {
        let cycle = h.cycle;
        // Requests as fast as the table takes them (one per 3 cycles); each response's packet
        // is streamed as soon as it arrives. Requests only while IDs are free.
        if offered.is_none() && next_tx < n && (busy(&h) as usize) < size.messages() - 8 {
            offered = Some(request(6, 6, next_tx, 1, 0));
            next_tx += 1;
        }
        let c = h.step(offered.as_ref(), true, true);
        if c.request_taken {
            taken.push_back(offered.take().unwrap());
        }
        if let Some(resp) = c.response {
            let r = taken.pop_front().unwrap();
            assert!(!resp.fail, "{resp:?}");
            h.packets.push_back(packet(&r, &resp, 9, vec![r.tx_msg_id as u8]));
        }
        if c.beat_out {
            first_out.get_or_insert(cycle);
            last_out = cycle;
        }
        out_msgs += c.message_done.is_some() as u16;
        if out_msgs == n {
            break;
        }
    }
    let span = last_out - first_out.unwrap() + 1;
    println!(
        "throughput, 1-byte messages: {out_msgs} messages delivered in {span} cycles = {:.3} messages/cycle ({:.3} output beats/cycle)",
        out_msgs as f64 / span as f64,
        3.0 * out_msgs as f64 / span as f64
    );
    assert_eq!(out_msgs, n);
    // The rate the design allows: each message costs the table a request and a release, one
    // operation every 3 cycles, so one message every 6 cycles; the read-out keeps up (3 beats).
    assert_eq!(span, 6 * (n as u64 - 1), "one message every 6 cycles");
}

/// Every GetRxMsgInfo fail reason, seen through the reassembly with its counter — zero length,
/// too long, offset past the end, msg_len mismatch, both candidate buckets full, size class
/// exhausted (where a class has fewer buffers than there are IDs), no free ID — while the
/// messages that were admitted still work; then everything left incomplete is
/// garbage-collected and every free list is full again.
fn table_fail_reasons_are_counted_and_everything_is_freed(size: &RxSize) {
    let mut h = harness(size, 3_000);
    let largest = size.classes[3];
    let fails = |h: &mut RxHarness, r: RxRequest| call(h, &r).fail_reason as u64;
    assert_eq!(fails(&mut h, request(9, 9, 0, 0, 0)), fail_reason::ZERO_LEN, "msg_len 0");
    assert_eq!(fails(&mut h, request(9, 9, 1, 40_000, 0)), fail_reason::TOO_LONG, "longer than the largest class");
    assert_eq!(fails(&mut h, request(9, 9, 2, 1500, 5)), fail_reason::BAD_OFFSET, "offset past the end");
    let a = request(9, 9, 3, 1500, 0);
    let ar = call(&mut h, &a);
    assert!(ar.is_new_msg);
    assert_eq!(fails(&mut h, request(9, 9, 3, 1501, 1)), fail_reason::LEN_MISMATCH, "msg_len differs from the entry's");
    // Five keys with the same bucket in both ways: the fifth finds both buckets full.
    let bits = size.bucket_bits;
    let target = key_of(&request(1, 1, 0, 100, 0));
    let mut colliding = vec![0u16];
    for tx in 1..=u16::MAX {
        let k = key_of(&request(1, 1, tx, 100, 0));
        if hash0(k, bits) == hash0(target, bits) && hash1(k, bits) == hash1(target, bits) {
            colliding.push(tx);
            if colliding.len() == 5 {
                break;
            }
        }
    }
    for &tx in &colliding[..4] {
        assert!(call(&mut h, &request(1, 1, tx, 100, 0)).is_new_msg);
    }
    assert_eq!(fails(&mut h, request(1, 1, colliding[4], 100, 0)), fail_reason::BUCKET_FULL);
    // The largest class runs out when it has fewer buffers than the IDs left.
    let no_buffer_reachable = (largest.1 as usize) < size.messages() - 5;
    if no_buffer_reachable {
        for tx in 0..largest.1 as u16 {
            assert!(call(&mut h, &request(20, 20, tx, (largest.0 * 1024) as u16, 0)).is_new_msg);
        }
        assert_eq!(fails(&mut h, request(20, 20, 999, (largest.0 * 1024) as u16, 0)), fail_reason::NO_BUFFER, "size class exhausted");
    }
    // Fill every ID with 1-byte messages (a few keys may find their buckets full).
    let mut small = Vec::new();
    let mut extra_bucket_full = 0;
    let mut ip = 100;
    while (busy(&h) as usize) < size.messages() {
        let r = request(ip, 7, 0, 1, 0);
        let resp = call(&mut h, &r);
        if resp.fail {
            assert_eq!(resp.fail_reason as u64, fail_reason::BUCKET_FULL);
            extra_bucket_full += 1;
        } else {
            small.push((r, resp));
        }
        ip += 1;
    }
    assert_eq!(fails(&mut h, request(ip, 7, 0, 1, 0)), fail_reason::NO_ID, "no free rx_msg_id");
    // An admitted message is delivered as usual.
    let (r, resp) = small[0];
    h.packets.push_back(packet(&r, &resp, 70, vec![0x5a]));
    let (msgs, _) = run_idle(&mut h, 100);
    let mut want = app_header(r.src_ip, 7, 70, 1).to_vec();
    want.push(0x5a);
    assert_eq!(msgs, vec![want]);
    let c = h.counters();
    println!("table fail reasons: {c:?}; bucket full {}", h.output("fail_bucket_full_count"));
    assert_eq!(
        (c.fail_zero_len, c.fail_too_long, c.fail_bad_offset, c.fail_len_mismatch, c.fail_no_buffer, c.fail_no_id),
        (1, 1, 1, 1, no_buffer_reachable as u64, 1)
    );
    assert_eq!(h.output("fail_bucket_full_count"), 1 + extra_bucket_full);
    // Everything else never completes: it is garbage-collected after the timeout.
    let (_, rels) = run_idle(&mut h, 4_000);
    assert_eq!(rels.len(), size.messages() - 1);
    assert!(rels.iter().all(|&(_, reason)| reason == 3));
    assert_eq!(h.counters().gc as usize, size.messages() - 1);
    assert_eq!(busy(&h), 0);
    assert_eq!(h.output("free_lists_full"), 0x1f, "every ID and buffer is free again");
}

/// A message's second packet arrives around the moment its slot's timer expires (no
/// GetRxMsgInfo call re-schedules the timer: the packet reuses the first answer), one run per
/// arrival cycle across the timer's whole firing window. Either the packet is taken before the
/// timeout and the message is delivered intact, or the slot is closed first and the packet is
/// dropped as stale; never both, never neither, and every ID and buffer is free at the end. The
/// window includes the cycle in which a first beat is in the lookup stage as its slot closes.
fn a_timeout_racing_a_packet_either_delivers_or_collects(size: &RxSize) {
    let timeout = 400u64;
    let (mut delivered_runs, mut collected_runs) = (0, 0);
    for d in 0..(size.messages() as u64 + 30) {
        let mut h = harness(size, timeout);
        let p0 = request(4, 4, 4, 2048, 0);
        let r0 = call(&mut h, &p0);
        let payload = bytes(2048, 7);
        h.packets.push_back(packet(&p0, &r0, 90, payload[..1024].to_vec()));
        let (mut msgs, mut rels) = run_idle(&mut h, (timeout - 15 + d) as usize);
        let p1 = request(4, 4, 4, 2048, 1);
        h.packets.push_back(packet(&p1, &r0, 90, payload[1024..].to_vec()));
        let (m, r) = run_idle(&mut h, timeout as usize + 400);
        msgs.extend(m);
        rels.extend(r);
        let slot = size.slot_of(r0.rx_msg_id);
        let c = h.counters();
        if msgs.is_empty() {
            assert_eq!((rels.clone(), c.gc, c.drop_stale), (vec![(slot, 3)], 1, 1), "arrival {d}: collected, the packet dropped as stale");
            collected_runs += 1;
        } else {
            let mut want = app_header(4, 4, 90, 2048).to_vec();
            want.extend_from_slice(&payload);
            assert_eq!(msgs, vec![want], "arrival {d}: delivered intact");
            assert_eq!((rels.clone(), c.gc, c.drop_stale), (vec![(slot, 1)], 0, 0), "arrival {d}: delivered, not collected");
            delivered_runs += 1;
        }
        assert_eq!(busy(&h), 0, "arrival {d}");
        assert_eq!(h.output("free_lists_full"), 0x1f, "arrival {d}: every ID and buffer is free again");
    }
    println!("timeout racing a packet: {delivered_runs} runs delivered, {collected_runs} collected");
    assert!(delivered_runs > 0 && collected_runs > 0, "the window spans both outcomes");
}

cases!(
    [at_16 => &super::RX_16, at_128 => &super::RX_128];
    a_timeout_racing_a_packet_either_delivers_or_collects,
    three_packets_out_of_order_are_delivered_in_order,
    latency_of_a_single_packet_16_byte_message,
    bad_inputs_are_counted_and_never_touch_another_message,
    back_pressure_loses_and_reorders_nothing,
    throughput_in_beats_per_cycle,
    table_fail_reasons_are_counted_and_everything_is_freed,
);
