//! Transmit path (thesis §3.2.4–3.2.5, §3.3.2) for `N = 2^IW` messages: CPU message interface
//! with size-class buffers, the RAM-based [`Packetization`] core, an N-entry egress [`Timer`]
//! and the payload read-out into a packet stream ([`PacketReadOut`]). One implementation for
//! every size; the size
//! classes are constructor parameters ([`TxPath::new`], checked by [`check_tx_classes`]), the
//! payload memory is addressed with `PW` bits and holds exactly the words the classes use
//! ([`SizedRam`]: 608 KiB at 16 messages, 928 KiB at 128).
//!
//! ```text
//!  s_axis_msg ─▶ message writer ──▶ payload RAM (class sizes) ─▶ read-out ─▶ 2-entry buffer ─▶ m_axis_pkt
//!   (64-bit)      │ size-class allocator  ▲                        ▲ (descriptor: Listing 3.2)
//!                 └─ install ─▶ Packetization<N> ─────────────────┘
//!  dlv / ctx ─▶ event FIFOs ─▶ │ ▲ sched/cancel/timeout
//!                                  ▼ │
//!                          egress Timer<N> (metadata {tx_msg_id, maxTxPktOffset+1})
//! ```
//!
//! # CPU message interface (`s_axis_msg_*`, 64-bit AXI4-Stream)
//! One message = one stream packet: word 0 `{rank[47:40], credit_valid[32], credit[31:16],
//! msg_len[15:0]}`, word 1 `{local_port[63:48], remote_port[47:32], remote_ip[31:0]}`, then
//! `ceil(msg_len/8)` payload words (little-endian bytes), `tlast` on the last one with `tkeep`
//! marking its valid bytes. `s_axis_msg.tready` never depends on `tdata`: word 0 is taken whenever
//! no install is pending, and when word 1 is accepted the **smallest size class with a free buffer
//! that fits** `msg_len` is allocated (§3.3.2); a larger class is used when the smaller ones are
//! exhausted; when none fits, `s_axis_msg.tready` stays low on word 1 (backpressure, no loss)
//! until a buffer that fits is returned. The choice is made a cycle ahead, from the buffers
//! free in the cycle before word 1 is taken (a registered pick, so neither the length compare
//! nor the find-first-set is on `tready`'s path): a buffer returned in cycle t can be taken from
//! t + 2. The buffer index is the
//! message slot: class k owns the slots after those of classes 0 … k−1; one in-use bit per slot
//! (changed through one-hot masks), one find-first-set per class, a table of buffer base
//! addresses built from the classes. After the last word the message is installed in the core
//! and its tx_msg_id is returned on `msg_id_valid`/`msg_id` (a one-cycle pulse).
//!
//! **Size classes of the presets** ([`tx_classes_for`]):
//! * 16 messages: **16 × 38 KiB** (38 packets = 38 912 B, the largest message): every slot holds a
//!   maximum-size message, so 16 of them can be in flight at once, as in the prototype.
//!   608 KiB of buffers in a 2^17-word (1 MiB) memory.
//! * 128 messages: **64 × 1 KiB** (slots 0–63), **32 × 4 KiB** (64–95), **16 × 8 KiB** (96–111),
//!   **16 × 38 KiB** (112–127): 928 KiB in a 2^17-word (1 MiB) memory. At most 16 messages above
//!   8 KiB are held at once (the prototype's 128 × 32 KB would need 4 MiB).
//!
//! Bad input: `msg_len` 0 or above the largest class (38 912 in both presets) → the message is
//! consumed and dropped, `rejected_msg_count`; a stream packet whose length disagrees with
//! `msg_len` (early/late `tlast`, wrong last `tkeep`) → dropped, its buffer (if one was allocated)
//! returned, `framing_error_count`; a buffer freed while free (never expected) →
//! `buffer_double_free_count`.
//!
//! # Completion records (`done_*`, valid/ready)
//! One per message: tx_msg_id and `done_abandoned` (0 = every packet delivered, 1 = abandoned
//! after too many timeouts), queued in an N-entry FIFO (one per freed slot, so it never
//! overflows) and offered in the order the slots were freed, from the third cycle after the core
//! frees the slot (a register, then the FIFO). A message's buffer returns to the
//! allocator once its completion has been taken and no packet read-out (nor a descriptor queued in
//! the core) still references it, so neither a late read-out nor an unread completion can see a
//! reused buffer. The return takes two cycles: a find-first-set over the returning slots, minus
//! the slots busy in the previous cycle, picks a candidate into a register; the next cycle returns
//! it unless a descriptor or the read-out references it then (four slot compares), and the
//! candidate under test is left out of that cycle's pick, so one buffer returns per cycle.
//! A slot whose message had the slot's **last generation** waits at least
//! [`KEY_REUSE_CYCLES`] + 1 cycles first (a FIFO of such slots with their return time, its head's
//! age judged a cycle ahead; `cooling_slots` says
//! how many wait): its next tx_msg_id wraps to generation 0, and every key of the slot's previous
//! round was used before that return, so a message key is never reused within
//! `KEY_REUSE_CYCLES`, longer than a receiver remembers a delivered key. A new message can
//! therefore never be taken for a copy of an old one (the sender's half of at-most-once
//! delivery). The pause comes once per `2^(16 − IW)` uses of a slot (4 096 at 16 slots, 512 at
//! 128) and costs nothing otherwise; in the long run it allows 65 536 messages per
//! `KEY_REUSE_CYCLES`, one per 4.8 cycles, more than line rate.

