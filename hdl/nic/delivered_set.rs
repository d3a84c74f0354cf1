//! The delivered-message set: the keys of messages delivered in the last `H` cycles (the
//! *horizon*), so that a late duplicate of a delivered message is recognised for as long as its
//! sender may still retransmit it (at-most-once delivery). Used by
//! [`crate::nic::get_rx_msg_info::GetRxMsgInfo`], which looks every new key up here and inserts
//! the key of every message it releases as delivered.
//!
//! # Structure
//! A two-way d-left hash table over RAMs: `2^SB` buckets per way ([`KeyHash`]), [`SET_POSITIONS`]
//! entries per bucket, one RAM per way and position (`2 × 8` RAMs of `2^SB × 70` bits). An entry
//! is `{key 64, epoch 5, valid 1}`.
//!
//! # Time
//! Time is counted in *epochs* of `E = H / 16` cycles (an epoch counter of 5 bits, wrapping).
//! An entry written in epoch `e` is **alive** while `(now − e) mod 32 ≤ 16` (a 32-bit mask of the alive
//! epochs, rotated at every epoch boundary, answers it with one bit select): it lives at least
//! `16 E = H` and less than `17 E` cycles. A background **scrubber** reads one bucket whenever
//! the RAM read port is free and clears the entries that are no longer alive, so an entry can
//! never look alive again when the epoch counter wraps. After three cycles without a scrub the
//! scrubber takes the next cycle (`ready` low), so every bucket is visited within `4 · 2^SB`
//! cycles, less than the `15 E` cycles before a dead entry would wrap (checked by
//! [`delivered_set_parameter_error`]). GetRxMsgInfo leaves the port free at least every third
//! cycle, so it never meets a forced scrub.
//!
//! # Operations
//! * **Lookup** (`lookup_valid`, `lookup_key`) in cycle A, the RAMs are read; `found` is valid in
//!   cycle A+1: the key is in an alive entry of one of its two candidate buckets.
//! * **Insert** (`insert_valid`, `insert_key`) in cycle I: both candidate buckets are read; in
//!   cycle I+1 the key is written into a free (invalid or dead) position of the bucket with fewer
//!   alive entries (way 0 on a tie), first free position. `ready` is low in cycle I+1, so the
//!   next operation comes in I+2 and sees the write.
//! * **Full**: when both candidate buckets hold 8 alive entries the insert **waits** (`ready`
//!   stays low) and reads its buckets again at every epoch boundary, when entries die, until it
//!   finds a free position; each such insert is counted once in `full_wait_count`. The caller
//!   therefore cannot look anything up meanwhile, and no key is ever dropped from the set
//!   before its horizon: the guarantee holds; the cost is a stalled receive path (bounded by
//!   `17 E` cycles). At the presets' load (below) this is not expected to happen.
//! * Only one of `lookup_valid` and `insert_valid` may be high in a cycle, and only when `ready`
//!   (an operation issued while `ready` is low is ignored).
//!
//! # Capacity and the guarantee
//! A receiver completes at most one message per minimum-size packet, 9 cycles at 64 bits per
//! cycle, so at most `⌈17 E / 9⌉` keys are alive at once: 30 948 for the presets' `H = 2^18`
//! cycles, in `2 · 2^12 · 8 = 65 536` entries (47 % load).
//!
//! # Reset
//! Reset zeroes the epoch, the counters and the scrubber, and starts an init sweep of `2^SB`
//! cycles that writes every bucket empty; `ready` is low meanwhile. (RAM contents are not
//! relied on at power-up.)
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous active-high reset |
//! | `ready` | out | 1 | an operation may be issued this cycle |
//! | `lookup_valid`, `lookup_key` | in | 1, 64 | look a key up |
//! | `found` | out | 1 | (cycle after a lookup) the key is in the set |
//! | `insert_valid`, `insert_key` | in | 1, 64 | add a key |
//! | `full_wait_count` | out | 32 | inserts that found both candidate buckets full and waited (wrapping) |
//!
//! # Latency and throughput
//! Lookup: 1 cycle, one per cycle. Insert: 2 cycles (one more per epoch it waits when full).

