//! Whole-NIC checker: judges the observed trace of a whole-NIC run (frames offered to MAC RX,
//! messages the CPU sent, frames on MAC TX, messages delivered to the CPU, completions, and the
//! status registers at the end) against what NDP, Homa and Homa-Tr prescribe (thesis chapter 3:
//! §3.3.4 Algorithms 5 and 6, §3.4.2 for trimming; the ingress programs in
//! `nanotransport_hdl::protocols`).
//!
//! It does **not** predict the RTL's timing: when a frame leaves, in which order the arbiter
//! interleaves control and data, how PULLs are paced or coalesced, and when a timer fires are not
//! properties a transaction model can reproduce without re-implementing the cycle-level design.
//! Instead every output is checked against what the inputs *allow*, and every input that must
//! have an effect is checked to have it by the end of an idle run. The trace is all it reads, so
//! a capture replayed by `nanotransport replay --bundle` is judged the same way as a live fuzz run.
//!
//! # What is checked
//! A *good copy* of packet k of a message is a frame the parser accepts ([`crate::pisa::parse`])
//! whose flags select DATA (not CHOP), whose IPv4 total length is what the packet must carry
//! (`min(1024, msg_len − 1024·k)` + 50), whose Ethernet length equals 14 + the IPv4 total length,
//! with `1 ≤ msg_len ≤` the largest message and `k` inside the message. Messages are keyed by the
//! sender's (IPv4 source, src_context, tx_msg_id), as GetRxMsgInfo keys them.
//! * **Deliveries** (NIC → CPU): every delivered message is byte-for-byte (addresses, ports,
//!   length, payload) a message whose every packet had a good copy taken by MAC RX before the
//!   delivery began (*only if complete*), and it is delivered at most as often as such messages
//!   with that content exist (*exactly once*). At the end of an idle run every message with good
//!   copies of all its packets has been delivered (*no silent loss*). When the NIC counted
//!   GetRxMsgInfo refusals (no ID, no buffer, both buckets full) or garbage collections, a message
//!   may legitimately have lost a packet to one of them, which the trace cannot attribute; then
//!   the undelivered complete messages must be no more than those events (each explains one).
//! * **Sends** (CPU → NIC → wire): every DATA frame the NIC transmits carries exactly the bytes,
//!   length, offset, ports and addresses of the CPU message its tx_msg_id belongs to, with a valid
//!   IPv4 header (a copy sent after its message completed must still be exactly that message's
//!   packet: a retransmission already under way when the last acknowledgement arrived is
//!   redundant but harmless, and is counted in [`CheckReport::data_after_completion`]; anything
//!   else would be stale buffer contents on the wire); every message gets exactly one
//!   completion; a *completed* message had every packet acknowledged by a control frame from the peer taken before the completion (NDP: an ACK
//!   of that packet; Homa: an ACK or GRANT whose cumulative offset covers it); an *abandoned*
//!   message had not (acknowledgements taken within [`ACK_TO_COMPLETION_SLACK`] cycles of the
//!   abandonment race with it and are allowed).
//! * **Replies** (the NIC's control frames): each is addressed to the sender of a message the
//!   peer sent (IPv4 destination, ports, tx_msg_id, msg_len) and is justified by what was taken
//!   before it: NDP ACK k ⇒ a good copy of k; NDP NACK k ⇒ a trimmed copy of k; NDP PULL credit ≤
//!   rtt_pkts + packets received (the credit register starts at rtt_pkts + 1 with the first packet
//!   and adds one per new packet); Homa ACK/GRANT with cumulative offset n ⇒ good copies of
//!   0..n; GRANT offset ≤ min(packets received + rtt_pkts, the message's packets) (the scheduler
//!   grants one packet per arrival beyond the unscheduled BDP); Homa-Tr NACK k ⇒ some copy
//!   (trimmed or DATA) of k. At the end of an idle run every delivered message has been fully acknowledged (NDP: every
//!   packet ACKed; Homa: a cumulative offset reaching its last packet), and the replies bracket
//!   the DATA packets looked up (one ACK per NDP DATA packet, one ACK or GRANT per Homa DATA
//!   packet plus at most one more when it completes its message: between the lookups that
//!   succeeded and those made, twice those for Homa — whose lower bound follows its
//!   [acknowledgement policy](nanotransport_hdl::nic::register_map::AckPolicy): the lookups that
//!   succeeded with duplicate ACKs, those less the duplicates without, the delivered messages under the
//!   model's Homa; NACKs at most the trimmed packets, plus
//!   the refused lookups for Homa-Tr) — both unless the packet generator counted dropped
//!   control events.
//! * **Output streams**: a beat MAC TX or the CPU read-out showed while not ready stays,
//!   unchanged, until taken (AXI4-Stream; observed by the driver, [`NicTrace::stream_rule_violations`]).
//! * **Status counters** (read through the register map): frames the parser accepted
//!   (`frame_count`), the parser's drop reasons, DATA /
//!   CHOP / control / no-action and bad-length counts equal what the reference parser and the
//!   protocol's match program predict for the frames taken; frames in and out, messages
//!   delivered, completed and abandoned, control and data packets through the arbiter (and, for
//!   Homa without dropped control events, ACKs, GRANTs and NACKs sent) equal what the trace
//!   shows; DATA outcomes are conserved (`data − bad_length ≤ rx_fail + duplicate + forwarded ≤
//!   data − bad_length + chop`); forwarded packets cover every delivered packet; the
//!   counters that must stay 0 in valid operation (double frees,
//!   CPU framing errors and rejected messages, register errors, frames whose payload disagreed
//!   with their metadata) are 0.
//!
//! # What is not checked, and why
//! * Timing: latency, pacing intervals, arbiter order, PULL coalescing and merging, which of
//!   several duplicate ACKs is sent — timing-dependent, checked by the per-block tests.
//! * The exact number of control frames per DATA frame: coalescing and the generator's
//!   drop-on-full queue make it timing-dependent; only justification (above) and final
//!   acknowledgement are checked.
//! * That every trimmed copy gets its NACK and every duplicate its ACK: whether a copy meets a
//!   live entry depends on when slots were freed (timing); the final acknowledgement of every
//!   delivered message is checked instead.
//! * GRANT priorities and the SRPT order of grants (the priority scheduler's own tests check them),
//!   and DSCP priorities of DATA frames.
//! * Which retransmissions a timeout sends and when a message is abandoned: only consistency of
//!   each completion with the acknowledgements taken.
//! * GetRxMsgInfo fail reasons and duplicate counts per reason: they depend on the order in which
//!   the table took requests and on when slots were freed (timing); the conservation law above
//!   bounds them.
//! * Frames whose Ethernet length disagrees with their IPv4 length count as not good: dropped,
//!   counted in `bad_frame_length_count` (checked exactly), no reply, no state change; the
//!   reassembly's `drop_bad_length_count` (payloads forwarded before the last beat) is bounded by
//!   those DATA frames.