//! # Packet stream (`m_axis_pkt`, 64-bit AXI4-Stream)
//! The payload of one packet (≤ 1024 B) per stream packet, `tkeep` on the last beat; the egress
//! metadata of Listing 3.2 (`m_axis_pkt.remote_ip` … `m_axis_pkt.is_rtx`) is valid with every beat
//! of the packet, to be sampled with the first.
//!
//! # Events and timer
//! `dlv` (DeliveredEvent) and `ctx` (CreditTxEvent) enter the core's 16-entry event FIFOs and
//! take effect 3 cycles after they arrive, one event per cycle in total (see [`Packetization`]:
//! either kind alone at one per cycle is never lost; an event that finds its FIFO full is dropped
//! and counted in `event_overflow_count`). The egress timer is scheduled at the install
//! (`rto_cycles` later, metadata: nothing sent yet), rescheduled by every timeout that does not
//! abandon the message, and cancelled on full delivery; it scans its N entries, so an expiry is
//! raised up to N + 2 cycles after it is due. Time is a free-running cycle counter. Algorithm 4
//! taken literally: a lost packet is first retransmitted at the **second** expiry; a message none
//! of whose packets is acknowledged is abandoned at expiry `timeout_threshold + 2`.
//!
//! # Latency and throughput (measured on the Verilator models, testbenches/tests/tx_path.rs)
//! 16-byte message, first word accepted in cycle 0: words 1–3 in cycles 1–3, the install waits in
//! the writer's commit register in cycle 4 and wins the core's S0, S1 in cycle 5 installs it
//! (`msg_id_valid`), S2 in cycle 6 chooses its first packet, the descriptor is accepted by the
//! idle read-out in cycle 7 and its first payload read issued in the same cycle, the memory
//! returns the word in cycle 8 and the output buffer shows the first beat in cycle 9: **9
//! cycles** at both sizes (`sixteen_byte_message_latency_*`). Throughput: one payload beat per
//! cycle (a 38-packet message: 4864 beats in 4864 cycles); at 16 messages the core gives one
//! descriptor per cycle from three or more messages (16 queued 1-byte messages leave as one-beat
//! packets in 19 cycles), one every 3 cycles from a single message; at 128 messages 100 queued
//! 1-byte messages take 131 cycles (0.76 per cycle; measured, the source of the gaps not yet
//! traced); 1-byte messages with ACKs fed back as
//! DeliveredEvents: one 9-beat frame every 9.000 cycles, no idle wire cycle (line rate). The CPU
//! side takes one word per cycle, plus one cycle per message for the install.
//!
//! Retransmission timing (RTO 1000 cycles, threshold 2, a 1-byte message never acknowledged;
//! `lost_single_packet_message_retransmission_and_abandon_timing`): at 128 messages sent 4 cycles
//! after `msg_id_valid`, retransmitted at 2053 and 3077, abandoned at 4097 (the timer's scan adds
//! up to N + 2 cycles per expiry, less at 16 messages).
//!
//! # Reset
//! One cycle of `reset`: every buffer and slot free, timers cancelled, queues empty, counters
//! zero (slot generations continue, see [`Packetization`]).

use crate::common::bundles::{CreditTxEventSink, DeliveredEventSink, NicPacketSource, NicStreamSink, PacketDescriptorSource};
use crate::common::event_counter::SaturatingCounter;
use crate::common::find_first_set::FindFirstSet;
use crate::common::one_hot::OneHot;
use crate::common::sized_ram::SizedRam;
use crate::common::stream_fifo::StreamFifo;
use crate::nic::delivered_set::DEFAULT_HORIZON_CYCLES;
use crate::nic::packet_read_out::PacketReadOut;
use crate::nic::packetization::Packetization;
use crate::nic::timer::Timer;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Largest message: 38 packets of 1024 bytes.
pub const TX_MAX_MSG_BYTES: u64 = 38 * 1024;
/// Payload address bits of the presets up to 128 messages: 2^17 64-bit words (1 MiB), the smallest
/// power of two that holds 16 × 38 KiB (608 KiB) and the 128-message classes (928 KiB); larger
/// sizes double it with the message count ([`crate::configs::COMPILED_SIZES`]).
pub const TX_PAYLOAD_ADDR_BITS: usize = crate::nic::reassembly::PAYLOAD_WORD_BITS;
/// The shortest time before a sender reuses a message key `{local IP, port, tx_msg_id}`: longer
/// than a receiver may remember a delivered key (17/16 of [`DEFAULT_HORIZON_CYCLES`]) plus
/// [`KEY_REUSE_MARGIN_CYCLES`]. A slot's tx_msg_id is `{generation, slot}`, so a key comes back
/// only when the slot's generation wraps: a returned slot whose message had the last generation
/// waits this long before its next use (311 296 cycles, 97 µs at 3.2 GHz).
pub const KEY_REUSE_CYCLES: u64 = DEFAULT_HORIZON_CYCLES + DEFAULT_HORIZON_CYCLES / 16 + KEY_REUSE_MARGIN_CYCLES;
/// Time allowed between a sender freeing a message's slot and the receiver releasing that message
/// (packets in flight, queueing, the receiver's read-out): 2^15 cycles, 10.2 µs at 3.2 GHz.
pub const KEY_REUSE_MARGIN_CYCLES: u64 = 1 << 15;

