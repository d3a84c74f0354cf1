//! Reference model of the receive path at any size: the GetRxMsgInfo table ([`TableModel`],
//! hdl/nic/get_rx_msg_info.rs, which decides every response) and the reassembly module with its
//! ingress timers ([`RxModel`], hdl/nic/reassembly.rs), at transaction level.
//!
//! The model decides every outcome itself — responses (fail reason, `rx_msg_id`, flags, ackNo),
//! ID and size-class buffer allocation, per-packet drop reasons, completion, the bytes and order
//! of delivered messages, and every counter. Two things depend on timing that is not a
//! transaction-level property: *when* a message's read-out ends (CPU back-pressure) and *when*
//! a timeout is taken. The testbench therefore reports each release the hardware makes
//! ([`RxModel::release`]) and the model **checks** it: a delivery release must be the oldest
//! completed message, a garbage collection must hit a live, incomplete message whose last
//! (re)schedule is at least `timeout` cycles old. A packet of the wrong length is dropped whole
//! and its message goes on. The table
//! serialises its operations (one request or release every three cycles: accepted in cycle A,
//! decided in B, applied in C, answered 3 cycles after the request), so requests and releases are
//! applied in the order the hardware takes them. A one-packet message costs the table a request
//! and a release, 6 cycles.

use bitvec::prelude::*;
use nanotransport_hdl::nic::get_rx_msg_info::{class_base_pages, fail_reason, hash0, hash1, PAGE_BYTES, RX_MSG_ID_NONE};
use std::collections::{HashMap, VecDeque};

/// A GetRxMsgInfo request (Listing 3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxRequest {
    pub mark_received: bool,
    /// A look-up for a frame not yet validated: allocates and answers like any request but does
    /// not announce the message (`announce_new_msg`).
    pub peek: bool,
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
    /// The first request that is not a peek for this message: the ingress program's "new message".
    pub announce_new_msg: bool,
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
    GarbageCollected = 3,
}

