//! Reference model of the receive path: GetRxMsgInfo (hdl/nic/get_rx_msg_info.rs) and the
//! reassembly module with its ingress timers (hdl/nic/reassembly.rs), at transaction level.
//!
//! The model decides every outcome itself — responses (fail reason, `rx_msg_id`, flags, ackNo),
//! ID and size-class buffer allocation, per-packet drop reasons, completion, the bytes and the
//! order of delivered messages, and every counter. Two things depend on timing that is not a
//! transaction-level property: *when* a message's read-out ends (CPU back-pressure) and *when*
//! the timer scan reaches an expired timer. The testbench therefore reports each release the
//! hardware makes ([`RxModel::release`]) and the model **checks** it: a delivery release must
//! be the oldest completed message, an abort release the oldest aborted one, a garbage
//! collection must hit a live, incomplete message whose last (re)schedule is at least `timeout`
//! cycles old. Cycle alignment follows the hardware: releases of a cycle are applied before that
//! cycle's request (a request sees a slot released in its own cycle as gone), and freed IDs and
//! buffers become allocatable at the next cycle ([`RxModel::end_cycle`]).

use bitvec::prelude::*;
use nanotransport_hdl::nic::get_rx_msg_info::{class_base_pages, fail_reason, PAGE_BYTES, RX_MSG_ID_NONE};
use std::collections::VecDeque;

/// A GetRxMsgInfo request (Listing 3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxRequest {
    pub mark_received: bool,
    pub src_ip: u32,
    pub src_port: u16,
    pub tx_msg_id: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
}

/// A GetRxMsgInfo response (Listing 3.4, plus the fail reason).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxResponse {
    pub fail: bool,
    pub fail_reason: u8,
    pub rx_msg_id: u16,
    pub is_new_msg: bool,
    pub is_new_pkt: bool,
    pub is_last_pkt: bool,
    pub ack_no: u16,
}

/// Ingress metadata that travels with a packet's first beat (Listing 3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxMeta {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub local_port: u16,
    pub rx_msg_id: u16,
    pub tx_msg_id: u16,
    pub is_last_pkt: bool,
}

/// Every counter of the receive path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCounters {
    pub fail_zero_len: u64,
    pub fail_too_long: u64,
    pub fail_bad_offset: u64,
    pub fail_len_mismatch: u64,
    pub fail_no_id: u64,
    pub fail_no_buffer: u64,
    pub duplicate: u64,
    pub recent_duplicate: u64,
    pub class_fallback: u64,
    pub drop_stale: u64,
    pub drop_bad_offset: u64,
    pub drop_duplicate: u64,
    pub drop_bad_length: u64,
    pub gc: u64,
    pub delivered: u64,
}

/// Why the hardware freed a slot (the reassembly's `release_reason` output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseReason {
    Delivered = 1,
    Aborted = 2,
    GarbageCollected = 3,
}

impl ReleaseReason {
    pub fn from_code(code: u64) -> Option<Self> {
        match code {
            1 => Some(Self::Delivered),
            2 => Some(Self::Aborted),
            3 => Some(Self::GarbageCollected),
            _ => None,
        }
    }
}

type Key = (u32, u16, u16);

#[derive(Clone, Debug)]
struct Entry {
    key: Key,
    msg_len: u16,
    received: BitVec,
    written: BitVec,
    closed: bool,
    class: usize,
    index: usize,
    last_touch: u64,
    payload: Vec<u8>,
}

impl Entry {
    fn pkts(&self) -> usize {
        pkts_of(self.msg_len)
    }
}

/// Packets of a message of `msg_len` bytes.
pub fn pkts_of(msg_len: u16) -> usize {
    (msg_len as usize).div_ceil(PAGE_BYTES as usize)
}

