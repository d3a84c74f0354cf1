//! `nanotransport fuzz`: random valid traffic, with faults, into a whole-NIC Verilator model,
//! a behavioural peer that reacts to what the NIC sends, and the whole-NIC checker
//! ([`nanotransport_reference::nic_checker`]) on the observed trace. A divergence is written as a reproducer
//! bundle that `nanotransport replay --bundle DIR` runs to the same divergence.
//!
//! # The peer
//! One behavioural host (10.0.0.2) on the other end of a link:
//! * **Sender** of messages to the NIC (1 B … 38 KB): it sends `min(packets, rtt_pkts)` packets,
//!   more as PULL (NDP) or GRANT (Homa) credit arrives, retransmits a NACKed packet at once, and
//!   after [`PEER_RTO_CYCLES`] without progress resends every unacknowledged packet it has sent
//!   (or the next one beyond its credit when none is outstanding), giving up after
//!   [`PEER_MAX_RETRIES`] such timeouts. A message is closed when every packet is acknowledged
//!   (NDP: per packet; Homa: cumulatively).
//! * **Receiver** of the NIC's messages: every DATA is answered at once (NDP: ACK of the packet
//!   and a PULL for `received + rtt_pkts`; Homa: an ACK carrying the cumulative offset, or a GRANT
//!   of `received + rtt_pkts` packets while the message is longer than `rtt_pkts` and incomplete),
//!   a trimmed DATA with a NACK (NDP also PULLs), and an incomplete message without progress for
//!   [`PEER_RTO_CYCLES`] gets its PULL / GRANT again (at most [`PEER_MAX_RETRIES`] times), as a
//!   receiver that recovers lost credit does.
//! The CPU meanwhile writes random messages to the peer.
//!
//! # Faults
//! On the link to the NIC, per frame: loss, duplication (an extra copy later), reordering (a random
//! delay per frame), trimming of DATA to its header (NDP, Homa-Tr), and malformed frames (in place
//! of or beside the frame): bad IPv4 checksum, another IP protocol, too short, no transport flag,
//! not IPv4, and an IPv4 total length that disagrees with the packet's share of the message. On
//! the link from the NIC: loss, trimming (NDP, Homa-Tr) and reordering. The payload is never
//! corrupted (no checksum covers it: the NIC could not tell).
//!
//! **Frame-length faults** (Ethernet length ≠ 14 + IPv4 total length: a 4-byte trailer, or the
//! frame cut 8 bytes short) are among the malformed kinds ([`FuzzOptions::frame_length_faults`],
//! on by default): the NIC must drop and count such a frame, with no reply and no state change.
//!
//! # Back-pressure
//! MAC TX's and the CPU read-out's `tready` are each low in a random [`FuzzOptions::stall`] share
//! of cycles (default [`DEFAULT_STALL`]), so the NIC's stall paths run: frames and messages wait
//! in the NIC, and every beat shown must stay unchanged until taken (counted in
//! [`crate::nic::NicSim::stream_rule_violations`]).
//!
//! # Duplicates and the delivered set
//! The receiver remembers the key of every delivered message for its horizon (2^18 cycles; see
//! hdl/nic/delivered_set.rs): a copy arriving within that time is answered as a duplicate and never
//! delivered again. By default the peer keeps at most [`WINDOW_MESSAGES`] messages open and delays
//! duplicates up to [`DUPLICATE_DELAY_WINDOW`] cycles (the traffic stays dense).
//! [`FuzzOptions::full_horizon_duplicates`] keeps more messages open and delays duplicates up to
//! [`DUPLICATE_DELAY_FULL`] cycles, the sender's retransmission horizon with default registers
//! (about 140 000 cycles: the abandon threshold plus two expiries and the network): the checker
//! must still see every message delivered exactly once.

//! # Reproducer bundle
//! A directory with `input.pcap` (every frame offered to MAC RX, nanosecond timestamps at
//! multiples of 5 ns = 16 cycles, so the cycles are exact; the first frame at cycle 0),
//! `sends.json` (the CPU's messages with the cycle each was written), `bundle.json` (configuration,
//! protocol, seed, the register settings as `--set` strings, the mismatches found) and
//! `README.txt` with the command. Traffic starts from [`crate::replay::prepare`]'s state in both
//! runs, so the replay sees the same inputs at the same cycles.