/// Most size classes a transmit path has (a class with no buffers is allowed).
pub const TX_MAX_CLASSES: usize = 4;
// The allocation chain in `update` indexes its last element with the literal 4.
const _: () = assert!(TX_MAX_CLASSES == 4);

/// One size class of transmit buffers: `buffers` buffers of `bytes` bytes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxSizeClass {
    pub buffers: usize,
    pub bytes: u64,
}

/// Payload memory layout of a class list: per class (first slot, first 64-bit word, words per
/// buffer), and the words used in all.
pub fn tx_class_layout(classes: &[TxSizeClass]) -> (Vec<(usize, u64, u64)>, u64) {
    let (mut slot, mut word) = (0usize, 0u64);
    let mut out = vec![];
    for c in classes {
        let words = c.bytes.div_ceil(8);
        out.push((slot, word, words));
        slot += c.buffers;
        word += words * c.buffers as u64;
    }
    (out, word)
}

/// Checks a class list for a transmit path of `n` slots and a payload memory of `2^pw` words;
/// the error names the parameter and its valid range.
pub fn check_tx_classes(classes: &[TxSizeClass], n: usize, pw: usize) -> Result<(), String> {
    if classes.is_empty() || classes.len() > TX_MAX_CLASSES {
        return Err(format!("transmit size classes: {} given, 1..={TX_MAX_CLASSES} allowed", classes.len()));
    }
    let buffers: usize = classes.iter().map(|c| c.buffers).sum();
    if buffers != n {
        return Err(format!("transmit size classes: {buffers} buffers in all, must equal the {n} message slots"));
    }
    for (k, c) in classes.iter().enumerate() {
        if c.bytes == 0 || c.bytes > TX_MAX_MSG_BYTES {
            return Err(format!("transmit size class {k}: {} bytes, valid 1..={TX_MAX_MSG_BYTES}", c.bytes));
        }
        if k > 0 && c.bytes <= classes[k - 1].bytes {
            return Err(format!(
                "transmit size class {k}: {} bytes, must be larger than class {} ({} bytes)",
                c.bytes,
                k - 1,
                classes[k - 1].bytes
            ));
        }
    }
    let words = tx_class_layout(classes).1;
    if words > 1u64 << pw {
        return Err(format!("transmit size classes: {words} payload words, the memory holds 2^{pw} = {}", 1u64 << pw));
    }
    Ok(())
}

/// The transmit path for `N = 2^IW` messages with a payload memory of `2^PW` 64-bit words.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in default_credit: Bits<16>;
    in timeout_threshold: Bits<8>;
    /// Retransmit at the first expiry after an install ([`Packetization`]'s option).
    in rtx_first_expiry: Bit;
    in probe_idle_timeout: Bit;
    in rto_cycles: Bits<32>;
    out msg_id_valid: Bit;
    out msg_id: Bits<16>;
    // completion records
    out done_valid, done_abandoned: Bit;
    in done_ready: Bit;
    out done_tx_msg_id: Bits<16>;
    // status and counters
    out active: Bits<N>;
    out buffers_all_free: Bit;
    out rejected_msg_count, framing_error_count, stale_delivered_count, stale_credit_count, stale_timeout_count, ack_beyond_count,
    rtx_beyond_count, credit_beyond_count, delivered_msg_count, abandoned_msg_count, write_busy_count,
    buffer_double_free_count: Bits<16>;
    /// Slots returned and cooling down before they can be allocated again.
    out cooling_slots: Bits<16>;
    out buffers_exhausted: Bit;
    out event_overflow_count: Bits<16>;
)]
#[registers(
    buf_in_use: Bits<N>;
    /// The core's completion, registered before the FIFO (the core's last stage decides it).
    comp_in_valid: Bit;
    comp_in_data: Bits<17>;
    /// Buffer return, cycle 1: the candidate picked from returning slots not busy last cycle.
    ret_cand_valid: Bit;
    ret_cand_slot: Bits<IW>;
    /// Slots referenced by a queued descriptor or the read-out, as of the previous cycle.
    busy_seen: Bits<N>;
    /// The cooling FIFO's head has waited long enough, judged last cycle, and it is still the head.
    cool_due: Bit;
    cool_steady: Bit;
    now: Bits<64>;
    // message writer
    w_state: Bits<2>;
    w_slot: Bits<IW>;
    w_len, w_credit, w_rport, w_lport, w_word: Bits<16>;
    w_credit_valid: Bit;
    w_rank: Bits<8>;
    w_ip: Bits<32>;
    /// Payload words still to come, the current one included (word 1 sets it).
    w_left: Bits<16>;
    /// The buffer word 1 takes, picked a cycle ahead from the buffers free then (only word 1
    /// allocates, so a picked buffer is still free when it is taken).
    a_pick_valid: Bit;
    a_pick_slot: Bits<IW>;
    w_commit: Bit;
    // buffer return
    returning: Bits<N>;
    /// Returning slots whose last message had the last generation (their next ID wraps).
    wrapping: Bits<N>;
)]
#[locals(
    // writer locals
    w0_len: Bits<16>;
    w0_reject, a_any, w_alloc, free_ok, w_ready, w_take: Bit;
    in_use_after_alloc: Bits<N>;
    a_slot: Bits<IW>;
    w_last_keep: Bits<8>;
    w_expect_last, w_framing_free, w_framing_early: Bit;
    w_base: Bits<PW>;
    // completion / return locals
    comp_take, ret_go, ret_cand_busy: Bit;
    comp_slot: Bits<IW>;
    busy_mask: Bits<N>;
    free_go, cool_go, ret_wraps, comp_wraps: Bit;
    free_slot: Bits<IW>;
    now_shifted, cool_since, cool_age: Bits<32>;
    wrap_after_take, ret_after_take: Bits<N>;
)]
#[derive(LogicBlock, Blank)]
pub struct TxPath<const N: usize, const IW: usize, const PW: usize> {
    // CPU message stream
    /// Messages from the CPU (`s_axis_msg$tdata`, … in the Verilog).
    pub s_axis_msg: NicStreamSink,
    // events
    pub dlv: DeliveredEventSink,
    pub ctx: CreditTxEventSink,
    // packet stream
    pub m_axis_pkt: NicPacketSource,

