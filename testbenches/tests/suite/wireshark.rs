//! The Wireshark dissector `scripts/wireshark-nanotransport.lua`, run through `tshark` on a pcap
//! of frames the project makes: everything an `ndp-16` and a `homa-16` NIC put on the wire while
//! each sends a message to itself (one DATA frame trimmed on the link), and frames built with the
//! scenario helpers for every flag on both IP protocols, one with every header byte distinct.
//! Each field tshark reports must equal the bytes at the offsets documented in
//! `hdl/pisa/wire.rs`, so a field read from the wrong place, a flag bit tested with the wrong
//! mask or a protocol left unregistered fails here rather than misleading whoever reads a
//! capture. A UDP frame must not be taken for nanoTransport. PL2 frames (IP protocol 253) are
//! checked the same way against `net/pl2/frame.rs`. tshark comes from
//! `scripts/setup-tools.sh`; without it the test fails instead of passing unchecked.

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::Header;
use nanotransport_sim::replay::output_pcap;
use nanotransport_sim::scenarios::*;
use nanotransport_testbenches::nic_preset;
use nanotransport_testbenches::{repo_root, seed};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::process::Command;

/// The transport header's numeric fields as the table of `hdl/pisa/wire.rs` documents them:
/// (dissector field, frame byte offset, bytes; big-endian). Written here, not taken from the
/// dissector, so that both are checked against the documentation.
const DOCUMENTED_FIELDS: [(&str, usize, usize); 10] = [
    ("nanotransport.flags", FLAGS_AT, 1),
    ("nanotransport.src_context", 35, 2),
    ("nanotransport.dst_context", 37, 2),
    ("nanotransport.msg_len", 39, 2),
    ("nanotransport.pkt_offset", 41, 1),
    ("nanotransport.pull_offset", 42, 2),
    ("nanotransport.grant_prio", 44, 1),
    ("nanotransport.tx_msg_id", 45, 2),
    ("nanotransport.buf_ptr", 47, 2),
    ("nanotransport.buf_size_class", 49, 1),
];

/// The flags byte, and its bits as documented: (dissector field, bit).
const FLAGS_AT: usize = 34;
const DOCUMENTED_FLAGS: [(&str, u8); 5] = [
    ("nanotransport.flags.data", 0x01),
    ("nanotransport.flags.ack", 0x02),
    ("nanotransport.flags.nack", 0x04),
    ("nanotransport.flags.pull", 0x08),
    ("nanotransport.flags.chop", 0x10),
];

/// Documented frame layout around the transport fields: IPv4 starts at byte 14, its total length
/// (big-endian) is at 16–17 and its protocol at 23; padding is bytes 50–63 and the payload
/// follows at 64, up to the end of the IPv4 packet.
const IPV4_START: usize = 14;
const IPV4_TOTAL_LEN_AT: usize = 16;
const IP_PROTOCOL_AT: usize = 23;
const PADDING_START: usize = 50;
const PAYLOAD_START: usize = 64;

/// The Protocol column the dissector gives each IP protocol.
const COLUMN_OF_IP_PROTOCOL: [(u8, &str); 2] = [(NDP_IP_PROTOCOL, "nT-NDP"), (HOMA_IP_PROTOCOL, "nT-Homa")];

const UDP_IP_PROTOCOL: u8 = 17;

/// A message of several packets, so that the receiver grants (Homa) or pulls (NDP) beyond the
/// first round trip's packets, and the NIC runs long enough to finish it.
const MESSAGE_BYTES: usize = 12_000;
const MAX_CYCLES: u64 = 400_000;
const LOOP_DELAY_CYCLES: u64 = 20;
/// The DATA frame (counted from 1) the link trims into a CHOP header.
const TRIMMED_DATA_FRAME: usize = 2;

fn big_endian(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |v, b| v << 8 | *b as u64)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A tshark numeric field: hexadecimal when the dissector shows it so (`0x…`), else decimal.
fn tshark_number(text: &str) -> u64 {
    match text.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => text.parse(),
    }
    .unwrap_or_else(|_| panic!("tshark printed {text:?} where a number was expected"))
}