use crate::nic::TxMessage;
use crate::replay::{self, cycles_to_ns, is_idle, prepare, quiet_for, ReplayOptions, TimedSend, IDLE_HORIZON_CYCLES};
use crate::scenarios::{control_reply as reply, data_frame_for, trimmed, Protocol, NIC_IP, PEER_IP};
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::nic_checker::{check, CheckReport, Mismatch, NicTrace};
use nanotransport_reference::pisa::{ipv4_sum, Header};
use nanotransport_reference::rx::pkts_of;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::path::Path;

/// Cycles without progress before the peer retransmits (sender) or re-sends credit (receiver).
pub const PEER_RTO_CYCLES: u64 = 16_000;
/// Timeouts after which the peer gives a message up.
pub const PEER_MAX_RETRIES: u32 = 8;
/// Messages the peer may have open at once in the default mode.
pub const WINDOW_MESSAGES: usize = 8;
/// Largest duplicate delay, cycles: default mode / full-horizon mode.
pub const DUPLICATE_DELAY_WINDOW: u64 = 4_000;
pub const DUPLICATE_DELAY_FULL: u64 = 140_000;
/// One-way link delay, cycles (before the reordering jitter).
pub const LINK_DELAY_CYCLES: u64 = 64;
/// Frames to the NIC are offered at multiples of this many cycles at 3.2 GHz (5 ns), which a
/// nanosecond pcap holds exactly; at another clock, the fewest cycles that are whole
/// nanoseconds ([`nanotransport_hdl::clock::NicClock::whole_ns_cycles`]).
pub const OFFER_GRID_CYCLES: u64 = 16;
/// Most messages the peer has open in full-horizon mode (the NIC has 16 receive slots).
const FULL_MODE_OPEN_LIMIT: usize = 12;
/// Most CPU messages in flight at once (the NIC has 16 transmit slots).
const CPU_IN_FLIGHT_LIMIT: usize = 12;

/// Default back-pressure: each output stream not ready in one cycle of five.
pub const DEFAULT_STALL: f64 = 0.2;

/// Settings of one fuzz run.
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// The NIC under test.
    pub nic: crate::whole_nic::WholeNic,
    /// Stop starting new messages once this many frames were offered to MAC RX.
    pub packets: u64,
    pub seed: u64,
    /// Per-frame probabilities on the links.
    pub loss: f64,
    pub duplicate: f64,
    pub trim: f64,
    pub malformed: f64,
    /// Largest extra delay per frame, cycles (reordering).
    pub jitter: u64,
    pub frame_length_faults: bool,
    pub full_horizon_duplicates: bool,
    /// Largest extra delay of a duplicate, cycles (uniform from 1); `None`: [`DUPLICATE_DELAY_WINDOW`],
    /// or [`DUPLICATE_DELAY_FULL`] with `full_horizon_duplicates`.
    pub duplicate_delay: Option<u64>,
    /// `--set NAME=VALUE` strings.
    pub settings: Vec<String>,
    pub max_cycles: u64,
    /// Probability that MAC TX's and the CPU read-out's `tready` are low in a cycle (random
    /// back-pressure, drawn from the seed; see [`crate::nic::Stalls`]).
    pub stall: f64,
}

impl FuzzOptions {
    pub fn new(nic: &crate::whole_nic::WholeNic, packets: u64, seed: u64) -> Self {
        FuzzOptions {
            nic: nic.clone(),
            packets,
            seed,
            loss: 0.01,
            duplicate: 0.03,
            trim: 0.02,
            malformed: 0.02,
            jitter: 600,
            frame_length_faults: true,
            full_horizon_duplicates: false,
            duplicate_delay: None,
            settings: Vec::new(),
            max_cycles: 200_000_000,
            stall: DEFAULT_STALL,
        }
    }
}

