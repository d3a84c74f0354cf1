//! TCP hosts on the behavioural host API ([`crate::host`]): Reno, CUBIC, DCTCP and a
//! congestion-control-off mode, over real TCP/IPv4 frames (a pcap of any link decodes as TCP).
//!
//! # What a connection does
//! * **Window**: cwnd in bytes; slow start from an initial window of 10 segments (Linux's
//!   `TCP_INIT_CWND`), one MSS of growth per MSS acknowledged; congestion avoidance by the
//!   congestion control; ssthresh never below 2 MSS.
//! * **Loss recovery: SACK** (RFC 2018, RFC 6675, FACK-style as Linux 3.18's default): the
//!   receiver reports up to 4 SACK blocks, the latest first; the third duplicate ACK, or SACKed
//!   data more than 3 MSS beyond the first hole, starts recovery — cwnd = ssthresh once, then
//!   the holes are resent in order while the pipe (bytes above the highest SACK plus the holes
//!   already resent) leaves room, new data after them; a SACK for data sent after a resend
//!   while its hole is still open resends the holes again (lost-retransmit detection); the ACK
//!   covering everything sent at the loss ends recovery with cwnd = ssthresh.
//! * **Early retransmit and tail loss probes** (RFC 5827; Linux 3.18's default): with fewer than
//!   4 segments out and nothing new to send, fewer duplicate ACKs start recovery; when ACKs
//!   stop, the last segment is sent again after max(2 SRTT, 10 ms) (1.5 SRTT + 200 ms with one
//!   segment out) so that a lost tail is found without the RTO. Linux sends new data as the
//!   probe when it has some; here the probe is always the last segment.
//! * **Slow start after idle** (Linux's default): a connection idle for an RTO or more restarts
//!   from at most the initial window, its window halved per RTO idle.
//! * **RTO** (RFC 6298): SRTT/RTTVAR from one timed segment at a time (Karn: never a
//!   retransmitted one), RTO = SRTT + 4·RTTVAR, at least `min_rto_ms` (Linux's 200 ms by
//!   default; [`TcpConfig::min_rto_ms`] lowers it), doubled per expiry; an expiry sets cwnd to
//!   one MSS, forgets the SACK scoreboard and resends from the first unacknowledged byte
//!   (go-back-N).
//! * **Receiver**: cumulative ACKs; out-of-order segments are kept (byte ranges) and answered
//!   by an immediate duplicate ACK; delayed ACK as Linux (every second full segment, or
//!   `delayed_ack_ms` after the first unacknowledged one; off with
//!   [`TcpConfig::delayed_ack`]); an ACK is sent at once when a hole is filled.
//! * **Transmit queue**: a host puts at most [`TcpConfig::tx_queue_bytes`] into its link's queue
//!   (TCP small queues) and sends the rest as the link drains; the window grows only while
//!   the connection is limited by it.
//! * **ECN**: an ECN-capable sender marks its data ECT(0); the receiver echoes, on every ACK,
//!   whether the segments it acknowledges carried CE (ECE), sending an ACK at once when the CE
//!   state changes (DCTCP's receiver state machine, §3.2 of the DCTCP paper).
//!
//! # Congestion controls ([`CongestionControl`])
//! * `Reno`: +1 MSS per cwnd acknowledged; a loss halves cwnd.
//! * `Cubic` (RFC 9438, Linux's default): W(t) = C·(t − K)³ + W_max with C = 0.4, β = 0.7,
//!   K = ∛(W_max·(1 − β)/C), t from the start of the epoch plus one smoothed RTT; fast
//!   convergence; the Reno-friendly estimate W_est (α = 3(1 − β)/(1 + β)) when it is larger.
//!   In a datacenter's microsecond RTTs the Reno-friendly region dominates, as it does in Linux.
//!   HyStart's ACK-train test ends slow start once a round's ACKs spread over half the smallest
//!   RTT (from 16 segments on; its delay test, 4 ms at least, never fires at these RTTs).
//! * `Dctcp` (Alizadeh et al. 2010; Linux `tcp_dctcp.c`): α ← (1 − g)·α + g·F once per window of
//!   data (g = 1/16, α starting at 1, F the fraction of acknowledged bytes echoed with ECE);
//!   on ECE, cwnd ← cwnd·(1 − α/2) at most once per window; a loss halves cwnd; Reno increase.
//! * `Off`: the window stays at the initial window, whatever happens (PL2 runs TCP over
//!   reservations; set the window with [`TcpConfig::initial_window_segments`]); loss recovery
//!   as above.
//!   With ECN on, Reno and CUBIC treat ECE as a loss without a retransmission, once per window
//!   (RFC 3168).
//!
//! # Simplified against Linux
//! Connections exist from the start (no SYN/FIN handshake: a segment from an unknown peer opens
//! one on the receiving side); no timestamps, D-SACK, RACK, TSO/GRO, pacing, PRR or receive-window limit; the NIC's transmit queue is unbounded (no TCP small-queues);
//! sequence numbers are 64-bit inside (32-bit on the wire); payload bytes are zeros. The
//! transmit-queue limit ([`TcpConfig::tx_queue_bytes`]) is per host, not per socket.

use crate::host::{Host, HostIo};
use crate::schemes::is_ce;
use nanotransport_hdl::pisa::wire::{ETH_HEADER_BYTES, IPV4_HEADER_BYTES, OFF_DST_IP, OFF_SRC_IP, OFF_TOS, OFF_TOTAL_LEN, OFF_VERSION_IHL};
use nanotransport_reference::pisa::ipv4_sum;
use std::any::Any;
use std::collections::{BTreeMap, HashMap};

/// IPv4 protocol number of TCP.
pub const TCP_IP_PROTOCOL: u8 = 6;
/// TCP header without options.
pub const TCP_HEADER_BYTES: usize = 20;
const OFF_TCP: usize = crate::ipv4::OFF_IPV4_PAYLOAD;
/// Ethernet, IPv4 and TCP headers.
pub const TCP_FRAME_HEADERS: usize = OFF_TCP + TCP_HEADER_BYTES;

const FLAG_PSH: u8 = 0x08;
const FLAG_ACK: u8 = 0x10;
const FLAG_ECE: u8 = 0x40;

