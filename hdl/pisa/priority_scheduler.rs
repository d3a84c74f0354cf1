//! Priority scheduler extern (thesis §3.2.2, §3.3.4, Algorithm 6 line 13): Homa's SRPT grant
//! scheduler. Up to 16 messages sit in flip-flop **entries** compared in parallel; further
//! messages wait in a **FIFO** and enter, oldest first, when an entry frees.
//!
//! Messages are identified by their receive slot id (`0..2^IW`). The rank of a message is its
//! number of packets not yet received (`remaining`, lower = higher priority); ties go to the
//! lower id. The **overcommitment set** is the `K` valid entries of lowest rank. A message is
//! **grantable** when it is in the overcommitment set, `granted < total` and
//! `granted < received + rtt_pkts` (fewer than one BDP granted beyond what has arrived).
//! Every ARRIVE asks for a decision: the highest-priority grantable entry (possibly not the
//! message that arrived) gets a GRANT with the new exclusive credit
//! `min(total, received + rtt_pkts)`, stored as the entry's `granted`. A message whose new
//! credit equals its total is fully granted and **leaves the entries** when the decision is
//! applied; the FIFO head then enters.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: no entries, empty FIFO, every id unknown, counters 0 |
//! | `cfg_overcommit` | in | 5 | K, the overcommitment level (1..=16; 0 is taken as 1, ≥ 16 means every entry) |
//! | `cfg_rtt_pkts` | in | 8 | one BDP in packets |
//! | `op_valid`, `op_code` | in | 1, 2 | one operation per cycle: 1 = ARRIVE, 2 = REMOVE (0 and 3 do nothing) |
//! | `op_id` | in | IW | the message (receive slot id) |
//! | `op_remaining`, `op_received`, `op_total` | in | 8 each | ARRIVE: packets not yet received (the rank), cumulative packets received, packets in the message |
//! | `op_granted` | in | 8 | ARRIVE of an unknown message: the offset already granted to it (its current exclusive credit, e.g. `min(total, rtt_pkts)` for a new one) |
//! | `res_valid` | out | 1 | the decision of the ARRIVE of 3 cycles before |
//! | `res_grant` | out | 1 | some message gets a GRANT |
//! | `res_id`, `res_grant_offset`, `res_position` | out | IW, 8, 4 | the granted message, its new credit, its position by rank among the entries of the overcommitment set (0 = fewest remaining) |
//! | `res_received`, `res_total` | out | 8, 8 | the granted message's received count and total |
//! | `inserts_count`, `removes_count`, `unknown_removes_count`, `grants_count`, `fifo_enters_count`, `skipped_arrivals_count`, `close_arrivals_count` | out | 32 each | counters (see below) |
//! | `occupancy` | out | 5 | valid entries (0..=16) |
//! | `fifo_level` | out | 16 | records in the FIFO (a message removed while waiting keeps its record until it is popped and discarded) |
//!
//! # Operations (in this order within one cycle)
//! 1. **FIFO load**: a message popped from the FIFO two cycles ago (see below) enters the lowest
//!    free entry with its latest waiting state, unless it was removed meanwhile.
//! 2. **The op.** ARRIVE of a message in the entries updates its `remaining` and `received`
//!    (`total` and `granted` are kept). ARRIVE of a waiting message updates its waiting state
//!    (same fields). ARRIVE of a message that already left fully granted (and was not removed
//!    since) is ignored (`skipped_arrivals`). ARRIVE of an unknown message with
//!    `op_granted >= op_total` (nothing to schedule, e.g. shorter than a BDP) is not inserted,
//!    only marked fully granted (`skipped_arrivals`). Any other ARRIVE of an unknown message
//!    inserts it (`inserts`): into the lowest free entry if one is free, the FIFO is empty and
//!    no pop is under way, otherwise into the FIFO (`fifo_enters`). REMOVE drops the message
//!    from the entries, or from the waiting set (its FIFO record is discarded when popped), or
//!    clears its fully-granted mark (`removes`); REMOVE of an id the scheduler does not know is
//!    counted in `unknown_removes` and changes nothing.
//! 3. **Decision** (ARRIVE only), on the state right after the op, with that cycle's K and rtt.
//!    It is **applied two cycles later**, after those cycles' ops (`grants` counts it then): the
//!    chosen entry's `granted` is raised and, if fully granted, the entry is freed and the id
//!    marked fully granted. A chosen message REMOVEd in between is still reported but nothing
//!    is applied (a REMOVE in the applying cycle leaves no mark either). An ARRIVE one or two
//!    cycles after a decided ARRIVE is a **close ARRIVE**: the op is applied, but it asks for no
//!    decision (its result says no grant; `close_arrivals`). The Homa ingress sends ARRIVEs at
//!    least 8 cycles apart, so it never sends one.
//!
//! The caller must REMOVE every message that completes or is garbage-collected (whether or not
//! it was ever scheduled): the fully-granted mark of a slot is cleared only by REMOVE.
//!
//! # FIFO
//! The sub-block [`WaitingQueue`]: a RAM of ids (depth 2^IW), and the waiting messages' state
//! in two RAMs indexed by id (`remaining, received` and `total, granted`). The scheduler keeps
//! the per-id bits `queued` (waiting) and `in_fifo` (has a record). An unknown message
//! re-inserted while its slot's old record is still in the FIFO reuses that record (so there is
//! at most one record per id and the FIFO never overflows; such a message takes the old
//! record's place in the order). A pop starts when the FIFO is not empty, an entry is free
//! (registered state) and no pop is under way: cycle a reads the head id, cycle a+1 reads the
//! waiting state (an ARRIVE of that message in cycle a+1 is forwarded past the RAM), cycle a+2
//! loads it (step 1). One pop per 3 cycles.
//!
//! # Latency and throughput
//! One op per cycle, every cycle, any mix of ids; one decision per 3 cycles (a close ARRIVE
//! gets none). The result of an ARRIVE in cycle t is valid in cycle **t+3**. Ops see each
//! other's effects from the next cycle; a decision's effects are seen from 3 cycles after its
//! ARRIVE (an entry freed by it serves the op of that cycle, not the next one's).
//!
//! Three stages keep each cycle short (Yosys xcup: 10 LUT levels at 16 and 128 ids; 29 when
//! the whole decision was one cycle):
//! * **Op** (cycle t): id match, insert, FIFO load, and the **rank order** kept as one register
//!   per pair of entries (`order`). Only the entries whose (remaining, id) changes are compared,
//!   with the others' registered keys: the op's entry and the loaded one (33 comparators, not
//!   120).
//! * **Stage 1** (t+1), on the registered entries: each entry's position (a [`Popcount`] of the
//!   valid entries ordered before it), its new credit, and whether it is grantable; registered
//!   with the order it saw.
//! * **Stage 2** (t+2): the grantable entry with no grantable entry before it is chosen; its
//!   fields are picked by an OR over the (one-hot) chosen entries; its `granted` (and `valid`,
//!   if it leaves) are written, only if the entry is still valid. The id's fully-granted mark is
//!   set in the next cycle from a registered id and forwarded to that cycle's op.
//!
//! A popped id's `queued` bit is read when the id is registered, not from the N-bit vector in
//! the load's cycle.