/// What a fuzz run did and found.
#[derive(Clone, Debug)]
pub struct FuzzResult {
    pub options: FuzzOptions,
    pub protocol: Protocol,
    pub check: CheckReport,
    pub frames_in: usize,
    pub frames_out: usize,
    pub peer_messages: usize,
    pub peer_given_up: usize,
    pub cpu_messages: usize,
    pub cycles: u64,
    pub stopped: String,
    pub wall_s: f64,
    /// Faults injected, by kind.
    pub injected: BTreeMap<&'static str, u64>,
    pub status: Vec<(&'static str, u32)>,
    /// Output beats that waited for back-pressure / changed or withdrawn while waiting (must be 0).
    pub stalled_beats: u64,
    pub stream_rule_violations: u64,
    /// Everything observed (the inputs of a reproducer bundle among it).
    pub trace: NicTrace,
}

impl FuzzResult {
    pub fn to_json(&self) -> Value {
        let status: serde_json::Map<String, Value> =
            self.status.iter().filter(|(_, v)| *v != 0).map(|(n, v)| (n.to_string(), (*v).into())).collect();
        json!({
            "config": self.options.nic.name(),
            "seed": self.options.seed,
            "packets_target": self.options.packets,
            "frames_in": self.frames_in,
            "frames_out": self.frames_out,
            "peer_messages": self.peer_messages,
            "peer_messages_given_up": self.peer_given_up,
            "messages_delivered": self.check.delivered,
            "cpu_messages": self.cpu_messages,
            "completed": self.check.completed,
            "data_after_completion": self.check.data_after_completion,
            "abandoned": self.check.abandoned,
            "mismatches": self.check.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "skipped_checks": self.check.skipped,
            "injected": self.injected,
            "cycles": self.cycles,
            "stopped": self.stopped,
            "wall_s": self.wall_s,
            "stalled_beats": self.stalled_beats,
            "stream_rule_violations": self.stream_rule_violations,
            "status_nonzero": status,
        })
    }
}

/// Quantises `t` up to the offer grid of `grid` cycles.
fn on_grid(t: u64, grid: u64) -> u64 {
    t.div_ceil(grid) * grid
}

/// A message the peer sends to the NIC.
struct PeerTx {
    src_port: u16,
    dst_port: u16,
    tx_msg_id: u16,
    payload: Vec<u8>,
    acked: Vec<bool>,
    sent: Vec<bool>,
    credit: usize,
    last_progress: u64,
    retries: u32,
    closed: bool,
    given_up: bool,
    /// Copies scheduled but not yet offered.
    pending: usize,
}

impl PeerTx {
    fn open(&self) -> bool {
        !self.closed || self.pending > 0
    }
}

/// The peer's state of a message the NIC sends.
struct PeerRx {
    got: Vec<bool>,
    last_progress: u64,
    resends: u32,
    /// The DATA header of its first packet (addresses for credit re-sends).
    header: Header,
}

/// Kinds of malformed frame.
const MALFORMED_KINDS: [&str; 6] = ["bad_checksum", "wrong_protocol", "too_short", "bad_flags", "not_ipv4", "bad_ip_length"];

fn fix_checksum(f: &mut [u8]) {
    f[OFF_CHECKSUM] = 0;
    f[OFF_CHECKSUM + 1] = 0;
    let c = !ipv4_sum(&f[ETH_HEADER_BYTES..ETH_HEADER_BYTES + IPV4_HEADER_BYTES]);
    f[OFF_CHECKSUM..OFF_CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
}

/// A malformed variant of `frame` (a well-formed frame of at least the 64 header bytes).
fn malform(frame: &[u8], kind: &str, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut f = frame.to_vec();
    match kind {
        "bad_checksum" => f[OFF_CHECKSUM + 1] ^= 1 << rng.gen_range(0..8),
        "wrong_protocol" => {
            f[OFF_PROTOCOL] =
                [6u8, 17, 153, if f[OFF_PROTOCOL] == NDP_IP_PROTOCOL { HOMA_IP_PROTOCOL } else { NDP_IP_PROTOCOL }][rng.gen_range(0..4)];
            fix_checksum(&mut f);
        }
        "too_short" => f.truncate(rng.gen_range(1..HEADER_BYTES)),
        "bad_flags" => f[OFF_FLAGS] = [0u8, FLAG_CHOP, 0x20, 0x40, 0x80][rng.gen_range(0..5)],
        "not_ipv4" => f[OFF_ETHERTYPE..OFF_ETHERTYPE + 2].copy_from_slice(&[0x86, 0xDD]),
        "bad_ip_length" => {
            // A DATA packet carrying more or fewer bytes than its share of the message, with
            // a consistent frame and checksum: only the transport's length check can catch it.
            let carried = f.len() - HEADER_BYTES;
            let new_len = if carried > 1 && rng.gen_bool(0.5) { rng.gen_range(0..carried) } else { carried + rng.gen_range(1..=16) };
            f.resize(HEADER_BYTES + new_len, 0x5A);
            let ip_len = (IPV4_HEADER_BYTES + TRANSPORT_HEADER_BYTES + new_len) as u16;
            f[OFF_TOTAL_LEN..OFF_TOTAL_LEN + 2].copy_from_slice(&ip_len.to_be_bytes());
            fix_checksum(&mut f);
        }
        "frame_trailer" => f.extend_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]),
        "frame_cut" => {
            let keep = f.len().saturating_sub(8).max(HEADER_BYTES);
            f.truncate(keep);
        }
        other => unreachable!("no malformed kind {other}"),
    }
    f
}

