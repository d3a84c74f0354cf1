//! The NIC's register map — one for every protocol and size (version
//! [`REGISTER_MAP_VERSION`]). Not a hardware block: the addresses the register file
//! ([`crate::nic::csr::AxiLiteCsr`]) and the status bank ([`crate::nic::status_bank`]) decode.
//!
//! # Latency (of the register file that serves this map)
//! A configuration write reaches every block on `cfg` at the clock edge of its AW/W handshake
//! (the new value is seen from the next cycle, with `bvalid`); a read is answered 1 cycle after
//! its AR handshake with the value sampled in that cycle (status counters included); one read and
//! one write per cycle.
//!
//! # Address space (AXI4-Lite, 32-bit registers, 12-bit byte addresses)
//! | address | access | content |
//! |---|---|---|
//! | `0x000`–`0x03F` | R/W | configuration registers 0–15 (below) |
//! | `0x040`–`0x0FF` | R | reserved configuration registers 16–63: read 0, a write answers SLVERR |
//! | `0x400`–`0x7FF` | R | status registers 0–255 ([`STATUS_MAP`]): identification at 0x400–0x40C, then counters; an index without a register reads 0 |
//! | anything else | — | SLVERR (counted in `csr_error_count`) |
//!
//! # Configuration registers (byte address = 4 × index)
//! The time registers count cycles of the NIC's clock; a parameter set gives their defaults in
//! nanoseconds at its clock ([`crate::clock::NicClock`], [`crate::presets::Protocol::config_defaults`]), and
//! the tables give them at the thesis' 3.2 GHz (at the 100 GbE MAC's 322.265625 MHz: 2 014 and
//! 20 142 cycles).
//!
//! | addr | register | NDP default | Homa default |
//! |---|---|---|---|
//! | 0x00 / 0x04 | own MAC bits 31–0 / 47–32 | 02:00:00:00:00:01 | same |
//! | 0x08 / 0x0C | peer (next-hop) MAC bits 31–0 / 47–32 | ff:ff:ff:ff:ff:ff | same |
//! | 0x10 | own IPv4 address | 10.0.0.1 | same |
//! | 0x14 | `rtt_pkts` (BDP in packets: the sender's initial credit; NDP's credit starts at rtt_pkts + 1) | 8 | 8 |
//! | 0x18 | retransmission timeout, cycles (preset: 6.25 µs at the set's clock) | 20 000 | 20 000 |
//! | 0x1C | timeouts without progress before a message is abandoned | 5 | 5 |
//!
//! (`rto × (threshold + 2)`, the time a sender may still retransmit a delivered message, must stay
//! within [`MAX_RETRANSMISSION_HORIZON_CYCLES`] for at-most-once delivery: `--set` refuses more.)
//!
//! | addr | register | NDP default | Homa default |
//! |---|---|---|---|
//! | 0x20 | receive garbage-collection timeout, cycles (preset: 62.5 µs at the set's clock) | 200 000 | 200 000 |
//! | 0x24 | PULL pacing interval, cycles (one MTU at 8 bytes/cycle at any clock; 0 = no pacing) | 136 | 0 (Homa paces nothing) |
//! | 0x28 | pacer bucket size, tokens | 1 | 1 |
//! | 0x2C | control packets the arbiter sends before a waiting data packet | 4 | 4 |
//! | 0x30 | Homa: overcommitment level (messages granted at once) | 0 (unused) | 3 |
//! | 0x34 | Homa: unscheduled priorities U | 0 (unused) | 1 |
//! | 0x38 | recovery options: bit 0 = retransmit at the first timeout after a message starts (the thesis' Algorithm 4 first retransmits at the second); bit 1 = lost-GRANT recovery: a timeout with nothing to retransmit resends the highest credited packet, and Homa answers a duplicate of an incomplete message with its current GRANT | 0 | 0 |
//! | 0x3C | Homa: acknowledgement policy ([`AckPolicy`]: 0 prototype, 1 model, 2 prototype + duplicate ACKs; 3 acts as 0) | 0 (unused) | 0 |
//!
//! Configuration is read by the blocks continuously; change the MAC/IP addresses only while no
//! frame is in flight. 32-bit counters wrap; the 16-bit ones (transmit path, arbiter) saturate at 65 535 and are zero-extended.