/// Every frame a NIC transmits while sending one message to its own address through a looped
/// link, stamped with their cycles, and the trimmed copy the link makes of one DATA frame, stamped
/// with the run's last cycle.
fn frames_of_a_self_loop(config: &str, rng: &mut ChaCha8Rng) -> Vec<(u64, Vec<u8>)> {
    let mut nic = nic_with_ip(&nic_preset(config), NIC_IP).unwrap();
    let mut data_frames = 0;
    let mut trimmed_on_the_link = Vec::new();
    let mut link = |f: &[u8], _: &mut ChaCha8Rng| {
        if f[OFF_FLAGS] & FLAG_DATA != 0 {
            data_frames += 1;
            if data_frames == TRIMMED_DATA_FRAME {
                let chop = trimmed(f);
                trimmed_on_the_link.push(chop.clone());
                return vec![chop];
            }
        }
        vec![f.to_vec()]
    };
    self_loop_to_completion(&mut nic, rng, 1, &mut |_| MESSAGE_BYTES, MAX_CYCLES, LOOP_DELAY_CYCLES, &mut link);
    assert_eq!(
        (nic.delivered.len(), nic.completions.len()),
        (1, 1),
        "{config}: the message delivered and completed after {} cycles",
        nic.cycle
    );
    assert_eq!(trimmed_on_the_link.len(), 1, "{config}: one DATA frame trimmed");
    let flags_seen: std::collections::BTreeSet<u8> = nic.tx_frames.iter().map(|(_, f)| f[OFF_FLAGS]).collect();
    println!("{config}: {} frames transmitted, flags {flags_seen:02x?}", nic.tx_frames.len());
    let mut frames = nic.tx_frames.clone();
    frames.extend(trimmed_on_the_link.into_iter().map(|f| (nic.cycle, f)));
    frames
}

/// Frames from the scenario helpers for every flag on `ip_protocol`, and one whose header bytes
/// 34–63 and payload all differ, so that a field read one byte off shows another value.
fn frames_for_every_flag(ip_protocol: u8) -> Vec<Vec<u8>> {
    let message: Vec<u8> = (0..3000).map(|i| i as u8).collect();
    let data = data_frame_for(ip_protocol, PEER_IP, NIC_IP, 0x1234, 0x5678, 0x0ABC, &message, 1);
    let d = Header::decode(&data);
    let mut distinct = Header {
        dst_mac: 0x0200_0000_0001,
        src_mac: 0x0200_0000_0002,
        ip_ttl: 64,
        src_ip: PEER_IP,
        dst_ip: NIC_IP,
        flags: FLAG_DATA | FLAG_ACK | FLAG_NACK | FLAG_PULL | FLAG_CHOP,
        src_context: 0x2122,
        dst_context: 0x2324,
        msg_len: 0x2526,
        pkt_offset: 0x27,
        pull_offset: 0x2829,
        grant_prio: 0x2A,
        tx_msg_id: 0x2B2C,
        buf_ptr: 0x2D2E,
        buf_size_class: 0x2F,
        ..Default::default()
    }
    .frame(ip_protocol, &[0x40, 0x41, 0x42]);
    // Padding is ignored on receive, so a capture may carry anything there.
    for (k, b) in distinct[PADDING_START..PAYLOAD_START].iter_mut().enumerate() {
        *b = 0x30 + k as u8;
    }
    vec![
        trimmed(&data),
        control_reply(ip_protocol, &d, FLAG_ACK, 2, 0),
        control_reply(ip_protocol, &d, FLAG_NACK, 1, 0),
        control_reply(ip_protocol, &d, FLAG_PULL, 1, 0xBEEF),
        data,
        distinct,
    ]
}