use crate::pisa::{parse, DropReason, Header};

/// The frame carries exactly as many bytes as its IPv4 total length says (Ethernet header
/// included, no FCS): what the ingress front checks at a frame's last beat.
fn frame_length_ok(frame: &[u8]) -> bool {
    Header::decode(frame).ip_total_len as usize + 14 == frame.len()
}
use crate::messages::{Completion, RxMessage, TxMessage};
use crate::rx::pkts_of;
use nanotransport_hdl::configs::Protocol;
use nanotransport_hdl::nic::register_map::AckPolicy;
use nanotransport_hdl::nic::status_bank::STATUS_MAP;
use nanotransport_hdl::pisa::match_action::MatchEntry;
use nanotransport_hdl::pisa::wire::{FLAG_ACK, FLAG_DATA, FLAG_NACK, FLAG_PULL, OFF_PROTOCOL};
use std::collections::{BTreeMap, HashMap};

/// Largest message the receive path holds (38 packets of 1024 bytes).
pub const MAX_MESSAGE_BYTES: usize = 38 * 1024;

/// An acknowledgement taken this close before an abandonment may race with it (the ingress
/// pipeline, the transmit path's event FIFO and its completion queue lie between them).
pub const ACK_TO_COMPLETION_SLACK: u64 = 64;

/// Everything observed in one whole-NIC run, in run time (cycle 0 = the first frame offered).
#[derive(Clone, Debug)]
pub struct NicTrace {
    pub protocol: Protocol,
    /// The NIC's IPv4 address and `rtt_pkts` register as they were during the run.
    pub nic_ip: u32,
    pub rtt_pkts: u16,
    /// Homa's acknowledgement policy register as it was during the run (NDP: not read).
    pub ack_policy: AckPolicy,
    /// Frames offered to MAC RX: (cycle offered from, bytes), in offer order.
    pub rx_frames: Vec<(u64, Vec<u8>)>,
    /// Cycle MAC RX took the first beat of each offered frame (shorter if not all were taken).
    pub rx_taken: Vec<u64>,
    /// Messages the CPU wrote: (cycle queued, message).
    pub sends: Vec<(u64, TxMessage)>,
    /// tx_msg_id given to each CPU message, in order: (cycle, id).
    pub sent_ids: Vec<(u64, u16)>,
    /// Frames on MAC TX: (cycle of the first beat, bytes).
    pub tx_frames: Vec<(u64, Vec<u8>)>,
    pub delivered: Vec<RxMessage>,
    pub completions: Vec<Completion>,
    /// Every status register at the end.
    pub status: Vec<(&'static str, u32)>,
    /// Whether the run ended idle (the end-of-run checks apply) rather than at a cycle bound.
    pub idle: bool,
    /// Cycles in which MAC TX or the CPU read-out changed or withdrew a beat shown without
    /// `tready` (AXI4-Stream requires it to stay until taken).
    pub stream_rule_violations: u64,
}

/// One divergence from what the protocol allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    /// A short class name (e.g. `delivered-twice`).
    pub kind: &'static str,
    pub detail: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cycle {}: {}: {}", self.cycle, self.kind, self.detail)
    }
}

/// The checker's verdict and the figures it derived.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    pub mismatches: Vec<Mismatch>,
    /// Messages the peer offered (at least one good copy) / with good copies of every packet.
    pub peer_messages: usize,
    pub peer_messages_complete: usize,
    pub delivered: usize,
    pub sends: usize,
    pub completed: usize,
    pub abandoned: usize,
    /// Frames taken that the reference parser drops, per reason; good DATA copies; trimmed copies.
    pub parser_drops: BTreeMap<&'static str, u64>,
    pub good_data_copies: usize,
    pub trimmed_copies: usize,
    /// DATA frames sent after their message completed, with its exact header and bytes.
    pub data_after_completion: usize,
    /// End-of-run checks not applied, with the reason.
    pub skipped: Vec<String>,
}

