//! Reference model of the 128-message hashed GetRxMsgInfo table
//! (hdl/nic/get_rx_msg_info_hashed.rs): the same two ways of 64 two-entry buckets, the same
//! hash functions and placement, so that every response — "bucket full" included — matches.
//! Operations are serialised in the hardware (one every two cycles), so the model applies them
//! in the order the hardware accepts them.

use super::rx::{pkts_of, RxCounters, RxRequest, RxResponse};
use bitvec::prelude::*;
use nanotransport_hdl::nic::get_rx_msg_info::{fail_reason, PAGE_BYTES, RX_MSG_ID_NONE};
use nanotransport_hdl::nic::get_rx_msg_info_hashed::{hash0, hash1, BUCKETS, FAIL_BUCKET_FULL};

#[derive(Clone, Debug)]
struct Entry {
    key: u64,
    slot: usize,
    msg_len: u16,
    received: BitVec,
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

/// The hashed table model; `counters` also counts `bucket_full` (in `fail_bucket_full`).
#[derive(Clone, Debug)]
pub struct HashedTableModel {
    classes: [(u64, u64); 4],
    ways: Vec<Vec<[Option<Entry>; 2]>>,
    slots: Vec<Option<SlotInfo>>,
    gens: Vec<u8>,
    class_in_use: Vec<Vec<bool>>,
    recent: Vec<Option<u64>>,
    recent_ptr: usize,
    pub counters: RxCounters,
    pub fail_bucket_full: u64,
}

/// `{tx_msg_id, src_port, src_ip}` as the hardware packs it.
pub fn key_of(r: &RxRequest) -> u64 {
    ((r.tx_msg_id as u64) << 48) | ((r.src_port as u64) << 32) | r.src_ip as u64
}

impl HashedTableModel {
    pub fn new(classes: [(u64, u64); 4], messages: usize, recent_depth: usize) -> Self {
        HashedTableModel {
            classes,
            ways: vec![vec![[None, None]; BUCKETS]; 2],
            slots: vec![None; messages],
            gens: vec![0; messages],
            class_in_use: classes.iter().map(|c| vec![false; c.1 as usize]).collect(),
            recent: vec![None; recent_depth],
            recent_ptr: 0,
            counters: RxCounters::default(),
            fail_bucket_full: 0,
        }
    }

    fn candidates(key: u64) -> [(usize, usize, usize); 4] {
        let (b0, b1) = (hash0(key) as usize, hash1(key) as usize);
        [(0, b0, 0), (0, b0, 1), (1, b1, 0), (1, b1, 1)]
    }

    /// One request.
    pub fn request(&mut self, r: &RxRequest) -> RxResponse {
        let key = key_of(r);
        let off = r.pkt_offset as usize;
        let fail = |reason: u64| RxResponse { fail: true, fail_reason: reason as u8, rx_msg_id: RX_MSG_ID_NONE as u16, ..Default::default() };
        let hit = Self::candidates(key)
            .into_iter()
            .find(|&(w, b, p)| self.ways[w][b][p].as_ref().is_some_and(|e| e.key == key));
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
            self.counters.duplicate += was_set as u64;
            let slot = e.slot;
            return RxResponse {
                fail: false,
                fail_reason: 0,
                rx_msg_id: ((self.gens[slot] as u16) << 7) | slot as u16,
                is_new_msg: false,
                is_new_pkt: !was_set,
                is_last_pkt: e.received.count_ones() == pkts,
                ack_no: e.received.first_zero().unwrap_or(pkts) as u16,
            };
        }
        let pkts = pkts_of(r.msg_len);
        if self.recent.iter().flatten().any(|k| *k == key) {
            self.counters.recent_duplicate += 1;
            return RxResponse { fail: false, fail_reason: 0, rx_msg_id: RX_MSG_ID_NONE as u16, is_new_msg: false, is_new_pkt: false, is_last_pkt: true, ack_no: pkts as u16 };
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
        let (b0, b1) = (hash0(key) as usize, hash1(key) as usize);
        let used = |w: usize, b: usize| self.ways[w][b].iter().filter(|e| e.is_some()).count();
        let (u0, u1) = (used(0, b0), used(1, b1));
        if u0 == 2 && u1 == 2 {
            self.fail_bucket_full += 1;
            return fail(FAIL_BUCKET_FULL);
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
        self.ways[way][bucket][pos] = Some(Entry { key, slot, msg_len: r.msg_len, received });
        self.slots[slot] = Some(SlotInfo { way, bucket, pos, class, index, key });
        RxResponse { fail: false, fail_reason: 0, rx_msg_id: ((self.gens[slot] as u16) << 7) | slot as u16, is_new_msg: true, is_new_pkt: true, is_last_pkt, ack_no }
    }

    /// Frees `slot` (nothing happens when it holds no message).
    pub fn release(&mut self, slot: usize, delivered: bool) {
        if let Some(s) = self.slots[slot].take() {
            self.ways[s.way][s.bucket][s.pos] = None;
            self.class_in_use[s.class][s.index] = false;
            if delivered {
                self.recent[self.recent_ptr] = Some(s.key);
                self.recent_ptr = (self.recent_ptr + 1) % self.recent.len();
            }
        }
    }

    /// Slots holding a message.
    pub fn live(&self) -> Vec<usize> {
        (0..self.slots.len()).filter(|&s| self.slots[s].is_some()).collect()
    }
}