/// An Ethernet / IPv4 / UDP frame: a neighbour of the transport on the wire that the dissector
/// must leave alone.
fn udp_frame() -> Vec<u8> {
    let payload = b"not nanoTransport";
    let udp_len = 8 + payload.len();
    let mut ip = vec![0x45, 0, 0, 0, 0, 0, 0, 0, 64, UDP_IP_PROTOCOL, 0, 0];
    ip[2..4].copy_from_slice(&((20 + udp_len) as u16).to_be_bytes());
    ip.extend_from_slice(&PEER_IP.to_be_bytes());
    ip.extend_from_slice(&NIC_IP.to_be_bytes());
    let sum = ip.chunks(2).fold(0u32, |s, w| s + big_endian(w) as u32);
    let checksum = !((sum & 0xFFFF) + (sum >> 16)) as u16;
    ip[10..12].copy_from_slice(&checksum.to_be_bytes());
    let mut frame = vec![0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00];
    frame.extend_from_slice(&ip);
    frame.extend_from_slice(&4000u16.to_be_bytes());
    frame.extend_from_slice(&4001u16.to_be_bytes());
    frame.extend_from_slice(&(udp_len as u16).to_be_bytes());
    frame.extend_from_slice(&[0, 0]);
    frame.extend_from_slice(payload);
    frame
}

fn run(tshark: &mut Command) -> std::process::Output {
    match tshark.output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!("tshark is not installed: run scripts/setup-tools.sh"),
        Err(e) => panic!("cannot run tshark: {e}"),
    }
}

fn is_nanotransport(frame: &[u8]) -> bool {
    COLUMN_OF_IP_PROTOCOL.iter().any(|(p, _)| frame[IP_PROTOCOL_AT] == *p)
}