use crate::common::event_counter::WrappingCounter;
use crate::common::key_hash::KeyHash;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Entries per bucket.
pub const SET_POSITIONS: usize = 8;
/// Epochs per horizon: an entry lives at least this many epochs.
pub const EPOCHS_PER_HORIZON: u64 = 16;
/// Bits of an entry: `{key 64, epoch 5, valid 1}`.
pub const SET_ENTRY_BITS: usize = 70;
/// Bucket bits of the presets' set (2 × 4096 buckets of 8 entries).
pub const DELIVERED_SET_BUCKET_BITS: usize = 12;
/// The presets' horizon in cycles: 2^18 (81.9 µs at 3.2 GHz).
pub const DEFAULT_HORIZON_CYCLES: u64 = 1 << 18;
/// Cycles per minimum-size packet on a 64-bit receive path (65-byte frame): the fastest a
/// receiver can complete messages.
pub const MIN_CYCLES_PER_MESSAGE: u64 = 9;

/// Keys that can be alive at once for a horizon of `horizon` cycles (one message completed per
/// minimum-size packet for the longest lifetime, 17/16 of the horizon).
pub fn max_alive_keys(horizon: u64) -> u64 {
    (horizon + horizon / EPOCHS_PER_HORIZON).div_ceil(MIN_CYCLES_PER_MESSAGE)
}

/// Entries of a set with `2^sb` buckets per way.
pub fn set_entries(sb: usize) -> u64 {
    2 * (1u64 << sb) * SET_POSITIONS as u64
}

/// The one-line reason a set's parameters are invalid, if they are.
pub fn delivered_set_parameter_error(sb: usize, horizon: u64) -> Result<(), String> {
    if !(3..=16).contains(&sb) {
        return Err(format!("delivered set: bucket bits {sb}, valid 3..=16"));
    }
    if horizon == 0 || horizon % EPOCHS_PER_HORIZON != 0 || horizon / EPOCHS_PER_HORIZON > 1 << 31 {
        return Err(format!("delivered set: horizon {horizon} cycles must be a positive multiple of {EPOCHS_PER_HORIZON} below 2^35"));
    }
    // A dead entry must be scrubbed within 15 epochs; a sweep takes at most 4 cycles per bucket.
    let sweep = 4 * (1u64 << sb);
    if sweep > 15 * (horizon / EPOCHS_PER_HORIZON) {
        return Err(format!(
            "delivered set: horizon {horizon} cycles is too short for 2^{sb} buckets (a scrub sweep takes up to {sweep} cycles; need horizon ≥ {})",
            (sweep * EPOCHS_PER_HORIZON).div_ceil(15)
        ));
    }
    Ok(())
}

