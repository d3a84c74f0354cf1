//! Reference model of the 128-message receive path: the hashed GetRxMsgInfo table
//! ([`HashedTableModel`], which decides every response) and the reassembly module
//! (hdl/nic/reassembly_128.rs) with its ingress timers, at transaction level.
//!
//! The reassembly side follows [`crate::model::rx::RxModel`]: per-packet drop reasons,
//! completion, the bytes and order of delivered messages, and the counters. As there, *when* a
//! read-out ends and *when* a timeout is taken are timing, so the testbench reports each release
//! the hardware makes and the model checks it. The table serialises its operations (one every
//! two cycles), so requests and releases are applied in the order the hardware takes them.

use super::rx::{app_header, pkts_of, ReleaseReason, RxCounters, RxMeta, RxRequest, RxResponse};
use super::rx_hashed::HashedTableModel;
use bitvec::prelude::*;
use nanotransport_hdl::nic::get_rx_msg_info::PAGE_BYTES;
use std::collections::VecDeque;

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

/// The 128-message receive-path reference model.
#[derive(Clone, Debug)]
pub struct Rx128Model {
    table: HashedTableModel,
    timeout: u64,
    slots: Vec<Option<Entry>>,
    gens: Vec<u8>,
    completed: VecDeque<usize>,
    aborted: VecDeque<usize>,
    /// Messages the hardware must deliver, header included, in order of completion.
    pub deliveries: VecDeque<Vec<u8>>,
    reassembly: RxCounters,
}

impl Rx128Model {
    pub fn new(classes: [(u64, u64); 4], timeout: u64, messages: usize, recent_depth: usize) -> Self {
        Rx128Model {
            table: HashedTableModel::new(classes, messages, recent_depth),
            timeout,
            slots: vec![None; messages],
            gens: vec![0; messages],
            completed: VecDeque::new(),
            aborted: VecDeque::new(),
            deliveries: VecDeque::new(),
            reassembly: RxCounters::default(),
        }
    }

    /// A GetRxMsgInfo request the hardware took in cycle `cycle`.
    pub fn request(&mut self, r: &RxRequest, cycle: u64) -> RxResponse {
        let resp = self.table.request(r);
        if !resp.fail && resp.rx_msg_id & 0x8000 == 0 {
            let slot = (resp.rx_msg_id & 0x7f) as usize;
            let off = r.pkt_offset as usize;
            if resp.is_new_msg {
                let pkts = pkts_of(r.msg_len);
                let mut received = bitvec![0; pkts];
                if r.mark_received {
                    received.set(off, true);
                }
                self.gens[slot] = ((resp.rx_msg_id >> 7) & 0xff) as u8;
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
                    return Err(format!("cycle {cycle}: delivery release of slot {slot}; oldest completed is {:?}", self.completed.front()));
                }
                self.completed.pop_front();
                self.reassembly.delivered += 1;
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
                        "cycle {cycle}: slot {slot} garbage-collected {} cycles after its last call (timeout {})",
                        cycle - e.last_touch,
                        self.timeout
                    ));
                }
                self.reassembly.gc += 1;
            }
        }
        self.table.release(slot, reason == ReleaseReason::Delivered);
        Ok(())
    }

    /// A packet that reached the reassembly module (its last beat was accepted).
    pub fn packet(&mut self, m: &RxMeta, payload: &[u8]) {
        let slot = (m.rx_msg_id & 0x7f) as usize;
        let gen = ((m.rx_msg_id >> 7) & 0xff) as u8;
        let live = m.rx_msg_id & 0x8000 == 0
            && self.slots[slot].as_ref().is_some_and(|e| {
                !e.closed && e.key == (m.remote_ip, m.remote_port, m.tx_msg_id) && e.msg_len == m.msg_len
            })
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
            self.reassembly.drop_bad_length += 1;
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

    /// Whether the table holds no message (so every ID and buffer is free).
    pub fn all_free(&self) -> bool {
        self.table.live().is_empty()
    }
}