/// The congestion control of a connection (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CongestionControl {
    Reno,
    Cubic,
    Dctcp,
    Off,
}

impl std::str::FromStr for CongestionControl {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "reno" => Ok(Self::Reno),
            "cubic" => Ok(Self::Cubic),
            "dctcp" => Ok(Self::Dctcp),
            "off" => Ok(Self::Off),
            _ => Err(format!("congestion control '{s}': valid reno, cubic, dctcp, off")),
        }
    }
}

/// A host's TCP settings (defaults: Linux's, CUBIC, MSS 1 460 for a 1 500-byte MTU).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TcpConfig {
    pub cc: CongestionControl,
    /// Payload bytes per segment.
    pub mss: usize,
    pub initial_window_segments: u32,
    pub min_rto_ms: f64,
    pub delayed_ack: bool,
    pub delayed_ack_ms: f64,
    /// Data marked ECN-capable (ECT(0)), and ECE treated as congestion.
    pub ecn: bool,
    /// DSCP of the host's frames (the switch's band with DSCP classification).
    pub dscp: u8,
    /// Early retransmit (RFC 5827) and tail loss probes, as Linux 3.18's default
    /// (`tcp_early_retrans = 3`).
    pub tail_loss_probe: bool,
    /// After an idle period of an RTO or more, the window restarts from at most the initial
    /// window, halved per RTO idle (Linux's `tcp_slow_start_after_idle`, on by default).
    pub slow_start_after_idle: bool,
    /// Most bytes the host keeps in its transmit queue (Linux's TCP small queues,
    /// `tcp_limit_output_bytes`, 131 072 in 3.18): beyond it a connection waits for the link.
    pub tx_queue_bytes: usize,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CongestionControl::Cubic,
            mss: 1460,
            initial_window_segments: 10,
            min_rto_ms: 200.0,
            delayed_ack: true,
            delayed_ack_ms: 40.0,
            ecn: false,
            dscp: 0,
            tail_loss_probe: true,
            slow_start_after_idle: true,
            tx_queue_bytes: 131_072,
        }
    }
}

impl TcpConfig {
    /// Linux's settings with congestion control `cc` (ECN on for DCTCP, as it requires).
    pub fn with_cc(cc: CongestionControl) -> Self {
        TcpConfig { cc, ecn: cc == CongestionControl::Dctcp, ..TcpConfig::default() }
    }

    /// Rejects settings no connection can run with.
    /// The initial congestion window, bytes.
    pub fn initial_window(&self) -> f64 {
        (self.initial_window_segments as usize * self.mss) as f64
    }

    pub fn validate(&self) -> Result<(), String> {
        if !(64..=9000).contains(&self.mss) {
            return Err(format!("TCP MSS {}: valid 64..=9000 bytes", self.mss));
        }
        if self.initial_window_segments == 0 {
            return Err("TCP initial window 0: valid 1 segment or more".into());
        }
        if !(self.min_rto_ms > 0.0 && self.min_rto_ms <= 60_000.0) {
            return Err(format!("TCP minimum RTO {} ms: valid above 0 up to 60000", self.min_rto_ms));
        }
        if !(self.delayed_ack_ms > 0.0 && self.delayed_ack_ms <= 500.0) {
            return Err(format!("TCP delayed-ACK timeout {} ms: valid above 0 up to 500", self.delayed_ack_ms));
        }
        if self.tx_queue_bytes < self.mss + TCP_FRAME_HEADERS {
            return Err(format!(
                "TCP transmit-queue limit {} bytes: valid at least one frame ({})",
                self.tx_queue_bytes,
                self.mss + TCP_FRAME_HEADERS
            ));
        }
        if self.dscp > 63 {
            return Err(format!("TCP DSCP {}: valid 0..=63", self.dscp));
        }
        Ok(())
    }
}

/// A TCP segment's fields, as sent or parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    /// Payload bytes.
    pub payload: usize,
    /// IPv4 ECN field.
    pub ecn: u8,
    pub dscp: u8,
    /// SACK blocks (left edge, right edge), the first `sack_blocks` of them.
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    pub sack_blocks: usize,
}

/// SACK blocks an ACK carries (4 fit in the 40 option bytes without timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;
const OPTION_NOP: u8 = 1;
const OPTION_SACK: u8 = 5;

impl Segment {
    /// The frame: Ethernet (MACs made from the IPv4 addresses), IPv4 with a valid header
    /// checksum, TCP with a valid checksum, zero payload; padded to the 60-byte minimum.
    pub fn frame(&self) -> Vec<u8> {
        let options = if self.sack_blocks > 0 { 4 + 8 * self.sack_blocks } else { 0 };
        let tcp_header = TCP_HEADER_BYTES + options;
        let tos = (self.dscp << 2) | (self.ecn & 0b11);
        let mut f = crate::ipv4::frame(self.src_ip, self.dst_ip, tos, TCP_IP_PROTOCOL, tcp_header + self.payload);
        let t = &mut f[OFF_TCP..OFF_TCP + tcp_header];
        t[0..2].copy_from_slice(&self.src_port.to_be_bytes());
        t[2..4].copy_from_slice(&self.dst_port.to_be_bytes());
        t[4..8].copy_from_slice(&self.seq.to_be_bytes());
        t[8..12].copy_from_slice(&self.ack.to_be_bytes());
        t[12] = ((tcp_header / 4) as u8) << 4;
        t[13] = self.flags;
        t[14..16].copy_from_slice(&0xffffu16.to_be_bytes());
        if options > 0 {
            t[20..24].copy_from_slice(&[OPTION_NOP, OPTION_NOP, OPTION_SACK, (2 + 8 * self.sack_blocks) as u8]);
            for (i, (left, right)) in self.sack[..self.sack_blocks].iter().enumerate() {
                t[24 + 8 * i..28 + 8 * i].copy_from_slice(&left.to_be_bytes());
                t[28 + 8 * i..32 + 8 * i].copy_from_slice(&right.to_be_bytes());
            }
        }
        // Pseudo header + TCP header (both of even length); the zero payload adds nothing.
        let mut summed = f[OFF_SRC_IP..OFF_DST_IP + 4].to_vec();
        summed.extend_from_slice(&[0, TCP_IP_PROTOCOL]);
        summed.extend_from_slice(&((tcp_header + self.payload) as u16).to_be_bytes());
        summed.extend_from_slice(&f[OFF_TCP..OFF_TCP + tcp_header]);
        let tcp_sum = !ipv4_sum(&summed);
        let t = &mut f[OFF_TCP..OFF_TCP + tcp_header];
        t[16..18].copy_from_slice(&tcp_sum.to_be_bytes());
        f
    }