/// The delivered-message set with `2^SB` buckets per way.
#[ports(
    in clock: Clock;
    in reset, lookup_valid, insert_valid: Bit;
    out ready, found: Bit;
    in lookup_key, insert_key: Bits<64>;
    out full_wait_count: Bits<32>;
)]
#[registers(
    init_done: Bit;
    init_ptr: Bits<SB>;
    epoch: Bits<5>;
    /// Bit `e` set when an entry written in epoch `e` is alive now, `(epoch − e) mod 32 ≤ 16`:
    /// rotated by one at every epoch boundary, so the test is one bit select, no subtraction.
    alive_epochs: Bits<32>;
    epoch_cycle: Bits<32>;
    /// The key of the last lookup or insert and its buckets.
    s_key: Bits<64>;
    s_h0, s_h1: Bits<SB>;
    /// An insert whose buckets were read last cycle: decide and write now.
    ins_decide: Bit;
    /// An insert that found its buckets full, waiting for the next epoch.
    ins_wait: Bit;
    /// The decision this cycle is a waiting insert's re-read (already counted).
    ins_retry: Bit;
    /// The scrubber read bucket `scrub_ptr` last cycle: clear its dead entries now.
    scrub_decide: Bit;
    scrub_bucket, scrub_ptr: Bits<SB>;
    /// Cycles since the scrubber last read (saturating at 3).
    since_scrub: Bits<2>;
)]
#[locals(
    tick, is_ready, lookup_go, insert_go, reread, port_free, do_scrub_read: Bit;
    read_bucket0, read_bucket1: Bits<SB>;
    /// Per position: alive (bits 0–7 way 0, 8–15 way 1).
    alive: Bits<16>;
    /// Per position: valid but dead (to be scrubbed).
    dead: Bits<16>;
    /// Per position: holds the key of `s_key` and is alive.
    key_hits: Bits<16>;
    alive0, alive1: Bits<4>;
    /// The counting network over both ways at once (bit 2k: pair k; bit 4k: quad k; bit 8w: way w):
    /// the sum and carry of each pair, the three bits of each quad's count, then each byte's
    /// count bits and the carries between them.
    pair_sum: Bits<16>;
    pair_carry, quad_b0, quad_b1, quad_b2, byte_c0, byte_c1, byte_b0, byte_b1, byte_b2, byte_b3: Bits<16>;
    use_way1: Bit;
    /// Free positions of each way, and the first one of each (one-hot).
    free0: Bits<8>;
    free1, first_free0, first_free1: Bits<8>;
    place: Bit;
    new_entry: Bits<70>;
)]
#[derive(LogicBlock, Blank)]
pub struct DeliveredSet<const SB: usize> {
    way0: [RAM<Bits<70>, SB>; 8],
    way1: [RAM<Bits<70>, SB>; 8],
    hash: KeyHash<SB>,
    epoch_length_minus_one: Constant<Bits<32>>,
    last_bucket: Constant<Bits<SB>>,
    /// 16, as a 5-bit constant: the age comparison must stay 5 bits wide (modulo 32) in Verilog.
    /// `alive_epochs` in epoch 0: epochs 16 … 31 and 0.
    alive_at_epoch0: Constant<Bits<32>>,
    /// Field masks of the counting network: bit 0 of each pair, quad and byte of `alive`.
    m_pairs: Constant<Bits<16>>,
    m_quads: Constant<Bits<16>>,
    m_bytes: Constant<Bits<16>>,
    c_full_wait: WrappingCounter<32>,
}

impl<const SB: usize> DeliveredSet<SB> {
    /// A set remembering delivered keys for `horizon` cycles; panics with a one-line message
    /// when the parameters are invalid ([`delivered_set_parameter_error`]).
    pub fn new(horizon: u64) -> Self {
        if let Err(e) = delivered_set_parameter_error(SB, horizon) {
            panic!("{e}");
        }
        Self {
            way0: std::array::from_fn(|_| RAM::default()),
            way1: std::array::from_fn(|_| RAM::default()),
            epoch_length_minus_one: Constant::new((horizon / EPOCHS_PER_HORIZON - 1).to_bits()),
            last_bucket: Constant::new(((1u64 << SB) - 1).to_bits()),
            alive_at_epoch0: Constant::new(
                (0..32u64).filter(|e| (32 - e) % 32 <= EPOCHS_PER_HORIZON).fold(0u64, |m, e| m | (1 << e)).to_bits(),
            ),
            m_pairs: Constant::new(0x5555u64.to_bits()),
            m_quads: Constant::new(0x1111u64.to_bits()),
            m_bytes: Constant::new(0x0101u64.to_bits()),
            ..Self::blank()
        }
    }
}

/// The shortest valid horizon for `2^sb` buckets per way.
pub fn shortest_horizon(sb: usize) -> u64 {
    let epoch = (4 * (1u64 << sb)).div_ceil(15);
    epoch * EPOCHS_PER_HORIZON
}

/// The presets' set ([`DEFAULT_HORIZON_CYCLES`]) at the presets' size; at any other size the
/// shortest valid horizon ([`shortest_horizon`], for tests: `DeliveredSet<4>` forgets after 80
/// cycles).
impl<const SB: usize> Default for DeliveredSet<SB> {
    fn default() -> Self {
        Self::new(if SB == DELIVERED_SET_BUCKET_BITS { DEFAULT_HORIZON_CYCLES } else { shortest_horizon(SB) })
    }
}

