//! One register map for every whole-NIC preset (hdl/nic/register_map.rs): on each preset's
//! Verilator model the identification registers, the configuration defaults, every status
//! address of the map, reserved and unmapped addresses, and counters that move at their fixed
//! addresses.

use nanotransport_hdl::configs::{preset_params, Protocol, CONFIGS};
use nanotransport_hdl::nic::register_map::*;
use nanotransport_sim::nic::NicSim;
use nanotransport_testbenches::nic_preset;

/// The status registers as documented (the map in `hdl/nic/status_bank.rs`, byte address
/// 0x400 + 4 · index; docs/integration.md): (byte address, name, width). Written here, not
/// read from `STATUS_MAP`, so that a register moved, renamed, narrowed or dropped fails this test:
/// the addresses are an interface users' drivers depend on.
const DOCUMENTED_STATUS: [(u64, &str, usize); 76] = [
    (0x400, "map_version", 32),
    (0x404, "protocol_id", 32),
    (0x408, "messages", 32),
    (0x40C, "datapath_bits", 32),
    (0x440, "frame_count", 32),
    (0x444, "not_ipv4_count", 32),
    (0x448, "wrong_protocol_count", 32),
    (0x44C, "too_short_count", 32),
    (0x450, "bad_checksum_count", 32),
    (0x454, "bad_flags_count", 32),
    (0x458, "data_count", 32),
    (0x45C, "chop_count", 32),
    (0x460, "control_count", 32),
    (0x464, "no_action_count", 32),
    (0x468, "bad_length_count", 32),
    (0x46C, "rx_fail_count", 32),
    (0x470, "duplicate_data_count", 32),
    (0x474, "forwarded_count", 32),
    (0x478, "bad_frame_length_count", 32),
    (0x480, "offset_range_count", 32),
    (0x484, "grant_sent_count", 32),
    (0x488, "ack_sent_count", 32),
    (0x48C, "nack_sent_count", 32),
    (0x490, "sched_inserts_count", 32),
    (0x494, "sched_removes_count", 32),
    (0x498, "sched_unknown_removes_count", 32),
    (0x49C, "sched_fifo_enters_count", 32),
    (0x4A0, "sched_levels", 32),
    (0x4C0, "fail_zero_len_count", 32),
    (0x4C4, "fail_too_long_count", 32),
    (0x4C8, "fail_bad_offset_count", 32),
    (0x4CC, "fail_len_mismatch_count", 32),
    (0x4D0, "fail_no_id_count", 32),
    (0x4D4, "fail_no_buffer_count", 32),
    (0x4D8, "fail_bucket_full_count", 32),
    (0x4DC, "rx_duplicate_count", 32),
    (0x4E0, "recent_duplicate_count", 32),
    (0x4E4, "class_fallback_count", 32),
    (0x4E8, "drop_stale_count", 32),
    (0x4EC, "drop_bad_offset_count", 32),
    (0x4F0, "drop_duplicate_count", 32),
    (0x4F4, "drop_bad_length_count", 32),
    (0x4F8, "gc_count", 32),
    (0x4FC, "rx_stale_timeout_count", 32),
    (0x500, "rx_delivered_count", 32),
    (0x504, "rx_busy_slots", 32),
    (0x508, "rx_busy_any", 1),
    (0x50C, "delivered_set_full_wait_count", 32),
    (0x540, "rejected_msg_count", 16),
    (0x544, "framing_error_count", 16),
    (0x548, "stale_delivered_count", 16),
    (0x54C, "stale_credit_count", 16),
    (0x550, "tx_stale_timeout_count", 16),
    (0x554, "ack_beyond_count", 16),
    (0x558, "rtx_beyond_count", 16),
    (0x55C, "credit_beyond_count", 16),
    (0x560, "tx_delivered_msg_count", 16),
    (0x564, "abandoned_msg_count", 16),
    (0x568, "write_busy_count", 16),
    (0x56C, "buffer_double_free_count", 16),
    (0x570, "event_overflow_count", 16),
    (0x574, "tx_active_slots", 32),
    (0x578, "tx_active_any", 1),
    (0x57C, "buffer_flags", 16),
    (0x580, "tx_cooling_slots", 16),
    (0x5C0, "ctrl_sent_count", 32),
    (0x5C4, "pull_sent_count", 32),
    (0x5C8, "merged_count", 32),
    (0x5CC, "pull_coalesced_count", 32),
    (0x5D0, "ctrl_dropped_count", 32),
    (0x5D4, "pull_replaced_count", 32),
    (0x600, "arbiter_ctrl_packet_count", 16),
    (0x604, "arbiter_data_packet_count", 16),
    (0x608, "tx_frame_count", 32),
    (0x60C, "tx_length_mismatch_count", 32),
    (0x610, "csr_error_count", 32),
];