    core: Packetization<N, IW>,
    timer: Timer<N, IW, 24>,
    /// Exactly the words the size classes use ([`SizedRam`]).
    payload: SizedRam<Bits<64>, PW>,
    // Buffer base (64-bit word) per slot, of the writer's slot and of the descriptor's slot.
    w_base_rom: ROM<Bits<PW>, IW>,
    d_base_rom: ROM<Bits<PW>, IW>,
    // Size classes (run-time parameters): the slots of each class, its buffer size in bytes.
    class_slots: [Constant<Bits<N>>; TX_MAX_CLASSES],
    class_bytes: [Constant<Bits<16>>; TX_MAX_CLASSES],
    class_ffs: [FindFirstSet<N, IW>; TX_MAX_CLASSES],
    max_msg_bytes: Constant<Bits<16>>,
    comp_capacity: Constant<Bits<16>>,
    ones8: Constant<Bits<8>>,
    cnt_double_free: SaturatingCounter<16>,
    comp_q: StreamFifo<Bits<17>, IW>,
    ret_ffs: FindFirstSet<N, IW>,
    ret_cand_mask: OneHot<N, IW>,
    /// Returned slots waiting before their generation wraps: `{returned at (cycle mod 2^(32 − IW)), slot}`.
    cool_q: StreamFifo<Bits<32>, IW>,
    /// The cool-down and the time field's mask, shifted left by `IW` like the entries.
    cooldown: Constant<Bits<32>>,
    time_mask: Constant<Bits<32>>,
    slot_bits: Constant<Bits<8>>,
    slot_mask16: Constant<Bits<16>>,
    cnt_rejected: SaturatingCounter<16>,
    cnt_framing: SaturatingCounter<16>,
    /// The packet read-out: descriptors to payload beats.
    read_out: PacketReadOut<IW, PW>,