#[test]
fn dissector_decodes_every_header_field_as_documented() {
    // The table above transcribes wire.rs' documentation; its constants must say the same.
    let offsets: Vec<usize> = DOCUMENTED_FIELDS.iter().map(|f| f.1).collect();
    assert_eq!(
        offsets,
        [
            OFF_FLAGS,
            OFF_SRC_CONTEXT,
            OFF_DST_CONTEXT,
            OFF_MSG_LEN,
            OFF_PKT_OFFSET,
            OFF_PULL_OFFSET,
            OFF_GRANT_PRIO,
            OFF_TX_MSG_ID,
            OFF_BUF_PTR,
            OFF_BUF_SIZE_CLASS
        ],
        "documented offsets against hdl/pisa/wire.rs' constants"
    );

    // Before the NICs run, so that a missing tshark is reported at once.
    run(Command::new("tshark").arg("--version"));

    let mut rng = ChaCha8Rng::seed_from_u64(seed("wireshark_dissector", 907));
    let mut records: Vec<(u64, Vec<u8>)> = Vec::new();
    for config in ["ndp-16", "homa-16"] {
        let start = records.last().map_or(0, |r| r.0 + 1);
        records.extend(frames_of_a_self_loop(config, &mut rng).into_iter().map(|(c, f)| (start + c, f)));
    }
    let mut hand_built: Vec<Vec<u8>> = [NDP_IP_PROTOCOL, HOMA_IP_PROTOCOL].into_iter().flat_map(frames_for_every_flag).collect();
    hand_built.push(udp_frame());
    let from_nics = records.len();
    let start = records.last().map_or(0, |r| r.0 + 1);
    records.extend(hand_built.into_iter().enumerate().map(|(k, f)| (start + k as u64, f)));
    let frames: Vec<&[u8]> = records.iter().map(|r| &r.1[..]).collect();

    // The capture must cover what it claims to: every flag on both IP protocols.
    for (ip_protocol, _) in COLUMN_OF_IP_PROTOCOL {
        for (name, bit) in DOCUMENTED_FLAGS {
            assert!(
                frames.iter().any(|f| f[IP_PROTOCOL_AT] == ip_protocol && f[FLAGS_AT] & bit != 0),
                "no {name} frame on IP protocol {ip_protocol}"
            );
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("nanotransport.pcap");
    std::fs::write(&pcap, output_pcap(&records, NicClock::THESIS).unwrap()).unwrap();

    let mut fields = vec!["frame.number", "ip.proto", "frame.protocols", "_ws.col.Protocol"];
    fields.extend(DOCUMENTED_FIELDS.iter().map(|f| f.0));
    fields.extend(DOCUMENTED_FLAGS.iter().map(|f| f.0));
    fields.extend(["nanotransport.padding", "nanotransport.payload"]);
    let dissector = repo_root().join("scripts/wireshark-nanotransport.lua");
    let mut tshark = Command::new("tshark");
    tshark.arg("-X").arg(format!("lua_script:{}", dissector.display())).arg("-r").arg(&pcap);
    tshark.args(["-T", "fields", "-E", "separator=,"]);
    for f in &fields {
        tshark.args(["-e", f]);
    }
    let out = run(&mut tshark);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark exited with {}:\n{stderr}", out.status);
    // tshark reports a script that fails to load on stderr and carries on without it.
    assert!(!stderr.to_lowercase().contains("lua"), "tshark reported a Lua problem:\n{stderr}");

    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), frames.len(), "tshark read every frame of the pcap");
    let mut decoded = 0;
    for (k, (row, frame)) in rows.iter().zip(&frames).enumerate() {
        let number = k + 1;
        assert_eq!(row.len(), fields.len(), "frame {number}: one value per field (a field repeated would add some): {row:?}");
        let value = |name: &str| row[fields.iter().position(|f| *f == name).unwrap()];
        assert_eq!(tshark_number(value("frame.number")), number as u64, "frames in file order");
        let ip_protocol = frame[IP_PROTOCOL_AT];
        assert_eq!(tshark_number(value("ip.proto")), ip_protocol as u64, "frame {number}: IP protocol");
        let layers: Vec<&str> = value("frame.protocols").split(':').collect();
        if !is_nanotransport(frame) {
            assert!(!layers.contains(&"nanotransport"), "frame {number}: IP protocol {ip_protocol} decoded as nanoTransport: {layers:?}");
            assert!(layers.contains(&"udp"), "frame {number}: the UDP frame decoded as {layers:?}");
            assert!(
                DOCUMENTED_FIELDS.iter().all(|(name, _, _)| value(name).is_empty()),
                "frame {number}: nanoTransport fields on IP protocol {ip_protocol}: {row:?}"
            );
            continue;
        }
        decoded += 1;
        let what = format!("frame {number} (IP protocol {ip_protocol}, flags {:#04x})", frame[FLAGS_AT]);
        assert_eq!(layers.last(), Some(&"nanotransport"), "{what}: layers {layers:?}");
        let column = COLUMN_OF_IP_PROTOCOL.iter().find(|(p, _)| *p == ip_protocol).unwrap().1;
        assert_eq!(value("_ws.col.Protocol"), column, "{what}: Protocol column");
        for (name, at, bytes) in DOCUMENTED_FIELDS {
            assert_eq!(tshark_number(value(name)), big_endian(&frame[at..at + bytes]), "{what}: {name} (bytes {at}..{})", at + bytes);
        }
        for (name, bit) in DOCUMENTED_FLAGS {
            assert_eq!(tshark_number(value(name)), (frame[FLAGS_AT] & bit != 0) as u64, "{what}: {name}");
        }
        assert_eq!(value("nanotransport.padding"), hex(&frame[PADDING_START..PAYLOAD_START]), "{what}: padding");
        let ipv4_end = IPV4_START + big_endian(&frame[IPV4_TOTAL_LEN_AT..IPV4_TOTAL_LEN_AT + 2]) as usize;
        let payload = frame.get(PAYLOAD_START..ipv4_end).unwrap_or_default();
        assert_eq!(value("nanotransport.payload"), hex(payload), "{what}: payload");
    }
    let expected = frames.iter().filter(|f| is_nanotransport(f)).count();
    assert_eq!(decoded, expected, "frames decoded as nanoTransport");
    println!("tshark decoded {decoded} nanoTransport frames of {} ({from_nics} from the NICs' runs)", frames.len());
}

/// PL2's header and message fields as `net/pl2/frame.rs` documents them: (dissector field, frame
/// byte offset, bytes). The header starts after IPv4 (byte 34), the message fields after the
/// header (byte 54), on data frames only.
const PL2_HEADER_FIELDS: [(&str, usize, usize); 8] = [
    ("pl2.type", 34, 1),
    ("pl2.flags", 35, 1),
    ("pl2.demand", 36, 1),
    ("pl2.index", 37, 1),
    ("pl2.burst", 38, 4),
    ("pl2.send_timeslot", 42, 4),
    ("pl2.recv_timeslot", 46, 4),
    ("pl2.flow", 50, 2),
];
const PL2_MESSAGE_FIELDS: [(&str, usize, usize); 4] =
    [("pl2.msg_created_ps", 54, 8), ("pl2.msg_id", 62, 4), ("pl2.msg_packets", 66, 2), ("pl2.msg_index", 68, 2)];