/// Random message length: mostly one packet, some up to 8 KB, some up to the 38 KB maximum.
fn message_len(rng: &mut ChaCha8Rng) -> usize {
    match rng.gen_range(0..100) {
        0..=54 => rng.gen_range(1..=1024),
        55..=84 => rng.gen_range(1025..=8 * 1024),
        _ => rng.gen_range(8 * 1024 + 1..=38 * 1024),
    }
}

struct Run {
    protocol: Protocol,
    ipp: u8,
    rtt: usize,
    opts: FuzzOptions,
    rng: ChaCha8Rng,
    /// Frames for MAC RX: (time, sequence, frame, peer message it copies).
    to_nic: BinaryHeap<Reverse<(u64, u64, Vec<u8>, Option<usize>)>>,
    /// The offer grid, cycles: whole nanoseconds at the NIC's clock.
    grid: u64,
    /// NIC frames on their way to the peer: (arrival, sequence, frame).
    to_peer: BinaryHeap<Reverse<(u64, u64, Vec<u8>)>>,
    seq: u64,
    peer_tx: Vec<PeerTx>,
    peer_tx_index: HashMap<(u16, u16), usize>,
    peer_rx: HashMap<(u16, u16, u16), PeerRx>,
    /// NIC messages the peer has not received completely (and still re-sends credit for), in
    /// key order so that the run is deterministic.
    rx_incomplete: BTreeSet<(u16, u16, u16)>,
    /// Every peer message below this index is closed with no copy left to offer.
    oldest_open: usize,
    injected: BTreeMap<&'static str, u64>,
    offered: Vec<(u64, Vec<u8>)>,
}

impl Run {
    fn count(&mut self, kind: &'static str) {
        *self.injected.entry(kind).or_default() += 1;
    }

    fn trims(&self) -> bool {
        self.protocol != Protocol::Homa
    }

    fn link_delay(&mut self, now: u64) -> u64 {
        now + LINK_DELAY_CYCLES + self.rng.gen_range(0..=self.opts.jitter)
    }

    /// Schedules one copy of `frame` for MAC RX at `t` (on the grid).
    fn schedule(&mut self, t: u64, frame: Vec<u8>, msg: Option<usize>) {
        if let Some(j) = msg {
            self.peer_tx[j].pending += 1;
        }
        self.seq += 1;
        self.to_nic.push(Reverse((on_grid(t, self.grid), self.seq, frame, msg)));
    }

    /// The peer puts `frame` on the link to the NIC, through the link's faults.
    fn peer_send(&mut self, now: u64, frame: Vec<u8>, msg: Option<usize>, faults: bool) {
        if !faults {
            self.schedule(now, frame, msg);
            return;
        }
        if self.rng.gen_bool(self.opts.loss) {
            self.count("lost_to_nic");
            return;
        }
        let is_data = frame[OFF_FLAGS] & FLAG_DATA != 0;
        let mut frame = frame;
        if is_data && self.trims() && self.rng.gen_bool(self.opts.trim) {
            self.count("trimmed_to_nic");
            frame = trimmed(&frame);
        }
        if self.rng.gen_bool(self.opts.malformed) {
            let mut kinds: Vec<&'static str> = MALFORMED_KINDS.to_vec();
            if !is_data || frame[OFF_FLAGS] & FLAG_CHOP != 0 {
                kinds.retain(|k| *k != "bad_ip_length");
            }
            if self.opts.frame_length_faults {
                kinds.extend(["frame_trailer", "frame_cut"]);
            }
            let kind = kinds[self.rng.gen_range(0..kinds.len())];
            self.count(kind);
            let bad = malform(&frame, kind, &mut self.rng);
            let t = self.link_delay(now);
            self.schedule(t, bad, None);
            if self.rng.gen_bool(0.5) {
                return; // in place of the frame
            }
        }
        if self.rng.gen_bool(self.opts.duplicate) {
            self.count("duplicated_to_nic");
            let max = self
                .opts
                .duplicate_delay
                .unwrap_or(if self.opts.full_horizon_duplicates { DUPLICATE_DELAY_FULL } else { DUPLICATE_DELAY_WINDOW })
                .max(1);
            let t = self.link_delay(now) + self.rng.gen_range(1..=max);
            self.schedule(t, frame.clone(), msg);
        }
        let t = self.link_delay(now);
        self.schedule(t, frame, msg);
    }

    fn send_packet(&mut self, now: u64, j: usize, k: usize, faults: bool) {
        let m = &self.peer_tx[j];
        let f = data_frame_for(self.ipp, PEER_IP, NIC_IP, m.src_port, m.dst_port, m.tx_msg_id, &m.payload, k);
        self.peer_tx[j].sent[k] = true;
        self.peer_send(now, f, Some(j), faults);
    }