    // writer locals
    a_use: [Signal<Local, Bit>; TX_MAX_CLASSES],
    a_before: [Signal<Local, Bit>; 5],
    /// Per class: the message fits (word 0's length while it is offered, else the message's;
    /// both compared, then chosen, so the state is not in front of the compare).
    a_fits: [Signal<Local, Bit>; TX_MAX_CLASSES],
    // completion / return locals
    busy_core0: OneHot<N, IW>,
    busy_core1: OneHot<N, IW>,
    busy_core2: OneHot<N, IW>,
    busy_rd: OneHot<N, IW>,
    /// One-hot masks of the completion taken, the buffer allocated and the buffer freed.
    taken_mask: OneHot<N, IW>,
    alloc_mask: OneHot<N, IW>,
    freed_mask: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize, const PW: usize> TxPath<N, IW, PW> {
    /// A transmit path with the given size classes (see [`check_tx_classes`]; panics with its
    /// message when they do not fit).
    pub fn new(classes: &[TxSizeClass]) -> Self {
        assert_eq!(N, 1 << IW, "the transmit path holds exactly 2^IW messages");
        if let Err(e) = check_tx_classes(classes, N, PW) {
            panic!("{e}");
        }
        let (layout, words_used) = tx_class_layout(classes);
        let mut base = std::collections::BTreeMap::new();
        let mut masks = [Bits::<N>::default(); TX_MAX_CLASSES];
        let mut bytes = [0u64; TX_MAX_CLASSES];
        for (k, (c, (first, word, words))) in classes.iter().zip(layout).enumerate() {
            bytes[k] = c.bytes;
            for b in 0..c.buffers {
                masks[k] = masks[k].replace_bit(first + b, true);
                base.insert(Bits::<IW>::from((first + b) as u64), Bits::<PW>::from(word + words * b as u64));
            }
        }
        let max_bytes = classes.iter().map(|c| c.bytes).max().unwrap_or(0);
        Self {
            payload: SizedRam::new(words_used),
            w_base_rom: ROM::new(base.clone()),
            d_base_rom: ROM::new(base),
            class_slots: std::array::from_fn(|k| Constant::new(masks[k])),
            class_bytes: std::array::from_fn(|k| Constant::new(bytes[k].into())),
            max_msg_bytes: Constant::new(max_bytes.into()),
            comp_capacity: Constant::new((N as u64).into()),
            ones8: Constant::new(0xFFu64.into()),
            cooldown: Constant::new((KEY_REUSE_CYCLES << IW).to_bits()),
            slot_mask16: Constant::new(((1u64 << IW) - 1).to_bits()),
            time_mask: Constant::new(((u32::MAX as u64) & !((1u64 << IW) - 1)).to_bits()),
            slot_bits: Constant::new((IW as u64).to_bits()),
            ..Self::blank()
        }
    }
}

impl<const N: usize, const IW: usize, const PW: usize> Default for TxPath<N, IW, PW> {
    /// The preset size classes of this size ([`tx_classes_for`]).
    fn default() -> Self {
        Self::new(&tx_classes_for(N))
    }
}

/// Transmit size classes for `messages` per direction (buffers sum to the message count). From
/// 128 on the 128-message classes scale with the message count, `N/2 × 1 KiB, N/4 × 4 KiB,
/// N/8 × 8 KiB, N/8 × 38 KiB` (7.25 KiB per message of the 8 KiB the payload memory has), so
/// `N/8` maximum-size messages can be sent at once.
pub fn tx_classes_for(messages: usize) -> Vec<TxSizeClass> {
    match messages {
        // Every slot holds a maximum-size (38-packet) message, as the prototype.
        16 => vec![TxSizeClass { buffers: 16, bytes: TX_MAX_MSG_BYTES }],
        32 => vec![TxSizeClass { buffers: 16, bytes: 4096 }, TxSizeClass { buffers: 16, bytes: TX_MAX_MSG_BYTES }],
        64 => vec![
            TxSizeClass { buffers: 32, bytes: 1024 },
            TxSizeClass { buffers: 8, bytes: 4096 },
            TxSizeClass { buffers: 8, bytes: 8192 },
            TxSizeClass { buffers: 16, bytes: TX_MAX_MSG_BYTES },
        ],
        // From 128 on: N/2 × 1 KiB, N/4 × 4 KiB, N/8 × 8 KiB, N/8 × 38 KiB (at 128: 64, 32, 16, 16).
        n => vec![
            TxSizeClass { buffers: n / 2, bytes: 1024 },
            TxSizeClass { buffers: n / 4, bytes: 4096 },
            TxSizeClass { buffers: n / 8, bytes: 8192 },
            TxSizeClass { buffers: n / 8, bytes: TX_MAX_MSG_BYTES },
        ],
    }
}

impl<const N: usize, const IW: usize, const PW: usize> Logic for TxPath<N, IW, PW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            now,
            w_state,
            w_slot,
            w_len,
            w_credit,
            w_credit_valid,
            w_rank,
            w_ip,
            w_rport,
            w_lport,
            w_word,
            w_left,
            a_pick_valid,
            a_pick_slot,
            w_commit,
            buf_in_use,
            returning,
            wrapping,
            ret_cand_valid,
            ret_cand_slot,
            busy_seen,
            comp_in_valid,
            comp_in_data,
            cool_due,
            cool_steady
        );
        status_counters!(
            self,
            clock,
            reset,
            cnt_double_free => buffer_double_free_count,
            cnt_framing => framing_error_count,
            cnt_rejected => rejected_msg_count,
        );
        clock!(self, clock, core, timer, comp_q, cool_q, read_out);
        self.read_out.reset.next = self.reset.val();
        self.payload.clock.next = self.clock.val();
        self.now.d.next = self.now.q.val() + 1;
        self.core.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.comp_q.reset.next = self.reset.val();
        self.cool_q.reset.next = self.reset.val();

        // Buffer base addresses (64-bit words) of the writer's slot and of the descriptor's slot,
        // from the class layout (a table built from the size classes).
        self.w_base_rom.address.next = self.w_slot.q.val();
        self.d_base_rom.address.next = self.core.pkt.slot.val();

        // ---------------- configuration and events to the core ----------------
        self.core.default_credit.next = self.default_credit.val();
        self.core.timeout_threshold.next = self.timeout_threshold.val();
        self.core.rtx_first_expiry.next = self.rtx_first_expiry.val();
        self.core.probe_idle_timeout.next = self.probe_idle_timeout.val();
        DeliveredEventSink::link(&mut self.dlv, &mut self.core.dlv);
        CreditTxEventSink::link(&mut self.ctx, &mut self.core.ctx);

        // ---------------- egress timer ----------------
        self.timer.now.next = self.now.q.val();
        self.timer.sched_valid.next = self.core.sched_valid.val();
        self.timer.sched_id.next = self.core.sched_slot.val();
        self.timer.sched_delay.next = self.rto_cycles.val();
        self.timer.sched_meta.next = self.core.sched_meta.val();
        self.timer.cancel_valid.next = self.core.cancel_valid.val();
        self.timer.cancel_id.next = self.core.cancel_slot.val();
        // The core never takes a timeout of the slot whose timer it schedules or cancels in the
        // same cycle (its S0 holds back events for the slot in S1), so it reads the timer's
        // registered offer and the timer's same-cycle mask stays out of its arbitration.
        self.core.to_valid.next = self.timer.timeout_offered.val();
        self.core.to_slot.next = self.timer.timeout_id.val();
        self.core.to_meta.next = self.timer.timeout_meta.val();
        self.timer.timeout_ready.next = self.core.to_ready.val();

        // ---------------- message writer ----------------
        self.w0_len.next = self.s_axis_msg.tdata.val().get_bits::<16>(0);
        self.w0_reject.next = (self.w0_len.val() == 0) | (self.w0_len.val() > self.max_msg_bytes.val());
        // The smallest class with a free buffer that fits the message, else a larger one: picked
        // in every cycle from the registered in-use bits, for word 0's length in state 0 and the
        // message's after, and used by word 1 in a later cycle (so the class fits and the
        // find-first-set stay out of `tready`; a buffer returned in cycle t is picked from t + 1).
        self.a_before[0].next = false;
        // At most one class is used, so the slot is an OR of the used class's index.
        self.a_slot.next = 0.into();
        for k in 0..TX_MAX_CLASSES {
            self.class_ffs[k].bitmap.next = self.class_slots[k].val() & (!self.buf_in_use.q.val());
            self.a_fits[k].next = self.w_len.q.val() <= self.class_bytes[k].val();
            if self.w_state.q.val() == 0 {
                self.a_fits[k].next = self.w0_len.val() <= self.class_bytes[k].val();
            }
            self.a_use[k].next = (self.a_fits[k].val() & self.class_ffs[k].found.val()) & (!self.a_before[k].val());
            self.a_before[k + 1].next = self.a_before[k].val() | self.a_use[k].val();
            if self.a_use[k].val() {
                self.a_slot.next = self.a_slot.val() | self.class_ffs[k].index.val();
            }
        }
        self.a_any.next = self.a_before[4].val();
        self.a_pick_valid.d.next = self.a_any.val();
        self.a_pick_slot.d.next = self.a_slot.val();
        // tready never depends on tdata: word 0 is taken whenever no install is pending, and the
        // buffer is allocated with word 1, which waits until one that fits is free.
        self.w_ready.next = true;
        if self.w_state.q.val() == 0 {
            self.w_ready.next = !self.w_commit.q.val();
        } else if self.w_state.q.val() == 1 {
            self.w_ready.next = self.a_pick_valid.q.val();
        }
        self.s_axis_msg.tready.next = self.w_ready.val() & (!self.reset.val());
        self.w_take.next = (self.s_axis_msg.tvalid.val() & self.w_ready.val()) & (!self.reset.val());
        self.w_last_keep.next = !(self.ones8.val() << bit_cast::<8, 3>(self.w_len.q.val().get_bits::<3>(0)));
        if self.w_len.q.val().get_bits::<3>(0) == 0 {
            self.w_last_keep.next = 0xFF.into();
        }
        self.w_expect_last.next = self.w_left.q.val() == 1;
        self.w_alloc.next = false;
        self.w_framing_free.next = false;
        self.w_framing_early.next = false;
        self.w_base.next = self.w_base_rom.data.val();
        self.payload.write_address.next = self.w_base.val() + bit_cast::<PW, 16>(self.w_word.q.val());
        self.payload.write_data.next = self.s_axis_msg.tdata.val();
        self.payload.write_enable.next = false;
        if self.w_take.val() {
            if self.w_state.q.val() == 0 {
                if self.w0_reject.val() {
                    self.cnt_rejected.increment.next = true;
                    if !self.s_axis_msg.tlast.val() {
                        self.w_state.d.next = 3.into();
                    }
                } else if self.s_axis_msg.tlast.val() {
                    // A message that ends on its first word: nothing allocated.
                    self.w_framing_early.next = true;
                } else {
                    self.w_len.d.next = self.w0_len.val();
                    self.w_credit.d.next = self.s_axis_msg.tdata.val().get_bits::<16>(16);
                    self.w_credit_valid.d.next = self.s_axis_msg.tdata.val().get_bit(32);
                    self.w_rank.d.next = self.s_axis_msg.tdata.val().get_bits::<8>(40);
                    self.w_word.d.next = 0.into();
                    self.w_state.d.next = 1.into();
                }
            } else if self.w_state.q.val() == 1 {
                self.w_ip.d.next = self.s_axis_msg.tdata.val().get_bits::<32>(0);
                self.w_rport.d.next = self.s_axis_msg.tdata.val().get_bits::<16>(32);
                self.w_lport.d.next = self.s_axis_msg.tdata.val().get_bits::<16>(48);
                if self.s_axis_msg.tlast.val() {
                    // A message that ends on its second word: nothing allocated yet.
                    self.w_framing_early.next = true;
                    self.w_state.d.next = 0.into();
                } else {
                    self.w_alloc.next = true;
                    self.w_slot.d.next = self.a_pick_slot.q.val();
                    self.w_left.d.next = (self.w_len.q.val() + 7) >> 3;
                    self.w_state.d.next = 2.into();
                }
            } else if self.w_state.q.val() == 2 {
                self.payload.write_enable.next = true;
                self.w_word.d.next = self.w_word.q.val() + 1;
                self.w_left.d.next = self.w_left.q.val() - 1;
                if self.s_axis_msg.tlast.val() {
                    self.w_state.d.next = 0.into();
                    if self.w_expect_last.val() & (self.s_axis_msg.tkeep.val() == self.w_last_keep.val()) {
                        self.w_commit.d.next = true;
                    } else {
                        self.w_framing_free.next = true;
                    }
                } else if self.w_expect_last.val() {
                    self.w_framing_free.next = true;
                    self.w_state.d.next = 3.into();
                }
            } else if self.s_axis_msg.tlast.val() {
                self.w_state.d.next = 0.into();
            }
        }
        if self.w_framing_free.val() | self.w_framing_early.val() {
            self.cnt_framing.increment.next = true;
        }
        // Install in the core (held until its pipeline takes it).
        self.core.new_valid.next = self.w_commit.q.val();
        self.core.new_slot.next = self.w_slot.q.val();
        self.core.new_remote_ip.next = self.w_ip.q.val();
        self.core.new_remote_port.next = self.w_rport.q.val();
        self.core.new_local_port.next = self.w_lport.q.val();
        self.core.new_msg_len.next = self.w_len.q.val();
        self.core.new_credit_valid.next = self.w_credit_valid.q.val();
        self.core.new_credit.next = self.w_credit.q.val();
        self.core.new_rank.next = self.w_rank.q.val();
        // Outputs are 0 while their valid is low (the ID comes from the core's slot RAM).
        self.msg_id_valid.next = self.core.new_id_valid.val();
        self.msg_id.next = 0.into();
        if self.core.new_id_valid.val() {
            self.msg_id.next = self.core.new_id.val();
        }
        if self.w_commit.q.val() & self.core.new_ready.val() {
            self.w_commit.d.next = false;
        }

        // ---------------- completions and buffer return ----------------
        // One completion per freed slot; a slot is freed again only after its buffer came back,
        // which needs its completion taken, so at most N are ever queued: no overflow.
        self.comp_in_valid.d.next = self.core.done_valid.val();
        self.comp_in_data.d.next =
            bit_cast::<17, 16>(self.core.done_tx_msg_id.val()) | (bit_cast::<17, 1>(self.core.done_abandoned.val().into()) << 16);
        self.comp_q.push.next = self.comp_in_valid.q.val() & (self.comp_q.level.val() != self.comp_capacity.val());
        self.comp_q.push_data.next = self.comp_in_data.q.val();
        // The FIFO's head word is its memory's read data: 0 while there is no completion.
        self.done_valid.next = self.comp_q.head_valid.val();
        self.done_tx_msg_id.next = 0.into();
        self.done_abandoned.next = false;
        if self.comp_q.head_valid.val() {
            self.done_tx_msg_id.next = self.comp_q.head_data.val().get_bits::<16>(0);
            self.done_abandoned.next = self.comp_q.head_data.val().get_bit(16);
        }
        self.comp_take.next = self.comp_q.head_valid.val() & self.done_ready.val();
        self.comp_q.pop.next = self.comp_take.val();
        self.comp_slot.next = self.comp_q.head_data.val().get_bits::<IW>(0);
        // Buffers referenced by the core's descriptor queue or the read-out stay out: one-hot
        // masks of their slots (no runtime-indexed update of an N-bit vector).
        self.busy_core0.index.next = self.core.pkt.slot.val();
        self.busy_core0.enable.next = self.core.pkt.valid.val();
        self.busy_core1.index.next = self.core.pkt_q1_slot.val();
        self.busy_core1.enable.next = self.core.pkt_q1_valid.val();
        self.busy_core2.index.next = self.core.pkt_q2_slot.val();
        self.busy_core2.enable.next = self.core.pkt_q2_valid.val();
        self.busy_rd.index.next = self.read_out.busy_slot.val();
        self.busy_rd.enable.next = self.read_out.busy.val();
        self.busy_mask.next =
            ((self.busy_core0.onehot.val() | self.busy_core1.onehot.val()) | self.busy_core2.onehot.val()) | self.busy_rd.onehot.val();
        self.busy_seen.d.next = self.busy_mask.val();
        // Cycle 1 picks from registers only; the candidate under test now is left out.
        self.ret_cand_mask.index.next = self.ret_cand_slot.q.val();
        self.ret_cand_mask.enable.next = self.ret_cand_valid.q.val();
        self.ret_ffs.bitmap.next = (self.returning.q.val() & (!self.busy_seen.q.val())) & (!self.ret_cand_mask.onehot.val());
        self.ret_cand_valid.d.next = self.ret_ffs.found.val();
        self.ret_cand_slot.d.next = self.ret_ffs.index.val();
        // Cycle 2: a slot that became busy since is kept (it is picked again later).
        self.ret_cand_busy.next = (((self.core.pkt.valid.val() & (self.core.pkt.slot.val() == self.ret_cand_slot.q.val()))
            | (self.core.pkt_q1_valid.val() & (self.core.pkt_q1_slot.val() == self.ret_cand_slot.q.val())))
            | (self.core.pkt_q2_valid.val() & (self.core.pkt_q2_slot.val() == self.ret_cand_slot.q.val())))
            | (self.read_out.busy.val() & (self.read_out.busy_slot.val() == self.ret_cand_slot.q.val()));
        // A returned slot whose generation is the last one (its next tx_msg_id wraps to
        // generation 0) waits KEY_REUSE_CYCLES in the cooling FIFO before its buffer is free
        // again; any other returned slot is free at once. Free port priority: a framing error's
        // buffer, then the cooling FIFO's head, then a returned slot.
        self.now_shifted.next = self.now.q.val().get_bits::<32>(0) << self.slot_bits.val();
        self.cool_since.next = self.cool_q.head_data.val() & self.time_mask.val();
        self.cool_age.next = self.now_shifted.val() - self.cool_since.val();
        // The age is judged a cycle ahead (one cycle later than it could be, which only lengthens
        // the wait), and only for a head that did not change since.
        self.cool_due.d.next = self.cool_age.val() >= self.cooldown.val();
        self.cool_go.next =
            ((self.cool_q.head_valid.val() & self.cool_steady.q.val()) & self.cool_due.q.val()) & (!self.w_framing_free.val());
        self.cool_steady.d.next = self.cool_q.head_valid.val() & (!self.cool_go.val());
        self.cool_q.pop.next = self.cool_go.val();
        self.cooling_slots.next = self.cool_q.level.val();
        self.ret_go.next =
            ((self.ret_cand_valid.q.val() & (!self.ret_cand_busy.val())) & (!self.w_framing_free.val())) & (!self.cool_go.val());
        self.ret_wraps.next = self.wrapping.q.val().get_bit(self.ret_cand_slot.q.val().index());
        self.cool_q.push.next = self.ret_go.val() & self.ret_wraps.val();
        self.cool_q.push_data.next = self.now_shifted.val() | bit_cast::<32, IW>(self.ret_cand_slot.q.val());
        self.free_go.next = (self.w_framing_free.val() | self.cool_go.val()) | (self.ret_go.val() & (!self.ret_wraps.val()));
        self.free_slot.next = self.ret_cand_slot.q.val();
        if self.cool_go.val() {
            self.free_slot.next = self.cool_q.head_data.val().get_bits::<IW>(0);
        }
        if self.w_framing_free.val() {
            self.free_slot.next = self.w_slot.q.val();
        }
        // A free is judged against the state at the start of the cycle: freeing a buffer that is
        // not in use (a double free) is counted and changes nothing.
        self.free_ok.next = self.free_go.val() & self.buf_in_use.q.val().get_bit(self.free_slot.val().index());
        if self.free_go.val() & (!self.free_ok.val()) {
            self.cnt_double_free.increment.next = true;
        }
        // Sets first (a completion taken, a buffer allocated), then clears (a buffer returned),
        // each through a one-hot mask over the whole vector.
        self.taken_mask.index.next = self.comp_slot.val();
        self.taken_mask.enable.next = self.comp_take.val();
        self.alloc_mask.index.next = self.a_pick_slot.q.val();
        self.alloc_mask.enable.next = self.w_alloc.val();
        self.freed_mask.index.next = self.free_slot.val();
        self.freed_mask.enable.next = self.free_ok.val();
        self.ret_after_take.next = self.returning.q.val() | self.taken_mask.onehot.val();
        self.in_use_after_alloc.next = self.buf_in_use.q.val() | self.alloc_mask.onehot.val();
        self.comp_wraps.next = (self.comp_q.head_data.val().get_bits::<16>(0) | self.slot_mask16.val()) == 0xFFFF;
        self.wrap_after_take.next = self.wrapping.q.val();
        if self.comp_wraps.val() {
            self.wrap_after_take.next = self.wrapping.q.val() | self.taken_mask.onehot.val();
        }
        self.returning.d.next = self.ret_after_take.val();
        self.wrapping.d.next = self.wrap_after_take.val();
        if self.ret_go.val() {
            self.returning.d.next = self.ret_after_take.val() & (!self.ret_cand_mask.onehot.val());
            self.wrapping.d.next = self.wrap_after_take.val() & (!self.ret_cand_mask.onehot.val());
        }
        self.buf_in_use.d.next = self.in_use_after_alloc.val() & (!self.freed_mask.onehot.val());
        // ---------------- read-out ----------------
        PacketDescriptorSource::<IW>::join(&mut self.core.pkt, &mut self.read_out.desc);
        self.read_out.desc_base.next = self.d_base_rom.data.val();
        self.payload.read_address.next = self.read_out.payload_address.val();
        self.read_out.payload_data.next = self.payload.read_data.val();
        NicPacketSource::link(&mut self.m_axis_pkt, &mut self.read_out.m_axis_pkt);

        // ---------------- status ----------------
        self.active.next = self.core.active.val();
        self.buffers_all_free.next = !self.buf_in_use.q.val().any();
        self.stale_delivered_count.next = self.core.stale_delivered_count.val();
        self.stale_credit_count.next = self.core.stale_credit_count.val();
        self.stale_timeout_count.next = self.core.stale_timeout_count.val();
        self.ack_beyond_count.next = self.core.ack_beyond_count.val();
        self.rtx_beyond_count.next = self.core.rtx_beyond_count.val();
        self.credit_beyond_count.next = self.core.credit_beyond_count.val();
        self.delivered_msg_count.next = self.core.delivered_msg_count.val();
        self.abandoned_msg_count.next = self.core.abandoned_msg_count.val();
        self.write_busy_count.next = self.core.write_busy_count.val();
        self.event_overflow_count.next = self.core.event_overflow_count.val();
        self.buffers_exhausted.next = self.buf_in_use.q.val().all();

        if self.reset.val() {
            self.w_state.d.next = 0.into();
            self.w_commit.d.next = false;
            self.a_pick_valid.d.next = false;
            self.returning.d.next = 0.into();
            self.wrapping.d.next = 0.into();
            self.ret_cand_valid.d.next = false;
            self.comp_in_valid.d.next = false;
            self.cool_steady.d.next = false;
            self.buf_in_use.d.next = 0.into();
        }
    }
}