/// The 16-byte application header that precedes a delivered message (Algorithm 1, lines 12–16):
/// remote_ip (4 B), remote_port (2 B), local_port (2 B), msg_len (2 B), 6 B zero, little-endian.
pub fn app_header(remote_ip: u32, remote_port: u16, local_port: u16, msg_len: u16) -> [u8; 16] {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&remote_ip.to_le_bytes());
    h[4..6].copy_from_slice(&remote_port.to_le_bytes());
    h[6..8].copy_from_slice(&local_port.to_le_bytes());
    h[8..10].copy_from_slice(&msg_len.to_le_bytes());
    h
}

/// The receive-path reference model.
#[derive(Clone, Debug)]
pub struct RxModel {
    classes: [(u64, u64); 4],
    timeout: u64,
    slots: Vec<Option<Entry>>,
    gens: Vec<u8>,
    id_in_use: Vec<bool>,
    class_in_use: Vec<Vec<bool>>,
    pending_ids: Vec<usize>,
    pending_buffers: Vec<(usize, usize)>,
    recent: Vec<Option<Key>>,
    recent_ptr: usize,
    recent_evicted: Vec<Key>,
    completed: VecDeque<usize>,
    aborted: VecDeque<usize>,
    /// Messages the hardware must deliver, header included, in order of completion.
    pub deliveries: VecDeque<Vec<u8>>,
    pub counters: RxCounters,
    /// Every garbage collection: (cycle of its last (re)scheduling call + timeout, cycle of the
    /// release), for the testbench's upper bound on collection latency.
    pub gc_timing: Vec<(u64, u64)>,
    /// Timer (re)schedulings by GetRxMsgInfo calls for a message the reassembly has already
    /// closed (complete or aborted, awaiting release): the only source of stale timeouts, each
    /// at most one (a close cancels every earlier schedule).
    pub reschedules_after_close: u64,
}

impl RxModel {
    /// `classes`: (pages per buffer, buffers) per size class; `timeout`: ingress timer delay in
    /// cycles; `messages`, `recent_depth`: table sizes.
    pub fn new(classes: [(u64, u64); 4], timeout: u64, messages: usize, recent_depth: usize) -> Self {
        RxModel {
            classes,
            timeout,
            slots: vec![None; messages],
            gens: vec![0; messages],
            id_in_use: vec![false; messages],
            class_in_use: classes.iter().map(|c| vec![false; c.1 as usize]).collect(),
            pending_ids: Vec::new(),
            pending_buffers: Vec::new(),
            recent: vec![None; recent_depth],
            recent_ptr: 0,
            recent_evicted: Vec::new(),
            completed: VecDeque::new(),
            aborted: VecDeque::new(),
            deliveries: VecDeque::new(),
            counters: RxCounters::default(),
            gc_timing: Vec::new(),
            reschedules_after_close: 0,
        }
    }

    fn find(&self, key: Key) -> Option<usize> {
        self.slots.iter().position(|e| e.as_ref().is_some_and(|e| e.key == key))
    }

    fn rx_msg_id(&self, slot: usize) -> u16 {
        ((self.gens[slot] as u16) << 4) | slot as u16
    }