    /// The segment in a frame; `None` for anything but a well-formed TCP/IPv4 frame.
    pub fn parse(f: &[u8]) -> Option<Segment> {
        if f.len() < TCP_FRAME_HEADERS || crate::ipv4::protocol(f) != Some(TCP_IP_PROTOCOL) || f[OFF_VERSION_IHL] != 0x45 {
            return None;
        }
        let be16 = |o: usize| u16::from_be_bytes([f[o], f[o + 1]]);
        let be32 = |o: usize| u32::from_be_bytes(f[o..o + 4].try_into().unwrap());
        let ip_len = be16(OFF_TOTAL_LEN) as usize;
        let tcp_header = ((f[OFF_TCP + 12] >> 4) as usize) * 4;
        if tcp_header < TCP_HEADER_BYTES || ip_len < IPV4_HEADER_BYTES + tcp_header || ETH_HEADER_BYTES + ip_len > f.len() {
            return None;
        }
        let mut sack = [(0, 0); MAX_SACK_BLOCKS];
        let mut sack_blocks = 0;
        let mut o = OFF_TCP + TCP_HEADER_BYTES;
        while o < OFF_TCP + tcp_header {
            match f[o] {
                0 => break,
                OPTION_NOP => o += 1,
                kind => {
                    let len = *f.get(o + 1)? as usize;
                    if len < 2 || o + len > OFF_TCP + tcp_header {
                        return None;
                    }
                    if kind == OPTION_SACK {
                        for b in (o + 2..o + len).step_by(8).take(MAX_SACK_BLOCKS) {
                            if b + 8 <= o + len {
                                sack[sack_blocks] = (be32(b), be32(b + 4));
                                sack_blocks += 1;
                            }
                        }
                    }
                    o += len;
                }
            }
        }
        Some(Segment {
            sack,
            sack_blocks,
            src_ip: be32(OFF_SRC_IP),
            dst_ip: be32(OFF_DST_IP),
            src_port: be16(OFF_TCP),
            dst_port: be16(OFF_TCP + 2),
            seq: be32(OFF_TCP + 4),
            ack: be32(OFF_TCP + 8),
            flags: f[OFF_TCP + 13],
            payload: ip_len - IPV4_HEADER_BYTES - tcp_header,
            ecn: f[OFF_TOS] & 0b11,
            dscp: f[OFF_TOS] >> 2,
        })
    }
}

/// A 32-bit sequence number as the 64-bit one nearest `base` (within ±2³¹ bytes; a value
/// before 0 wraps to a huge one, which the callers refuse).
fn unwrap_seq(base: u64, seq: u32) -> u64 {
    base.wrapping_add(seq.wrapping_sub(base as u32) as i32 as i64 as u64)
}

/// Inserts the byte range `[s, e)` into a map of disjoint ranges (start → end), merged with
/// every range it touches; returns the merged range.
fn insert_range(ranges: &mut BTreeMap<u64, u64>, mut s: u64, mut e: u64) -> (u64, u64) {
    let touching: Vec<(u64, u64)> = ranges.range(..=e).filter(|(_, &b)| b >= s).map(|(&a, &b)| (a, b)).collect();
    for (a, b) in touching {
        ranges.remove(&a);
        s = s.min(a);
        e = e.max(b);
    }
    ranges.insert(s, e);
    (s, e)
}

/// What a connection counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TcpStats {
    /// Bytes the peer has acknowledged.
    pub bytes_acked: u64,
    /// In-order bytes received.
    pub bytes_received: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Tail loss probes sent.
    pub tail_loss_probes: u64,
    /// Window reductions for ECE.
    pub ecn_reductions: u64,
    /// Data segments received with CE.
    pub ce_received: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
}

/// CUBIC's state (in segments, seconds).
#[derive(Clone, Debug, Default)]
struct Cubic {
    w_max: f64,
    w_last_max: f64,
    epoch_start_ns: Option<f64>,
    k: f64,
    origin: f64,
    w_est: f64,
    /// HyStart: the smallest RTT seen, and the current round (its end in bytes, its start).
    min_rtt_ns: f64,
    round_end: u64,
    round_start_ns: f64,
}

const CUBIC_C: f64 = 0.4;
/// HyStart acts from this window on (Linux's `hystart_low_window`, 16 segments).
const HYSTART_LOW_WINDOW: f64 = 16.0;
const CUBIC_BETA: f64 = 0.7;

/// DCTCP's sender state.
#[derive(Clone, Debug)]
struct DctcpState {
    alpha: f64,
    window_end: u64,
    acked: u64,
    acked_ece: u64,
}

const DCTCP_G: f64 = 1.0 / 16.0;