/// Every kind of [`Mismatch`] the checker reports.
pub const MISMATCH_KINDS: [&str; 25] = [
    "completion-unknown",
    "input-inconsistent",
    "delivered-incomplete-or-corrupt",
    "delivered-unknown",
    "delivered-before-complete",
    "delivered-twice",
    "not-delivered",
    "tx-malformed",
    "tx-header",
    "tx-data-unknown",
    "tx-data-bytes",
    "reply-unknown",
    "reply-header",
    "ack-unreceived",
    "grant-beyond",
    "nack-unjustified",
    "pull-beyond",
    "not-acknowledged",
    "send-not-taken",
    "send-not-completed",
    "abandoned-acknowledged",
    "completed-unacknowledged",
    "counter",
    "reply-count",
    "stream-rule",
];

impl CheckReport {
    fn push(&mut self, cycle: u64, kind: &'static str, detail: String) {
        assert!(MISMATCH_KINDS.contains(&kind), "mismatch kind {kind} is not in MISMATCH_KINDS");
        self.mismatches.push(Mismatch { cycle, kind, detail });
    }
}

/// What a frame taken by MAC RX is, as the ingress front decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RxClass {
    /// Dropped by the parser.
    ParserDrop(DropReason),
    /// Passed the parser; no match entry (dropped, `no_action_count`).
    NoAction,
    /// DATA whose IPv4 length disagrees with the packet's share of its message (`bad_length_count`).
    BadIpLength(Header),
    /// DATA (length ok) or trimmed DATA: `good` when it is a good copy (see the module docs).
    Data {
        header: Header,
        payload: Vec<u8>,
        good: bool,
    },
    Trimmed(Header),
    /// A control packet (action ≥ 3).
    Control(Header),
}

/// The match program of `protocol`'s ingress (the hardware's own table).
pub fn ingress_program(protocol: Protocol) -> Vec<MatchEntry> {
    use nanotransport_hdl::protocols::{homa::ingress::homa_ingress_program, ndp::ingress::ndp_ingress_program};
    match protocol {
        Protocol::Ndp => ndp_ingress_program(),
        Protocol::Homa => homa_ingress_program(false),
        Protocol::HomaTr => homa_ingress_program(true),
    }
}

/// Bytes DATA packet `offset` of a `msg_len`-byte message carries (0 beyond the message).
pub fn packet_bytes(msg_len: u16, offset: u8) -> usize {
    (msg_len as usize).saturating_sub(offset as usize * 1024).min(1024)
}

/// Classifies a frame as the NIC's ingress front does (parser, match program, DATA length check).
pub fn classify(frame: &[u8], protocol: Protocol, program: &[MatchEntry]) -> RxClass {
    let (h, payload) = match parse(frame, protocol.ip_protocol()) {
        Ok(p) => p,
        Err(r) => return RxClass::ParserDrop(r),
    };
    let entries: Vec<Option<MatchEntry>> = program.iter().map(|e| Some(*e)).collect();
    let (_, _, action) = crate::pisa::match_lookup(&entries, h.flags as u16, 0);
    match action {
        0 => RxClass::NoAction,
        1 => {
            let start = (h.pkt_offset as usize) * 1024;
            let length_ok =
                start >= h.msg_len as usize || h.ip_total_len.wrapping_sub(50) as usize == packet_bytes(h.msg_len, h.pkt_offset);
            if !length_ok {
                return RxClass::BadIpLength(h);
            }
            let good = frame.len() == 14 + h.ip_total_len as usize
                && h.msg_len >= 1
                && h.msg_len as usize <= MAX_MESSAGE_BYTES
                && start < h.msg_len as usize;
            RxClass::Data { header: h, payload, good }
        }
        2 => RxClass::Trimmed(h),
        _ => RxClass::Control(h),
    }
}

fn reason_counter(r: DropReason) -> &'static str {
    match r {
        DropReason::TooShort => "too_short_count",
        DropReason::NotIpv4 => "not_ipv4_count",
        DropReason::WrongProtocol => "wrong_protocol_count",
        DropReason::BadChecksum => "bad_checksum_count",
        DropReason::BadFlags => "bad_flags_count",
    }
}

type PeerKey = (u32, u16, u16);

/// What the peer offered of one of its messages.
struct PeerMsg {
    key: PeerKey,
    msg_len: u16,
    local_port: u16,
    /// Per packet: the first good copy (cycle taken, payload).
    good: Vec<Option<(u64, Vec<u8>)>>,
    /// Per packet: the first trimmed copy taken / the first copy of any kind (trimmed or DATA
    /// with a valid length) taken.
    trimmed: Vec<Option<u64>>,
    any_copy: Vec<Option<u64>>,
    /// Cycles at which good copies of new packets were taken (sorted), for the credit bound.
    new_packet_cycles: Vec<u64>,
}

impl PeerMsg {
    fn complete_at(&self) -> Option<u64> {
        self.good.iter().map(|g| g.as_ref().map(|(c, _)| *c)).collect::<Option<Vec<u64>>>().map(|v| v.into_iter().max().unwrap_or(0))
    }
    fn bytes(&self) -> Option<Vec<u8>> {
        self.good.iter().map(|g| g.as_ref().map(|(_, p)| p.clone())).collect::<Option<Vec<Vec<u8>>>>().map(|v| v.concat())
    }
    fn packets_before(&self, t: u64) -> usize {
        self.new_packet_cycles.partition_point(|c| *c < t)
    }
}

/// One CPU message as the NIC sends it.
struct SendState {
    id: Option<(u64, u16)>,
    message: TxMessage,
    completion: Option<Completion>,
    /// Per packet: first cycle an acknowledgement of it was taken.
    acked: Vec<Option<u64>>,
}

