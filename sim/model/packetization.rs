//! Reference model of the packetization core (hdl/nic/packetization.rs; thesis §3.2.4,
//! Algorithms 2–4), written from the block's documented contract with `bitvec` bitmaps.
//!
//! The model is cycle-level at the block's ports: [`PacketizationModel::cycle`] takes one cycle's
//! inputs and returns the outputs the block shows in that cycle (before the clock edge), then
//! advances its state. The order within a cycle is the documented one: packet choice → Delivered
//! → CreditTx → Timeout → free → message write.

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

/// Inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoreInputs {
    pub reset: bool,
    pub default_credit: u16,
    pub timeout_threshold: u8,
    pub new: Option<NewMessage>,
    /// The slot presented on `new_slot` when no write is offered (it still selects `new_tx_msg_id`).
    pub idle_slot: u32,
    pub delivered: Option<(u16, u64)>,
    pub credit: Option<CreditTx>,
    /// Timer expiry offered: (slot, meta = tx_msg_id << 8 | maxTxPktOffset+1).
    pub timeout: Option<(u32, u32)>,
    pub pkt_ready: bool,
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

/// Outputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreOutputs {
    pub new_ready: bool,
    pub new_tx_msg_id: u16,
    pub to_ready: bool,
    pub packet: Option<PacketDesc>,
    pub done: Option<Completion>,
    /// Timer schedule: (slot, meta).
    pub sched: Option<(u32, u32)>,
    pub cancel: Option<u32>,
    pub active: u64,
    pub counters: CoreCounters,
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

/// The model: `n` slots.
#[derive(Clone, Debug)]
pub struct PacketizationModel {
    n: usize,
    slots: Vec<Slot>,
    rr_next: usize,
    timeout_hold: Option<(u32, u32)>,
    out: Option<PacketDesc>,
    counters: CoreCounters,
}

impl PacketizationModel {
    pub fn new(n: usize) -> Self {
        let mut m = PacketizationModel {
            n,
            slots: vec![Slot::default(); n],
            rr_next: 0,
            timeout_hold: None,
            out: None,
            counters: CoreCounters::default(),
        };
        m.reset();
        m
    }

    fn reset(&mut self) {
        for (i, s) in self.slots.iter_mut().enumerate() {
            s.valid = false;
            s.tx = Bitmap::ZERO;
            s.rtx_pending = Bitmap::ZERO;
            s.id = i as u16;
        }
        self.rr_next = 0;
        self.timeout_hold = None;
        self.out = None;
        self.counters = CoreCounters::default();
    }

    /// Slots holding a message.
    pub fn active(&self) -> u64 {
        self.slots.iter().enumerate().filter(|(_, s)| s.valid).fold(0, |a, (i, _)| a | (1 << i))
    }

    fn lookup(&self, id: u16) -> Option<usize> {
        let slot = id as usize % self.n;
        let s = &self.slots[slot];
        (s.valid && s.id == id).then_some(slot)
    }