impl ReleaseReason {
    pub fn from_code(code: u64) -> Option<Self> {
        match code {
            1 => Some(Self::Delivered),
            3 => Some(Self::GarbageCollected),
            _ => None,
        }
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

#[derive(Clone, Debug)]
struct TableEntry {
    key: u64,
    slot: usize,
    msg_len: u16,
    received: BitVec,
    /// A request that was not a peek has answered for this message.
    announced: bool,
}

#[derive(Clone, Copy, Debug)]
struct SlotInfo {
    way: usize,
    bucket: usize,
    pos: usize,
    class: usize,
    index: usize,
    key: u64,
}

/// The GetRxMsgInfo table model (hdl/nic/get_rx_msg_info.rs): the same two ways of
/// `2^bucket_bits` two-entry buckets, hash functions and placement, so that every response —
/// "bucket full" included — matches. Operations are serialised in the hardware (one every three
/// cycles), so the model applies them in the order the hardware accepts them.
#[derive(Clone, Debug)]
pub struct TableModel {
    classes: [(u64, u64); 4],
    slot_bits: usize,
    bucket_bits: usize,
    ways: Vec<Vec<[Option<TableEntry>; 2]>>,
    slots: Vec<Option<SlotInfo>>,
    gens: Vec<u8>,
    class_in_use: Vec<Vec<bool>>,
    /// Delivered keys and the cycle they were released in (the delivered set).
    delivered: HashMap<u64, u64>,
    horizon: u64,
    now: u64,
    pub counters: RxCounters,
    pub fail_bucket_full: u64,
}

/// `{tx_msg_id, src_port, src_ip}` as the hardware packs it.
pub fn key_of(r: &RxRequest) -> u64 {
    ((r.tx_msg_id as u64) << 48) | ((r.src_port as u64) << 32) | r.src_ip as u64
}

impl TableModel {
    /// A table for `2^slot_bits` messages with `2^bucket_bits` buckets per way that remembers a
    /// delivered key for `horizon` cycles (see [`TableModel::set_cycle`]).
    pub fn new(classes: [(u64, u64); 4], slot_bits: usize, bucket_bits: usize, horizon: u64) -> Self {
        let messages = 1 << slot_bits;
        TableModel {
            classes,
            slot_bits,
            bucket_bits,
            ways: vec![vec![[None, None]; 1 << bucket_bits]; 2],
            slots: vec![None; messages],
            gens: vec![0; messages],
            class_in_use: classes.iter().map(|c| vec![false; c.1 as usize]).collect(),
            delivered: HashMap::new(),
            horizon,
            now: 0,
            counters: RxCounters::default(),
            fail_bucket_full: 0,
        }
    }

    /// The cycle of the next operations. The hardware remembers a delivered key for at least
    /// the horizon and less than 17/16 of it (epochs of horizon/16 cycles); the model remembers it
    /// for exactly the horizon, so a comparison must not offer a duplicate between the two.
    /// Without calls the model's time stays 0 and it never forgets.
    pub fn set_cycle(&mut self, cycle: u64) {
        self.now = cycle;
    }

    /// A delivered key the model still remembers.
    pub fn remembers(&self, key: u64) -> bool {
        self.delivered.get(&key).is_some_and(|at| self.now < at + self.horizon)
    }

    fn candidates(&self, key: u64) -> [(usize, usize, usize); 4] {
        let (b0, b1) = (hash0(key, self.bucket_bits) as usize, hash1(key, self.bucket_bits) as usize);
        [(0, b0, 0), (0, b0, 1), (1, b1, 0), (1, b1, 1)]
    }

    /// One request.
    pub fn request(&mut self, r: &RxRequest) -> RxResponse {
        let key = key_of(r);
        let off = r.pkt_offset as usize;
        let fail =
            |reason: u64| RxResponse { fail: true, fail_reason: reason as u8, rx_msg_id: RX_MSG_ID_NONE as u16, ..Default::default() };
        let hit = self.candidates(key).into_iter().find(|&(w, b, p)| self.ways[w][b][p].as_ref().is_some_and(|e| e.key == key));
        if let Some((w, b, p)) = hit {
            let e = self.ways[w][b][p].as_mut().unwrap();
            let pkts = pkts_of(e.msg_len);
            if r.msg_len != e.msg_len {
                self.counters.fail_len_mismatch += 1;
                return fail(fail_reason::LEN_MISMATCH);
            }
            if off >= pkts {
                self.counters.fail_bad_offset += 1;
                return fail(fail_reason::BAD_OFFSET);
            }
            let was_set = e.received[off];
            if r.mark_received {
                e.received.set(off, true);
            }
            let announce_new_msg = !r.peek && !e.announced;
            e.announced |= !r.peek;
            self.counters.duplicate += was_set as u64;
            let slot = e.slot;
            return RxResponse {
                fail: false,
                fail_reason: 0,
                rx_msg_id: ((self.gens[slot] as u16) << self.slot_bits) | slot as u16,
                is_new_msg: false,
                is_new_pkt: !was_set,
                is_last_pkt: e.received.count_ones() == pkts,
                ack_no: e.received.first_zero().unwrap_or(pkts) as u16,
                announce_new_msg,
            };
        }
        let pkts = pkts_of(r.msg_len);
        if self.remembers(key) {
            self.counters.recent_duplicate += 1;
            return RxResponse {
                fail: false,
                fail_reason: 0,
                rx_msg_id: RX_MSG_ID_NONE as u16,
                is_new_msg: false,
                is_new_pkt: false,
                is_last_pkt: true,
                ack_no: pkts as u16,
                announce_new_msg: false,
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
        let Some(slot) = self.slots.iter().position(|s| s.is_none()) else {
            self.counters.fail_no_id += 1;
            return fail(fail_reason::NO_ID);
        };
        let (b0, b1) = (hash0(key, self.bucket_bits) as usize, hash1(key, self.bucket_bits) as usize);
        let used = |w: usize, b: usize| self.ways[w][b].iter().filter(|e| e.is_some()).count();
        let (u0, u1) = (used(0, b0), used(1, b1));
        if u0 == 2 && u1 == 2 {
            self.fail_bucket_full += 1;
            return fail(fail_reason::BUCKET_FULL);
        }
        let best = (0..4).find(|&c| self.classes[c].0 as usize >= pkts).unwrap();
        let chosen = (best..4).find_map(|c| self.class_in_use[c].iter().position(|u| !u).map(|i| (c, i)));
        let Some((class, index)) = chosen else {
            self.counters.fail_no_buffer += 1;
            return fail(fail_reason::NO_BUFFER);
        };
        self.counters.class_fallback += (class != best) as u64;
        self.class_in_use[class][index] = true;
        let (way, bucket) = if u1 < u0 { (1, b1) } else { (0, b0) };
        let pos = if self.ways[way][bucket][0].is_some() { 1 } else { 0 };
        self.gens[slot] = self.gens[slot].wrapping_add(1);
        let mut received = bitvec![0; pkts];
        if r.mark_received {
            received.set(off, true);
        }
        let is_last_pkt = received.count_ones() == pkts;
        let ack_no = received.first_zero().unwrap_or(pkts) as u16;
        self.ways[way][bucket][pos] = Some(TableEntry { key, slot, msg_len: r.msg_len, received, announced: !r.peek });
        self.slots[slot] = Some(SlotInfo { way, bucket, pos, class, index, key });
        RxResponse {
            fail: false,
            fail_reason: 0,
            rx_msg_id: ((self.gens[slot] as u16) << self.slot_bits) | slot as u16,
            is_new_msg: true,
            is_new_pkt: true,
            is_last_pkt,
            ack_no,
            announce_new_msg: !r.peek,
        }
    }

    /// Frees `slot` (nothing happens when it holds no message).
    pub fn release(&mut self, slot: usize, delivered: bool) {
        if let Some(s) = self.slots[slot].take() {
            self.ways[s.way][s.bucket][s.pos] = None;
            self.class_in_use[s.class][s.index] = false;
            if delivered {
                let (now, horizon) = (self.now, self.horizon);
                if self.delivered.len() > 4096 {
                    self.delivered.retain(|_, at| now < *at + horizon);
                }
                self.delivered.insert(s.key, now);
            }
        }
    }

    /// Slots holding a message.
    pub fn live(&self) -> Vec<usize> {
        (0..self.slots.len()).filter(|&s| self.slots[s].is_some()).collect()
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
    last_touch: u64,
    payload: Vec<u8>,
}

/// The receive-path reference model (hdl/nic/reassembly.rs) at any size.
#[derive(Clone, Debug)]
pub struct RxModel {
    table: TableModel,
    slot_bits: usize,
    timeout: u64,
    slots: Vec<Option<Entry>>,
    gens: Vec<u8>,
    completed: VecDeque<usize>,
    /// Messages the hardware must deliver, header included, in order of completion.
    pub deliveries: VecDeque<Vec<u8>>,
    reassembly: RxCounters,
}

impl RxModel {
    /// `classes`: (pages per buffer, buffers) per size class; `timeout`: ingress timer delay in
    /// cycles; `2^slot_bits` messages, `2^bucket_bits` buckets per way, delivered keys remembered
    /// for `horizon` cycles.
    pub fn new(classes: [(u64, u64); 4], timeout: u64, slot_bits: usize, bucket_bits: usize, horizon: u64) -> Self {
        let messages = 1 << slot_bits;
        RxModel {
            table: TableModel::new(classes, slot_bits, bucket_bits, horizon),
            slot_bits,
            timeout,
            slots: vec![None; messages],
            gens: vec![0; messages],
            completed: VecDeque::new(),
            deliveries: VecDeque::new(),
            reassembly: RxCounters::default(),
        }
    }

    fn slot_mask(&self) -> u16 {
        (1 << self.slot_bits) - 1
    }

    /// A GetRxMsgInfo request the hardware took in cycle `cycle`.
    pub fn request(&mut self, r: &RxRequest, cycle: u64) -> RxResponse {
        self.table.set_cycle(cycle);
        let resp = self.table.request(r);
        if !resp.fail && resp.rx_msg_id & 0x8000 == 0 {
            let slot = (resp.rx_msg_id & self.slot_mask()) as usize;
            let off = r.pkt_offset as usize;
            if resp.is_new_msg {
                let pkts = pkts_of(r.msg_len);
                let mut received = bitvec![0; pkts];
                if r.mark_received {
                    received.set(off, true);
                }
                self.gens[slot] = ((resp.rx_msg_id >> self.slot_bits) & 0xff) as u8;
                self.slots[slot] = Some(Entry {
                    key: (r.src_ip, r.src_port, r.tx_msg_id),
                    msg_len: r.msg_len,
                    received,
                    written: bitvec![0; pkts],
                    closed: false,
                    last_touch: cycle,
                    payload: vec![0; r.msg_len as usize],
                });
            } else {
                let e = self.slots[slot].as_mut().expect("the table answered with a slot the model does not hold");
                let was_complete = e.received.all();
                if r.mark_received {
                    e.received.set(off, true);
                }
                if !was_complete {
                    e.last_touch = cycle;
                }
            }
        }
        resp
    }

    /// A release the hardware made (the table took it) in cycle `cycle`.
    pub fn release(&mut self, slot: usize, reason: ReleaseReason, cycle: u64) -> Result<(), String> {
        let Some(e) = self.slots[slot].take() else {
            return Err(format!("cycle {cycle}: {reason:?} release of slot {slot}, which holds no message"));
        };
        match reason {
            ReleaseReason::Delivered => {
                if self.completed.front() != Some(&slot) {
                    return Err(format!(
                        "cycle {cycle}: delivery release of slot {slot}; oldest completed is {:?}",
                        self.completed.front()
                    ));
                }
                self.completed.pop_front();
                self.reassembly.delivered += 1;
            }
            ReleaseReason::GarbageCollected => {
                if e.closed {
                    return Err(format!("cycle {cycle}: slot {slot} garbage-collected after it completed"));
                }
                if cycle < e.last_touch + self.timeout {
                    return Err(format!(
                        "cycle {cycle}: slot {slot} garbage-collected {} cycles after its last call (timeout {})",
                        cycle - e.last_touch,
                        self.timeout
                    ));
                }
                self.reassembly.gc += 1;
            }
        }
        self.table.set_cycle(cycle);
        self.table.release(slot, reason == ReleaseReason::Delivered);
        Ok(())
    }

    /// A packet that reached the reassembly module (its last beat was accepted).
    pub fn packet(&mut self, m: &RxMeta, payload: &[u8]) {
        let slot = (m.rx_msg_id & self.slot_mask()) as usize;
        let gen = ((m.rx_msg_id >> self.slot_bits) & 0xff) as u8;
        let live = m.rx_msg_id & 0x8000 == 0
            && self.slots[slot]
                .as_ref()
                .is_some_and(|e| !e.closed && e.key == (m.remote_ip, m.remote_port, m.tx_msg_id) && e.msg_len == m.msg_len)
            && self.gens[slot] == gen;
        if !live {
            self.reassembly.drop_stale += 1;
            return;
        }
        let e = self.slots[slot].as_mut().unwrap();
        let off = m.pkt_offset as usize;
        let pkts = pkts_of(e.msg_len);
        if off >= pkts {
            self.reassembly.drop_bad_offset += 1;
            return;
        }
        if e.written[off] {
            self.reassembly.drop_duplicate += 1;
            return;
        }
        let start = off * PAGE_BYTES as usize;
        let expected = if off == pkts - 1 { e.msg_len as usize - start } else { PAGE_BYTES as usize };
        if payload.len() != expected {
            // Dropped whole; the message goes on.
            self.reassembly.drop_bad_length += 1;
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

    /// Every counter (the table's and the reassembly's).
    pub fn counters(&self) -> RxCounters {
        let t = &self.table.counters;
        RxCounters {
            fail_zero_len: t.fail_zero_len,
            fail_too_long: t.fail_too_long,
            fail_bad_offset: t.fail_bad_offset,
            fail_len_mismatch: t.fail_len_mismatch,
            fail_no_id: t.fail_no_id,
            fail_no_buffer: t.fail_no_buffer,
            duplicate: t.duplicate,
            recent_duplicate: t.recent_duplicate,
            class_fallback: t.class_fallback,
            ..self.reassembly
        }
    }

    /// Requests that failed because both candidate buckets were full.
    pub fn fail_bucket_full(&self) -> u64 {
        self.table.fail_bucket_full
    }

    /// Messages currently holding a slot.
    pub fn live_messages(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// First page of each size class in the payload memory.
    pub fn class_base_pages(&self) -> [u64; 4] {
        class_base_pages(&self.table.classes)
    }

    /// Whether the table holds no message (so every ID and buffer is free).
    pub fn all_free(&self) -> bool {
        self.table.live().is_empty()
    }
}