/// The configuration registers' documented defaults (`hdl/nic/register_map.rs`' table): (byte
/// address, NDP default, Homa and Homa-Tr default).
const DOCUMENTED_CONFIG: [(u64, u32, u32); 16] = [
    (0x00, 0x0000_0001, 0x0000_0001), // own MAC 02:00:00:00:00:01, bits 31-0
    (0x04, 0x0200, 0x0200),           // own MAC bits 47-32
    (0x08, 0xFFFF_FFFF, 0xFFFF_FFFF), // peer MAC ff:ff:ff:ff:ff:ff
    (0x0C, 0xFFFF, 0xFFFF),
    (0x10, 0x0A00_0001, 0x0A00_0001), // 10.0.0.1
    (0x14, 8, 8),                     // rtt_pkts
    (0x18, 20_000, 20_000),           // retransmission timeout, cycles
    (0x1C, 5, 5),                     // timeouts before abandoning
    (0x20, 200_000, 200_000),         // receive garbage-collection timeout
    (0x24, 136, 0),                   // PULL pacing interval (Homa paces nothing)
    (0x28, 1, 1),                     // pacer bucket
    (0x2C, 4, 4),                     // control burst before a waiting data packet
    (0x30, 0, 3),                     // Homa: overcommitment
    (0x34, 0, 1),                     // Homa: unscheduled priorities U
    (0x38, 0, 0),                     // recovery options
    (0x3C, 0, 0),                     // Homa: acknowledgement policy (prototype)
];

const OKAY: u64 = 0;
const SLVERR: u64 = 2;

fn read(nic: &mut NicSim, addr: u64) -> u32 {
    let (v, resp) = nic.read_register(addr);
    assert_eq!(resp, OKAY, "read {addr:#x}");
    v
}

/// The implementation's map is the documented one, register for register.
#[test]
fn the_status_map_is_the_documented_one() {
    let implemented: Vec<(u64, &str, usize)> = STATUS_MAP.iter().map(|r| (STATUS_BASE + 4 * r.0 as u64, r.1, r.2)).collect();
    assert_eq!(implemented, DOCUMENTED_STATUS.to_vec());
    for (addr, name, _) in DOCUMENTED_STATUS {
        assert_eq!(status_address(name), Some(addr), "{name}");
    }
}