use crate::nic::delivered_set::DEFAULT_HORIZON_CYCLES;
pub use crate::nic::status_bank::{status_address, REGISTER_MAP_VERSION, STATUS_BASE, STATUS_MAP};
use crate::nic::tx_path::KEY_REUSE_MARGIN_CYCLES;

/// Configuration registers implemented (the map reserves 64).
pub const CONFIG_REGS: usize = 16;

/// Configuration register indices (byte address = 4 × index).
pub const CFG_OWN_MAC_LO: usize = 0;
pub const CFG_OWN_MAC_HI: usize = 1;
pub const CFG_PEER_MAC_LO: usize = 2;
pub const CFG_PEER_MAC_HI: usize = 3;
pub const CFG_OWN_IP: usize = 4;
pub const CFG_RTT_PKTS: usize = 5;
pub const CFG_RTO_CYCLES: usize = 6;
pub const CFG_TIMEOUT_THRESHOLD: usize = 7;
pub const CFG_GC_TIMEOUT: usize = 8;
pub const CFG_PACE_CYCLES: usize = 9;
pub const CFG_BUCKET_MAX: usize = 10;
pub const CFG_CTRL_BURST_LIMIT: usize = 11;
/// Homa: messages granted at once (the overcommitment level).
pub const CFG_OVERCOMMIT: usize = 12;
/// Homa: number of unscheduled priorities (U).
pub const CFG_UNSCHED_PRIOS: usize = 13;

/// Recovery options; bit 0: a message's first timeout retransmits what was sent; bit 1: lost-GRANT recovery.
pub const CFG_RECOVERY_OPTIONS: usize = 14;

/// Homa and Homa-Tr: what the receiver sends back for a DATA packet ([`AckPolicy`]).
pub const CFG_ACK_POLICY: usize = 15;

/// What a Homa or Homa-Tr receiver answers a DATA packet with (register `ack_policy`, 0x3C bits
/// 1–0; the bits above are not read). In every policy a new packet gets a GRANT when the
/// scheduler grants, a packet that completes its message gets an ACK (before a GRANT it also
/// triggers; the prototype's Chisel ingress does the same, its P4 sends no separate completion
/// ACK), a Homa-Tr trimmed packet or failed lookup gets a NACK, and recovery option bit 1 answers a
/// duplicate of an incomplete message that has had a GRANT with that GRANT.
///
/// | policy | new packet that gets no GRANT and completes nothing | duplicate of a live message | copy of a delivered message |
/// |---|---|---|---|
/// | `Prototype` (0, default) | ACK (cumulative) | nothing | nothing |
/// | `Model` (1) | Homa: nothing; Homa-Tr: ACK | nothing | nothing |
/// | `PrototypeDuplicateAcks` (2) | ACK | ACK (cumulative) | ACK (cumulative, from the delivered set) |
///
/// Homa-Tr's `Model` is its `Prototype`: the ns-3 model's Homa-Tr ACKs every packet that gets no
/// GRANT (its per-packet ACK is commented out only in its Homa). Copies of a delivered message:
/// the prototype and the model forget a delivered message and take a late copy as a new one; our
/// receive path recognises it in its delivered set and, but for policy 2, drops it silently.
///
/// A sender whose message's last ACK is lost hears nothing more under `Prototype` and `Model`
/// (with recovery option bit 1 the GRANT of an incomplete message is the exception): its timeouts
/// resend, the receiver stays silent, and the sender abandons the message after
/// `timeout_threshold` timeouts without progress (`abandoned_count`; the receiver delivered it
/// once). Under `PrototypeDuplicateAcks` the first resent copy is ACKed and the message completes.
/// Value 3 is undefined and acts as 0; `--set` refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckPolicy {
    /// The hardware prototype's P4 (`homa_ingress.p4`): a new packet gets a GRANT or else an
    /// ACK; a duplicate is dropped silently.
    Prototype,
    /// The authors' ns-3 model (`homa-nanopu-transport.cc`): Homa sends GRANTs and the
    /// completion ACK only; Homa-Tr is as `Prototype`.
    Model,
    /// The prototype's rule plus a cumulative ACK for every duplicate, so a sender whose last
    /// ACK was lost completes after its next retransmission.
    #[serde(rename = "duplicate-acks")]
    PrototypeDuplicateAcks,
}