    /// One cycle: returns the outputs shown before the clock edge and advances the state.
    pub fn cycle(&mut self, i: &CoreInputs) -> CoreOutputs {
        let n = self.n;
        let mut o = CoreOutputs {
            packet: self.out,
            to_ready: self.timeout_hold.is_none(),
            active: self.active(),
            counters: self.counters,
            ..Default::default()
        };
        let new_slot = i.new.map_or(i.idle_slot, |w| w.slot) as usize % n;
        o.new_tx_msg_id = self.slots[new_slot].id;
        let new_slot_busy = self.slots[new_slot].valid;

        // DeliveredEvent: hit and completion (evaluated against the start-of-cycle state).
        let d_slot = i.delivered.and_then(|(id, _)| self.lookup(id));
        let d_complete = d_slot.is_some_and(|s| {
            let m = &self.slots[s];
            let ack = from_u64(i.delivered.unwrap().1) & ones_until(m.npkts as usize);
            (m.delivered | ack) == ones_until(m.npkts as usize)
        });
        // Timeout: processed only in a cycle in which no DeliveredEvent completes a message.
        let t_go = self.timeout_hold.is_some() && !d_complete;
        let t_hit = if t_go {
            let (slot, meta) = self.timeout_hold.unwrap();
            let s = &self.slots[slot as usize];
            (s.valid && s.id as u32 == meta >> 8).then_some(slot as usize)
        } else {
            None
        };
        let threshold = i.timeout_threshold;
        // Abandon on the updated count: progress since the timer was set (judged from the state at
        // the start of the cycle) resets it; otherwise it is incremented and compared.
        let t_abandon = t_hit.is_some_and(|s| {
            let m = &self.slots[s];
            let rtx_p1 = (self.timeout_hold.unwrap().1 & 0xff) as u8;
            m.max_tx_p1 <= rtx_p1 && m.timeout_cnt.saturating_add(1) > threshold
        });
        let freed_now = if d_complete { d_slot } else if t_abandon { t_hit } else { None };

        // Packet choice from the start-of-cycle state.
        let choosable: Vec<usize> =
            (0..n).filter(|&s| self.slots[s].eligible().any() && Some(s) != freed_now).collect();
        let pick = choosable.iter().rev().find(|&&s| s < self.rr_next).or(choosable.last()).copied();
        let take_out = self.out.is_none() || i.pkt_ready;
        let mut next_out = if i.pkt_ready { None } else { self.out };
        if let (Some(m), true) = (pick, take_out) {
            let slot = &mut self.slots[m];
            let off = slot.eligible().first_one().unwrap();
            next_out = Some(PacketDesc {
                slot: m as u32,
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
            });
            slot.tx.set(off, false);
            slot.rtx_pending.set(off, false);
            slot.max_tx_p1 = slot.max_tx_p1.max(off as u8 + 1);
            self.rr_next = m;
        }

        // Delivered (Algorithm 2).
        if let Some((_, ack_raw)) = i.delivered {
            match d_slot {
                Some(s) => {
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
                }
                None => bump(&mut self.counters.stale_delivered),
            }
        }

        // CreditTx (Algorithm 3).
        if let Some(c) = i.credit {
            match self.lookup(c.tx_msg_id).filter(|&s| !(d_complete && Some(s) == d_slot)) {
                Some(s) => {
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
                None => bump(&mut self.counters.stale_credit),
            }
        }

        // Timeout (Algorithm 4, inclusive rtx_offset).
        if t_go {
            let (slot, meta) = self.timeout_hold.take().unwrap();
            match t_hit {
                Some(s) => {
                    if !t_abandon {
                        let m = &mut self.slots[s];
                        let rtx_p1 = (meta & 0xff) as u8;
                        m.timeout_cnt = if m.max_tx_p1 > rtx_p1 { 0 } else { m.timeout_cnt.saturating_add(1) };
                        let rtx = ones_until(rtx_p1 as usize) & !m.delivered;
                        m.tx &= !rtx;
                        m.rtx_pending |= rtx;
                        o.sched = Some((slot, ((m.id as u32) << 8) | m.max_tx_p1 as u32));
                    }
                }
                None => bump(&mut self.counters.stale_timeout),
            }
        }
        if let (Some((slot, meta)), true) = (i.timeout, o.to_ready) {
            self.timeout_hold = Some((slot % n as u32, meta & 0xff_ffff));
        }

        // Free.
        if let Some(s) = freed_now {
            let m = &mut self.slots[s];
            o.done = Some(Completion { slot: s as u32, tx_msg_id: m.id, abandoned: !d_complete });
            if d_complete {
                o.cancel = Some(s as u32);
                bump(&mut self.counters.delivered_msgs);
            } else {
                bump(&mut self.counters.abandoned_msgs);
            }
            m.valid = false;
            m.tx = Bitmap::ZERO;
            m.rtx_pending = Bitmap::ZERO;
            m.id = m.id.wrapping_add(n as u16);
        }

        // Message write.
        o.new_ready = !t_go;
        if let (Some(w), true) = (i.new, o.new_ready) {
            let s = w.slot as usize % n;
            // Judged by the start-of-cycle state (a slot freed in this cycle is still busy).
            if new_slot_busy {
                bump(&mut self.counters.write_busy);
            } else {
                let npkts = ((w.msg_len as u32 + 1023) >> 10) as u16;
                let credit = w.credit.unwrap_or(i.default_credit).min(npkts);
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
                o.sched = Some((s as u32, (m.id as u32) << 8));
            }
        }
        self.out = next_out;
        if i.reset {
            self.reset();
        }
        o
    }
}