#[test]
fn every_preset_follows_the_one_map() {
    let presets: Vec<_> = CONFIGS.iter().filter(|c| c.protocol.is_some()).collect();
    assert!(presets.len() >= 7);
    for c in presets {
        let protocol = c.protocol.unwrap();
        let mut nic = NicSim::new(&nic_preset(c.name).module()).unwrap();
        // Identification as documented: map version 2; protocol 1 NDP, 2 Homa, 3 Homa-Tr;
        // messages per direction; datapath bits.
        let protocol_id = match protocol {
            Protocol::Ndp => 1,
            Protocol::Homa => 2,
            Protocol::HomaTr => 3,
        };
        let id = [2, protocol_id, c.messages as u32, 64];
        for (k, want) in id.iter().enumerate() {
            assert_eq!(read(&mut nic, STATUS_BASE + 4 * k as u64), *want, "{}: identification {k}", c.name);
        }
        assert_eq!((REGISTER_MAP_VERSION, preset_params(protocol, c.messages).protocol_id), (id[0], id[1]), "{}: the constants", c.name);
        // Configuration defaults at their documented addresses.
        for (addr, ndp, homa) in DOCUMENTED_CONFIG {
            let want = if protocol == Protocol::Ndp { ndp } else { homa };
            assert_eq!(read(&mut nic, addr), want, "{}: configuration register {addr:#x}", c.name);
        }
        // Every documented status register answers; counters are 0 after reset.
        for (addr, name, _) in DOCUMENTED_STATUS.iter().skip(4) {
            let v = read(&mut nic, *addr);
            if name.ends_with("_count") {
                assert_eq!(v, 0, "{}: {name} after reset", c.name);
            }
        }
        // Status indices without a register read 0; reserved configuration reads 0.
        assert_eq!(read(&mut nic, STATUS_BASE + 4 * 200), 0);
        assert_eq!(read(&mut nic, 0x0FC), 0);
        // Rejected: writes outside the 16 configuration registers, reads outside the map.
        assert_eq!(nic.write_register(0x040, 1), SLVERR, "{}: reserved configuration write", c.name);
        assert_eq!(nic.write_register(STATUS_BASE, 1), SLVERR, "{}: status write", c.name);
        assert_eq!(nic.read_register(0x200).1, SLVERR, "{}: unmapped read", c.name);
        assert_eq!(read(&mut nic, status_address("csr_error_count").unwrap()), 3, "{}", c.name);
        // Counters move at their fixed addresses: one frame that is not IPv4 (its IPv4 length
        // field reads 0, so the parser counts it too short, its first check).
        let mut frame = vec![0u8; 128];
        frame[12] = 0x86;
        frame[13] = 0xDD;
        nic.push_frame(&frame, 0);
        nic.run(100);
        let moved: Vec<String> = STATUS_MAP
            .iter()
            .skip(4)
            .filter_map(|r| {
                let v = read(&mut nic, STATUS_BASE + 4 * r.0 as u64);
                (v != 0).then(|| format!("{}={v}", r.1))
            })
            .collect();
        println!("{}: after one non-IPv4 frame: {}", c.name, moved.join(" "));
        assert_eq!(read(&mut nic, status_address("too_short_count").unwrap()), 1, "{}", c.name);
        assert_eq!(read(&mut nic, status_address("frame_count").unwrap()), 0, "{}", c.name);
        assert_eq!(read(&mut nic, status_address("rx_busy_any").unwrap()), 0, "{}", c.name);
        println!(
            "{}: map version {}, protocol {}, {} messages: identification, {} status registers and the rejects as mapped",
            c.name,
            id[0],
            id[1],
            id[2],
            STATUS_MAP.len()
        );
    }
}

/// The 16-bit counters (transmit path, arbiter) saturate at 65 535 and the 32-bit ones count on,
/// as the map documents: 66 000 copies of a one-packet message each draw an ACK, so more than
/// 65 535 control packets pass the arbiter.
#[test]
fn sixteen_bit_counters_saturate_and_thirty_two_bit_ones_count_on() {
    use nanotransport_hdl::pisa::wire::NDP_IP_PROTOCOL;
    use nanotransport_sim::scenarios::{data_frame_for, nic_with_ip, NIC_IP, PEER_IP};
    const COPIES: usize = 66_000;
    let mut nic = nic_with_ip(&nic_preset("ndp-16"), NIC_IP).unwrap();
    let frame = data_frame_for(NDP_IP_PROTOCOL, PEER_IP, NIC_IP, 7000, 80, 1, &[1, 2, 3], 0);
    for _ in 0..COPIES {
        nic.push_frame(&frame, 0);
    }
    assert!(nic.run_until(20 * COPIES as u64, |n| n.rx_backlog() == 0), "the copies were not all taken");
    nic.run(1_000);
    let count = |nic: &mut NicSim, name: &str| read(nic, status_address(name).unwrap());
    let sent = nic.tx_frames.len() as u32;
    println!("{COPIES} copies: {sent} frames sent, arbiter_ctrl_packet_count {}", count(&mut nic, "arbiter_ctrl_packet_count"));
    // (The copies span 594 000 cycles, more than the delivered set's horizon of 2^18: a copy
    // that much later is a new message again, the documented limit; every copy is answered
    // either way.)
    assert_eq!(count(&mut nic, "ctrl_dropped_count"), 0);
    assert!(sent > 65_535, "only {sent} control packets");
    assert_eq!(count(&mut nic, "tx_frame_count"), sent, "32 bits: every frame counted");
    assert_eq!(count(&mut nic, "ctrl_sent_count"), sent, "32 bits: every control packet counted");
    assert_eq!(count(&mut nic, "arbiter_ctrl_packet_count"), 65_535, "16 bits: saturated, not wrapped");
    assert_eq!(count(&mut nic, "data_count"), COPIES as u32);
}