const PL2_FLAGS: [(&str, u8); 3] = [("pl2.flags.unsolicited", 0x01), ("pl2.flags.resent", 0x02), ("pl2.flags.encapsulated", 0x04)];

/// The fields tshark decodes (with the project's dissector) from `frames` written as a pcap:
/// one line per frame, the fields comma-separated in the order given.
fn tshark_fields(frames: &[Vec<u8>], fields: &[&str]) -> String {
    run(Command::new("tshark").arg("--version"));
    let records: Vec<(u64, Vec<u8>)> = frames.iter().cloned().enumerate().map(|(k, f)| (k as u64, f)).collect();
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("frames.pcap");
    std::fs::write(&pcap, output_pcap(&records, NicClock::THESIS).unwrap()).unwrap();
    let mut tshark = Command::new("tshark");
    tshark.arg("-X").arg(format!("lua_script:{}", repo_root().join("scripts/wireshark-nanotransport.lua").display()));
    tshark.arg("-r").arg(&pcap).args(["-T", "fields", "-E", "separator=,"]);
    for f in fields {
        tshark.args(["-e", f]);
    }
    let out = run(&mut tshark);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !stderr.to_lowercase().contains("lua"), "tshark: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn dissector_decodes_pl2_frames_as_documented() {
    use nanotransport_net::pl2::frame::*;
    assert_eq!((OFF_PL2_PAYLOAD, PL2_HEADER_BYTES), (54, 20), "documented offsets against net/pl2/frame.rs' constants");
    // Every byte of every field distinct, so that a field read one byte off shows another value.
    let header = |kind, flags| Pl2Header {
        kind,
        src_ip: PEER_IP,
        dst_ip: NIC_IP,
        flags,
        demand: 0x23,
        index: 0x24,
        burst: 0x2526_2728,
        send_timeslot: 0x292A_2B2C,
        recv_timeslot: 0x2D2E_2F30,
        flow: 0x3132,
    };
    let message = MessageFields { created_ps: 0x4041_4243_4445_4647, id: 0x4849_4A4B, packets: 0x4C4D, index: 0x4E4F };
    let frames = vec![
        header(Pl2Type::Reserve, 0).frame(0, None),
        header(Pl2Type::Grant, 0).frame(0, None),
        header(Pl2Type::Data, FLAG_UNSOLICITED).frame(1460, Some(message)),
        header(Pl2Type::Data, FLAG_RESENT).frame(100, Some(message)),
        udp_frame(),
    ];
    let pl2 = Dissected {
        ip_protocol: PL2_IP_PROTOCOL,
        layer: "pl2",
        column: "PL2",
        fields: &PL2_HEADER_FIELDS,
        flags_at: 35,
        flags: &PL2_FLAGS,
    };
    let message_fields: Vec<&str> = PL2_MESSAGE_FIELDS.iter().map(|f| f.0).collect();
    let rows = check_dissected(&pl2, &frames, &message_fields);
    for (k, (row, frame)) in rows.iter().zip(&frames).enumerate() {
        let data = frame[IP_PROTOCOL_AT] == PL2_IP_PROTOCOL && frame[34] == Pl2Type::Data as u8;
        for (name, at, bytes) in PL2_MESSAGE_FIELDS {
            match data {
                true => assert_eq!(tshark_number(&row[name]), big_endian(&frame[at..at + bytes]), "frame {k}: {name}"),
                false => assert!(row[name].is_empty(), "frame {k}: {name} on a frame without a message"),
            }
        }
    }
}

/// A protocol as the dissector shows it: its IP protocol, its layer and column names, its
/// header fields (name, offset in the frame, bytes) and its flags (name, bit) at `flags_at`.
struct Dissected {
    ip_protocol: u8,
    layer: &'static str,
    column: &'static str,
    fields: &'static [(&'static str, usize, usize)],
    flags_at: usize,
    flags: &'static [(&'static str, u8)],
}