/// One TCP connection: both directions, a send backlog and receive state.
#[derive(Clone, Debug)]
pub struct Connection {
    pub peer_ip: u32,
    pub local_port: u16,
    pub peer_port: u16,
    /// DSCP of its frames: the host's, or for a connection a peer opened, the peer's.
    pub dscp: u8,
    /// When it starts sending its backlog (ns).
    start_ns: f64,
    /// Bytes the application has handed over to send (u64::MAX: always more).
    pub send_limit: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Congestion window and slow-start threshold, bytes.
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u32,
    /// NewReno recovery: everything sent when the loss was detected.
    recover: Option<u64>,
    /// ECE handled up to here (one reduction per window).
    cwr_until: u64,
    /// Everything sent when the last loss was found: duplicate ACKs below it (answers to a
    /// go-back-N resend) start no new fast retransmit (RFC 6582's `recover` test).
    high_rxt: u64,
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    rto_ns: f64,
    rtt_probe: Option<(u64, f64)>,
    /// The retransmission timer (RTO or tail loss probe).
    rto: LazyTimer,
    /// The deadline is a tail loss probe's, not the RTO's.
    probe_pending: bool,
    /// When it last sent a segment (ns).
    last_send_ns: f64,
    cubic: Cubic,
    dctcp: DctcpState,
    /// SACK scoreboard: byte ranges above `snd_una` the peer holds, the highest SACKed byte,
    /// where the retransmission of holes has got to in this recovery, and `snd_max` when that
    /// pass began (a SACK beyond it with holes still below the pass means a retransmission
    /// was lost: Linux's lost-retransmit detection).
    sacked: BTreeMap<u64, u64>,
    high_sack: u64,
    retx_next: u64,
    retx_frontier: u64,
    rcv_nxt: u64,
    out_of_order: BTreeMap<u64, u64>,
    /// Start of the block the last out-of-order segment went into (reported first, RFC 2018).
    last_out_of_order: u64,
    unacked_segments: u32,
    delack: LazyTimer,
    ce_state: bool,
    /// The last send stopped at the window (not at the backlog or the transmit queue): only
    /// then does the window grow (Linux's `tcp_is_cwnd_limited`, RFC 7661).
    cwnd_limited: bool,
    /// Waiting for room in the host's transmit queue.
    tx_blocked: bool,
    pub stats: TcpStats,
}

impl Connection {
    fn new(peer_ip: u32, local_port: u16, peer_port: u16, config: &TcpConfig) -> Self {
        Connection {
            peer_ip,
            local_port,
            peer_port,
            dscp: config.dscp,
            start_ns: 0.0,
            send_limit: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: config.initial_window(),
            ssthresh: f64::INFINITY,
            dupacks: 0,
            recover: None,
            cwr_until: 0,
            high_rxt: 0,
            srtt_ns: None,
            rttvar_ns: 0.0,
            rto_ns: 1e9_f64.max(config.min_rto_ms * 1e6), // RFC 6298: 1 s before the first sample
            rtt_probe: None,
            rto: LazyTimer::default(),
            probe_pending: false,
            last_send_ns: 0.0,
            cubic: Cubic::default(),
            dctcp: DctcpState { alpha: 1.0, window_end: 0, acked: 0, acked_ece: 0 },
            sacked: BTreeMap::new(),
            high_sack: 0,
            retx_next: 0,
            retx_frontier: 0,
            rcv_nxt: 0,
            out_of_order: BTreeMap::new(),
            last_out_of_order: 0,
            unacked_segments: 0,
            delack: LazyTimer::default(),
            ce_state: false,
            cwnd_limited: false,
            tx_blocked: false,
            stats: TcpStats::default(),
        }
    }

    /// Bytes sent and not yet acknowledged.
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Bytes the peer has acknowledged.
    pub fn acked(&self) -> u64 {
        self.snd_una
    }

    /// DCTCP's α.
    pub fn dctcp_alpha(&self) -> f64 {
        self.dctcp.alpha
    }

    /// Smoothed RTT, ns.
    pub fn srtt_ns(&self) -> Option<f64> {
        self.srtt_ns
    }

    /// The first hole at or after `from` below the highest SACKed byte, at most `mss` long.
    fn next_hole(&self, from: u64, mss: u64) -> Option<(u64, u64)> {
        let mut start = from.max(self.snd_una);
        for (&s, &e) in &self.sacked {
            if start < s {
                return Some((start, (s - start).min(mss)));
            }
            start = start.max(e);
        }
        None
    }

    /// Bytes in `[from, to)` the peer does not hold.
    fn hole_bytes(&self, from: u64, to: u64) -> u64 {
        let covered: u64 = self.sacked.iter().map(|(&s, &e)| e.min(to).saturating_sub(s.max(from))).sum();
        to.saturating_sub(from) - covered
    }

    /// Bytes in the network during SACK recovery (RFC 6675's pipe, FACK-style as Linux 3.18):
    /// everything above the highest SACK, and the holes below it already retransmitted.
    fn pipe(&self) -> u64 {
        let fack = self.high_sack.max(self.snd_una);
        (self.snd_max - fack) + self.hole_bytes(self.snd_una, self.retx_next.min(fack))
    }

    /// Takes a segment's SACK blocks into the scoreboard.
    fn take_sack(&mut self, seg: &Segment) {
        for &(left, right) in &seg.sack[..seg.sack_blocks] {
            let (s, e) = (unwrap_seq(self.snd_una, left).max(self.snd_una), unwrap_seq(self.snd_una, right).min(self.snd_max));
            if s < e && (s as i64) >= 0 {
                let (_, e) = insert_range(&mut self.sacked, s, e);
                self.high_sack = self.high_sack.max(e);
            }
        }
    }

    /// Forgets what the cumulative ACK now covers.
    fn trim_sack(&mut self) {
        while let Some((&s, &e)) = self.sacked.first_key_value() {
            if s >= self.snd_una {
                break;
            }
            self.sacked.pop_first();
            if e > self.snd_una {
                self.sacked.insert(self.snd_una, e);
                break;
            }
        }
    }
}

/// A deadline on one network timer that is only ever moved earlier: a deadline moved later (the
/// RTO on every ACK) is found when the timer fires and armed again, so it costs no event.
#[derive(Clone, Debug, Default)]
struct LazyTimer {
    deadline: Option<f64>,
    armed: Option<f64>,
}

impl LazyTimer {
    fn set(&mut self, at_ns: f64, id: u64, io: &mut HostIo) {
        self.deadline = Some(at_ns);
        self.wake(at_ns, id, io);
    }
    /// Arms the timer for `at_ns` if it is not armed sooner (no deadline: a wake-up only).
    fn wake(&mut self, at_ns: f64, id: u64, io: &mut HostIo) {
        if self.armed.map_or(true, |t| at_ns < t) {
            self.armed = Some(at_ns);
            io.set_timer_at(at_ns, id);
        }
    }
    fn clear(&mut self) {
        self.deadline = None;
    }
    fn is_set(&self) -> bool {
        self.deadline.is_some()
    }
    /// The timer `id` fired: whether the deadline has come (it is then cleared); a later one is
    /// armed again.
    fn fired(&mut self, id: u64, io: &mut HostIo) -> bool {
        self.armed = None;
        let Some(at) = self.deadline else { return false };
        if io.now_ns() < at - DEADLINE_SLACK_NS {
            self.wake(at, id, io);
            return false;
        }
        self.deadline = None;
        true
    }
}