/// Status registers no other test reads, each moved by a stimulus whose effect the map's
/// documentation states, on ndp-16: `buffer_flags` (bits 4–0 the receive free lists full, bit 8
/// every transmit buffer free) and `tx_active_slots` at rest and with one message in flight;
/// `offset_range_count` by one ACK for offset 100 (offsets ≥ 64 have no bitmap bit);
/// `rx_duplicate_count` by a packet received twice before its message completed;
/// `rx_delivered_count`, `arbiter_data_packet_count` and `tx_delivered_msg_count` by one message
/// each way.
///
/// Counters no whole-NIC stimulus can move, because an earlier stage filters what would move them
/// (each is moved by its block's test): `drop_duplicate_count`, `drop_stale_count` (GetRxMsgInfo
/// drops duplicates and stale packets first; `reassembly.rs`), `rx_stale_timeout_count` and
/// `tx_stale_timeout_count` (every allocation re-arms a slot's timer and completion cancels it;
/// `rx_differential.rs`, the transmit path's lockstep), `delivered_set_full_wait_count` (the
/// delivered set's buckets; `blocks/nic/delivered_set.rs`), `event_overflow_count` (event bursts
/// above the stated rate; `tx_path.rs`), and the consistency checks `buffer_double_free_count`
/// and `tx_length_mismatch_count`, which the fuzz checker requires to read 0.
#[test]
fn counters_no_other_test_reads_move_by_known_amounts_ndp() {
    use nanotransport_hdl::pisa::wire::{FLAG_ACK, NDP_IP_PROTOCOL};
    use nanotransport_reference::pisa::Header;
    use nanotransport_sim::nic::TxMessage;
    use nanotransport_sim::scenarios::{ack_for, control_reply, data_frame, nic_with_ip, NIC_IP, PEER_IP};
    let mut nic = nic_with_ip(&nic_preset("ndp-16"), NIC_IP).unwrap();
    let count = |nic: &mut NicSim, name: &str| read(nic, status_address(name).unwrap());
    assert_eq!(count(&mut nic, "buffer_flags"), 0x11F, "at rest: every free list full, every transmit buffer free");
    assert_eq!(count(&mut nic, "tx_active_slots"), 0);
    // An ACK from the peer for offset 100 of a message of the NIC's.
    let ours = Header::decode(&data_frame(NIC_IP, PEER_IP, 80, 7000, 5, &[0; 16], 0));
    nic.push_frame(&control_reply(NDP_IP_PROTOCOL, &ours, FLAG_ACK, 100, 0), 0);
    nic.run(200);
    assert_eq!(count(&mut nic, "offset_range_count"), 1);
    // Packet 0 of a two-packet message twice, then packet 1.
    let message: Vec<u8> = (0..1500u32).map(|i| i as u8).collect();
    for offset in [0, 0, 1] {
        nic.push_frame(&data_frame(PEER_IP, NIC_IP, 7000, 80, 9, &message, offset), 0);
    }
    assert!(nic.run_until(2_000, |n| n.delivered.len() == 1));
    nic.run(200);
    assert_eq!(count(&mut nic, "rx_duplicate_count"), 1);
    assert_eq!(count(&mut nic, "duplicate_data_count"), 1);
    assert_eq!(count(&mut nic, "recent_duplicate_count"), 0);
    // One message to a peer that never answers: one slot active, a transmit buffer taken.
    nic.send(&TxMessage { remote_ip: PEER_IP, remote_port: 7001, local_port: 81, payload: vec![7; 3000] });
    assert!(nic.run_until(2_000, |n| n.tx_frames.iter().any(|(_, f)| f[34] & 1 != 0)), "the message's DATA left");
    assert_eq!(count(&mut nic, "tx_active_slots").count_ones(), 1);
    assert_eq!(count(&mut nic, "buffer_flags"), 0x01F, "a transmit buffer in use");
    nic.run(1_000);
    // The peer acknowledges each of its DATA packets: 3000 bytes are ⌈3000 / 1024⌉ = 3 packets,
    // the only data the NIC sent (every other frame was an ACK of the received message).
    let data: Vec<Vec<u8>> = nic.tx_frames.iter().filter(|(_, f)| f[34] & 1 != 0).map(|(_, f)| f.clone()).collect();
    assert_eq!(data.len(), 3);
    for frame in &data {
        nic.push_frame(&ack_for(frame), 0);
    }
    nic.run(500);
    assert_eq!(count(&mut nic, "arbiter_data_packet_count"), 3);
    assert_eq!(count(&mut nic, "tx_delivered_msg_count"), 1, "every packet acknowledged");
    assert_eq!(count(&mut nic, "abandoned_msg_count"), 0);
    assert_eq!(count(&mut nic, "rx_delivered_count"), 1, "the two-packet message");
    assert_eq!(count(&mut nic, "tx_active_slots"), 0);
    assert_eq!(count(&mut nic, "buffer_flags"), 0x11F, "the transmit buffer returned");
}