    /// Sends every unsent packet below the credit.
    fn send_credited(&mut self, now: u64, j: usize) {
        let limit = self.peer_tx[j].credit.min(self.peer_tx[j].sent.len());
        for k in 0..limit {
            if !self.peer_tx[j].sent[k] {
                self.send_packet(now, j, k, true);
            }
        }
    }

    fn start_message(&mut self, now: u64, first: bool) {
        let j = self.peer_tx.len();
        let len = message_len(&mut self.rng);
        let payload: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
        let pkts = pkts_of(len as u16);
        // A few applications (source ports), each numbering its messages: tx_msg_id = j keeps
        // every key unique for 65 536 messages, and later ones differ in their port.
        let (src_port, tx_msg_id) = (40_000 + self.rng.gen_range(0..16) + 16 * (j >> 16) as u16, j as u16);
        self.peer_tx.push(PeerTx {
            src_port,
            dst_port: 80 + (j % 8) as u16,
            tx_msg_id,
            payload,
            acked: vec![false; pkts],
            sent: vec![false; pkts],
            credit: self.rtt.max(1),
            last_progress: now,
            retries: 0,
            closed: false,
            given_up: false,
            pending: 0,
        });
        self.peer_tx_index.insert((src_port, tx_msg_id), j);
        if first {
            // The run's first frame is offered at cycle 0 untouched: the capture's time origin.
            self.send_packet(now, j, 0, false);
        }
        self.send_credited(now, j);
    }

    /// The oldest message still open (messages before it never reopen).
    fn first_open(&mut self) -> usize {
        while self.oldest_open < self.peer_tx.len() && !self.peer_tx[self.oldest_open].open() {
            self.oldest_open += 1;
        }
        self.oldest_open
    }

    /// Whether the peer may start another message now.
    fn may_start(&mut self) -> bool {
        let first = self.first_open();
        let j = self.peer_tx.len();
        if self.opts.full_horizon_duplicates {
            return self.peer_tx[first..].iter().filter(|m| m.open()).count() < FULL_MODE_OPEN_LIMIT;
        }
        first + WINDOW_MESSAGES > j
    }

    fn progress(&mut self, j: usize, now: u64) {
        let m = &mut self.peer_tx[j];
        m.last_progress = now;
        m.retries = 0;
        if m.acked.iter().all(|a| *a) {
            m.closed = true;
        }
    }

    /// The peer takes frame `f` that the NIC sent.
    fn peer_receive(&mut self, now: u64, f: &[u8]) {
        let Ok((h, _)) = nanotransport_reference::pisa::parse(f, self.ipp) else { return };
        let homa = self.protocol != Protocol::Ndp;
        if h.flags & FLAG_DATA != 0 {
            let pkts = pkts_of(h.msg_len);
            if pkts == 0 || h.pkt_offset as usize >= pkts {
                // Not a packet of any message (a NIC fault): the checker reports the frame; a
                // receiver would drop it.
                return;
            }
            let key = (h.src_context, h.tx_msg_id, h.msg_len);
            if !self.peer_rx.contains_key(&key) {
                self.rx_incomplete.insert(key);
            }
            let st =
                self.peer_rx.entry(key).or_insert_with(|| PeerRx { got: vec![false; pkts], last_progress: now, resends: 0, header: h });
            let k = (h.pkt_offset as usize).min(pkts - 1);
            let chopped = h.flags & FLAG_CHOP != 0;
            if !chopped {
                st.got[k] = true;
                st.last_progress = now;
                st.resends = 0;
            }
            let count = st.got.iter().filter(|g| **g).count();
            let cum = st.got.iter().position(|g| !*g).unwrap_or(pkts);
            let credit = (count + self.rtt).min(pkts) as u16;
            let answer = match (homa, chopped) {
                (false, false) => reply(self.ipp, &h, FLAG_ACK | FLAG_PULL, h.pkt_offset, credit),
                (false, true) => reply(self.ipp, &h, FLAG_NACK | FLAG_PULL, h.pkt_offset, credit),
                (true, true) => reply(self.ipp, &h, FLAG_NACK, h.pkt_offset, 0),
                (true, false) if cum == pkts || pkts <= self.rtt => reply(self.ipp, &h, FLAG_ACK, cum as u8, 0),
                (true, false) => reply(self.ipp, &h, FLAG_PULL, cum as u8, credit),
            };
            self.peer_send(now, answer, None, true);
            return;
        }
        let Some(&j) = self.peer_tx_index.get(&(h.dst_context, h.tx_msg_id)) else { return };
        if self.peer_tx[j].closed {
            return;
        }
        let pkts = self.peer_tx[j].acked.len();
        let k = h.pkt_offset as usize;
        let mut progressed = false;
        if homa {
            if h.flags & (FLAG_ACK | FLAG_PULL) != 0 {
                for a in self.peer_tx[j].acked.iter_mut().take(k.min(pkts)) {
                    progressed |= !*a;
                    *a = true;
                }
            }
        } else if h.flags & FLAG_ACK != 0 && k < pkts && !self.peer_tx[j].acked[k] {
            self.peer_tx[j].acked[k] = true;
            progressed = true;
        }
        if h.flags & FLAG_PULL != 0 && h.pull_offset as usize > self.peer_tx[j].credit {
            self.peer_tx[j].credit = h.pull_offset as usize;
            progressed = true;
        }
        if progressed {
            self.progress(j, now);
        }
        if h.flags & FLAG_NACK != 0 && k < pkts && !self.peer_tx[j].acked[k] {
            self.send_packet(now, j, k, true);
        }
        if !self.peer_tx[j].closed {
            self.send_credited(now, j);
        }
    }