    /// One GetRxMsgInfo call in cycle `cycle`.
    pub fn request(&mut self, r: &RxRequest, cycle: u64) -> RxResponse {
        let key = (r.src_ip, r.src_port, r.tx_msg_id);
        let off = r.pkt_offset as usize;
        let fail = |reason: u64| RxResponse { fail: true, fail_reason: reason as u8, rx_msg_id: RX_MSG_ID_NONE as u16, ..Default::default() };
        if let Some(slot) = self.find(key) {
            let rx_msg_id = self.rx_msg_id(slot);
            let e = self.slots[slot].as_mut().unwrap();
            if r.msg_len != e.msg_len {
                self.counters.fail_len_mismatch += 1;
                return fail(fail_reason::LEN_MISMATCH);
            }
            if off >= e.pkts() {
                self.counters.fail_bad_offset += 1;
                return fail(fail_reason::BAD_OFFSET);
            }
            let was_set = e.received[off];
            let was_complete = e.received.count_ones() == e.pkts();
            if r.mark_received {
                e.received.set(off, true);
            }
            if was_set {
                self.counters.duplicate += 1;
            }
            if !was_complete {
                e.last_touch = cycle;
                if e.closed {
                    self.reschedules_after_close += 1;
                }
            }
            return RxResponse {
                fail: false,
                fail_reason: 0,
                rx_msg_id,
                is_new_msg: false,
                is_new_pkt: !was_set,
                is_last_pkt: e.received.count_ones() == e.pkts(),
                ack_no: e.received.first_zero().unwrap_or(e.received.len()) as u16,
            };
        }
        let pkts = pkts_of(r.msg_len);
        if self.recent.iter().flatten().chain(self.recent_evicted.iter()).any(|k| *k == key) {
            self.counters.recent_duplicate += 1;
            return RxResponse {
                fail: false,
                fail_reason: 0,
                rx_msg_id: RX_MSG_ID_NONE as u16,
                is_new_msg: false,
                is_new_pkt: false,
                is_last_pkt: true,
                ack_no: pkts as u16,
            };
        }
        if r.msg_len == 0 {
            self.counters.fail_zero_len += 1;
            return fail(fail_reason::ZERO_LEN);
        }
        if r.msg_len as u64 > self.classes[3].0 * PAGE_BYTES {
            self.counters.fail_too_long += 1;
            return fail(fail_reason::TOO_LONG);
        }
        if off >= pkts {
            self.counters.fail_bad_offset += 1;
            return fail(fail_reason::BAD_OFFSET);
        }
        let Some(slot) = self.id_in_use.iter().position(|u| !u) else {
            self.counters.fail_no_id += 1;
            return fail(fail_reason::NO_ID);
        };
        let best = (0..4).find(|&c| self.classes[c].0 as usize >= pkts).unwrap();
        let chosen = (best..4).find_map(|c| self.class_in_use[c].iter().position(|u| !u).map(|i| (c, i)));
        let Some((class, index)) = chosen else {
            self.counters.fail_no_buffer += 1;
            return fail(fail_reason::NO_BUFFER);
        };
        if class != best {
            self.counters.class_fallback += 1;
        }
        self.id_in_use[slot] = true;
        self.class_in_use[class][index] = true;
        self.gens[slot] = self.gens[slot].wrapping_add(1);
        let mut received = bitvec![0; pkts];
        if r.mark_received {
            received.set(off, true);
        }
        let is_last_pkt = received.count_ones() == pkts;
        let ack_no = received.first_zero().unwrap_or(pkts) as u16;
        self.slots[slot] = Some(Entry {
            key,
            msg_len: r.msg_len,
            received,
            written: bitvec![0; pkts],
            closed: false,
            class,
            index,
            last_touch: cycle,
            payload: vec![0; r.msg_len as usize],
        });
        RxResponse { fail: false, fail_reason: 0, rx_msg_id: self.rx_msg_id(slot), is_new_msg: true, is_new_pkt: true, is_last_pkt, ack_no }
    }

    /// Frees `slot` for a table-only test (no reassembly checks).
    pub fn release_table(&mut self, slot: usize, delivered: bool) {
        if let Some(e) = self.slots[slot].take() {
            self.free(slot, &e, delivered);
        }
    }

    fn free(&mut self, slot: usize, e: &Entry, delivered: bool) {
        self.pending_ids.push(slot);
        self.pending_buffers.push((e.class, e.index));
        if delivered {
            if let Some(old) = self.recent[self.recent_ptr].replace(e.key) {
                self.recent_evicted.push(old);
            }
            self.recent_ptr = (self.recent_ptr + 1) % self.recent.len();
        }
    }