/// A timer fires at its deadline rounded up to a network tick, and ns are floats: a deadline
/// within this of now has come (never set again for the same instant).
const DEADLINE_SLACK_NS: f64 = 0.5;

/// A tail loss probe comes no sooner than this (Linux's `TCP_TIMEOUT_MIN`, 10 ms in 3.18)...
const TLP_MIN_NS: f64 = 10e6;
/// ...and with one segment out, no sooner than the peer's longest ACK delay after 1.5 SRTT.
const DELAYED_ACK_MAX_NS: f64 = 200e6;

const TIMER_RTO: u64 = 0;
const TIMER_DELACK: u64 = 1;

/// A host running TCP: any number of connections, keyed by peer address and ports. A segment
/// from an unknown peer opens a connection (the receiving side of a bulk transfer).
#[derive(Clone, Debug)]
pub struct TcpHost {
    pub ip: u32,
    pub config: TcpConfig,
    pub connections: Vec<Connection>,
    index: HashMap<(u32, u16, u16), usize>,
    /// Frames that were not TCP/IPv4 for this host (dropped).
    pub malformed: u64,
    /// Segments from a new peer when the host already had [`MAX_CONNECTIONS`] (dropped).
    pub refused: u64,
}

/// Connections a host keeps at most: a segment that would open one more is dropped and counted.
pub const MAX_CONNECTIONS: usize = 4096;

impl TcpHost {
    /// A host at `ip` with `config` and no connection yet.
    pub fn new(ip: u32, config: TcpConfig) -> Result<Self, String> {
        config.validate()?;
        Ok(TcpHost { ip, config, connections: Vec::new(), index: HashMap::new(), malformed: 0, refused: 0 })
    }

    /// Opens a connection to `peer_ip:peer_port` from `local_port` that starts sending
    /// `bytes` (u64::MAX: an endless bulk transfer) at `start_ns`; returns its index.
    pub fn open(&mut self, peer_ip: u32, local_port: u16, peer_port: u16, bytes: u64, start_ns: f64) -> usize {
        let c = self.connection(peer_ip, local_port, peer_port);
        self.connections[c].send_limit = bytes;
        self.connections[c].start_ns = start_ns;
        c
    }

    /// Hands `bytes` more to connection `c` to send.
    pub fn send(&mut self, c: usize, bytes: u64, io: &mut HostIo) {
        let initial = self.config.initial_window();
        let conn = &mut self.connections[c];
        if self.config.slow_start_after_idle && conn.in_flight() == 0 && conn.stats.segments_sent > 0 {
            // Linux's tcp_cwnd_restart: halve per RTO idle, down to the initial window.
            let restart = initial.min(conn.cwnd);
            let mut idle = io.now_ns() - conn.last_send_ns - conn.rto_ns;
            while idle > 0.0 && conn.cwnd > restart {
                conn.cwnd /= 2.0;
                idle -= conn.rto_ns;
            }
            conn.cwnd = conn.cwnd.max(restart);
        }
        conn.send_limit = conn.send_limit.saturating_add(bytes);
        self.transmit(c, io);
    }

    /// Takes a frame (as [`Host::receive`]); returns the connection it was for (`None`, and
    /// counted, for a frame that is not TCP/IPv4 to this host).
    pub fn receive_segment(&mut self, frame: &[u8], io: &mut HostIo) -> Option<usize> {
        let Some(seg) = Segment::parse(frame).filter(|s| s.dst_ip == self.ip) else {
            self.malformed += 1;
            return None;
        };
        let known = self.connections.len();
        if known >= MAX_CONNECTIONS && !self.index.contains_key(&(seg.src_ip, seg.dst_port, seg.src_port)) {
            self.refused += 1;
            return None;
        }
        let c = self.connection(seg.src_ip, seg.dst_port, seg.src_port);
        if c == known {
            self.connections[c].dscp = seg.dscp; // opened by the peer: answer in its class
        }
        if seg.flags & FLAG_ACK != 0 {
            self.on_ack(c, &seg, io);
        }
        if seg.payload > 0 {
            self.on_data(c, &seg, is_ce(frame), io);
        }
        Some(c)
    }

    fn connection(&mut self, peer_ip: u32, local_port: u16, peer_port: u16) -> usize {
        if let Some(&c) = self.index.get(&(peer_ip, local_port, peer_port)) {
            return c;
        }
        self.connections.push(Connection::new(peer_ip, local_port, peer_port, &self.config));
        let c = self.connections.len() - 1;
        self.index.insert((peer_ip, local_port, peer_port), c);
        c
    }

    fn mss(&self) -> f64 {
        self.config.mss as f64
    }

    fn segment(&self, c: usize, seq: u64, payload: usize, flags: u8) -> Segment {
        let blocks = self.sack_blocks(c);
        let conn = &self.connections[c];
        Segment {
            src_ip: self.ip,
            dst_ip: conn.peer_ip,
            src_port: conn.local_port,
            dst_port: conn.peer_port,
            seq: seq as u32,
            ack: conn.rcv_nxt as u32,
            flags,
            payload,
            ecn: if payload > 0 && self.config.ecn { 0b10 } else { 0 },
            dscp: conn.dscp,
            sack: std::array::from_fn(|i| blocks.get(i).copied().unwrap_or((0, 0))),
            sack_blocks: blocks.len(),
        }
    }

    /// The SACK blocks to report: the one holding the latest out-of-order segment first, then
    /// the others from the highest down.
    fn sack_blocks(&self, c: usize) -> Vec<(u32, u32)> {
        let conn = &self.connections[c];
        let latest = conn.out_of_order.range(..=conn.last_out_of_order).next_back().filter(|(_, &e)| e > conn.last_out_of_order);
        let mut blocks: Vec<(u64, u64)> = latest.map(|(&s, &e)| (s, e)).into_iter().collect();
        for (&s, &e) in conn.out_of_order.iter().rev() {
            if blocks.len() == MAX_SACK_BLOCKS {
                break;
            }
            if Some(s) != blocks.first().map(|b| b.0) {
                blocks.push((s, e));
            }
        }
        blocks.iter().map(|&(s, e)| (s as u32, e as u32)).collect()
    }

