//! pcap in/out of the NDP NIC (configuration ndp-16) on its Verilator model: a capture of DATA
//! frames replayed (messages delivered, one ACK per packet), a capture recorded from a live
//! two-NIC exchange replayed with the same responses, microsecond vs nanosecond captures, the
//! CPU's messages sent into the output, addresses, and malformed captures.

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::{parse, Header};
use nanotransport_sim::nic::TxMessage;
use nanotransport_sim::replay::*;
use nanotransport_sim::scenarios::{data_frame, nic_with_ip, NIC_IP, PEER_IP};
use nanotransport_testbenches::nic_preset;
use std::collections::VecDeque;
use std::path::Path;

const CONFIG: &str = "ndp-16";
const NIC_MAC: u64 = 0x0200_0000_0001;

fn files(dir: &Path, send: bool) -> ReplayFiles {
    ReplayFiles {
        input: dir.join("in.pcap"),
        output: dir.join("out.pcap"),
        messages: Some(dir.join("messages.jsonl")),
        send: send.then(|| dir.join("send.json")),
    }
}

/// Messages of 1 byte … 6 packets from the peer, their DATA frames in order; the packets of
/// messages 2 and 3 interleave, and two frames share a timestamp (back to back).
fn data_capture() -> (Vec<TxMessage>, Vec<(u128, Vec<u8>)>) {
    let sizes = [1usize, 64, 1024, 1025, 3000, 6 * 1024];
    let messages: Vec<TxMessage> = sizes
        .iter()
        .enumerate()
        .map(|(i, n)| TxMessage {
            remote_ip: PEER_IP,
            remote_port: 7000 + i as u16,
            local_port: 80,
            payload: (0..*n).map(|k| (k * 7 + i * 13) as u8).collect(),
        })
        .collect();
    let mut frames = Vec::new();
    let mut t = 1_700_000_000_000_000_000u128; // an absolute time, as a capture has
    for (i, m) in messages.iter().enumerate() {
        for off in 0..m.payload.len().div_ceil(1024) {
            frames.push((t, data_frame(PEER_IP, NIC_IP, m.remote_port, m.local_port, 100 + i as u16, &m.payload, off)));
            if !(i == 1 && off == 0) {
                t += 500;
            }
        }
    }
    (messages, frames)
}

fn header_of(frame: &[u8]) -> Header {
    parse(frame, NDP_IP_PROTOCOL).unwrap_or_else(|e| panic!("output frame not parsed: {e:?}")).0
}