/// Homa's scheduler counters on homa-16: a message of 12 packets (beyond rtt_pkts = 8, so it is
/// scheduled) is inserted into the scheduler once; after 3 packets its grants reach 3 + 8 = 11 of
/// 12, so it holds an entry (`sched_levels` bits 4–0); from the 4th it is fully granted and
/// leaves the entries (`hdl/pisa/priority_scheduler.rs`); its completion removes it once.
#[test]
fn scheduler_counters_move_by_known_amounts_homa() {
    use nanotransport_hdl::pisa::wire::HOMA_IP_PROTOCOL;
    use nanotransport_sim::scenarios::{data_frame_for, nic_with_ip, NIC_IP, PEER_IP};
    let mut nic = nic_with_ip(&nic_preset("homa-16"), NIC_IP).unwrap();
    let count = |nic: &mut NicSim, name: &str| read(nic, status_address(name).unwrap());
    let message: Vec<u8> = (0..12 * 1024u32).map(|i| (i * 3) as u8).collect();
    let packet = |offset| data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 7000, 80, 3, &message, offset);
    for offset in 0..3 {
        nic.push_frame(&packet(offset), 0);
    }
    nic.run(1_000);
    println!(
        "after 3 of 12 packets: inserts {}, removes {}, levels {:#x}",
        count(&mut nic, "sched_inserts_count"),
        count(&mut nic, "sched_removes_count"),
        count(&mut nic, "sched_levels")
    );
    assert_eq!(count(&mut nic, "sched_inserts_count"), 1);
    assert_eq!(count(&mut nic, "sched_removes_count"), 0);
    assert_eq!(count(&mut nic, "sched_levels") & 0x1F, 1, "one entry in use");
    nic.push_frame(&packet(3), 0);
    nic.run(1_000);
    assert_eq!(count(&mut nic, "sched_levels") & 0x1F, 0, "fully granted: the entry is free");
    for offset in 4..12 {
        nic.push_frame(&packet(offset), 0);
    }
    assert!(nic.run_until(5_000, |n| n.delivered.len() == 1));
    nic.run(200);
    assert_eq!(count(&mut nic, "sched_inserts_count"), 1);
    assert_eq!(count(&mut nic, "sched_removes_count"), 1);
    assert_eq!(count(&mut nic, "sched_unknown_removes_count"), 0);
    assert_eq!(count(&mut nic, "sched_levels") & 0x1F, 0, "no entry left");
    // Homa (without trimming) has no match entry for NACK or trimmed DATA: each is dropped as a
    // packet without an action.
    use nanotransport_hdl::pisa::wire::FLAG_NACK;
    use nanotransport_reference::pisa::Header;
    use nanotransport_sim::scenarios::{control_reply, trimmed};
    let ours = Header::decode(&data_frame_for(HOMA_IP_PROTOCOL, NIC_IP, PEER_IP, 80, 7000, 5, &[0; 16], 0));
    nic.push_frame(&control_reply(HOMA_IP_PROTOCOL, &ours, FLAG_NACK, 0, 0), 0);
    nic.push_frame(&trimmed(&packet(0)), 0);
    nic.run(300);
    assert_eq!(count(&mut nic, "no_action_count"), 2);
    assert_eq!(count(&mut nic, "chop_count"), 0);
}

