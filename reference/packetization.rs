//! Reference model of the packetization core (hdl/nic/packetization.rs; thesis §3.2.4,
//! Algorithms 2–4), written from the block's documented contract with `bitvec` bitmaps.
//!
//! The model is transaction-level and parameterised by the number of slots: each operation
//! (install, DeliveredEvent, CreditTxEvent, TimeoutEvent, packet choice) is applied on its own, as
//! the block's read-modify-write pipeline applies them one per cycle; [`OpEffects`] are the
//! completion, timer schedule and cancel it produces. Cycle timing is the block's own (checked by
//! its unit and lockstep tests), not the model's.

use bitvec::prelude::*;

/// Packets per message bitmap width.
pub const BITMAP: usize = 64;
type Bitmap = BitArr!(for 64, in u64, Lsb0);

fn ones_until(k: usize) -> Bitmap {
    let mut b = Bitmap::ZERO;
    b[..k.min(BITMAP)].fill(true);
    b
}

fn from_u64(v: u64) -> Bitmap {
    let mut b = Bitmap::ZERO;
    b.store_le(v);
    b
}

/// A message write (from the CPU interface).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NewMessage {
    pub slot: u32,
    pub remote_ip: u32,
    pub remote_port: u16,
    pub local_port: u16,
    pub msg_len: u16,
    pub credit: Option<u16>,
    pub rank: u8,
}

/// CreditTxEvent arguments (Algorithm 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CreditTx {
    pub tx_msg_id: u16,
    pub rtx: Option<u64>,
    pub new_credit: Option<u16>,
    pub allow_tx: bool,
    pub raise_only: bool,
}

/// Listing 3.2 egress metadata of one packet, plus the slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketDesc {
    pub slot: u32,
    pub remote_ip: u32,
    pub remote_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub local_port: u16,
    pub tx_msg_id: u16,
    pub credit: u16,
    pub rank: u8,
    pub flags: u8,
    pub is_new_msg: bool,
    pub is_rtx: bool,
}

/// A freed slot: delivered or abandoned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub tx_msg_id: u16,
    pub abandoned: bool,
}

/// Counters, in the block's port order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreCounters {
    pub stale_delivered: u16,
    pub stale_credit: u16,
    pub stale_timeout: u16,
    pub ack_beyond: u16,
    pub rtx_beyond: u16,
    pub credit_beyond: u16,
    pub write_busy: u16,
    pub delivered_msgs: u16,
    pub abandoned_msgs: u16,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    valid: bool,
    delivered: Bitmap,
    tx: Bitmap,
    rtx_pending: Bitmap,
    credit: u16,
    allow_tx: bool,
    npkts: u8,
    max_tx_p1: u8,
    timeout_cnt: u8,
    id: u16,
    remote_ip: u32,
    remote_port: u16,
    local_port: u16,
    msg_len: u16,
    rank: u8,
}

impl Slot {
    fn eligible(&self) -> Bitmap {
        let credit_ok = if self.allow_tx { ones_until(self.credit as usize) } else { Bitmap::ZERO };
        ((self.tx & credit_ok) | self.rtx_pending) & !self.delivered
    }
}

fn bump(c: &mut u16) {
    *c = c.saturating_add(1);
}

/// What one operation produced (the block's pulses while it was applied).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpEffects {
    pub done: Option<Completion>,
    /// Timer schedule: (slot, meta = tx_msg_id << 8 | maxTxPktOffset+1).
    pub sched: Option<(u32, u32)>,
    pub cancel: Option<u32>,
}

/// The model: `n` slots.
#[derive(Clone, Debug)]
pub struct PacketizationModel {
    n: usize,
    slots: Vec<Slot>,
    rr_last: usize,
    pub default_credit: u16,
    pub timeout_threshold: u8,
    counters: CoreCounters,
}

impl PacketizationModel {
    /// `n` slots (the core's N); slot `i`'s first ID is `i`.
    pub fn new(n: usize) -> Self {
        let mut slots = vec![Slot::default(); n];
        for (i, s) in slots.iter_mut().enumerate() {
            s.id = i as u16;
        }
        PacketizationModel { n, slots, rr_last: n - 1, default_credit: 0, timeout_threshold: 0, counters: CoreCounters::default() }
    }

    /// Slots holding a message, as a bit list.
    pub fn active(&self) -> Vec<bool> {
        self.slots.iter().map(|s| s.valid).collect()
    }

    pub fn counters(&self) -> CoreCounters {
        self.counters
    }

    fn lookup(&self, id: u16) -> Option<usize> {
        let slot = id as usize % self.n;
        let s = &self.slots[slot];
        (s.valid && s.id == id).then_some(slot)
    }

    fn free(&mut self, s: usize, abandoned: bool) -> Completion {
        let n = self.n as u16;
        let m = &mut self.slots[s];
        let done = Completion { slot: s as u32, tx_msg_id: m.id, abandoned };
        m.valid = false;
        m.tx = Bitmap::ZERO;
        m.rtx_pending = Bitmap::ZERO;
        m.id = m.id.wrapping_add(n);
        if abandoned {
            bump(&mut self.counters.abandoned_msgs);
        } else {
            bump(&mut self.counters.delivered_msgs);
        }
        done
    }