    /// The peer's timeouts.
    fn timers(&mut self, now: u64) {
        for j in self.first_open()..self.peer_tx.len() {
            let m = &self.peer_tx[j];
            if m.closed || now < m.last_progress + PEER_RTO_CYCLES {
                continue;
            }
            let m = &mut self.peer_tx[j];
            m.retries += 1;
            m.last_progress = now;
            if m.retries > PEER_MAX_RETRIES {
                m.closed = true;
                m.given_up = true;
                continue;
            }
            let outstanding: Vec<usize> = (0..m.acked.len()).filter(|&k| m.sent[k] && !m.acked[k]).collect();
            let next = (0..m.acked.len()).find(|&k| !m.acked[k]);
            self.count("peer_timeouts");
            if outstanding.is_empty() {
                if let Some(k) = next {
                    self.send_packet(now, j, k, true);
                }
            } else {
                for k in outstanding {
                    self.send_packet(now, j, k, true);
                }
            }
        }
        let homa = self.protocol != Protocol::Ndp;
        let mut resend = Vec::new();
        let peer_rx = &mut self.peer_rx;
        self.rx_incomplete.retain(|key| peer_rx[key].resends < PEER_MAX_RETRIES && !peer_rx[key].got.iter().all(|g| *g));
        for key in &self.rx_incomplete {
            let st = self.peer_rx.get_mut(key).unwrap();
            if now < st.last_progress + PEER_RTO_CYCLES {
                continue;
            }
            st.resends += 1;
            st.last_progress = now;
            let pkts = st.got.len();
            let count = st.got.iter().filter(|g| **g).count();
            let cum = st.got.iter().position(|g| !*g).unwrap_or(pkts);
            let credit = (count + self.rtt).min(pkts) as u16;
            let flags = if homa && pkts <= self.rtt { FLAG_ACK } else { FLAG_PULL };
            resend.push(reply(self.ipp, &st.header, flags, cum as u8, credit));
        }
        for f in resend {
            self.count("peer_credit_resends");
            self.peer_send(now, f, None, true);
        }
    }

    fn peer_busy(&mut self) -> bool {
        !self.to_nic.is_empty() || !self.to_peer.is_empty() || self.first_open() < self.peer_tx.len()
    }
}