    /// A release the hardware made in cycle `cycle`; an error when the model disagrees.
    pub fn release(&mut self, slot: usize, reason: ReleaseReason, cycle: u64) -> Result<(), String> {
        let Some(e) = self.slots[slot].take() else {
            return Err(format!("cycle {cycle}: {reason:?} release of slot {slot}, which holds no message"));
        };
        match reason {
            ReleaseReason::Delivered => {
                if self.completed.front() != Some(&slot) {
                    return Err(format!("cycle {cycle}: delivery release of slot {slot}; oldest completed is {:?}", self.completed.front()));
                }
                self.completed.pop_front();
                self.counters.delivered += 1;
            }
            ReleaseReason::Aborted => {
                if self.aborted.front() != Some(&slot) {
                    return Err(format!("cycle {cycle}: abort release of slot {slot}; oldest aborted is {:?}", self.aborted.front()));
                }
                self.aborted.pop_front();
            }
            ReleaseReason::GarbageCollected => {
                if e.closed {
                    return Err(format!("cycle {cycle}: slot {slot} garbage-collected after it completed or was aborted"));
                }
                if cycle < e.last_touch + self.timeout {
                    return Err(format!(
                        "cycle {cycle}: slot {slot} garbage-collected {} cycles after its last packet (timeout {})",
                        cycle - e.last_touch,
                        self.timeout
                    ));
                }
                self.counters.gc += 1;
                self.gc_timing.push((e.last_touch + self.timeout, cycle));
            }
        }
        self.free(slot, &e, reason == ReleaseReason::Delivered);
        Ok(())
    }

    /// A packet that reached the reassembly module (its last beat was accepted in this cycle).
    pub fn packet(&mut self, m: &RxMeta, payload: &[u8]) {
        let slot = (m.rx_msg_id & 0xf) as usize;
        let gen = ((m.rx_msg_id >> 4) & 0xff) as u8;
        let live = m.rx_msg_id & 0xf000 == 0
            && self.slots[slot].as_ref().is_some_and(|e| {
                !e.closed && e.key == (m.remote_ip, m.remote_port, m.tx_msg_id) && e.msg_len == m.msg_len
            })
            && self.gens[slot] == gen;
        if !live {
            self.counters.drop_stale += 1;
            return;
        }
        let e = self.slots[slot].as_mut().unwrap();
        let off = m.pkt_offset as usize;
        let pkts = e.pkts();
        if off >= pkts {
            self.counters.drop_bad_offset += 1;
            return;
        }
        if e.written[off] {
            self.counters.drop_duplicate += 1;
            return;
        }
        let start = off * PAGE_BYTES as usize;
        let expected = if off == pkts - 1 { e.msg_len as usize - start } else { PAGE_BYTES as usize };
        if payload.len() != expected {
            self.counters.drop_bad_length += 1;
            e.closed = true;
            self.aborted.push_back(slot);
            return;
        }
        e.payload[start..start + expected].copy_from_slice(payload);
        e.written.set(off, true);
        if e.written.all() {
            e.closed = true;
            self.completed.push_back(slot);
            let mut msg = app_header(e.key.0, e.key.1, m.local_port, e.msg_len).to_vec();
            msg.extend_from_slice(&e.payload);
            self.deliveries.push_back(msg);
        }
    }

    /// End of a cycle: IDs and buffers freed in it become allocatable.
    pub fn end_cycle(&mut self) {
        for id in self.pending_ids.drain(..) {
            self.id_in_use[id] = false;
        }
        for (c, i) in self.pending_buffers.drain(..) {
            self.class_in_use[c][i] = false;
        }
        self.recent_evicted.clear();
    }

    /// Messages currently holding a slot.
    pub fn live_messages(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether every ID and buffer is free.
    pub fn all_free(&self) -> bool {
        !self.id_in_use.iter().any(|u| *u) && self.class_in_use.iter().all(|c| !c.iter().any(|u| *u))
    }

    /// First page of every class (the hardware lays classes out from page 0).
    pub fn class_base_pages(&self) -> [u64; 4] {
        class_base_pages(&self.classes)
    }
}