/// The scheduler's FIFO on homa-128 (the priority scheduler holds 16 entries). Scheduled messages
/// are longer than rtt_pkts; at the default 8 only the 38-packet class (16 buffers) holds them, so
/// rtt_pkts is set to 4: messages of 8 packets then fit the 8-packet class (16) and fall back to
/// the 38-packet one. The first packets of 17 such messages fill the 16 entries and queue the
/// 17th (`sched_fifo_enters_count`, `sched_levels` bits 23–8); three more packets of the first
/// message bring its grants to 4 + 4 = 8, all of it, so it leaves the entries and the FIFO's head
/// takes its place.
#[test]
fn the_seventeenth_scheduled_message_waits_in_the_fifo_homa_128() {
    use nanotransport_hdl::pisa::wire::HOMA_IP_PROTOCOL;
    use nanotransport_sim::registers::RegisterWrite;
    use nanotransport_sim::scenarios::{data_frame_for, nic_with_settings, NIC_IP, PEER_IP};
    const RTT_PKTS: u64 = 0x14;
    let mut nic = nic_with_settings(&nic_preset("homa-128"), NIC_IP, &[RegisterWrite { addr: RTT_PKTS, value: 4 }]).unwrap();
    let count = |nic: &mut NicSim, name: &str| read(nic, status_address(name).unwrap());
    let message: Vec<u8> = (0..8 * 1024u32).map(|i| (i * 5) as u8).collect();
    let packet = |id: u16, offset| data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 7000, 80, id, &message, offset);
    for id in 0..17 {
        nic.push_frame(&packet(id, 0), 0);
    }
    assert!(nic.run_until(10_000, |n| n.rx_backlog() == 0));
    nic.run(500);
    let levels = count(&mut nic, "sched_levels");
    println!(
        "17 first packets: inserts {}, FIFO entries {}, levels {levels:#x}",
        count(&mut nic, "sched_inserts_count"),
        count(&mut nic, "sched_fifo_enters_count")
    );
    assert_eq!((count(&mut nic, "rx_fail_count"), count(&mut nic, "class_fallback_count")), (0, 1), "one message in the larger class");
    assert_eq!(count(&mut nic, "sched_inserts_count"), 17);
    assert_eq!(count(&mut nic, "sched_fifo_enters_count"), 1);
    assert_eq!((levels & 0x1F, (levels >> 8) & 0xFFFF), (16, 1), "16 entries in use, one FIFO record");
    for offset in 1..4 {
        nic.push_frame(&packet(0, offset), 0);
    }
    assert!(nic.run_until(10_000, |n| n.rx_backlog() == 0));
    nic.run(500);
    let levels = count(&mut nic, "sched_levels");
    assert_eq!((levels & 0x1F, (levels >> 8) & 0xFFFF), (16, 0), "the FIFO's head entered");
    assert_eq!(count(&mut nic, "sched_fifo_enters_count"), 1);
}

/// `docs/integration.md`, the integrators' register reference, against the map: its status table
/// is the documented one above (address, name, width), row for row; its configuration table has
/// every named configuration register at its address with the presets' defaults and the range
/// `--set` accepts.
#[test]
fn the_integration_guide_lists_the_map() {
    use nanotransport_sim::registers::CONFIG_REGISTERS;
    let text = std::fs::read_to_string(nanotransport_testbenches::repo_root().join("docs/integration.md")).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.starts_with("| `0x"))
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().trim_matches('`').to_string()).collect())
        .collect();
    let number = |s: &str| match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("{s}")),
        None => s.replace(' ', "").parse().unwrap_or_else(|_| panic!("{s}")),
    };
    let status: Vec<(u64, &str, usize)> =
        rows.iter().filter(|r| number(&r[0]) >= STATUS_BASE).map(|r| (number(&r[0]), r[1].as_str(), r[2].parse().unwrap())).collect();
    assert_eq!(status, DOCUMENTED_STATUS.to_vec(), "docs/integration.md's status table");
    let config: Vec<&Vec<String>> = rows.iter().filter(|r| number(&r[0]) < STATUS_BASE).collect();
    assert_eq!(config.len(), CONFIG_REGISTERS.len(), "one row per named configuration register");
    for (row, reg) in config.iter().zip(CONFIG_REGISTERS) {
        assert_eq!((number(&row[0]), row[1].as_str()), (4 * reg.index as u64, reg.name), "configuration table row order and address");
        let (_, ndp, homa) = DOCUMENTED_CONFIG.iter().find(|c| c.0 == 4 * reg.index as u64).unwrap();
        assert_eq!((number(&row[3]), number(&row[4])), (*ndp as u64, *homa as u64), "{}: defaults", reg.name);
        assert_eq!(row[5], format!("{}..={}", reg.min, reg.max), "{}: valid range", reg.name);
    }
}