/// Runs one fuzz campaign; `progress(frames offered)` is called now and then.
pub fn fuzz(opts: &FuzzOptions, progress: &mut dyn FnMut(u64)) -> Result<FuzzResult, String> {
    let wall = std::time::Instant::now();
    let protocol = opts.nic.protocol();
    let mut ropts = ReplayOptions::new(&opts.nic);
    ropts.settings = crate::registers::parse_sets(&opts.settings, opts.nic.params())?;
    ropts.max_cycles = opts.max_cycles;
    ropts.stalls = crate::nic::Stalls::with_probability(opts.stall, opts.seed)?;
    let (mut nic, report) = prepare(&ropts)?;
    if report.nic_ip != NIC_IP {
        return Err(format!("the fuzz peer talks to {}; leave own_ip at its default", replay::format_ipv4(NIC_IP)));
    }
    // Traffic starts right after `prepare`, as in a replay: the NIC's timers and pacer run on
    // from reset, so any extra cycle here would shift every later event against the replay.
    let rtt = report.rtt_pkts as usize;
    let start = nic.cycle;
    let mut run = Run {
        protocol,
        ipp: protocol.ip_protocol(),
        rtt,
        opts: opts.clone(),
        rng: ChaCha8Rng::seed_from_u64(opts.seed),
        to_nic: BinaryHeap::new(),
        grid: opts.nic.params().clock.whole_ns_cycles(),
        to_peer: BinaryHeap::new(),
        seq: 0,
        peer_tx: Vec::new(),
        peer_tx_index: HashMap::new(),
        peer_rx: HashMap::new(),
        rx_incomplete: BTreeSet::new(),
        oldest_open: 0,
        injected: BTreeMap::new(),
        offered: Vec::new(),
    };
    let mut sends: Vec<TimedSend> = Vec::new();
    let mut next_send_at = 0u64;
    let mut next_start_at = 0u64;
    let mut nic_frames_seen = 0;
    let mut next_check = 0u64;
    let stopped;
    loop {
        let now = nic.cycle - start;
        let generating = (run.offered.len() as u64) < opts.packets;
        // The peer starts messages; the CPU writes messages.
        if generating && now >= next_start_at && run.may_start() {
            run.start_message(now, run.peer_tx.is_empty());
            next_start_at = now + run.rng.gen_range(0..600);
        }
        let in_flight = nic.sent_ids.len().saturating_sub(nic.completions.len()) + nic.send_backlog();
        if generating && now >= next_send_at && in_flight < CPU_IN_FLIGHT_LIMIT {
            let i = sends.len();
            let len = message_len(&mut run.rng);
            let payload: Vec<u8> = (0..len).map(|_| run.rng.gen()).collect();
            let m = TxMessage { remote_ip: PEER_IP, remote_port: 7000 + (i % 16) as u16, local_port: 2000 + (i % 50_000) as u16, payload };
            nic.send(&m);
            sends.push(TimedSend { cycle: now, message: m });
            next_send_at = now + run.rng.gen_range(0..1200);
        }
        if now % 256 == 0 {
            run.timers(now);
        }
        while run.to_nic.peek().is_some_and(|Reverse((t, ..))| *t <= now) {
            let Reverse((t, _, f, msg)) = run.to_nic.pop().unwrap();
            debug_assert_eq!(t, now);
            if let Some(j) = msg {
                run.peer_tx[j].pending -= 1;
            }
            nic.push_frame(&f, nic.cycle);
            run.offered.push((now, f));
        }
        if now % 4096 == 0 {
            progress(run.offered.len() as u64);
        }
        if now >= opts.max_cycles {
            stopped = "max-cycles";
            break;
        }
        if !generating && !run.peer_busy() && now >= next_check && quiet_for(&nic, start) {
            if is_idle(&mut nic, start)? {
                stopped = "idle";
                break;
            }
            next_check = nic.cycle - start + IDLE_HORIZON_CYCLES;
            continue;
        }
        nic.step();
        let now = nic.cycle - start;
        while nic_frames_seen < nic.tx_frames.len() {
            let f = nic.tx_frames[nic_frames_seen].1.clone();
            nic_frames_seen += 1;
            if run.rng.gen_bool(opts.loss) {
                run.count("lost_to_peer");
                continue;
            }
            let f = if f.get(OFF_FLAGS).is_some_and(|fl| fl & FLAG_DATA != 0) && run.trims() && run.rng.gen_bool(opts.trim) {
                run.count("trimmed_to_peer");
                trimmed(&f)
            } else {
                f
            };
            let t = run.link_delay(now);
            run.seq += 1;
            let s = run.seq;
            run.to_peer.push(Reverse((t, s, f)));
        }
        while run.to_peer.peek().is_some_and(|Reverse((t, ..))| *t <= now) {
            let Reverse((_, _, f)) = run.to_peer.pop().unwrap();
            run.peer_receive(now, &f);
        }
    }
    progress(run.offered.len() as u64);
    let mut report = report;
    report.frames_fed = run.offered.len();
    report.records = run.offered.len();
    report.messages_sent = sends.len();
    report.stopped = stopped.into();
    let offered = std::mem::take(&mut run.offered);
    let frames_in = offered.len();
    let outcome = replay::finish(nic, protocol, start, report, offered, &sends)?;
    let check = check(&outcome.trace);
    Ok(FuzzResult {
        options: opts.clone(),
        protocol,
        check,
        frames_in,
        frames_out: outcome.tx_frames.len(),
        peer_messages: run.peer_tx.len(),
        peer_given_up: run.peer_tx.iter().filter(|m| m.given_up).count(),
        cpu_messages: sends.len(),
        cycles: outcome.report.cycles,
        stopped: stopped.into(),
        wall_s: wall.elapsed().as_secs_f64(),
        injected: run.injected,
        status: outcome.report.status,
        stalled_beats: outcome.report.stalled_beats,
        stream_rule_violations: outcome.report.stream_rule_violations,
        trace: outcome.trace,
    })
}