    /// Sends `payload` bytes at `seq` (new or again); every segment carries the current ACK.
    fn put(&mut self, c: usize, seq: u64, payload: usize, io: &mut HostIo) {
        let ece = if self.connections[c].ce_state { FLAG_ECE } else { 0 };
        io.send(self.segment(c, seq, payload, FLAG_ACK | FLAG_PSH | ece).frame());
        let conn = &mut self.connections[c];
        conn.stats.segments_sent += 1;
        conn.last_send_ns = io.now_ns();
        conn.unacked_segments = 0;
        conn.delack.clear();
    }

    /// Sends what the window and the backlog allow.
    fn transmit(&mut self, c: usize, io: &mut HostIo) {
        let mss = self.config.mss as u64;
        let now = io.now_ns();
        if now < self.connections[c].start_ns {
            return;
        }
        loop {
            let conn = &mut self.connections[c];
            conn.cwnd_limited = false;
            let in_recovery = conn.recover.is_some();
            let hole = if in_recovery { conn.next_hole(conn.retx_next, mss) } else { None };
            let (seq, len) = hole.unwrap_or((conn.snd_nxt, conn.send_limit.saturating_sub(conn.snd_nxt).min(mss)));
            if len == 0 {
                break;
            }
            let outstanding = if in_recovery { conn.pipe() } else { conn.in_flight() };
            if (outstanding + len) as f64 > conn.cwnd.max(mss as f64) {
                conn.cwnd_limited = true;
                break;
            }
            if io.queued_bytes() + TCP_FRAME_HEADERS + len as usize > self.config.tx_queue_bytes {
                conn.tx_blocked = true;
                io.wake_on_tx();
                break;
            }
            self.put(c, seq, len as usize, io);
            let conn = &mut self.connections[c];
            if hole.is_some() {
                conn.retx_next = seq + len;
                conn.stats.retransmits += 1;
                if conn.rtt_probe.is_some_and(|(end, _)| seq < end) {
                    conn.rtt_probe = None;
                }
                continue;
            }
            conn.snd_nxt = seq + len;
            if seq < conn.snd_max {
                conn.stats.retransmits += 1;
            } else if conn.rtt_probe.is_none() {
                conn.rtt_probe = Some((conn.snd_nxt, now));
            }
            conn.snd_max = conn.snd_max.max(conn.snd_nxt);
        }
        if self.connections[c].in_flight() > 0 && !self.connections[c].rto.is_set() {
            self.restart_rto(c, io);
        }
    }

    /// Arms the retransmission timer: the RTO, or a tail loss probe before it (Linux: 2 SRTT, at
    /// least 10 ms; with one segment out, at least 1.5 SRTT + 200 ms).
    fn restart_rto(&mut self, c: usize, io: &mut HostIo) {
        let (tlp, mss) = (self.config.tail_loss_probe, self.config.mss as u64);
        let conn = &mut self.connections[c];
        let now = io.now_ns();
        let mut deadline = now + conn.rto_ns;
        conn.probe_pending = false;
        if let Some(srtt) = conn.srtt_ns.filter(|_| tlp && conn.recover.is_none()) {
            let mut pto = (2.0 * srtt).max(TLP_MIN_NS);
            if conn.snd_max - conn.snd_una <= mss {
                pto = pto.max(1.5 * srtt + DELAYED_ACK_MAX_NS);
            }
            if now + pto < deadline {
                deadline = now + pto;
                conn.probe_pending = true;
            }
        }
        conn.rto.set(deadline, c as u64 * 2 + TIMER_RTO, io);
    }

    fn sample_rtt(&mut self, c: usize, ack: u64, now: f64) {
        let min_rto = self.config.min_rto_ms * 1e6;
        let conn = &mut self.connections[c];
        let Some((end, sent)) = conn.rtt_probe else { return };
        if ack < end {
            return;
        }
        conn.rtt_probe = None;
        let r = now - sent;
        match conn.srtt_ns {
            None => {
                conn.srtt_ns = Some(r);
                conn.rttvar_ns = r / 2.0;
            }
            Some(s) => {
                conn.rttvar_ns = 0.75 * conn.rttvar_ns + 0.25 * (s - r).abs();
                conn.srtt_ns = Some(0.875 * s + 0.125 * r);
            }
        }
        conn.rto_ns = (conn.srtt_ns.unwrap() + 4.0 * conn.rttvar_ns).max(min_rto).min(60e9);
        conn.cubic.min_rtt_ns = if conn.cubic.min_rtt_ns > 0.0 { conn.cubic.min_rtt_ns.min(r) } else { r };
    }

    /// The congestion window after a loss (or ECE treated as one), bytes (at least 2 MSS).
    fn reduced_window(&mut self, c: usize) -> f64 {
        let mss = self.mss();
        let conn = &mut self.connections[c];
        // The window in use: RFC 5681 and RFC 9438 reduce from the flight size (a window that
        // outgrew the path while the transmit queue held the sender back is not kept), Linux
        // from cwnd (the flight counts the lost segments too, after a burst of losses).
        let w = conn.cwnd.min(conn.in_flight() as f64);
        let reduced = match self.config.cc {
            CongestionControl::Cubic => {
                let seg = w / mss;
                conn.cubic.w_max = if seg < conn.cubic.w_last_max { seg * (1.0 + CUBIC_BETA) / 2.0 } else { seg };
                conn.cubic.w_last_max = seg;
                conn.cubic.epoch_start_ns = None;
                w * CUBIC_BETA
            }
            CongestionControl::Reno | CongestionControl::Dctcp => w / 2.0,
            CongestionControl::Off => w,
        };
        reduced.max(2.0 * mss)
    }