fn read_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn data_capture_round_trip_delivers_messages_and_acks_every_packet() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (messages, frames) = data_capture();
    std::fs::write(dir.join("in.pcap"), pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let f = files(&dir, false);
    let r = replay_files(&f, &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    println!("{}", r.to_json());
    assert_eq!(r.stopped, "idle");
    assert!(r.slots_checked);
    assert_eq!((r.records, r.frames_fed, r.frames_taken, r.frames_not_for_nic), (frames.len(), frames.len(), frames.len(), 0));

    // Messages: each once, byte for byte.
    let lines = read_lines(&dir.join("messages.jsonl"));
    assert_eq!(lines.len(), messages.len());
    for m in &messages {
        let hex: String = m.payload.iter().map(|b| format!("{b:02x}")).collect();
        let l = lines
            .iter()
            .find(|l| l["remote_port"] == m.remote_port)
            .unwrap_or_else(|| panic!("message from port {} not delivered", m.remote_port));
        assert_eq!(l["remote_ip"], "10.0.0.2");
        assert_eq!(l["local_port"], 80);
        assert_eq!(l["msg_len"], m.payload.len());
        assert_eq!(l["bytes"], hex);
    }

    // Output: a nanosecond pcap with one ACK per DATA packet, addressed back to the sender.
    let out = read_pcap(&f.output).unwrap();
    assert!(matches!(out.resolution, TsResolution::NanoSecond));
    let t0 = frames[0].0;
    let mut acked: Vec<(u16, u8)> = Vec::new();
    for rec in &out.records {
        let h = header_of(&rec.frame);
        assert_eq!(h.flags & FLAG_ACK, FLAG_ACK, "{h:?}");
        assert_eq!((h.src_ip, h.dst_ip, h.src_mac, h.dst_mac), (NIC_IP, PEER_IP, NIC_MAC, 0xFFFF_FFFF_FFFF));
        let i = (h.tx_msg_id - 100) as usize;
        let m = &messages[i];
        assert_eq!((h.src_context, h.dst_context, h.msg_len as usize), (m.local_port, m.remote_port, m.payload.len()));
        // After the DATA packet it answers (output time counts from the first input record).
        let data_t = frames
            .iter()
            .find(|(_, d)| Header::decode(d).tx_msg_id == h.tx_msg_id && Header::decode(d).pkt_offset == h.pkt_offset)
            .unwrap()
            .0;
        assert!(rec.time_ns > data_t - t0, "ACK at {} ns before its DATA at {} ns", rec.time_ns, data_t - t0);
        acked.push((h.tx_msg_id, h.pkt_offset));
    }
    let mut want: Vec<(u16, u8)> = frames.iter().map(|(_, d)| (Header::decode(d).tx_msg_id, Header::decode(d).pkt_offset)).collect();
    acked.sort();
    want.sort();
    assert_eq!(acked, want, "one ACK per DATA packet");
    println!(
        "round trip: {} DATA frames in, {} messages delivered, {} ACKs out, {} cycles",
        frames.len(),
        lines.len(),
        out.records.len(),
        r.cycles
    );
}

/// The same capture under random back-pressure on MAC TX and the CPU read-out (`--stall`): the
/// same messages delivered and the same ACKs sent (later), no output beat changed while it
/// waited, and the whole-NIC checker finds nothing.
#[test]
fn data_capture_under_back_pressure_delivers_the_same_messages_and_acks() {
    use nanotransport_reference::nic_checker::check;
    use nanotransport_sim::nic::Stalls;
    let (_, frames) = data_capture();
    let input = parse_pcap(&pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let calm = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    let mut opts = ReplayOptions::new(&nic_preset(CONFIG));
    opts.stalls = Some(Stalls { probability: 0.5, seed: nanotransport_testbenches::seed("replay under back-pressure", 41) });
    let stalled = replay(&input, &[], &opts).unwrap();
    println!("calm: {} cycles; stalled: {} cycles, {} beats held", calm.report.cycles, stalled.report.cycles, stalled.report.stalled_beats);
    assert!(stalled.report.stalled_beats > 100, "only {} beats waited", stalled.report.stalled_beats);
    assert_eq!(stalled.report.stream_rule_violations, 0);
    let delivered = |r: &ReplayOutcome| {
        let mut v: Vec<(u16, Vec<u8>)> = r.delivered.iter().map(|m| (m.remote_port, m.payload.clone())).collect();
        v.sort();
        v
    };
    let sent = |r: &ReplayOutcome| {
        let mut v: Vec<Vec<u8>> = r.tx_frames.iter().map(|(_, f)| f.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(delivered(&stalled), delivered(&calm));
    assert_eq!(sent(&stalled), sent(&calm));
    let c = check(&stalled.trace);
    assert!(c.mismatches.is_empty() && c.skipped.is_empty(), "{:?} {:?}", c.mismatches, c.skipped);
}

/// A live exchange of two NICs through 200-cycle links: A sends messages to B, B answers. B's
/// input is recorded with the cycle of each frame's first beat.
fn live_exchange() -> (Vec<(u64, Vec<u8>)>, Vec<(u64, Vec<u8>)>, usize) {
    let mut a = nic_with_ip(&nic_preset(CONFIG), NIC_IP).unwrap();
    let mut b = nic_with_ip(&nic_preset(CONFIG), PEER_IP).unwrap();
    // 12 packets: more than the BDP of 8, so B sends PULLs as well as ACKs.
    for (i, n) in [300usize, 12 * 1024, 2048].iter().enumerate() {
        a.send(&TxMessage {
            remote_ip: PEER_IP,
            remote_port: 9000,
            local_port: 5000 + i as u16,
            payload: (0..*n).map(|k| (k ^ i) as u8).collect(),
        });
    }
    let (mut links, mut fwd): ([VecDeque<(u64, Vec<u8>)>; 2], [usize; 2]) = Default::default();
    let mut b_in = Vec::new();
    while a.completions.len() < 3 || b.delivered.len() < 3 {
        assert!(a.cycle < 200_000, "live exchange did not finish");
        let nics = [&mut a, &mut b];
        for s in 0..2 {
            while fwd[s] < nics[s].tx_frames.len() {
                let f = nics[s].tx_frames[fwd[s]].1.clone();
                fwd[s] += 1;
                links[s].push_back((nics[s].cycle + 200, f));
            }
        }
        while let Some((at, f)) = links[0].pop_front() {
            b_in.push((at, f.clone()));
            b.push_frame(&f, at);
        }
        while let Some((at, f)) = links[1].pop_front() {
            a.push_frame(&f, at);
        }
        a.step();
        b.step();
    }
    b.run(2000);
    assert!(a.completions.iter().all(|c| !c.abandoned));
    // The cycle each of B's input frames was actually taken (its first beat accepted).
    let taken: Vec<(u64, Vec<u8>)> = b.stages.mac_rx.iter().zip(b_in).map(|(c, (_, f))| (*c, f)).collect();
    (taken, b.tx_frames.clone(), b.delivered.len())
}

#[test]
fn capture_of_a_live_exchange_replays_with_the_same_responses() {
    let (b_in, b_out, delivered) = live_exchange();
    let c0 = b_in[0].0;
    let t0 = 1_000_000_000u128;
    let records: Vec<(u128, Vec<u8>)> = b_in.iter().map(|(c, f)| (t0 + cycles_to_ns(c - c0, NicClock::THESIS), f.clone())).collect();
    let input = parse_pcap(&pcap_bytes(&records, TsResolution::NanoSecond).unwrap()).unwrap();
    let mut opts = ReplayOptions::new(&nic_preset(CONFIG));
    opts.nic_ip = Some(PEER_IP);
    let r = replay(&input, &[], &opts).unwrap();
    println!("{}", r.report.to_json());
    assert_eq!(r.report.stopped, "idle");
    assert_eq!(r.delivered.len(), delivered);
    assert_eq!(r.tx_frames.len(), b_out.len(), "the same number of responses");
    let pulls = b_out.iter().filter(|(_, f)| f[OFF_FLAGS] & FLAG_PULL != 0).count();
    assert!(pulls > 0, "the exchange needed PULLs");
    let mut worst = 0i64;
    for ((rc, rf), (lc, lf)) in r.tx_frames.iter().zip(&b_out) {
        assert_eq!(rf, lf, "same bytes in the same order");
        // ns rounding of the capture moves an input by at most 2 cycles.
        let d = *rc as i64 - (*lc - c0) as i64;
        worst = worst.max(d.abs());
        assert!(d.abs() <= 2, "response at replay cycle {rc}, live {}", lc - c0);
    }
    println!("live exchange: {} frames into B, {} responses ({pulls} with PULL), timing within {worst} cycles", b_in.len(), b_out.len());
}

/// The same capture in big-endian byte order (file header and every record header swapped).
fn big_endian(little: &[u8]) -> Vec<u8> {
    let mut b = little.to_vec();
    let swap = |b: &mut [u8], at: usize, n: usize| b[at..at + n].reverse();
    swap(&mut b, 0, 4);
    swap(&mut b, 4, 2);
    swap(&mut b, 6, 2);
    for at in (8..24).step_by(4) {
        swap(&mut b, at, 4);
    }
    let mut at = 24;
    while at < b.len() {
        let incl = u32::from_le_bytes(little[at + 8..at + 12].try_into().unwrap()) as usize;
        for f in 0..4 {
            swap(&mut b, at + 4 * f, 4);
        }
        at += 16 + incl;
    }
    b
}

#[test]
fn pcap_and_pcapng_microsecond_and_nanosecond_either_byte_order_give_the_same_result() {
    let (_, frames) = data_capture();
    // Whole microseconds apart, some equal, so both resolutions hold the same times.
    let frames: Vec<(u128, Vec<u8>)> =
        frames.into_iter().enumerate().map(|(i, (_, f))| (5_000_000_000 + (i as u128 / 2) * 1000, f)).collect();
    let mut results = Vec::new();
    for (res, big) in [
        (TsResolution::MicroSecond, false),
        (TsResolution::NanoSecond, false),
        (TsResolution::MicroSecond, true),
        (TsResolution::NanoSecond, true),
    ] {
        let bytes = pcap_bytes(&frames, res).unwrap();
        let input = parse_pcap(&if big { big_endian(&bytes) } else { bytes }).unwrap();
        assert_eq!(input.resolution, res);
        assert_eq!(record_cycles(&input.records, NicClock::THESIS)[2], 3200, "1 us = 3200 cycles");
        let r = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
        let lines: Vec<String> = r.delivered.iter().map(message_json).collect();
        results.push((output_pcap(&r.tx_frames, NicClock::THESIS).unwrap(), lines, r.report.cycles));
    }
    // pcapng (Wireshark's format): microsecond and nanosecond interfaces, either byte order.
    for (resol, endianness) in [(6, Endianness::Little), (9, Endianness::Little), (6, Endianness::Big), (9, Endianness::Big)] {
        let input = parse_pcap(&pcapng_bytes(&frames, resol, endianness).unwrap()).unwrap();
        assert_eq!(input.records.len(), frames.len());
        assert_eq!(record_cycles(&input.records, NicClock::THESIS)[2], 3200, "1 us = 3200 cycles");
        let r = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
        let lines: Vec<String> = r.delivered.iter().map(message_json).collect();
        results.push((output_pcap(&r.tx_frames, NicClock::THESIS).unwrap(), lines, r.report.cycles));
    }
    assert!(!results[0].1.is_empty());
    for r in &results[1..] {
        assert_eq!(*r, results[0]);
    }
}

#[test]
fn sent_messages_leave_as_data_frames_and_complete_when_the_capture_acks_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let send = r#"[{"remote_ip": "10.0.0.2", "remote_port": 7000, "local_port": 81, "bytes_hex": "00112233445566778899aabbccddeeff"},
                   {"remote_ip": "10.0.0.3", "remote_port": 7001, "local_port": 82, "len": 1500}]"#;
    std::fs::write(dir.join("send.json"), send).unwrap();
    let sends = parse_send_messages(send).unwrap();
    // Run 1: nobody answers: the DATA frames go out, are retransmitted and abandoned.
    std::fs::write(dir.join("in.pcap"), pcap_bytes(&[], TsResolution::NanoSecond).unwrap()).unwrap();
    let f = files(&dir, true);
    let r = replay_files(&f, &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    println!("unanswered: {}", r.to_json());
    assert_eq!((r.stopped.as_str(), r.messages_sent, r.sends_abandoned), ("idle", 2, 2));
    let out = read_pcap(&f.output).unwrap();
    let firsts: Vec<&PcapRecord> = out.records.iter().take(3).collect();
    let mut payload_of = std::collections::HashMap::new();
    for rec in &firsts {
        let (h, p) = parse(&rec.frame, NDP_IP_PROTOCOL).unwrap();
        assert_eq!(h.flags, FLAG_DATA);
        assert_eq!((h.src_ip, h.src_mac), (NIC_IP, NIC_MAC));
        let m = sends.iter().find(|m| m.remote_ip == h.dst_ip).unwrap();
        assert_eq!((h.src_context, h.dst_context, h.msg_len as usize), (m.local_port, m.remote_port, m.payload.len()));
        assert_eq!(p[..], m.payload[h.pkt_offset as usize * 1024..(h.pkt_offset as usize * 1024 + 1024).min(m.payload.len())]);
        payload_of.insert((h.dst_ip, h.pkt_offset), p);
    }
    assert_eq!(payload_of.len(), 3, "16 bytes in one packet, 1500 in two");
    let retransmitted = out.records.len() - 3;
    assert!(retransmitted > 0, "no retransmission while unanswered");

    // Run 2: the capture holds the peers' ACKs for the first three DATA frames, 2 us after each.
    // Its first record (time 0, when the sends start too) is a 60-byte ARP broadcast, which the
    // NIC drops as shorter than its 64-byte header.
    let mut arp = vec![0xFF; 6];
    arp.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02, 0x08, 0x06]);
    arp.resize(60, 0);
    let mut capture = vec![(0u128, arp)];
    capture.extend(firsts.iter().map(|rec| (rec.time_ns + 2000, nanotransport_sim::scenarios::ack_for(&rec.frame))));
    std::fs::write(dir.join("in.pcap"), pcap_bytes(&capture, TsResolution::NanoSecond).unwrap()).unwrap();
    let r2 = replay_files(&f, &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    println!("acked: {}", r2.to_json());
    assert_eq!((r2.stopped.as_str(), r2.sends_completed, r2.sends_abandoned, r2.frames_out), ("idle", 2, 0, 3));
    let too_short = r2.status.iter().find(|(n, _)| *n == "too_short_count").unwrap().1;
    assert_eq!(too_short, 1);
    // The same frames at the same times as in run 1.
    let out2 = read_pcap(&f.output).unwrap();
    for (a, b) in out2.records.iter().zip(&firsts) {
        assert_eq!((a.time_ns, &a.frame), (b.time_ns, &b.frame));
    }
    println!(
        "send: {} DATA frames + {retransmitted} retransmissions unanswered; {} frames and {} cycles when acked",
        3, r2.frames_out, r2.cycles
    );
}

#[test]
fn addresses_come_from_the_options_and_foreign_frames_are_counted_or_filtered() {
    let nic_ip: u32 = 0x0A00_0009; // 10.0.0.9
    let nic_mac: u64 = 0x0200_0000_0042;
    let mut ours = data_frame(PEER_IP, nic_ip, 7000, 80, 1, &[1, 2, 3], 0);
    ours[0..6].copy_from_slice(&nic_mac.to_be_bytes()[2..]);
    // To another NIC: 10.0.0.119 at the default MAC 02:00:00:00:00:01.
    let other_ip = data_frame(PEER_IP, 0x0A00_0077, 7001, 80, 2, &[4, 5, 6], 0);
    let records = vec![(0u128, ours.clone()), (1000, other_ip)];
    let input = parse_pcap(&pcap_bytes(&records, TsResolution::NanoSecond).unwrap()).unwrap();
    let mut opts = ReplayOptions::new(&nic_preset(CONFIG));
    opts.nic_ip = Some(nic_ip);
    opts.nic_mac = Some(nic_mac);
    opts.peer_mac = Some(0x0200_0000_0002);
    let r = replay(&input, &[], &opts).unwrap();
    println!("unfiltered: {}", r.report.to_json());
    assert_eq!((r.report.nic_ip, r.report.nic_mac), (nic_ip, nic_mac));
    assert_eq!((r.report.frames_not_for_nic, r.report.frames_filtered, r.report.frames_fed), (1, 0, 2));
    // The datapath has no address filter: the frame to 10.0.0.119 is delivered and acknowledged too.
    assert_eq!(r.delivered.len(), 2);
    for (_, f) in &r.tx_frames {
        let h = header_of(f);
        assert_eq!((h.src_ip, h.src_mac, h.dst_mac, h.dst_ip), (nic_ip, nic_mac, 0x0200_0000_0002, PEER_IP));
    }
    assert_eq!(r.tx_frames.len(), 2);
    opts.filter_not_for_nic = true;
    let r = replay(&input, &[], &opts).unwrap();
    println!("filtered: {}", r.report.to_json());
    assert_eq!((r.report.frames_not_for_nic, r.report.frames_filtered, r.report.frames_fed), (1, 1, 1));
    assert_eq!(r.delivered.len(), 1);
    assert_eq!(r.delivered[0].payload, vec![1, 2, 3]);
}

/// A valid capture of three DATA frames, and the byte offset of each record.
fn three_frames() -> (Vec<u8>, Vec<usize>) {
    let frames: Vec<(u128, Vec<u8>)> =
        (0..3).map(|i| (i as u128 * 100, data_frame(PEER_IP, NIC_IP, 7000, 80, i, &[i as u8; 80], 0))).collect();
    let bytes = pcap_bytes(&frames, TsResolution::NanoSecond).unwrap();
    let offsets = (0..3).map(|i| 24 + i * (16 + 64 + 80)).collect();
    (bytes, offsets)
}

#[test]
fn malformed_captures_are_errors_naming_the_record_and_leave_no_output() {
    let (good, off) = three_frames();
    let mut cases: Vec<(&str, Vec<u8>, String)> = Vec::new();
    cases.push((
        "truncated record data",
        good[..good.len() - 30].to_vec(),
        "record 3 (byte offset 344): truncated: the record header announces 144 captured bytes, the file holds 114".into(),
    ));
    cases.push((
        "truncated record header",
        good[..off[2] + 10].to_vec(),
        "record 3 (byte offset 344): truncated: the file ends inside the 16-byte record header (10 bytes left)".into(),
    ));
    let mut link = good.clone();
    link[20..24].copy_from_slice(&105u32.to_le_bytes());
    cases.push(("wrong link type", link, "link type 105 (IEEE802_11), not Ethernet (1)".into()));
    // Record 2 cut by a 40-byte snaplen: captured 40 of 144 bytes.
    let mut cut = good[..off[1]].to_vec();
    cut[16..20].copy_from_slice(&40u32.to_le_bytes());
    cut.extend_from_slice(&good[off[1]..off[1] + 8]);
    cut.extend_from_slice(&40u32.to_le_bytes());
    cut.extend_from_slice(&144u32.to_le_bytes());
    cut.extend_from_slice(&good[off[1] + 16..off[1] + 16 + 40]);
    cut.extend_from_slice(&good[off[2]..]);
    cases.push((
        "snaplen cut inside the header",
        cut,
        "record 2 (byte offset 184): frame cut by the capture's snaplen (40): 40 of 144 bytes captured".into(),
    ));
    let mut frac = good.clone();
    frac[off[0] + 4..off[0] + 8].copy_from_slice(&1_000_000_000u32.to_le_bytes());
    cases.push(("nanoseconds out of range", frac, "record 1 (byte offset 24): timestamp fraction 1000000000 out of range".into()));
    cases.push(("not a pcap", b"hello, this is not a capture file".to_vec(), "not a pcap or pcapng file: magic number 68656c6c".into()));
    // pcapng: section header, interface description, then one block per frame.
    let frames: Vec<(u128, Vec<u8>)> =
        (0..3).map(|i| (i as u128 * 1000, data_frame(PEER_IP, NIC_IP, 7000, 80, i, &[i as u8; 80], 0))).collect();
    let ng = pcapng_bytes(&frames, 9, Endianness::Little).unwrap();
    let mut blocks = vec![0usize];
    while *blocks.last().unwrap() < ng.len() {
        let at = *blocks.last().unwrap();
        blocks.push(at + u32::from_le_bytes(ng[at + 4..at + 8].try_into().unwrap()) as usize);
    }
    let (idb, epb2, epb3) = (blocks[1], blocks[3], blocks[4]);
    cases.push((
        "pcapng truncated block",
        ng[..ng.len() - 10].to_vec(),
        format!("block 5 (byte offset {epb3}): truncated: the file ends inside the block"),
    ));
    let mut link = ng.clone();
    link[idb + 8..idb + 10].copy_from_slice(&105u16.to_le_bytes());
    cases.push((
        "pcapng wrong link type",
        link,
        format!("packet 1 (block 3 (byte offset {})): interface 0 has link type 105 (IEEE802_11), not Ethernet (1)", blocks[2]),
    ));
    let mut cut = ng.clone();
    cut[epb2 + 24..epb2 + 28].copy_from_slice(&1500u32.to_le_bytes());
    cases.push((
        "pcapng frame cut",
        cut,
        format!("packet 2 (block 4 (byte offset {epb2})): frame cut by the capture's snaplen (65535): 144 of 1500 bytes captured"),
    ));
    assert_eq!(parse_pcap(&ng).unwrap().records.len(), 3, "the unbroken pcapng reads");
    cases.push(("shorter than the file header", good[..10].to_vec(), "shorter than the 24-byte file header".into()));

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let f = files(&dir, false);
    for (name, bytes, want) in &cases {
        std::fs::write(&f.input, bytes).unwrap();
        let err = replay_files(&f, &ReplayOptions::new(&nic_preset(CONFIG))).expect_err(name);
        println!("{name}: {err}");
        assert!(err.starts_with(&f.input.display().to_string()), "{name}: {err}");
        assert!(err.contains(want.as_str()), "{name}: {err}");
        let left: Vec<String> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(left, vec!["in.pcap".to_string()], "{name}: files left behind");
    }
    // The unbroken capture replays (the cases above fail for their defect alone).
    std::fs::write(&f.input, &good).unwrap();
    let r = replay_files(&f, &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    assert_eq!(r.messages_delivered, 3);
}

#[test]
fn bad_send_files_are_named_errors() {
    for (text, want) in [
        ("{}", "expected a JSON array"),
        (
            r#"[{"remote_ip": "10.0.0", "remote_port": 1, "local_port": 2, "len": 3}]"#,
            "message 0: remote_ip '10.0.0' is not a dotted IPv4 address",
        ),
        (r#"[{"remote_ip": "10.0.0.2", "remote_port": 70000, "local_port": 2, "len": 3}]"#, "remote_port 70000 is not a 16-bit port"),
        (r#"[{"remote_ip": "10.0.0.2", "remote_port": 1, "local_port": 2}]"#, "exactly one of bytes_hex and len"),
        (r#"[{"remote_ip": "10.0.0.2", "remote_port": 1, "local_port": 2, "bytes_hex": "abc"}]"#, "odd number of hex digits"),
        (r#"[{"remote_ip": "10.0.0.2", "remote_port": 1, "local_port": 2, "len": 3, "prio": 1}]"#, "unknown field 'prio'"),
        (r#"[{"remote_ip": "10.0.0.2", "remote_port": 1, "local_port": 2, "len": 70000}]"#, "msg_len is a 16-bit field"),
    ] {
        let err = parse_send_messages(text).unwrap_err();
        assert!(err.contains(want), "{text}: {err}");
    }
    assert_eq!(parse_mac("02:00:00:00:00:2a"), Ok(0x0200_0000_002a));
    assert!(parse_mac("02:00:00:00:2a").is_err());
    assert_eq!(parse_ipv4("10.0.0.9"), Ok(0x0A00_0009));
}

#[test]
fn cycle_and_time_conversions_at_3_2_ghz() {
    assert_eq!(ns_to_cycles(0, NicClock::THESIS), 0);
    assert_eq!(ns_to_cycles(5, NicClock::THESIS), 16);
    assert_eq!(ns_to_cycles(1, NicClock::THESIS), 4); // 3.2 cycles: offered no earlier than the timestamp
    assert_eq!(ns_to_cycles(1000, NicClock::THESIS), 3200);
    assert_eq!(cycles_to_ns(16, NicClock::THESIS), 5);
    assert_eq!(cycles_to_ns(9, NicClock::THESIS), 3); // 2.8125 ns
    for c in 0..10_000u64 {
        let back = ns_to_cycles(cycles_to_ns(c, NicClock::THESIS), NicClock::THESIS);
        assert!(back >= c.saturating_sub(2) && back <= c + 2, "{c} -> {back}");
    }
}

#[test]
fn a_partial_message_keeps_the_nic_busy_until_garbage_collection() {
    let message: Vec<u8> = (0..3000).map(|i| i as u8).collect();
    // Packets 0 and 2 of 3: packet 1 never comes.
    let frames: Vec<(u128, Vec<u8>)> =
        [0usize, 2].iter().map(|off| (*off as u128 * 100, data_frame(PEER_IP, NIC_IP, 7000, 80, 5, &message, *off))).collect();
    let input = parse_pcap(&pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let r = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    let status = |name: &str| r.report.status.iter().find(|(n, _)| *n == name).unwrap().1;
    println!("partial message: idle after {} cycles, gc_count {}, {} frames out", r.report.cycles, status("gc_count"), r.tx_frames.len());
    assert_eq!(r.report.stopped, "idle");
    assert!(r.delivered.is_empty());
    assert_eq!(status("gc_count"), 1);
    assert_eq!(status("rx_busy_slots"), 0);
    // The default garbage-collection timeout is 200 000 cycles: the run cannot end before it.
    assert!(r.report.cycles >= 200_000, "{}", r.report.cycles);
    // A bound below that stops the run with the slot still busy.
    let mut opts = ReplayOptions::new(&nic_preset(CONFIG));
    opts.max_cycles = 50_000;
    let r = replay(&input, &[], &opts).unwrap();
    assert_eq!((r.report.stopped.as_str(), r.report.cycles), ("max-cycles", 50_000));
    assert_eq!(r.report.status.iter().find(|(n, _)| *n == "rx_busy_slots").unwrap().1, 1);
}

#[test]
fn frames_the_nic_drops_are_counted_in_the_report() {
    let good = |id: u16| data_frame(PEER_IP, NIC_IP, 7000, 80, id, &[9, 8, 7], 0);
    let mut not_ipv4 = good(1);
    not_ipv4[12..14].copy_from_slice(&[0x86, 0xDD]);
    let mut bad_checksum = good(2);
    bad_checksum[OFF_CHECKSUM] ^= 0xFF;
    let wrong_protocol = Header::decode(&good(3)).frame(HOMA_IP_PROTOCOL, &[9, 8, 7]);
    let too_short = good(4)[..40].to_vec();
    let frames: Vec<(u128, Vec<u8>)> = [not_ipv4, bad_checksum, wrong_protocol, too_short, good(5)].into_iter().map(|f| (0, f)).collect();
    let input = parse_pcap(&pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let r = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    let status = |name: &str| r.report.status.iter().find(|(n, _)| *n == name).unwrap().1;
    let counted: Vec<u32> = ["not_ipv4_count", "bad_checksum_count", "wrong_protocol_count", "too_short_count", "data_count"]
        .iter()
        .map(|n| status(n))
        .collect();
    println!("dropped frames counted: {counted:?}");
    assert_eq!(counted, vec![1, 1, 1, 1, 1]);
    assert_eq!((r.report.frames_taken, r.delivered.len(), r.tx_frames.len()), (5, 1, 1));
    assert_eq!(r.delivered[0].payload, vec![9, 8, 7]);
}

/// A Homa capture replayed into the homa-16 NIC: every message delivered, and each DATA packet
/// answered by a Homa control packet (ACK or GRANT) in the output.
#[test]
fn homa_capture_round_trip_delivers_messages() {
    use nanotransport_sim::scenarios::data_frame_for;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (messages, ndp_frames) = data_capture();
    let frames: Vec<(u128, Vec<u8>)> = ndp_frames
        .iter()
        .map(|(t, f)| {
            let h = Header::decode(f);
            let m = messages.iter().find(|m| m.remote_port == h.src_context).unwrap();
            (
                *t,
                data_frame_for(
                    HOMA_IP_PROTOCOL,
                    PEER_IP,
                    NIC_IP,
                    h.src_context,
                    h.dst_context,
                    h.tx_msg_id,
                    &m.payload,
                    h.pkt_offset as usize,
                ),
            )
        })
        .collect();
    std::fs::write(dir.join("in.pcap"), pcap_bytes(&frames, TsResolution::NanoSecond).unwrap()).unwrap();
    let f = files(&dir, false);
    let r = replay_files(&f, &ReplayOptions::new(&nic_preset("homa-16"))).unwrap();
    println!("{}", r.to_json());
    assert_eq!(r.stopped, "idle");
    let lines = read_lines(&dir.join("messages.jsonl"));
    assert_eq!(lines.len(), messages.len());
    let out = read_pcap(&f.output).unwrap();
    let replies: Vec<Header> = out.records.iter().map(|rec| parse(&rec.frame, HOMA_IP_PROTOCOL).unwrap().0).collect();
    assert!(replies.iter().all(|h| h.flags == FLAG_ACK || h.flags == FLAG_PULL), "only ACKs and GRANTs");
    assert!(replies.len() >= frames.len(), "{} replies for {} DATA packets", replies.len(), frames.len());
}

/// pcapng's `if_tsoffset` (whole seconds added to every timestamp of its interface) per
/// interface, and empty records (no captured byte) in pcap and pcapng: skipped, counted, and
/// still numbered as Wireshark numbers frames.
#[test]
fn pcapng_timestamp_offsets_are_added_and_empty_records_are_skipped_and_counted() {
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
    use pcap_file::pcapng::PcapNgWriter;
    use pcap_file::DataLink;
    use std::time::Duration;
    let (_, frames) = data_capture();
    let (a, b) = (frames[0].1.clone(), frames[1].1.clone());
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    // Interface 0: nanoseconds, offset 7 s; interface 1: microseconds (the default), offset 2 s.
    for (resol, offset) in [(9u8, 7u64), (6, 2)] {
        let mut options = vec![InterfaceDescriptionOption::IfTsOffset(offset)];
        if resol != 6 {
            options.push(InterfaceDescriptionOption::IfTsResol(resol));
        }
        w.write_pcapng_block(InterfaceDescriptionBlock { linktype: DataLink::ETHERNET, snaplen: 65535, options }).unwrap();
    }
    // (interface, raw timestamp units, frame); pcap-file 2 writes the Duration's nanoseconds as
    // the raw unit count.
    let packets: [(u32, u64, &[u8]); 4] = [(0, 100, &a), (0, 150, &[]), (1, 5_000_001, &b), (0, 900, &a)];
    for (interface_id, units, data) in packets {
        let epb = EnhancedPacketBlock {
            interface_id,
            timestamp: Duration::from_nanos(units),
            original_len: data.len() as u32,
            data: data.into(),
            options: vec![],
        };
        w.write_pcapng_block(epb).unwrap();
    }
    let input = parse_pcap(&w.into_inner()).unwrap();
    assert_eq!(input.empty_records, 1);
    let got: Vec<(usize, u128)> = input.records.iter().map(|r| (r.number, r.time_ns)).collect();
    // 7 s + 100 ns; 2 s + 5 000 001 µs = 7.000 001 s; 7 s + 900 ns.
    assert_eq!(got, vec![(1, 7_000_000_100), (3, 7_000_001_000), (4, 7_000_000_900)]);
    // pcap: an empty record between two frames.
    let pcap = pcap_bytes(&[(1_000, a.clone()), (2_000, Vec::new()), (3_000, b)], TsResolution::NanoSecond).unwrap();
    let input = parse_pcap(&pcap).unwrap();
    assert_eq!((input.records.len(), input.empty_records), (2, 1));
    assert_eq!(input.records.iter().map(|r| r.number).collect::<Vec<_>>(), vec![1, 3]);
    // The replay report carries the count.
    let r = replay(&input, &[], &ReplayOptions::new(&nic_preset(CONFIG))).unwrap();
    assert_eq!((r.report.records, r.report.empty_records), (2, 1));
    assert_eq!(r.report.to_json()["empty_records"], 1);
}