/// Writes the reproducer bundle of `result` into `dir` (created if missing).
pub fn write_bundle(dir: &Path, result: &FuzzResult) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let records: Vec<(u128, Vec<u8>)> =
        result.trace.rx_frames.iter().map(|(c, f)| (cycles_to_ns(*c, result.options.nic.params().clock), f.clone())).collect();
    let pcap = replay::pcap_bytes(&records, replay::TsResolution::NanoSecond)?;
    replay::write_atomically(&dir.join("input.pcap"), &pcap)?;
    let sends: Vec<TimedSend> = result.trace.sends.iter().map(|(cycle, m)| TimedSend { cycle: *cycle, message: m.clone() }).collect();
    replay::write_atomically(&dir.join("sends.json"), replay::timed_sends_json(&sends).as_bytes())?;
    let o = &result.options;
    let meta = json!({
        "config": o.nic.name(),
        "seed": o.seed,
        "settings": o.settings,
        "max_cycles": o.max_cycles,
        "fuzz_options": {
            "packets": o.packets, "loss": o.loss, "duplicate": o.duplicate, "trim": o.trim, "malformed": o.malformed,
            "jitter": o.jitter, "frame_length_faults": o.frame_length_faults, "full_horizon_duplicates": o.full_horizon_duplicates,
            "duplicate_delay": o.duplicate_delay, "stall": o.stall,
        },
        "mismatches": result.check.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
    });
    replay::write_atomically(&dir.join("bundle.json"), serde_json::to_string_pretty(&meta).unwrap().as_bytes())?;
    let readme = format!(
        "Reproducer of `nanotransport fuzz --config {} --seed {} --packets {}`: {} mismatches.\nRun: nanotransport replay --bundle {}\n",
        o.nic,
        o.seed,
        o.packets,
        result.check.mismatches.len(),
        dir.display()
    );
    replay::write_atomically(&dir.join("README.txt"), readme.as_bytes())
}

/// A bundle replayed: the outcome, the checker's report on it, and the mismatches the fuzz run
/// that wrote the bundle found.
pub struct BundleReplay {
    pub outcome: replay::ReplayOutcome,
    /// The clock of the bundle's NIC (its cycles' length in the output pcap).
    pub clock: nanotransport_hdl::clock::NicClock,
    pub check: CheckReport,
    pub recorded: Vec<String>,
}

impl BundleReplay {
    /// Whether the replay found exactly the mismatches the fuzz run found.
    pub fn reproduced(&self) -> bool {
        let now: Vec<String> = self.check.mismatches.iter().map(Mismatch::to_string).collect();
        now == self.recorded
    }
}

/// Replays the bundle in `dir` and checks the run.
pub fn replay_bundle(dir: &Path) -> Result<BundleReplay, String> {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()));
    let meta: Value = serde_json::from_str(&read("bundle.json")?).map_err(|e| format!("{}: {e}", dir.join("bundle.json").display()))?;
    // A bundle names its NIC; a preset's name is resolved here (a parameter set's bundle needs
    // its set, which the bundle does not carry).
    let nic = crate::whole_nic::WholeNic::preset(meta["config"].as_str().ok_or("bundle.json: no config")?)?;
    let settings: Vec<String> =
        meta["settings"].as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default();
    let recorded: Vec<String> =
        meta["mismatches"].as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default();
    let mut opts = ReplayOptions::new(&nic);
    opts.settings = crate::registers::parse_sets(&settings, nic.params())?;
    if let Some(m) = meta["max_cycles"].as_u64() {
        opts.max_cycles = m;
    }
    // Bundles written before back-pressure existed have no stall: none.
    let stall = meta["fuzz_options"]["stall"].as_f64().unwrap_or(0.0);
    opts.stalls = crate::nic::Stalls::with_probability(stall, meta["seed"].as_u64().ok_or("bundle.json: no seed")?)?;
    let input = replay::read_pcap(&dir.join("input.pcap"))?;
    let sends = replay::parse_timed_sends(&read("sends.json")?).map_err(|e| format!("{}: {e}", dir.join("sends.json").display()))?;
    let outcome = replay::replay_timed(&input, &sends, &opts)?;
    let check = check(&outcome.trace);
    Ok(BundleReplay { outcome, check, recorded, clock: nic.params().clock })
}