/// Decodes `frames` with tshark and checks, frame by frame, that the protocol's frames show
/// every field and flag as their bytes hold them and other frames show none; returns every
/// frame's values of the protocol's fields and of `extra` fields, by name.
fn check_dissected(p: &Dissected, frames: &[Vec<u8>], extra: &[&str]) -> Vec<std::collections::HashMap<String, String>> {
    let mut fields = vec!["frame.protocols", "_ws.col.Protocol"];
    fields.extend(p.fields.iter().map(|f| f.0).chain(p.flags.iter().map(|f| f.0)).chain(extra.iter().copied()));
    let stdout = tshark_fields(frames, &fields);
    let rows: Vec<std::collections::HashMap<String, String>> =
        stdout.lines().map(|l| fields.iter().map(|f| f.to_string()).zip(l.split(',').map(str::to_string)).collect()).collect();
    assert_eq!(rows.len(), frames.len());
    for (k, (row, frame)) in rows.iter().zip(frames).enumerate() {
        let layers: Vec<&str> = row["frame.protocols"].split(':').collect();
        if frame[IP_PROTOCOL_AT] != p.ip_protocol {
            assert!(!layers.contains(&p.layer) && row[p.fields[0].0].is_empty(), "frame {k}: {row:?}");
            continue;
        }
        assert_eq!((layers.last(), row["_ws.col.Protocol"].as_str()), (Some(&p.layer), p.column), "frame {k}: {layers:?}");
        for &(name, at, bytes) in p.fields {
            assert_eq!(tshark_number(&row[name]), big_endian(&frame[at..at + bytes]), "frame {k}: {name}");
        }
        for &(name, bit) in p.flags {
            assert_eq!(tshark_number(&row[name]), (frame[p.flags_at] & bit != 0) as u64, "frame {k}: {name}");
        }
    }
    rows
}

/// Bolt's header (Listing 4.1) and the transport header after it, as `net/bolt/frame.rs`
/// documents them: (field, offset in the frame, bytes).
const BOLT_FIELDS: [(&str, usize, usize); 8] = [
    ("bolt.q_size", 34, 3),
    ("bolt.link_rate", 37, 1),
    ("bolt.flags", 38, 1),
    ("bolt.t_data_tx", 39, 4),
    ("bolt.src_port", 43, 2),
    ("bolt.dst_port", 45, 2),
    ("bolt.seq", 47, 4),
    ("bolt.flow_bytes", 51, 4),
];
const BOLT_FLAGS: [(&str, u8); 8] = [
    ("bolt.flags.data", 0x80),
    ("bolt.flags.ack", 0x40),
    ("bolt.flags.src", 0x20),
    ("bolt.flags.last", 0x10),
    ("bolt.flags.first", 0x08),
    ("bolt.flags.inc", 0x04),
    ("bolt.flags.dec", 0x02),
    ("bolt.flags.ai", 0x01),
];

#[test]
fn dissector_decodes_bolt_frames_as_documented() {
    use nanotransport_net::bolt::frame::*;
    assert_eq!(
        (OFF_TRANSPORT, FRAME_HEADER_BYTES, BOLT_IP_PROTOCOL),
        (43, 59, 153),
        "documented offsets against net/bolt/frame.rs' constants"
    );
    // Every byte of every field distinct, so that a field read one byte off shows another value.
    let header = |flags| BoltFrame {
        src_ip: PEER_IP,
        dst_ip: NIC_IP,
        q_size: 0x21_2223,
        link_rate: 0x24,
        flags,
        t_data_tx: 0x2526_2728,
        src_port: 0x292A,
        dst_port: 0x2B2C,
        seq: 0x2D2E_2F30,
        flow_bytes: 0x3132_3334,
    };
    let frames = vec![
        header(FLAG_DATA | FLAG_FIRST | FLAG_AI).frame(1000),
        header(FLAG_DATA | FLAG_INC | FLAG_LAST).frame(10),
        header(FLAG_ACK | FLAG_DEC).frame(0),
        header(FLAG_SRC | FLAG_DEC).frame(0),
        udp_frame(),
    ];
    let bolt =
        Dissected { ip_protocol: BOLT_IP_PROTOCOL, layer: "bolt", column: "Bolt", fields: &BOLT_FIELDS, flags_at: 38, flags: &BOLT_FLAGS };
    check_dissected(&bolt, &frames, &[]);
}