use crate::common::event_counter::WrappingCounter;
use crate::common::one_hot::OneHot;
use crate::common::popcount::Popcount;
use crate::pisa::waiting_queue::WaitingQueue;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

pub const OP_ARRIVE: u64 = 1;
pub const OP_REMOVE: u64 = 2;

/// Entries compared in parallel.
pub const SCHED_ENTRIES: usize = 16;

/// Pairs of entries (j < i) whose rank order is kept.
const PAIRS: usize = SCHED_ENTRIES * (SCHED_ENTRIES - 1) / 2;

// The pair (j, i), j < i, is register `(i*i - i)/2 + j` of the order (written inline: the
// generator evaluates index expressions itself). The `% 120` keeps the index in range in the
// unrolled branches whose constant condition (`j < i`) is false, which are still visited.

fn arr<T: Default, const N: usize>() -> [T; N] {
    std::array::from_fn(|_| T::default())
}

#[ports(
    in clock: Clock;
    in reset, op_valid: Bit;
    in cfg_overcommit: Bits<5>;
    in cfg_rtt_pkts, op_remaining, op_received, op_total, op_granted: Bits<8>;
    in op_code: Bits<2>;
    in op_id: Bits<IW>;
    out res_valid, res_grant: Bit;
    out res_id: Bits<IW>;
    out res_grant_offset, res_received, res_total: Bits<8>;
    out res_position: Bits<4>;
    out inserts_count, removes_count, unknown_removes_count, grants_count, fifo_enters_count, skipped_arrivals_count,
    close_arrivals_count: Bits<32>;
    out occupancy: Bits<5>;
    out fifo_level: Bits<16>;
)]
#[registers(
    // ---- Per-id bits (N = 2^IW wide).
    queued, in_fifo, done: Bits<N>;
    /// The message loading from the FIFO is still waiting: its `queued` bit, read from the next
    /// state when its id is read, so the load does not start with a read of the N-bit vector.
    p2_queued: Bit;
    /// The configuration of the previous cycle (the ARRIVE's), for stage 1.
    k_reg: Bits<5>;
    rtt_reg: Bits<8>;
    /// An ARRIVE was decided in the previous cycle (stage 1 works on it now).
    b1_valid: Bit;
    // ---- Decision stage 2: stage 1's results, registered.
    b2_valid: Bit;
    /// ARRIVEs on their way to the result (decided or close).
    r1_valid: Bit;
    r2_valid: Bit;
    /// A message left fully granted at the end of the previous cycle: its `done` bit is set in
    /// this cycle (and forwarded to this cycle's op).
    lv_valid: Bit;
    lv_id: Bits<IW>;
    // ---- Result and counters.
    s1_res_valid, s1_res_grant: Bit;
    s1_res_id: Bits<IW>;
    s1_res_offset, s1_res_received, s1_res_total: Bits<8>;
    s1_res_position: Bits<4>;
)]
#[locals(
    // ---- Step 1: FIFO load.
    ld: Bit;
    queued_a: Bits<N>;
    // ---- Step 2: the op.
    is_arrive, is_remove, decide, op_queued, op_done, op_in_fifo, unknown, upd_wait, skip, new_msg, direct, to_fifo, push, rm_known,
    rm_unknown: Bit;
    done_l: Bits<N>;
    op_below_ld: Bit;
    // ---- Stage 1.
    k_all: Bit;
    k_low: Bits<4>;
    any_chosen, any_leave: Bit;
    done_a, in_fifo_a, in_fifo_b, queued_b: Bits<N>;
)]
#[derive(LogicBlock, Blank)]
pub struct PriorityScheduler<const N: usize, const IW: usize> {
    // ---- Entries (flip-flops).
    e_valid: [DFF<Bit>; 16],
    e_id: [DFF<Bits<IW>>; 16],
    e_rem: [DFF<Bits<8>>; 16],
    e_recv: [DFF<Bits<8>>; 16],
    e_total: [DFF<Bits<8>>; 16],
    e_granted: [DFF<Bits<8>>; 16],
    /// `order[(i*i - i)/2 + j]`, j < i: entry j's (remaining, id) is below entry i's. Rewritten for the
    /// entries an op or a load changes; meaningless for invalid entries.
    order: [DFF<Bit>; PAIRS],
    /// The FIFO of waiting ids, their state, and the pop.
    waiting: WaitingQueue<IW>,
    // ---- Decision stage 1 (the cycle after the ARRIVE): ranks on the registered entries.
    /// Entry i is grantable (valid, in the overcommitment set, below its total and its reach).
    g1: [DFF<Bit>; 16],
    g1_offset: [DFF<Bits<8>>; 16],
    /// The new credit reaches the entry's total: it leaves when chosen.
    g1_fills: [DFF<Bit>; 16],
    g1_position: [DFF<Bits<4>>; 16],
    g1_received: [DFF<Bits<8>>; 16],
    /// The order stage 1 saw (an op in between may rewrite `order`).
    g1_order: [DFF<Bit>; PAIRS],
    // ---- Result and counters.
    inserts: WrappingCounter<32>,
    removes: WrappingCounter<32>,
    unknown_removes: WrappingCounter<32>,
    grants: WrappingCounter<32>,
    fifo_enters: WrappingCounter<32>,
    skipped: WrappingCounter<32>,
    close_arrivals: WrappingCounter<32>,
    /// `free_below[i]`: some entry below i is free (registered state).
    free_below: [Signal<Local, Bit>; 17],
    ld_sel: [Signal<Local, Bit>; 16],
    a_valid: [Signal<Local, Bit>; 16],
    a_id: [Signal<Local, Bits<IW>>; 16],
    a_rem: [Signal<Local, Bits<8>>; 16],
    a_recv: [Signal<Local, Bits<8>>; 16],
    a_total: [Signal<Local, Bits<8>>; 16],
    a_granted: [Signal<Local, Bits<8>>; 16],
    /// `valid_chain[j]`: bits 0..j of the entries' valid bits (wiring only).
    valid_chain: [Signal<Local, Bits<16>>; 17],
    occupancy_count: Popcount<16, 5>,
    // ---- Step 2: the op.
    hit: [Signal<Local, Bit>; 16],
    hit_below: [Signal<Local, Bit>; 17],
    afree_below: [Signal<Local, Bit>; 17],
    ins_sel: [Signal<Local, Bit>; 16],
    b_valid: [Signal<Local, Bit>; 16],
    b_id: [Signal<Local, Bits<IW>>; 16],
    b_rem: [Signal<Local, Bits<8>>; 16],
    b_recv: [Signal<Local, Bits<8>>; 16],
    b_total: [Signal<Local, Bits<8>>; 16],
    b_granted: [Signal<Local, Bits<8>>; 16],
    // ---- Order update: the op's and the load's (remaining, id) against every entry.
    /// `op_below[j]`: the op's (remaining, id) is below entry j's (registered).
    op_below: [Signal<Local, Bit>; 16],
    /// `ld_below[j]`: the loaded message's (remaining, id) is below entry j's.
    ld_below: [Signal<Local, Bit>; 16],
    /// Entry i takes the op's (remaining, id): an ARRIVE's hit or the entry an insert would take.
    takes_op: [Signal<Local, Bit>; 16],
    /// `before_chain[i*17+j]`: bits 0..j of "valid entries ranking before entry i" (wiring only).
    before_chain: [Signal<Local, Bits<16>>; 272],
    /// `position[i]`: how many valid entries rank before entry i (an adder tree).
    position: [Popcount<16, 5>; 16],
    room: [Signal<Local, Bits<8>>; 16],
    offset: [Signal<Local, Bits<8>>; 16],
    below_reach: [Signal<Local, Bit>; 16],
    // ---- Stage 2.
    /// `better_chain[i*17+j]`: bits 0..j of "grantable entries ranking before entry i" (wiring only).
    better_chain: [Signal<Local, Bits<16>>; 272],
    chosen: [Signal<Local, Bit>; 16],
    leave: [Signal<Local, Bit>; 16],
    pick_id: [Signal<Local, Bits<IW>>; 17],
    pick_offset: [Signal<Local, Bits<8>>; 17],
    pick_position: [Signal<Local, Bits<4>>; 17],
    pick_received: [Signal<Local, Bits<8>>; 17],
    pick_total: [Signal<Local, Bits<8>>; 17],
    /// One-hot masks: the op's id, the id loaded from the FIFO, the id that left fully granted,
    /// the id whose FIFO record is popped (per-id bits change by masks, not at a runtime index).
    op_mask: OneHot<N, IW>,
    loaded_mask: OneHot<N, IW>,
    leave_mask: OneHot<N, IW>,
    popped_mask: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize> Default for PriorityScheduler<N, IW> {
    fn default() -> Self {
        assert!((4..=10).contains(&IW) && N == 1 << IW, "message ids are 4 to 10 bits, N = 2^IW");
        Self {
            e_valid: arr(),
            e_id: arr(),
            e_rem: arr(),
            e_recv: arr(),
            e_total: arr(),
            e_granted: arr(),
            order: arr(),
            g1: arr(),
            g1_offset: arr(),
            g1_fills: arr(),
            g1_position: arr(),
            g1_received: arr(),
            g1_order: arr(),
            free_below: arr(),
            ld_sel: arr(),
            a_valid: arr(),
            a_id: arr(),
            a_rem: arr(),
            a_recv: arr(),
            a_total: arr(),
            a_granted: arr(),
            valid_chain: arr(),
            hit: arr(),
            hit_below: arr(),
            afree_below: arr(),
            ins_sel: arr(),
            b_valid: arr(),
            b_id: arr(),
            b_rem: arr(),
            b_recv: arr(),
            b_total: arr(),
            b_granted: arr(),
            op_below: arr(),
            ld_below: arr(),
            takes_op: arr(),
            before_chain: arr(),
            position: arr(),
            room: arr(),
            offset: arr(),
            below_reach: arr(),
            better_chain: arr(),
            chosen: arr(),
            leave: arr(),
            pick_id: arr(),
            pick_offset: arr(),
            pick_position: arr(),
            pick_received: arr(),
            pick_total: arr(),
            ..Self::blank()
        }
    }
}

impl<const N: usize, const IW: usize> Logic for PriorityScheduler<N, IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            queued,
            in_fifo,
            done,
            p2_queued,
            k_reg,
            rtt_reg,
            b1_valid,
            b2_valid,
            r1_valid,
            r2_valid,
            lv_valid,
            lv_id,
            s1_res_valid,
            s1_res_grant,
            s1_res_id,
            s1_res_offset,
            s1_res_position,
            s1_res_received,
            s1_res_total
        );
        status_counters!(
            self,
            clock,
            reset,
            close_arrivals => close_arrivals_count,
            fifo_enters => fifo_enters_count,
            grants => grants_count,
            inserts => inserts_count,
            removes => removes_count,
            skipped => skipped_arrivals_count,
            unknown_removes => unknown_removes_count,
        );
        for i in 0..16 {
            self.e_valid[i].clock.next = self.clock.val();
            self.e_id[i].clock.next = self.clock.val();
            self.e_rem[i].clock.next = self.clock.val();
            self.e_recv[i].clock.next = self.clock.val();
            self.e_total[i].clock.next = self.clock.val();
            self.e_granted[i].clock.next = self.clock.val();
            self.g1[i].clock.next = self.clock.val();
            self.g1_offset[i].clock.next = self.clock.val();
            self.g1_fills[i].clock.next = self.clock.val();
            self.g1_position[i].clock.next = self.clock.val();
            self.g1_received[i].clock.next = self.clock.val();
        }
        for p in 0..PAIRS {
            self.order[p].clock.next = self.clock.val();
            self.g1_order[p].clock.next = self.clock.val();
            self.order[p].d.next = self.order[p].q.val();
            // Stage 2 reads the order stage 1 saw.
            self.g1_order[p].d.next = self.order[p].q.val();
        }
        clock!(self, clock, waiting);
        self.waiting.reset.next = self.reset.val();

        // ---- Step 1: load the message popped two cycles ago (if still waiting).
        self.ld.next = self.waiting.loading.val() & self.p2_queued.q.val();
        self.free_below[0].next = false;
        self.valid_chain[0].next = 0.into();
        for i in 0..16 {
            self.free_below[i + 1].next = self.free_below[i].val() | (!self.e_valid[i].q.val());
            self.valid_chain[i + 1].next = self.valid_chain[i].val().replace_bit(i, self.e_valid[i].q.val());
            self.ld_sel[i].next = (self.ld.val() & (!self.e_valid[i].q.val())) & (!self.free_below[i].val());
            self.a_valid[i].next = self.e_valid[i].q.val() | self.ld_sel[i].val();
            self.a_id[i].next = self.e_id[i].q.val();
            self.a_rem[i].next = self.e_rem[i].q.val();
            self.a_recv[i].next = self.e_recv[i].q.val();
            self.a_total[i].next = self.e_total[i].q.val();
            self.a_granted[i].next = self.e_granted[i].q.val();
            if self.ld_sel[i].val() {
                self.a_id[i].next = self.waiting.load_id.val();
                self.a_rem[i].next = self.waiting.load_remaining.val();
                self.a_recv[i].next = self.waiting.load_received.val();
                self.a_total[i].next = self.waiting.load_total.val();
                self.a_granted[i].next = self.waiting.load_granted.val();
            }
        }
        self.loaded_mask.index.next = self.waiting.load_id.val();
        self.loaded_mask.enable.next = self.ld.val();
        self.queued_a.next = self.queued.q.val() & (!self.loaded_mask.onehot.val());

        // ---- Step 2: the op.
        self.is_arrive.next = self.op_valid.val() & (self.op_code.val() == 1);
        self.is_remove.next = self.op_valid.val() & (self.op_code.val() == 2);
        // An ARRIVE asks for a decision unless one is in flight (a close ARRIVE: counted, its
        // result says no grant).
        self.decide.next = (self.is_arrive.val() & (!self.b1_valid.q.val())) & (!self.b2_valid.q.val());
        self.hit_below[0].next = false;
        self.afree_below[0].next = false;
        for i in 0..16 {
            self.hit[i].next = self.a_valid[i].val() & (self.a_id[i].val() == self.op_id.val());
            self.hit_below[i + 1].next = self.hit_below[i].val() | self.hit[i].val();
            self.afree_below[i + 1].next = self.afree_below[i].val() | (!self.a_valid[i].val());
            self.ins_sel[i].next = (!self.a_valid[i].val()) & (!self.afree_below[i].val());
        }
        // The message that left at the end of the previous cycle is already done for this op.
        self.leave_mask.index.next = self.lv_id.q.val();
        self.leave_mask.enable.next = self.lv_valid.q.val();
        self.done_l.next = self.done.q.val() | self.leave_mask.onehot.val();
        self.op_queued.next = self.queued_a.val().get_bit(self.op_id.val().index());
        self.op_done.next = self.done_l.val().get_bit(self.op_id.val().index());
        self.op_in_fifo.next = self.in_fifo.q.val().get_bit(self.op_id.val().index());
        self.unknown.next = ((!self.hit_below[16].val()) & (!self.op_queued.val())) & (!self.op_done.val());
        self.upd_wait.next = (self.is_arrive.val() & (!self.hit_below[16].val())) & self.op_queued.val();
        self.skip.next = (self.is_arrive.val() & (!self.hit_below[16].val()))
            & ((!self.op_queued.val()) & (self.op_done.val() | (self.op_granted.val() >= self.op_total.val())));
        self.new_msg.next = (self.is_arrive.val() & self.unknown.val()) & (self.op_granted.val() < self.op_total.val());
        self.direct.next =
            ((self.new_msg.val() & self.afree_below[16].val()) & (self.waiting.level.val() == 0)) & (!self.waiting.reading.val());
        self.to_fifo.next = self.new_msg.val() & (!self.direct.val());
        self.push.next = self.to_fifo.val() & (!self.op_in_fifo.val());
        self.rm_known.next = self.is_remove.val() & (!self.unknown.val());
        self.rm_unknown.next = self.is_remove.val() & self.unknown.val();
        for i in 0..16 {
            self.b_valid[i].next =
                (self.a_valid[i].val() & (!(self.is_remove.val() & self.hit[i].val()))) | (self.direct.val() & self.ins_sel[i].val());
            self.b_id[i].next = self.a_id[i].val();
            self.b_rem[i].next = self.a_rem[i].val();
            self.b_recv[i].next = self.a_recv[i].val();
            self.b_total[i].next = self.a_total[i].val();
            self.b_granted[i].next = self.a_granted[i].val();
            if self.is_arrive.val() & self.hit[i].val() {
                self.b_rem[i].next = self.op_remaining.val();
                self.b_recv[i].next = self.op_received.val();
            }
            if self.direct.val() & self.ins_sel[i].val() {
                self.b_id[i].next = self.op_id.val();
                self.b_rem[i].next = self.op_remaining.val();
                self.b_recv[i].next = self.op_received.val();
                self.b_total[i].next = self.op_total.val();
                self.b_granted[i].next = self.op_granted.val();
            }
        }

        // ---- Order update. Only the entries whose (remaining, id) changes are compared, with
        // the registered keys of the others: the op's entry (an ARRIVE's hit, or the entry an
        // insert takes) and the loaded one. Entries that end invalid may get any order bits:
        // an entry's bits are rewritten whenever it becomes valid.
        self.op_below_ld.next = (self.op_remaining.val() < self.waiting.load_remaining.val())
            | ((self.op_remaining.val() == self.waiting.load_remaining.val()) & (self.op_id.val() < self.waiting.load_id.val()));
        for j in 0..16 {
            self.op_below[j].next = (self.op_remaining.val() < self.e_rem[j].q.val())
                | ((self.op_remaining.val() == self.e_rem[j].q.val()) & (self.op_id.val() < self.e_id[j].q.val()));
            self.ld_below[j].next = (self.waiting.load_remaining.val() < self.e_rem[j].q.val())
                | ((self.waiting.load_remaining.val() == self.e_rem[j].q.val()) & (self.waiting.load_id.val() < self.e_id[j].q.val()));
            self.takes_op[j].next = self.is_arrive.val() & ((self.a_id[j].val() == self.op_id.val()) | self.ins_sel[j].val());
        }
        for i in 0..16 {
            for j in 0..16 {
                if j < i {
                    if self.ld_sel[i].val() {
                        self.order[((i * i - i) / 2 + j) % 120].d.next = !self.ld_below[j].val();
                    }
                    if self.ld_sel[j].val() {
                        self.order[((i * i - i) / 2 + j) % 120].d.next = self.ld_below[i].val();
                    }
                    if self.takes_op[i].val() {
                        self.order[((i * i - i) / 2 + j) % 120].d.next = !self.op_below[j].val();
                        if self.ld_sel[j].val() {
                            self.order[((i * i - i) / 2 + j) % 120].d.next = !self.op_below_ld.val();
                        }
                    }
                    if self.takes_op[j].val() {
                        self.order[((i * i - i) / 2 + j) % 120].d.next = self.op_below[i].val();
                        if self.ld_sel[i].val() {
                            self.order[((i * i - i) / 2 + j) % 120].d.next = self.op_below_ld.val();
                        }
                    }
                }
            }
        }

        // ---- Stage 1 (the cycle after a decided ARRIVE), on the registered entries: each
        // entry's position (valid entries ranking before it), its new credit and whether it is
        // grantable, with the ARRIVE's configuration. K = 0 is taken as 1; K >= 16 puts every entry in
        // the set.
        self.k_reg.d.next = self.cfg_overcommit.val();
        self.rtt_reg.d.next = self.cfg_rtt_pkts.val();
        self.k_all.next = self.k_reg.q.val() >= 16;
        self.k_low.next = bit_cast::<4, 5>(self.k_reg.q.val());
        if self.k_reg.q.val() == 0 {
            self.k_low.next = 1.into();
        }
        for i in 0..16 {
            self.before_chain[i * 17].next = 0.into();
            for j in 0..16 {
                if j < i {
                    self.before_chain[i * 17 + j + 1].next = self.before_chain[i * 17 + j]
                        .val()
                        .replace_bit(j, self.e_valid[j].q.val() & self.order[((i * i - i) / 2 + j) % 120].q.val());
                } else if j > i {
                    self.before_chain[i * 17 + j + 1].next = self.before_chain[i * 17 + j]
                        .val()
                        .replace_bit(j, self.e_valid[j].q.val() & (!self.order[((j * j - j) / 2 + i) % 120].q.val()));
                } else {
                    self.before_chain[i * 17 + j + 1].next = self.before_chain[i * 17 + j].val();
                }
            }
            self.position[i].bitmap.next = self.before_chain[i * 17 + 16].val();
            // offset = min(total, received + rtt) without overflow: room = total − received.
            self.room[i].next = self.e_total[i].q.val() - self.e_recv[i].q.val();
            self.offset[i].next = self.e_recv[i].q.val() + self.rtt_reg.q.val();
            if (self.e_recv[i].q.val() >= self.e_total[i].q.val()) | (self.rtt_reg.q.val() >= self.room[i].val()) {
                self.offset[i].next = self.e_total[i].q.val();
            }
            // granted < received + rtt, where the sum may exceed 8 bits (rtt > 255 − received).
            self.below_reach[i].next = (self.rtt_reg.q.val() > (!self.e_recv[i].q.val()))
                | (self.e_granted[i].q.val() < (self.e_recv[i].q.val() + self.rtt_reg.q.val()));
            self.g1[i].d.next = ((self.e_valid[i].q.val()
                & (self.k_all.val() | (self.position[i].count.val() < bit_cast::<5, 4>(self.k_low.val()))))
                & (self.e_granted[i].q.val() < self.e_total[i].q.val()))
                & self.below_reach[i].val();
            self.g1_offset[i].d.next = self.offset[i].val();
            self.g1_fills[i].d.next = self.offset[i].val() >= self.e_total[i].q.val();
            self.g1_position[i].d.next = self.position[i].count.val().get_bits::<4>(0);
            self.g1_received[i].d.next = self.e_recv[i].q.val();
        }

        // ---- Stage 2: the highest-priority grantable entry gets the grant. An entry removed
        // since stage 1 is still reported (the decision came before the REMOVE) but not
        // written; one removed in this cycle does not leave a `done` mark.
        for i in 0..16 {
            self.better_chain[i * 17].next = 0.into();
            for j in 0..16 {
                if j < i {
                    self.better_chain[i * 17 + j + 1].next = self.better_chain[i * 17 + j]
                        .val()
                        .replace_bit(j, self.g1[j].q.val() & self.g1_order[((i * i - i) / 2 + j) % 120].q.val());
                } else if j > i {
                    self.better_chain[i * 17 + j + 1].next = self.better_chain[i * 17 + j]
                        .val()
                        .replace_bit(j, self.g1[j].q.val() & (!self.g1_order[((j * j - j) / 2 + i) % 120].q.val()));
                } else {
                    self.better_chain[i * 17 + j + 1].next = self.better_chain[i * 17 + j].val();
                }
            }
            self.chosen[i].next = (self.b2_valid.q.val() & self.g1[i].q.val()) & (!self.better_chain[i * 17 + 16].val().any());
            self.leave[i].next = ((self.chosen[i].val() & self.e_valid[i].q.val()) & self.g1_fills[i].q.val())
                & (!(self.is_remove.val() & self.hit[i].val()));
        }
        self.any_chosen.next = false;
        self.any_leave.next = false;
        // At most one entry is chosen, so its fields are picked by OR-ing the chosen entry's
        // values (a balanced OR tree after synthesis) rather than by a priority chain of muxes.
        self.pick_id[0].next = 0.into();
        self.pick_offset[0].next = 0.into();
        self.pick_position[0].next = 0.into();
        self.pick_received[0].next = 0.into();
        self.pick_total[0].next = 0.into();
        for i in 0..16 {
            self.pick_id[i + 1].next = self.pick_id[i].val();
            self.pick_offset[i + 1].next = self.pick_offset[i].val();
            self.pick_position[i + 1].next = self.pick_position[i].val();
            self.pick_received[i + 1].next = self.pick_received[i].val();
            self.pick_total[i + 1].next = self.pick_total[i].val();
            if self.chosen[i].val() {
                self.pick_id[i + 1].next = self.pick_id[i].val() | self.e_id[i].q.val();
                self.pick_offset[i + 1].next = self.pick_offset[i].val() | self.g1_offset[i].q.val();
                self.pick_position[i + 1].next = self.pick_position[i].val() | self.g1_position[i].q.val();
                self.pick_received[i + 1].next = self.pick_received[i].val() | self.g1_received[i].q.val();
                self.pick_total[i + 1].next = self.pick_total[i].val() | self.e_total[i].q.val();
            }
        }
        self.s1_res_id.d.next = self.pick_id[16].val();
        self.s1_res_offset.d.next = self.pick_offset[16].val();
        self.s1_res_position.d.next = self.pick_position[16].val();
        self.s1_res_received.d.next = self.pick_received[16].val();
        self.s1_res_total.d.next = self.pick_total[16].val();
        for i in 0..16 {
            self.e_valid[i].d.next = self.b_valid[i].val() & (!self.leave[i].val());
            self.e_id[i].d.next = self.b_id[i].val();
            self.e_rem[i].d.next = self.b_rem[i].val();
            self.e_recv[i].d.next = self.b_recv[i].val();
            self.e_total[i].d.next = self.b_total[i].val();
            self.e_granted[i].d.next = self.b_granted[i].val();
            if self.chosen[i].val() {
                self.any_chosen.next = true;
                if self.e_valid[i].q.val() {
                    self.e_granted[i].d.next = self.g1_offset[i].q.val();
                }
            }
            if self.leave[i].val() {
                self.any_leave.next = true;
            }
        }
        self.lv_valid.d.next = self.any_leave.val();
        self.lv_id.d.next = self.pick_id[16].val();
        self.b1_valid.d.next = self.decide.val();
        self.b2_valid.d.next = self.b1_valid.q.val();
        self.r1_valid.d.next = self.is_arrive.val();
        self.r2_valid.d.next = self.r1_valid.q.val();
        self.s1_res_valid.d.next = self.r2_valid.q.val();
        self.s1_res_grant.d.next = self.any_chosen.val();

        // ---- Per-id bits, FIFO and waiting state.
        self.op_mask.index.next = self.op_id.val();
        self.op_mask.enable.next = true;
        self.queued_b.next = self.queued_a.val();
        if self.to_fifo.val() {
            self.queued_b.next = self.queued_a.val() | self.op_mask.onehot.val();
        }
        if (self.is_remove.val() & self.op_queued.val()) & (!self.hit_below[16].val()) {
            self.queued_b.next = self.queued_a.val() & (!self.op_mask.onehot.val());
        }
        // done: the message that left marks it (above); an unknown ARRIVE with nothing to
        // grant marks it; a REMOVE clears it.
        self.done_a.next = self.done_l.val();
        if self.skip.val() {
            self.done_a.next = self.done_l.val() | self.op_mask.onehot.val();
        }
        if self.rm_known.val() {
            self.done_a.next = self.done_l.val() & (!self.op_mask.onehot.val());
        }
        // The FIFO: a pop whenever an entry is free (registered state); a push of an unknown
        // message without a record; its waiting state written on an insert into the FIFO (both
        // halves) and on an update (`remaining, received` only).
        self.waiting.pop_allowed.next = self.free_below[16].val();
        self.waiting.id.next = self.op_id.val();
        // No write in reset (gated here, where it merges with the logic that decides the write).
        self.waiting.push.next = self.push.val() & (!self.reset.val());
        self.waiting.write_state.next = (self.to_fifo.val() | self.upd_wait.val()) & (!self.reset.val());
        self.waiting.remaining.next = self.op_remaining.val();
        self.waiting.received.next = self.op_received.val();
        self.waiting.write_limits.next = self.to_fifo.val() & (!self.reset.val());
        self.waiting.total.next = self.op_total.val();
        self.waiting.granted.next = self.op_granted.val();
        self.p2_queued.d.next = self.queued_b.val().get_bit(self.waiting.reading_id.val().index());
        self.popped_mask.index.next = self.waiting.reading_id.val();
        self.popped_mask.enable.next = self.waiting.reading.val();
        self.in_fifo_a.next = self.in_fifo.q.val() & (!self.popped_mask.onehot.val());
        self.in_fifo_b.next = self.in_fifo_a.val();
        if self.push.val() {
            self.in_fifo_b.next = self.in_fifo_a.val() | self.op_mask.onehot.val();
        }

        self.queued.d.next = self.queued_b.val();
        self.in_fifo.d.next = self.in_fifo_b.val();
        self.done.d.next = self.done_a.val();

        // ---- Counters.
        if self.new_msg.val() {
            self.inserts.increment.next = true;
        }
        if self.to_fifo.val() {
            self.fifo_enters.increment.next = true;
        }
        if self.skip.val() {
            self.skipped.increment.next = true;
        }
        if self.rm_known.val() {
            self.removes.increment.next = true;
        }
        if self.rm_unknown.val() {
            self.unknown_removes.increment.next = true;
        }
        if self.any_chosen.val() {
            self.grants.increment.next = true;
        }
        if self.is_arrive.val() & (!self.decide.val()) {
            self.close_arrivals.increment.next = true;
        }

        // ---- Outputs.
        self.res_valid.next = self.s1_res_valid.q.val();
        self.res_grant.next = self.s1_res_grant.q.val();
        self.res_id.next = self.s1_res_id.q.val();
        self.res_grant_offset.next = self.s1_res_offset.q.val();
        self.res_position.next = self.s1_res_position.q.val();
        self.res_received.next = self.s1_res_received.q.val();
        self.res_total.next = self.s1_res_total.q.val();
        self.occupancy_count.bitmap.next = self.valid_chain[16].val();
        self.occupancy.next = self.occupancy_count.count.val();
        self.fifo_level.next = self.waiting.level.val();

        if self.reset.val() {
            for i in 0..16 {
                self.e_valid[i].d.next = false;
            }
            self.queued.d.next = 0.into();
            self.in_fifo.d.next = 0.into();
            self.done.d.next = 0.into();
            self.b1_valid.d.next = false;
            self.b2_valid.d.next = false;
            self.r1_valid.d.next = false;
            self.r2_valid.d.next = false;
            self.lv_valid.d.next = false;
            self.s1_res_valid.d.next = false;
            self.s1_res_grant.d.next = false;
        }
    }
}

/// The block's Verilog (for `gen`). Generation runs on a thread with a 256 MiB stack: the
/// rust-hdl AST of this block's update (hundreds of unrolled statements) is built by deeply
/// nested calls that overflow a default 2 MiB test thread.
#[inline(never)]
pub fn generate_verilog_of<const N: usize, const IW: usize>() -> String {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| crate::generate::verilog_of(&mut PriorityScheduler::<N, IW>::default()))
        .expect("spawn the generator thread")
        .join()
        .expect("generate the priority scheduler")
}