    /// Congestion avoidance or slow start for `acked` new bytes.
    fn grow(&mut self, c: usize, acked: u64, now: f64) {
        let mss = self.mss();
        let conn = &mut self.connections[c];
        let slow_start = conn.cwnd < conn.ssthresh;
        let limited = conn.cwnd_limited || (slow_start && conn.cwnd < 2.0 * conn.in_flight() as f64);
        if self.config.cc == CongestionControl::Off || !limited {
            return;
        }
        if slow_start {
            conn.cwnd = (conn.cwnd + acked as f64).min(conn.ssthresh);
            // CUBIC's HyStart (ACK trains, Linux 3.18's default): once a round's ACKs have
            // spread over half the smallest RTT, the pipe is full and slow start ends.
            let cu = &mut conn.cubic;
            if self.config.cc == CongestionControl::Cubic && conn.cwnd >= HYSTART_LOW_WINDOW * mss {
                if conn.snd_una >= cu.round_end {
                    cu.round_end = conn.snd_nxt;
                    cu.round_start_ns = now;
                } else if cu.min_rtt_ns > 0.0 && now - cu.round_start_ns > cu.min_rtt_ns / 2.0 {
                    conn.ssthresh = conn.cwnd;
                }
            }
            return;
        }
        match self.config.cc {
            CongestionControl::Reno | CongestionControl::Dctcp => conn.cwnd += mss * acked as f64 / conn.cwnd,
            CongestionControl::Cubic => {
                let cwnd = conn.cwnd / mss;
                let acked_seg = acked as f64 / mss;
                let cu = &mut conn.cubic;
                if cu.epoch_start_ns.is_none() {
                    cu.epoch_start_ns = Some(now);
                    if cwnd < cu.w_max {
                        cu.k = ((cu.w_max - cwnd) / CUBIC_C).cbrt();
                        cu.origin = cu.w_max;
                    } else {
                        cu.k = 0.0;
                        cu.origin = cwnd;
                    }
                    cu.w_est = cwnd;
                }
                let t = (now - cu.epoch_start_ns.unwrap() + conn.srtt_ns.unwrap_or(0.0)) * 1e-9;
                let target = (cu.origin + CUBIC_C * (t - cu.k).powi(3)).min(1.5 * cwnd);
                cu.w_est += 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA) * acked_seg / cwnd;
                let mut next = if target > cwnd { cwnd + (target - cwnd) / cwnd * acked_seg } else { cwnd + 0.01 * acked_seg / cwnd };
                next = next.max(cu.w_est);
                conn.cwnd = next * mss;
            }
            CongestionControl::Off => {}
        }
    }

    fn on_ack(&mut self, c: usize, seg: &Segment, io: &mut HostIo) {
        let now = io.now_ns();
        let mss = self.mss();
        let conn = &mut self.connections[c];
        let ack = unwrap_seq(conn.snd_una, seg.ack);
        if ack > conn.snd_max {
            return; // acknowledges what was never sent: ignored
        }
        conn.take_sack(seg);
        let ece = seg.flags & FLAG_ECE != 0 && self.config.ecn;
        if ack > conn.snd_una {
            let acked = ack - conn.snd_una;
            conn.snd_una = ack;
            conn.snd_nxt = conn.snd_nxt.max(ack);
            conn.dupacks = 0;
            conn.stats.bytes_acked = ack;
            conn.trim_sack();
            self.sample_rtt(c, ack, now);
            if self.config.cc == CongestionControl::Dctcp {
                self.dctcp_update(c, acked, ece);
            }
            match self.connections[c].recover {
                Some(recover) if ack >= recover => {
                    let conn = &mut self.connections[c];
                    conn.recover = None;
                    conn.cwnd = conn.ssthresh;
                }
                Some(_) => {}
                None => self.grow(c, acked, now),
            }
            if ece && self.connections[c].recover.is_none() && ack > self.connections[c].cwr_until {
                self.ecn_reduce(c);
            }
            let conn = &mut self.connections[c];
            if conn.snd_una == conn.snd_max {
                conn.rto.clear();
            } else {
                self.restart_rto(c, io);
            }
        } else if ack == conn.snd_una && seg.payload == 0 && conn.snd_max > conn.snd_una {
            conn.dupacks += 1;
        }
        let conn = &mut self.connections[c];
        let fack_lost = conn.high_sack > conn.snd_una + 3 * self.config.mss as u64;
        // Early retransmit: with fewer than 4 segments out and nothing new to send, fewer
        // duplicate ACKs say a loss.
        let out = (conn.snd_max - conn.snd_una).div_ceil(self.config.mss as u64);
        let early = self.config.tail_loss_probe
            && conn.send_limit <= conn.snd_max
            && out < 4
            && conn.dupacks >= 1
            && conn.dupacks as u64 + 1 >= out;
        if conn.recover.is_none()
            && conn.snd_max > conn.snd_una
            && conn.snd_una >= conn.high_rxt
            && (conn.dupacks >= 3 || fack_lost || early)
        {
            // Fast retransmit: into SACK recovery, the window cut once.
            let reduced = self.reduced_window(c);
            let conn = &mut self.connections[c];
            conn.ssthresh = reduced;
            conn.cwnd = reduced.max(mss);
            conn.recover = Some(conn.snd_max);
            conn.cwr_until = conn.snd_max;
            conn.high_rxt = conn.snd_max;
            conn.retx_next = conn.snd_una;
            conn.retx_frontier = conn.snd_max;
            conn.stats.fast_retransmits += 1;
            self.restart_rto(c, io);
        } else if conn.recover.is_some() && conn.high_sack > conn.retx_frontier && conn.hole_bytes(conn.snd_una, conn.retx_next) > 0 {
            // Data sent after the retransmissions has arrived, the holes have not: resend them.
            conn.retx_next = conn.snd_una;
            conn.retx_frontier = conn.snd_max;
        }
        self.transmit(c, io);
    }

    /// DCTCP: the fraction of ECE-echoed bytes, folded into α once per window of data.
    fn dctcp_update(&mut self, c: usize, acked: u64, ece: bool) {
        let conn = &mut self.connections[c];
        let d = &mut conn.dctcp;
        d.acked += acked;
        if ece {
            d.acked_ece += acked;
        }
        if conn.snd_una >= d.window_end {
            let f = if d.acked > 0 { d.acked_ece as f64 / d.acked as f64 } else { 0.0 };
            d.alpha = (1.0 - DCTCP_G) * d.alpha + DCTCP_G * f;
            d.acked = 0;
            d.acked_ece = 0;
            d.window_end = conn.snd_nxt;
        }
    }

    /// The window cut for ECE, once per window: DCTCP's α/2, a loss's cut for the others.
    fn ecn_reduce(&mut self, c: usize) {
        let mss = self.mss();
        let reduced = match self.config.cc {
            CongestionControl::Dctcp => {
                let conn = &self.connections[c];
                (conn.cwnd * (1.0 - conn.dctcp.alpha / 2.0)).max(2.0 * mss)
            }
            CongestionControl::Off => self.connections[c].cwnd,
            _ => self.reduced_window(c),
        };
        let conn = &mut self.connections[c];
        conn.cwnd = reduced;
        conn.ssthresh = reduced;
        conn.cwr_until = conn.snd_nxt;
        conn.stats.ecn_reductions += 1;
    }

    fn send_ack(&mut self, c: usize, io: &mut HostIo) {
        let conn = &self.connections[c];
        let ece = if conn.ce_state { FLAG_ECE } else { 0 };
        io.send(self.segment(c, conn.snd_nxt, 0, FLAG_ACK | ece).frame());
        let conn = &mut self.connections[c];
        conn.stats.acks_sent += 1;
        conn.unacked_segments = 0;
        conn.delack.clear();
    }

    fn on_data(&mut self, c: usize, seg: &Segment, ce: bool, io: &mut HostIo) {
        let now = io.now_ns();
        let delayed_ack = self.config.delayed_ack;
        let delack_ns = self.config.delayed_ack_ms * 1e6;
        let conn = &mut self.connections[c];
        if ce {
            conn.stats.ce_received += 1;
        }
        // DCTCP's receiver: when the CE state changes, what was held back is acknowledged with
        // the old state first.
        if ce != conn.ce_state {
            if conn.unacked_segments > 0 {
                self.send_ack(c, io);
            }
            self.connections[c].ce_state = ce;
        }
        let conn = &mut self.connections[c];
        let start = unwrap_seq(conn.rcv_nxt, seg.seq);
        let end = start.wrapping_add(seg.payload as u64);
        if (start as i64) < 0 || end <= conn.rcv_nxt {
            conn.stats.duplicate_segments += 1;
            self.send_ack(c, io);
            return;
        }
        if start > conn.rcv_nxt {
            conn.stats.out_of_order_segments += 1;
            conn.last_out_of_order = start;
            insert_range(&mut conn.out_of_order, start, end);
            self.send_ack(c, io);
            return;
        }
        let filled_hole = !conn.out_of_order.is_empty();
        let before = conn.rcv_nxt;
        conn.rcv_nxt = end;
        while let Some((&s, &e)) = conn.out_of_order.first_key_value() {
            if s > conn.rcv_nxt {
                break;
            }
            conn.rcv_nxt = conn.rcv_nxt.max(e);
            conn.out_of_order.pop_first();
        }
        conn.stats.bytes_received += conn.rcv_nxt - before;
        conn.unacked_segments += 1;
        if filled_hole || !delayed_ack || conn.unacked_segments >= 2 {
            self.send_ack(c, io);
        } else if !conn.delack.is_set() {
            conn.delack.set(now + delack_ns, c as u64 * 2 + TIMER_DELACK, io);
        }
    }

    fn on_rto(&mut self, c: usize, io: &mut HostIo) {
        let conn = &mut self.connections[c];
        if !conn.rto.fired(c as u64 * 2 + TIMER_RTO, io) || conn.snd_una == conn.snd_max {
            return;
        }
        if std::mem::take(&mut conn.probe_pending) {
            // Tail loss probe: the last segment again, so that its ACK (with SACK) shows what was
            // lost; the RTO proper follows.
            let len = (conn.snd_max - conn.snd_una).min(self.config.mss as u64);
            let seq = conn.snd_max - len;
            conn.stats.tail_loss_probes += 1;
            conn.stats.retransmits += 1;
            conn.rtt_probe = None;
            self.put(c, seq, len as usize, io);
            let conn = &mut self.connections[c];
            conn.rto.set(io.now_ns() + conn.rto_ns, c as u64 * 2 + TIMER_RTO, io);
            return;
        }
        let reduced = self.reduced_window(c);
        let mss = self.mss();
        let conn = &mut self.connections[c];
        conn.stats.timeouts += 1;
        conn.ssthresh = reduced;
        if self.config.cc != CongestionControl::Off {
            conn.cwnd = mss;
        }
        conn.snd_nxt = conn.snd_una;
        conn.recover = None;
        conn.sacked.clear();
        conn.high_sack = 0;
        conn.dupacks = 0;
        conn.rtt_probe = None;
        conn.cwr_until = conn.snd_max;
        conn.high_rxt = conn.snd_max;
        conn.rto_ns = (conn.rto_ns * 2.0).min(60e9);
        self.transmit(c, io);
    }

    fn on_delack(&mut self, c: usize, io: &mut HostIo) {
        let conn = &mut self.connections[c];
        if conn.delack.fired(c as u64 * 2 + TIMER_DELACK, io) && conn.unacked_segments > 0 {
            self.send_ack(c, io);
        }
    }
}

impl Host for TcpHost {
    fn ip(&self) -> u32 {
        self.ip
    }

    fn start(&mut self, io: &mut HostIo) {
        for c in 0..self.connections.len() {
            if self.connections[c].send_limit > 0 {
                // Timer ids: 2c the RTO, 2c + 1 the delayed ACK; a start is an RTO check that
                // finds nothing to resend and sends the backlog.
                let conn = &mut self.connections[c];
                conn.rto.wake(conn.start_ns, c as u64 * 2 + TIMER_RTO, io);
            }
        }
    }

    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        self.receive_segment(&frame, io);
    }

    /// Timer ids are 2c (connection c's RTO) and 2c + 1 (its delayed ACK); any other id is
    /// ignored, so a host built around this one may use ids above them.
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        let c = (id / 2) as usize;
        if c >= self.connections.len() {
            return;
        }
        if id % 2 == TIMER_RTO {
            self.on_rto(c, io);
            self.transmit(c, io);
        } else {
            self.on_delack(c, io);
        }
    }

    fn tx_done(&mut self, io: &mut HostIo) {
        for c in 0..self.connections.len() {
            if std::mem::take(&mut self.connections[c].tx_blocked) {
                self.transmit(c, io);
            }
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