impl AckPolicy {
    pub const ALL: [AckPolicy; 3] = [AckPolicy::Prototype, AckPolicy::Model, AckPolicy::PrototypeDuplicateAcks];

    /// The register value.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// The policy a register value selects (3, undefined, acts as 0).
    pub fn of_value(value: u32) -> AckPolicy {
        match value & 3 {
            1 => AckPolicy::Model,
            2 => AckPolicy::PrototypeDuplicateAcks,
            _ => AckPolicy::Prototype,
        }
    }

    /// Whether a new packet that gets no GRANT and completes nothing is ACKed; `trimming` is
    /// Homa-Tr, whose `Model` is its `Prototype`. The Homa ingress computes the same in hardware.
    pub fn acks_new_packets(self, trimming: bool) -> bool {
        self != AckPolicy::Model || trimming
    }

    /// The name `--set ack_policy=NAME` takes.
    pub fn name(self) -> &'static str {
        match self {
            AckPolicy::Prototype => "prototype",
            AckPolicy::Model => "model",
            AckPolicy::PrototypeDuplicateAcks => "duplicate-acks",
        }
    }
}

impl std::fmt::Display for AckPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The presets' retransmission timeout: 6.25 µs (20 000 cycles at the thesis' 3.2 GHz).
pub const DEFAULT_RTO_PS: u64 = 6_250_000;
/// The presets' receive garbage-collection timeout: 62.5 µs (200 000 cycles at 3.2 GHz).
pub const DEFAULT_GC_TIMEOUT_PS: u64 = 62_500_000;
/// NDP's PULL pacing interval: one 1 088-byte packet (1 024 B of payload and its headers) at
/// the datapath's 8 bytes a cycle, 136 cycles at any clock. The receiver can take no more than
/// that; where the link is slower than the datapath (a 64-bit NIC at 3.2 GHz is 204.8 Gb/s),
/// set `pace_ns` to one packet at the link's rate.
pub const DEFAULT_PACE_CYCLES: u32 = 136;

/// Longest time after a receiver delivered a message in which the sender may still send a copy
/// of it: `(timeout_threshold + 2)` retransmission timeouts (a message is abandoned at the
/// threshold plus the first, non-retransmitting expiry and the last one).
pub fn retransmission_horizon_cycles(rto_cycles: u64, timeout_threshold: u64) -> u64 {
    (timeout_threshold + 2) * rto_cycles
}

/// The longest retransmission horizon the receiver's delivered set covers: its horizon less
/// [`KEY_REUSE_MARGIN_CYCLES`] for copies still in the network (229 376 cycles, 71.7 µs).
pub const MAX_RETRANSMISSION_HORIZON_CYCLES: u64 = DEFAULT_HORIZON_CYCLES - KEY_REUSE_MARGIN_CYCLES;

/// One line saying why `rto_cycles` and `timeout_threshold` would let a sender retransmit beyond
/// what the delivered set remembers (a late copy could then be delivered twice).
pub fn check_retransmission_horizon(rto_cycles: u64, timeout_threshold: u64) -> Result<(), String> {
    let h = retransmission_horizon_cycles(rto_cycles, timeout_threshold);
    if h > MAX_RETRANSMISSION_HORIZON_CYCLES {
        return Err(format!(
            "rto_cycles {rto_cycles} × (timeout_threshold {timeout_threshold} + 2) = {h} cycles exceeds the {MAX_RETRANSMISSION_HORIZON_CYCLES} cycles \
             the receiver's delivered set covers (at-most-once delivery); with this threshold rto_cycles ≤ {}",
            MAX_RETRANSMISSION_HORIZON_CYCLES / (timeout_threshold + 2)
        ));
    }
    Ok(())
}

/// Protocol identification at status index 1.
pub const PROTOCOL_ID_NDP: u32 = 1;
pub const PROTOCOL_ID_HOMA: u32 = 2;
pub const PROTOCOL_ID_HOMA_TR: u32 = 3;

/// Names of the status registers in index order (unmapped indices left out).
pub fn status_names() -> Vec<&'static str> {
    STATUS_MAP.iter().map(|r| r.1).collect()
}