    /// Message install into `w.slot`: its ID, or `None` (counted) when the slot is busy.
    pub fn install(&mut self, w: &NewMessage) -> (Option<u16>, OpEffects) {
        let s = w.slot as usize % self.n;
        if self.slots[s].valid {
            bump(&mut self.counters.write_busy);
            return (None, OpEffects::default());
        }
        let npkts = ((w.msg_len as u32 + 1023) >> 10) as u16;
        let credit = w.credit.unwrap_or(self.default_credit).min(npkts);
        let m = &mut self.slots[s];
        *m = Slot {
            valid: true,
            delivered: Bitmap::ZERO,
            tx: ones_until(npkts as usize),
            rtx_pending: Bitmap::ZERO,
            credit,
            allow_tx: true,
            npkts: npkts as u8,
            max_tx_p1: 0,
            timeout_cnt: 0,
            id: m.id,
            remote_ip: w.remote_ip,
            remote_port: w.remote_port,
            local_port: w.local_port,
            msg_len: w.msg_len,
            rank: w.rank,
        };
        (Some(m.id), OpEffects { sched: Some((s as u32, (m.id as u32) << 8)), ..Default::default() })
    }

    /// DeliveredEvent (Algorithm 2).
    pub fn delivered(&mut self, id: u16, ack_raw: u64) -> OpEffects {
        let Some(s) = self.lookup(id) else {
            bump(&mut self.counters.stale_delivered);
            return OpEffects::default();
        };
        let m = &mut self.slots[s];
        let pk = ones_until(m.npkts as usize);
        let raw = from_u64(ack_raw);
        if (raw & !pk).any() {
            bump(&mut self.counters.ack_beyond);
        }
        let ack = raw & pk;
        m.delivered |= ack;
        m.tx &= !ack;
        m.rtx_pending &= !ack;
        if m.delivered == pk {
            let done = self.free(s, false);
            return OpEffects { done: Some(done), cancel: Some(s as u32), ..Default::default() };
        }
        OpEffects::default()
    }

    /// CreditTxEvent (Algorithm 3).
    pub fn credit(&mut self, c: &CreditTx) {
        let Some(s) = self.lookup(c.tx_msg_id) else {
            bump(&mut self.counters.stale_credit);
            return;
        };
        let m = &mut self.slots[s];
        let pk = ones_until(m.npkts as usize);
        if let Some(rtx) = c.rtx {
            let raw = from_u64(rtx);
            if (raw & !pk).any() {
                bump(&mut self.counters.rtx_beyond);
            }
            m.tx |= raw & pk & !m.delivered;
        }
        if let Some(req) = c.new_credit {
            let req = if req > m.npkts as u16 {
                bump(&mut self.counters.credit_beyond);
                m.npkts as u16
            } else {
                req
            };
            m.credit = if c.raise_only { m.credit.max(req) } else { req };
        }
        m.allow_tx = c.allow_tx;
    }

    /// TimeoutEvent (Algorithm 4, inclusive rtx_offset) for `slot` with the timer's metadata.
    pub fn timeout(&mut self, slot: u32, meta: u32) -> OpEffects {
        let s = slot as usize % self.n;
        let id = (meta >> 8) as u16;
        if !(self.slots[s].valid && self.slots[s].id == id) {
            bump(&mut self.counters.stale_timeout);
            return OpEffects::default();
        }
        let threshold = self.timeout_threshold;
        let m = &mut self.slots[s];
        let rtx_p1 = (meta & 0xff) as u8;
        let progress = m.max_tx_p1 > rtx_p1;
        let count = m.timeout_cnt.saturating_add(1);
        if !progress && count > threshold {
            let done = self.free(s, true);
            return OpEffects { done: Some(done), ..Default::default() };
        }
        m.timeout_cnt = if progress { 0 } else { count };
        let rtx = ones_until(rtx_p1 as usize) & !m.delivered;
        m.tx &= !rtx;
        m.rtx_pending |= rtx;
        OpEffects { sched: Some((s as u32, ((m.id as u32) << 8) | m.max_tx_p1 as u32)), ..Default::default() }
    }

    /// The next packet: round robin over the slots with an eligible packet, ascending from the
    /// one after the last served; within a message the smallest eligible offset.
    pub fn next_packet(&mut self) -> Option<PacketDesc> {
        let n = self.n;
        let s = (1..=n).map(|k| (self.rr_last + k) % n).find(|&s| self.slots[s].valid && self.slots[s].eligible().any())?;
        self.rr_last = s;
        let slot = &mut self.slots[s];
        let off = slot.eligible().first_one().unwrap();
        let p = PacketDesc {
            slot: s as u32,
            remote_ip: slot.remote_ip,
            remote_port: slot.remote_port,
            msg_len: slot.msg_len,
            pkt_offset: off as u8,
            local_port: slot.local_port,
            tx_msg_id: slot.id,
            credit: slot.credit,
            rank: slot.rank,
            flags: 1,
            is_new_msg: slot.max_tx_p1 == 0,
            is_rtx: (off as u8) < slot.max_tx_p1,
        };
        slot.tx.set(off, false);
        slot.rtx_pending.set(off, false);
        slot.max_tx_p1 = slot.max_tx_p1.max(off as u8 + 1);
        Some(p)
    }

    /// Every packet the messages may send now, in the order [`Self::next_packet`] gives them.
    pub fn drain(&mut self) -> Vec<PacketDesc> {
        std::iter::from_fn(|| self.next_packet()).collect()
    }
}