/// Checks `trace` (see the module documentation).
pub fn check(trace: &NicTrace) -> CheckReport {
    let mut r = CheckReport::default();
    let protocol = trace.protocol;
    let program = ingress_program(protocol);
    let homa = protocol != Protocol::Ndp;
    if trace.stream_rule_violations > 0 {
        r.push(
            0,
            "stream-rule",
            format!("{} cycles in which an output beat shown without tready changed or was withdrawn", trace.stream_rule_violations),
        );
    }

    // ---------------- inputs: classify every frame taken ----------------
    let mut peer: Vec<PeerMsg> = Vec::new();
    let mut peer_index: HashMap<PeerKey, usize> = HashMap::new();
    let mut predicted: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut sends: Vec<SendState> = trace
        .sends
        .iter()
        .enumerate()
        .map(|(i, (_, m))| SendState {
            id: trace.sent_ids.get(i).copied(),
            message: m.clone(),
            completion: None,
            acked: vec![None; pkts_of(m.payload.len() as u16)],
        })
        .collect();
    // Completions in order, attributed to the oldest in-flight message with that id.
    let mut completion_of: Vec<Option<usize>> = Vec::new();
    for c in &trace.completions {
        let owner = sends.iter().position(|s| s.completion.is_none() && s.id.is_some_and(|(at, id)| id == c.tx_msg_id && at <= c.cycle));
        match owner {
            Some(i) => sends[i].completion = Some(*c),
            None => r.push(
                c.cycle,
                "completion-unknown",
                format!("completion of tx_msg_id {:#06x} (abandoned {}) with no message in flight under that id", c.tx_msg_id, c.abandoned),
            ),
        }
        completion_of.push(owner);
    }
    // The message in flight under `id` at cycle `t` (id given at or before t, not completed before t).
    let in_flight = |sends: &[SendState], id: u16, t: u64| -> Option<usize> {
        sends.iter().rposition(|s| {
            s.id.is_some_and(|(at, i)| i == id && at <= t) && s.completion.map_or(true, |c| c.cycle + ACK_TO_COMPLETION_SLACK >= t)
        })
    };
    for (i, (_, frame)) in trace.rx_frames.iter().enumerate() {
        let Some(&taken) = trace.rx_taken.get(i) else { break };
        let class = classify(frame, protocol, &program);
        let counter = match &class {
            RxClass::ParserDrop(reason) => {
                *r.parser_drops.entry(reason_counter(*reason)).or_default() += 1;
                Some(reason_counter(*reason))
            }
            RxClass::NoAction => Some("no_action_count"),
            RxClass::BadIpLength(_) => {
                *predicted.entry("bad_length_count").or_default() += 1;
                Some("data_count")
            }
            RxClass::Data { .. } => Some("data_count"),
            RxClass::Trimmed(_) => Some("chop_count"),
            RxClass::Control(_) => Some("control_count"),
        };
        if let Some(c) = counter {
            *predicted.entry(c).or_default() += 1;
        }
        // The ingress front drops a frame whose Ethernet length disagrees with its IPv4 total
        // length once its last beat is in (DATA that passed the IPv4 length check, trimmed and
        // control frames), with no reply and no state change.
        let validated = matches!(class, RxClass::Data { .. } | RxClass::Trimmed(_) | RxClass::Control(_));
        let dropped_for_length = validated && !frame_length_ok(frame);
        if dropped_for_length {
            *predicted.entry("bad_frame_length_count").or_default() += 1;
            if matches!(class, RxClass::Data { .. }) {
                *predicted.entry("bad_frame_length_data").or_default() += 1;
            }
        }
        match class {
            RxClass::Data { header: h, payload, good } => {
                let key = (h.src_ip, h.src_context, h.tx_msg_id);
                if !good {
                    continue;
                }
                r.good_data_copies += 1;
                let idx = *peer_index.entry(key).or_insert_with(|| {
                    let pkts = pkts_of(h.msg_len);
                    peer.push(PeerMsg {
                        key,
                        msg_len: h.msg_len,
                        local_port: h.dst_context,
                        good: vec![None; pkts],
                        trimmed: vec![None; pkts],
                        any_copy: vec![None; pkts],
                        new_packet_cycles: Vec::new(),
                    });
                    peer.len() - 1
                });
                let m = &mut peer[idx];
                if m.msg_len != h.msg_len {
                    continue; // GetRxMsgInfo refuses it (length mismatch): not a copy of this message.
                }
                let k = h.pkt_offset as usize;
                m.any_copy[k].get_or_insert(taken);
                match &m.good[k] {
                    None => {
                        m.good[k] = Some((taken, payload));
                        m.new_packet_cycles.push(taken);
                    }
                    Some((_, first)) if *first != payload => {
                        r.push(taken, "input-inconsistent", format!("message {key:?} packet {k}: a good copy with other bytes than the first (the NIC cannot tell; the capture is not valid traffic)"));
                    }
                    _ => {}
                }
            }
            // A trimmed or control frame of the wrong length did nothing in the NIC: it neither
            // excuses a NACK nor acknowledges a packet.
            RxClass::Trimmed(_) | RxClass::Control(_) if dropped_for_length => {}
            RxClass::Trimmed(h) => {
                r.trimmed_copies += 1;
                let key = (h.src_ip, h.src_context, h.tx_msg_id);
                if let Some(&idx) = peer_index.get(&key) {
                    let m = &mut peer[idx];
                    let k = h.pkt_offset as usize;
                    if k < m.trimmed.len() {
                        m.trimmed[k].get_or_insert(taken);
                        m.any_copy[k].get_or_insert(taken);
                    }
                } else if h.msg_len >= 1 && (h.msg_len as usize) <= MAX_MESSAGE_BYTES && (h.pkt_offset as usize) < pkts_of(h.msg_len) {
                    let pkts = pkts_of(h.msg_len);
                    let mut m = PeerMsg {
                        key,
                        msg_len: h.msg_len,
                        local_port: h.dst_context,
                        good: vec![None; pkts],
                        trimmed: vec![None; pkts],
                        any_copy: vec![None; pkts],
                        new_packet_cycles: Vec::new(),
                    };
                    m.trimmed[h.pkt_offset as usize] = Some(taken);
                    m.any_copy[h.pkt_offset as usize] = Some(taken);
                    peer_index.insert(key, peer.len());
                    peer.push(m);
                }
            }
            RxClass::Control(h) => {
                // An acknowledgement from the peer for one of the NIC's sends.
                let Some(i) = in_flight(&sends, h.tx_msg_id, taken) else { continue };
                let s = &mut sends[i];
                if homa {
                    if h.flags & (FLAG_ACK | FLAG_PULL) != 0 {
                        for k in 0..(h.pkt_offset as usize).min(s.acked.len()) {
                            s.acked[k].get_or_insert(taken);
                        }
                    }
                } else if h.flags & FLAG_ACK != 0 && (h.pkt_offset as usize) < s.acked.len() {
                    s.acked[h.pkt_offset as usize].get_or_insert(taken);
                }
            }
            _ => {}
        }
    }
    r.peer_messages = peer.iter().filter(|m| m.good.iter().any(|g| g.is_some())).count();
    r.peer_messages_complete = peer.iter().filter(|m| m.complete_at().is_some()).count();

    // ---------------- deliveries ----------------
    let content_key = |ip: u32, rport: u16, lport: u16, bytes: &[u8]| (ip, rport, lport, bytes.to_vec());
    let mut classes: HashMap<(u32, u16, u16, Vec<u8>), Vec<(u64, usize)>> = HashMap::new();
    for (i, m) in peer.iter().enumerate() {
        if let (Some(at), Some(bytes)) = (m.complete_at(), m.bytes()) {
            classes.entry(content_key(m.key.0, m.key.1, m.local_port, &bytes)).or_default().push((at, i));
        }
    }
    let mut delivered_peer = vec![0usize; peer.len()];
    for d in &trace.delivered {
        let key = content_key(d.remote_ip, d.remote_port, d.local_port, &d.payload);
        let Some(members) = classes.get(&key) else {
            let partial = peer.iter().any(|m| m.key.0 == d.remote_ip && m.key.1 == d.remote_port && m.msg_len as usize == d.payload.len());
            let kind = if partial { "delivered-incomplete-or-corrupt" } else { "delivered-unknown" };
            r.push(
                d.first_cycle,
                kind,
                format!(
                    "{} bytes from {:#010x}:{} to port {}: no message with all packets taken has this content",
                    d.payload.len(),
                    d.remote_ip,
                    d.remote_port,
                    d.local_port
                ),
            );
            continue;
        };
        match members.iter().find(|(_, i)| delivered_peer[*i] == 0) {
            Some(&(at, i)) if at < d.first_cycle => delivered_peer[i] += 1,
            Some(&(at, i)) => {
                delivered_peer[i] += 1;
                r.push(
                    d.first_cycle,
                    "delivered-before-complete",
                    format!("message {:?} delivered before its last packet was taken (cycle {at})", peer[i].key),
                );
            }
            None => {
                let i = members[0].1;
                delivered_peer[i] += 1;
                r.push(
                    d.first_cycle,
                    "delivered-twice",
                    format!("message {:?} ({} bytes) delivered {} times", peer[i].key, d.payload.len(), delivered_peer[i]),
                );
            }
        }
    }
    r.delivered = trace.delivered.len();
    let status = |name: &str| trace.status.iter().find(|(n, _)| *n == name).map(|(_, v)| *v as u64);
    // A message with every packet taken is lost only if a lookup refused one of its packets
    // (no ID, no buffer, both buckets full) or its partial state was garbage-collected: each
    // such event can account for one message at most.
    let forgetting = ["fail_no_id_count", "fail_no_buffer_count", "fail_bucket_full_count", "gc_count"];
    let allowed: u64 = forgetting.iter().map(|n| status(n).unwrap_or(0)).sum();
    if trace.idle {
        let undelivered: Vec<usize> = (0..peer.len()).filter(|&i| peer[i].complete_at().is_some() && delivered_peer[i] == 0).collect();
        // With no undelivered message the per-message check held whatever was refused.
        if allowed == 0 || undelivered.is_empty() {
            for &i in &undelivered {
                let m = &peer[i];
                r.push(
                    m.complete_at().unwrap_or(0),
                    "not-delivered",
                    format!("message {:?} ({} bytes): every packet taken in a good copy, never delivered", m.key, m.msg_len),
                );
            }
        } else {
            if undelivered.len() as u64 > allowed {
                let first = &peer[undelivered[0]];
                r.push(first.complete_at().unwrap_or(0), "not-delivered", format!("{} messages with every packet taken never delivered, more than the {allowed} refusals and collections that could explain it; first {:?}", undelivered.len(), first.key));
            }
            let named: Vec<String> =
                forgetting.iter().filter(|n| status(n).unwrap_or(0) > 0).map(|n| format!("{n}={}", status(n).unwrap_or(0))).collect();
            r.skipped.push(format!(
                "each complete message delivered: only as a count ({} undelivered ≤ {})",
                undelivered.len(),
                named.join(" + ")
            ));
        }
    } else {
        r.skipped.push("end-of-run checks: the run did not end idle".into());
    }

    // ---------------- the NIC's frames ----------------
    let mut fully_acked = vec![false; peer.len()];
    let mut acked_pkts: Vec<Vec<bool>> = peer.iter().map(|m| vec![false; m.good.len()]).collect();
    let (mut ctrl_frames, mut data_frames) = (0u64, 0u64);
    // Control frames by flag: ACK, PULL/GRANT, NACK.
    let mut reply_kinds = [0u64; 3];
    // Frames with both ACK and PULL/GRANT set (one reply, counted once).
    let mut ack_and_pull = 0u64;
    for (t, f) in &trace.tx_frames {
        let t = *t;
        let Ok((h, payload)) = parse(f, protocol.ip_protocol()) else {
            r.push(t, "tx-malformed", format!("frame of {} bytes on MAC TX that the parser would drop", f.len()));
            continue;
        };
        if f.len() != 14 + h.ip_total_len as usize || h.src_ip != trace.nic_ip || f[OFF_PROTOCOL] != protocol.ip_protocol() {
            r.push(t, "tx-header", format!("frame length {} / IPv4 length {} / source {:#010x}", f.len(), h.ip_total_len, h.src_ip));
        }
        if h.flags & FLAG_DATA != 0 {
            data_frames += 1;
            let Some(i) = in_flight(&sends, h.tx_msg_id, t) else {
                // Name the last message under that id, when it completed, and whose bytes these are.
                let last = sends.iter().rposition(|s| s.id.is_some_and(|(at, id)| id == h.tx_msg_id && at <= t));
                let what = match last {
                    Some(j) => {
                        let m = &sends[j].message;
                        let start = h.pkt_offset as usize * 1024;
                        let same = m.payload.get(start..(start + 1024).min(m.payload.len())) == Some(&payload[..])
                            && h.dst_ip == m.remote_ip
                            && h.dst_context == m.remote_port
                            && h.src_context == m.local_port
                            && h.msg_len as usize == m.payload.len();
                        if same {
                            // A retransmission already under way when the last acknowledgement
                            // arrived: redundant on the wire, harmless (the receiver has the
                            // packet), so counted rather than judged.
                            r.data_after_completion += 1;
                            continue;
                        }
                        format!("CPU message {j} under that id completed at cycle {:?} (abandoned {:?}); header or bytes differ from its packet", sends[j].completion.map(|c| c.cycle), sends[j].completion.map(|c| c.abandoned))
                    }
                    None => "no CPU message ever had that id".into(),
                };
                r.push(
                    t,
                    "tx-data-unknown",
                    format!("DATA tx_msg_id {:#06x} offset {} after its message completed: {what}", h.tx_msg_id, h.pkt_offset),
                );
                continue;
            };
            let m = &sends[i].message;
            let k = h.pkt_offset as usize;
            let start = k * 1024;
            let want = m.payload.get(start..(start + 1024).min(m.payload.len()));
            if h.dst_ip != m.remote_ip
                || h.dst_context != m.remote_port
                || h.src_context != m.local_port
                || h.msg_len as usize != m.payload.len()
                || want != Some(&payload[..])
            {
                r.push(
                    t,
                    "tx-data-bytes",
                    format!("DATA of CPU message {i} (tx_msg_id {:#06x}) offset {k}: header or bytes differ from the message", h.tx_msg_id),
                );
            }
            continue;
        }
        ctrl_frames += 1;
        for (i, flag) in [FLAG_ACK, FLAG_PULL, FLAG_NACK].into_iter().enumerate() {
            reply_kinds[i] += (h.flags & flag != 0) as u64;
        }
        ack_and_pull += (h.flags & FLAG_ACK != 0 && h.flags & FLAG_PULL != 0) as u64;
        let key = (h.dst_ip, h.dst_context, h.tx_msg_id);
        let Some(&idx) = peer_index.get(&key) else {
            r.push(t, "reply-unknown", format!("control flags {:#04x} to {key:?}: the peer sent no such message", h.flags));
            continue;
        };
        let m = &peer[idx];
        if h.msg_len != m.msg_len || h.src_context != m.local_port {
            r.push(
                t,
                "reply-header",
                format!(
                    "control to {key:?}: msg_len {} / src_context {} (message: {} / {})",
                    h.msg_len, h.src_context, m.msg_len, m.local_port
                ),
            );
        }
        let k = h.pkt_offset as usize;
        let good_before = |k: usize| m.good.get(k).and_then(|g| g.as_ref()).is_some_and(|(c, _)| *c < t);
        if homa {
            if h.flags & (FLAG_ACK | FLAG_PULL) != 0 {
                let n = k.min(m.good.len());
                if k > m.good.len() || !(0..n).all(good_before) {
                    r.push(
                        t,
                        "ack-unreceived",
                        format!(
                            "{} cumulative offset {k} for {key:?}: not every packet below it was taken in a good copy",
                            if h.flags & FLAG_PULL != 0 { "GRANT" } else { "ACK" }
                        ),
                    );
                }
                for a in acked_pkts[idx].iter_mut().take(n) {
                    *a = true;
                }
                if k >= m.good.len() {
                    fully_acked[idx] = true;
                }
            }
            // The scheduler grants min(received + rtt_pkts, packets) (thesis Algorithm 6).
            let reach = (trace.rtt_pkts as usize + m.packets_before(t)).min(m.good.len());
            if h.flags & FLAG_PULL != 0 && h.pull_offset as usize > reach {
                r.push(
                    t,
                    "grant-beyond",
                    format!(
                        "GRANT offset {} for {key:?} of {} packets with {} taken (rtt_pkts {})",
                        h.pull_offset,
                        m.good.len(),
                        m.packets_before(t),
                        trace.rtt_pkts
                    ),
                );
            }
            if h.flags & FLAG_NACK != 0 && !m.any_copy.get(k).and_then(|c| *c).is_some_and(|c| c < t) {
                r.push(t, "nack-unjustified", format!("NACK of packet {k} of {key:?}: no copy of it was taken"));
            }
        } else {
            if h.flags & FLAG_ACK != 0 {
                if !good_before(k) {
                    r.push(t, "ack-unreceived", format!("ACK of packet {k} of {key:?}: no good copy of it was taken before"));
                } else {
                    acked_pkts[idx][k] = true;
                }
            }
            if h.flags & FLAG_NACK != 0 && !m.trimmed.get(k).and_then(|c| *c).is_some_and(|c| c < t) {
                r.push(t, "nack-unjustified", format!("NACK of packet {k} of {key:?}: no trimmed copy of it was taken"));
            }
            if h.flags & FLAG_PULL != 0 && h.pull_offset as usize > trace.rtt_pkts as usize + m.packets_before(t) {
                r.push(
                    t,
                    "pull-beyond",
                    format!(
                        "PULL credit {} for {key:?} with {} packets taken (rtt_pkts {})",
                        h.pull_offset,
                        m.packets_before(t),
                        trace.rtt_pkts
                    ),
                );
            }
        }
    }
    for (i, a) in acked_pkts.iter().enumerate() {
        if !a.is_empty() && a.iter().all(|x| *x) {
            fully_acked[i] = true;
        }
    }
    if trace.idle {
        if status("ctrl_dropped_count").unwrap_or(0) == 0 {
            for (i, m) in peer.iter().enumerate() {
                if delivered_peer[i] > 0 && !fully_acked[i] {
                    r.push(
                        m.complete_at().unwrap_or(0),
                        "not-acknowledged",
                        format!("message {:?} delivered but not every packet acknowledged", m.key),
                    );
                }
            }
        } else {
            r.skipped.push("every delivered message acknowledged: the packet generator dropped control events".into());
        }
    }

    // ---------------- completions ----------------
    r.sends = sends.len();
    for (i, s) in sends.iter().enumerate() {
        match (s.id, s.completion) {
            (None, _) => {
                if trace.idle {
                    r.push(trace.sends[i].0, "send-not-taken", format!("CPU message {i} was never given a tx_msg_id"));
                }
            }
            (Some((at, id)), None) => {
                if trace.idle {
                    r.push(at, "send-not-completed", format!("CPU message {i} (tx_msg_id {id:#06x}) has no completion"));
                }
            }
            (Some((_, id)), Some(c)) => {
                let all_acked = s.acked.iter().all(|a| a.is_some_and(|a| a < c.cycle));
                if c.abandoned {
                    r.abandoned += 1;
                    if s.acked.iter().all(|a| a.is_some_and(|a| a + ACK_TO_COMPLETION_SLACK < c.cycle)) {
                        r.push(
                            c.cycle,
                            "abandoned-acknowledged",
                            format!("CPU message {i} (tx_msg_id {id:#06x}) abandoned after every packet was acknowledged"),
                        );
                    }
                } else {
                    r.completed += 1;
                    if !all_acked {
                        let missing: Vec<usize> = (0..s.acked.len()).filter(|k| !s.acked[*k].is_some_and(|a| a < c.cycle)).collect();
                        r.push(
                            c.cycle,
                            "completed-unacknowledged",
                            format!("CPU message {i} (tx_msg_id {id:#06x}) completed; packets {missing:?} never acknowledged"),
                        );
                    }
                }
            }
        }
    }

    // ---------------- status counters ----------------
    for (name, want) in [
        // The parser counts the frames it accepts (its `frames accepted`).
        ("frame_count", trace.rx_taken.len() as u64 - r.parser_drops.values().sum::<u64>()),
        ("too_short_count", r.parser_drops.get("too_short_count").copied().unwrap_or(0)),
        ("not_ipv4_count", r.parser_drops.get("not_ipv4_count").copied().unwrap_or(0)),
        ("wrong_protocol_count", r.parser_drops.get("wrong_protocol_count").copied().unwrap_or(0)),
        ("bad_checksum_count", r.parser_drops.get("bad_checksum_count").copied().unwrap_or(0)),
        ("bad_flags_count", r.parser_drops.get("bad_flags_count").copied().unwrap_or(0)),
        ("data_count", predicted.get("data_count").copied().unwrap_or(0)),
        ("chop_count", predicted.get("chop_count").copied().unwrap_or(0)),
        ("control_count", predicted.get("control_count").copied().unwrap_or(0)),
        ("no_action_count", predicted.get("no_action_count").copied().unwrap_or(0)),
        ("bad_length_count", predicted.get("bad_length_count").copied().unwrap_or(0)),
        ("bad_frame_length_count", predicted.get("bad_frame_length_count").copied().unwrap_or(0)),
        ("rx_delivered_count", trace.delivered.len() as u64),
        ("tx_frame_count", trace.tx_frames.len() as u64),
        ("tx_delivered_msg_count", r.completed as u64),
        ("abandoned_msg_count", r.abandoned as u64),
        ("arbiter_ctrl_packet_count", ctrl_frames),
        ("arbiter_data_packet_count", data_frames),
        ("ctrl_sent_count", ctrl_frames),
        ("buffer_double_free_count", 0),
        ("framing_error_count", 0),
        ("rejected_msg_count", 0),
        ("csr_error_count", 0),
        // The deparser's check that the transmit path's payload matches its metadata.
        ("tx_length_mismatch_count", 0),
    ] {
        // The 16-bit counters of the transmit path and the arbiter saturate (their blocks'
        // documentation); the 32-bit ones wrap.
        let width = STATUS_MAP.iter().find(|e| e.1 == name).map_or(32, |e| e.2);
        let shown = if width < 32 { want.min((1 << width) - 1) } else { want & 0xFFFF_FFFF };
        match status(name) {
            Some(got) if got != shown => r.push(0, "counter", format!("{name} = {got}, the trace gives {want}")),
            _ => {}
        }
    }
    if homa && status("ctrl_dropped_count").unwrap_or(0) == 0 {
        for (name, frames) in
            [("ack_sent_count", reply_kinds[0]), ("grant_sent_count", reply_kinds[1]), ("nack_sent_count", reply_kinds[2])]
        {
            if status(name).is_some_and(|v| v != frames & 0xFFFF_FFFF) {
                r.push(0, "counter", format!("{name} = {}, the NIC sent {frames} such frames", status(name).unwrap_or(0)));
            }
        }
    }
    let s = |n: &str| status(n).unwrap_or(0);
    // A DATA frame of the wrong length with more than 8 payload bytes may have had its payload
    // forwarded before its last beat (a peek); the reassembly drops that payload by the same
    // length rule, so its drops are at most those frames.
    let length_faults_data = predicted.get("bad_frame_length_data").copied().unwrap_or(0);
    if s("drop_bad_length_count") > length_faults_data {
        r.push(
            0,
            "counter",
            format!(
                "drop_bad_length_count = {}, above the {length_faults_data} DATA frames of the wrong length",
                s("drop_bad_length_count")
            ),
        );
    }
    let outcomes = s("rx_fail_count") + s("duplicate_data_count") + s("forwarded_count");
    let data = s("data_count").saturating_sub(s("bad_length_count")).saturating_sub(length_faults_data);
    let outcomes_high = data + s("chop_count") + length_faults_data;
    if outcomes < data || outcomes > outcomes_high {
        r.push(0, "counter", format!("DATA outcomes rx_fail + duplicate + forwarded = {outcomes}, outside [{data}, {outcomes_high}] (data − bad_length − wrong frame length, + chop + forwarded peeks)"));
    }
    // One reply per DATA packet whose lookup succeeded (the ingress programs raise one
    // CtrlPktEvent for it, and immediate control packets are never merged with each other), so
    // without dropped control events the replies bracket the DATA packets looked up.
    if status("ctrl_dropped_count").unwrap_or(0) == 0 {
        let looked_up = data;
        let ok = data.saturating_sub(s("rx_fail_count"));
        let (acks, grants, nacks) = (reply_kinds[0], reply_kinds[1], reply_kinds[2]);
        let (replies, low, high) = match protocol {
            // NDP: an ACK for every DATA packet looked up without failure (PULLs ride along or
            // go alone, never replace it).
            Protocol::Ndp => (acks, ok, looked_up),
            // Homa: at most a GRANT or an ACK per DATA packet, plus an ACK when the packet
            // completes its message and the GRANT went to another one. At least, by the
            // acknowledgement policy: one per packet looked up (duplicates are ACKed), one per
            // packet looked up that is not a duplicate (duplicates get nothing), or — the model's Homa, which ACKs only
            // completions — one per delivered message.
            _ => {
                let low = if trace.ack_policy == AckPolicy::PrototypeDuplicateAcks {
                    ok
                } else if trace.ack_policy.acks_new_packets(protocol == Protocol::HomaTr) {
                    // Not `forwarded_count`: it also counts payloads of wrong-length frames
                    // forwarded before their last beat, which get no reply.
                    ok.saturating_sub(s("duplicate_data_count"))
                } else {
                    trace.delivered.len() as u64
                };
                (acks + grants - (ack_and_pull), low, 2 * looked_up)
            }
        };
        if replies < low || replies > high {
            r.push(
                0,
                "reply-count",
                format!(
                    "{replies} ACK/GRANT frames for {looked_up} DATA packets looked up ({} refused): outside [{low}, {high}]",
                    s("rx_fail_count")
                ),
            );
        }
        let nack_high = match protocol {
            Protocol::Ndp => s("chop_count"),
            _ => s("chop_count") + s("rx_fail_count"),
        };
        if nacks > nack_high {
            r.push(
                0,
                "reply-count",
                format!("{nacks} NACK frames for {} trimmed packets and {} refused lookups", s("chop_count"), s("rx_fail_count")),
            );
        }
    }
    let delivered_pkts: u64 = trace.delivered.iter().map(|d| pkts_of(d.payload.len() as u16) as u64).sum();
    if s("forwarded_count") < delivered_pkts {
        r.push(
            0,
            "counter",
            format!("forwarded_count {} below the {delivered_pkts} packets of the delivered messages", s("forwarded_count")),
        );
    }
    r
}