impl<const SB: usize> Logic for DeliveredSet<SB> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            init_done,
            init_ptr,
            epoch,
            alive_epochs,
            epoch_cycle,
            s_key,
            s_h0,
            s_h1,
            ins_decide,
            ins_wait,
            ins_retry,
            scrub_decide,
            scrub_bucket,
            scrub_ptr,
            since_scrub
        );
        status_counters!(self, clock, reset, c_full_wait => full_wait_count);
        for i in 0..8 {
            self.way0[i].read_clock.next = self.clock.val();
            self.way0[i].write_clock.next = self.clock.val();
            self.way1[i].read_clock.next = self.clock.val();
            self.way1[i].write_clock.next = self.clock.val();
        }

        // Epochs of E cycles; `tick` is the last cycle of an epoch.
        self.tick.next = self.epoch_cycle.q.val() == self.epoch_length_minus_one.val();
        self.epoch_cycle.d.next = self.epoch_cycle.q.val() + 1;
        if self.tick.val() {
            self.epoch_cycle.d.next = 0.into();
            self.epoch.d.next = self.epoch.q.val() + 1;
            self.alive_epochs.d.next = (self.alive_epochs.q.val() << 1) | (self.alive_epochs.q.val() >> 31);
        }

        // After 3 cycles without a scrub the next cycle is the scrubber's (a caller that leaves
        // the read port free now and then, as GetRxMsgInfo does, never sees this).
        self.is_ready.next =
            ((self.init_done.q.val() & (!self.ins_decide.q.val())) & (!self.ins_wait.q.val())) & (self.since_scrub.q.val() != 3);
        self.ready.next = self.is_ready.val();
        self.lookup_go.next = self.lookup_valid.val() & self.is_ready.val();
        self.insert_go.next = self.insert_valid.val() & self.is_ready.val();

        // ---- Read port: an operation, a waiting insert at an epoch boundary, or the scrubber.
        self.hash.key.next = self.lookup_key.val();
        if self.insert_go.val() {
            self.hash.key.next = self.insert_key.val();
        }
        self.reread.next = self.ins_wait.q.val() & self.tick.val();
        // The scrubber never reads in a cycle an insert may write (its read would miss the write).
        self.port_free.next = (((self.init_done.q.val() & (!self.lookup_go.val())) & (!self.insert_go.val())) & (!self.ins_decide.q.val()))
            & (!self.reread.val());
        self.do_scrub_read.next = self.port_free.val();
        self.read_bucket0.next = self.scrub_ptr.q.val();
        self.read_bucket1.next = self.scrub_ptr.q.val();
        if self.lookup_go.val() | self.insert_go.val() {
            self.read_bucket0.next = self.hash.h0.val();
            self.read_bucket1.next = self.hash.h1.val();
            self.s_key.d.next = self.hash.key.val();
            self.s_h0.d.next = self.hash.h0.val();
            self.s_h1.d.next = self.hash.h1.val();
        }
        if self.reread.val() {
            self.read_bucket0.next = self.s_h0.q.val();
            self.read_bucket1.next = self.s_h1.q.val();
        }
        for i in 0..8 {
            self.way0[i].read_address.next = self.read_bucket0.val();
            self.way1[i].read_address.next = self.read_bucket1.val();
        }
        self.scrub_decide.d.next = self.do_scrub_read.val();
        if self.since_scrub.q.val() != 3 {
            self.since_scrub.d.next = self.since_scrub.q.val() + 1;
        }
        if self.do_scrub_read.val() {
            self.since_scrub.d.next = 0.into();
            self.scrub_bucket.d.next = self.scrub_ptr.q.val();
            self.scrub_ptr.d.next = self.scrub_ptr.q.val() + 1;
        }

        // ---- The entries read last cycle: alive, dead, matching.
        self.alive.next = 0.into();
        self.dead.next = 0.into();
        self.key_hits.next = 0.into();
        for i in 0..8 {
            if self.way0[i].read_data.val().get_bit(0) {
                if self.alive_epochs.q.val().get_bit(self.way0[i].read_data.val().get_bits::<5>(1).index()) {
                    self.alive.next = self.alive.val().replace_bit(i, true);
                    if self.way0[i].read_data.val().get_bits::<64>(6) == self.s_key.q.val() {
                        self.key_hits.next = self.key_hits.val().replace_bit(i, true);
                    }
                } else {
                    self.dead.next = self.dead.val().replace_bit(i, true);
                }
            }
            if self.way1[i].read_data.val().get_bit(0) {
                if self.alive_epochs.q.val().get_bit(self.way1[i].read_data.val().get_bits::<5>(1).index()) {
                    self.alive.next = self.alive.val().replace_bit(i + 8, true);
                    if self.way1[i].read_data.val().get_bits::<64>(6) == self.s_key.q.val() {
                        self.key_hits.next = self.key_hits.val().replace_bit(i + 8, true);
                    }
                } else {
                    self.dead.next = self.dead.val().replace_bit(i + 8, true);
                }
            }
        }
        self.found.next = self.key_hits.val().any();

        // d-left placement: the way with fewer alive entries (way 0 on a tie), first free position.
        // (Counted and encoded here rather than with the Popcount and FindFirstSet blocks: as
        // submodules fed and read by this one combinational process they add four process-level
        // loops that Verilator settles by re-evaluation.) The counts are a network of XOR/AND/OR
        // over both ways at once, pairs, then quads, then bytes, with no adder: each count bit
        // depends on at most 8 inputs, so it maps to two or three LUT levels rather than three
        // carry chains in series.
        self.pair_sum.next = (self.alive.val() ^ (self.alive.val() >> 1)) & self.m_pairs.val();
        self.pair_carry.next = (self.alive.val() & (self.alive.val() >> 1)) & self.m_pairs.val();
        self.quad_b0.next = (self.pair_sum.val() ^ (self.pair_sum.val() >> 2)) & self.m_quads.val();
        self.quad_b1.next = (((self.pair_sum.val() & (self.pair_sum.val() >> 2)) ^ self.pair_carry.val()) ^ (self.pair_carry.val() >> 2))
            & self.m_quads.val();
        self.quad_b2.next = (self.pair_carry.val() & (self.pair_carry.val() >> 2)) & self.m_quads.val();
        self.byte_b0.next = (self.quad_b0.val() ^ (self.quad_b0.val() >> 4)) & self.m_bytes.val();
        self.byte_c0.next = (self.quad_b0.val() & (self.quad_b0.val() >> 4)) & self.m_bytes.val();
        self.byte_b1.next = ((self.quad_b1.val() ^ (self.quad_b1.val() >> 4)) ^ self.byte_c0.val()) & self.m_bytes.val();
        self.byte_c1.next = ((self.quad_b1.val() & (self.quad_b1.val() >> 4))
            | (self.byte_c0.val() & (self.quad_b1.val() ^ (self.quad_b1.val() >> 4))))
            & self.m_bytes.val();
        self.byte_b2.next = ((self.quad_b2.val() ^ (self.quad_b2.val() >> 4)) ^ self.byte_c1.val()) & self.m_bytes.val();
        self.byte_b3.next = ((self.quad_b2.val() & (self.quad_b2.val() >> 4))
            | (self.byte_c1.val() & (self.quad_b2.val() ^ (self.quad_b2.val() >> 4))))
            & self.m_bytes.val();
        self.alive0.next = ((bit_cast::<4, 1>(self.byte_b0.val().get_bits::<1>(0))
            | (bit_cast::<4, 1>(self.byte_b1.val().get_bits::<1>(0)) << 1))
            | (bit_cast::<4, 1>(self.byte_b2.val().get_bits::<1>(0)) << 2))
            | (bit_cast::<4, 1>(self.byte_b3.val().get_bits::<1>(0)) << 3);
        self.alive1.next = ((bit_cast::<4, 1>(self.byte_b0.val().get_bits::<1>(8))
            | (bit_cast::<4, 1>(self.byte_b1.val().get_bits::<1>(8)) << 1))
            | (bit_cast::<4, 1>(self.byte_b2.val().get_bits::<1>(8)) << 2))
            | (bit_cast::<4, 1>(self.byte_b3.val().get_bits::<1>(8)) << 3);
        self.use_way1.next = self.alive1.val() < self.alive0.val();
        // Both ways' first free positions are found beside the count, which only picks the way.
        self.free0.next = !self.alive.val().get_bits::<8>(0);
        self.free1.next = !self.alive.val().get_bits::<8>(8);
        self.first_free0.next = self.free0.val() & ((!self.free0.val()) + 1);
        self.first_free1.next = self.free1.val() & ((!self.free1.val()) + 1);
        self.place.next = self.ins_decide.q.val() & self.free0.val().any();
        if self.use_way1.val() {
            self.place.next = self.ins_decide.q.val() & self.free1.val().any();
        }
        self.new_entry.next = ((bit_cast::<70, 64>(self.s_key.q.val()) << 6) | (bit_cast::<70, 5>(self.epoch.q.val()) << 1)) | 1;

        // ---- Writes: init sweep, insert, or the scrubber's clears (never two in one cycle).
        for i in 0..8 {
            self.way0[i].write_address.next = self.scrub_bucket.q.val();
            self.way1[i].write_address.next = self.scrub_bucket.q.val();
            self.way0[i].write_data.next = 0.into();
            self.way1[i].write_data.next = 0.into();
            self.way0[i].write_enable.next = self.scrub_decide.q.val() & self.dead.val().get_bit(i);
            self.way1[i].write_enable.next = self.scrub_decide.q.val() & self.dead.val().get_bit(i + 8);
            if self.ins_decide.q.val() {
                self.way0[i].write_address.next = self.s_h0.q.val();
                self.way1[i].write_address.next = self.s_h1.q.val();
                self.way0[i].write_data.next = self.new_entry.val();
                self.way1[i].write_data.next = self.new_entry.val();
                self.way0[i].write_enable.next = (self.ins_decide.q.val() & (!self.use_way1.val())) & self.first_free0.val().get_bit(i);
                self.way1[i].write_enable.next = (self.ins_decide.q.val() & self.use_way1.val()) & self.first_free1.val().get_bit(i);
            }
            if !self.init_done.q.val() {
                self.way0[i].write_address.next = self.init_ptr.q.val();
                self.way1[i].write_address.next = self.init_ptr.q.val();
                self.way0[i].write_data.next = 0.into();
                self.way1[i].write_data.next = 0.into();
                self.way0[i].write_enable.next = true;
                self.way1[i].write_enable.next = true;
            }
        }
        // ---- Insert state.
        self.ins_decide.d.next = self.insert_go.val() | self.reread.val();
        self.ins_retry.d.next = self.reread.val();
        if self.reread.val() {
            self.ins_wait.d.next = false;
        }
        if self.ins_decide.q.val() & (!self.place.val()) {
            self.ins_wait.d.next = true;
            // Counted once per insert: its first decision, not the re-reads.
            if !self.ins_retry.q.val() {
                self.c_full_wait.increment.next = true;
            }
        }

        if !self.init_done.q.val() {
            self.since_scrub.d.next = 0.into();
            self.init_ptr.d.next = self.init_ptr.q.val() + 1;
            if self.init_ptr.q.val() == self.last_bucket.val() {
                self.init_done.d.next = true;
            }
        }
        if self.reset.val() {
            self.init_done.d.next = false;
            self.init_ptr.d.next = 0.into();
            self.epoch.d.next = 0.into();
            self.alive_epochs.d.next = self.alive_at_epoch0.val();
            self.epoch_cycle.d.next = 0.into();
            self.ins_decide.d.next = false;
            self.ins_wait.d.next = false;
            self.ins_retry.d.next = false;
            self.scrub_decide.d.next = false;
            self.scrub_ptr.d.next = 0.into();
            self.since_scrub.d.next = 0.into();
        }
    }
}
