//! Cycle-level driver of the reassembly module's Verilator model (hdl/nic/reassembly.rs):
//! GetRxMsgInfo requests, packet streams with first-beat metadata, CPU-side read-out, and the
//! observable releases. Used by the reassembly tests and the differential test.

use crate::cosim::verilated::{PortId, VerilatedModel};
use crate::nic::RESET_INIT_CYCLES;
use nanotransport_reference::rx::{RxCounters, RxMeta, RxRequest, RxResponse};
use std::collections::VecDeque;

/// One packet for the `s_axis` stream.
#[derive(Clone, Debug)]
pub struct RxPacket {
    pub meta: RxMeta,
    pub payload: Vec<u8>,
}

/// What happened in one cycle.
#[derive(Clone, Debug, Default)]
pub struct RxCycle {
    /// Response visible in this cycle (to the previous cycle's request; with 128 messages,
    /// to the request taken two cycles before).
    pub response: Option<RxResponse>,
    /// True when the request offered in this cycle was taken (always, without `req_ready`).
    pub request_taken: bool,
    /// Release made in this cycle: (slot, reason code).
    pub release: Option<(usize, u64)>,
    /// Packet whose last beat was accepted in this cycle.
    pub packet_done: Option<RxPacket>,
    /// True when the first beat of a packet was accepted in this cycle.
    pub packet_started: bool,
    /// Message whose last beat was taken by the CPU side in this cycle.
    pub message_done: Option<Vec<u8>>,
    /// True when a beat was taken by the CPU side in this cycle.
    pub beat_out: bool,
}

/// The GetRxMsgInfo request ports (`req_*`), the same on the table and on the reassembly that
/// wraps it.
pub struct RxRequestPorts {
    valid: PortId,
    fields: [PortId; 7],
}

impl RxRequestPorts {
    pub fn of(m: &VerilatedModel) -> Self {
        let fields = ["req$mark_received", "req$src_ip", "req$src_port", "req$tx_msg_id", "req$msg_len", "req$pkt_offset", "req$peek"];
        RxRequestPorts { valid: m.port_or_panic("req$valid"), fields: fields.map(|n| m.port_or_panic(n)) }
    }

    /// Offers `req` (or nothing) in this cycle; fields are zero when nothing is offered.
    pub fn drive(&self, m: &mut VerilatedModel, req: Option<&RxRequest>) {
        let r = req.copied().unwrap_or_default();
        m.set(self.valid, req.is_some() as u64);
        let values = [
            r.mark_received as u64,
            r.src_ip as u64,
            r.src_port as u64,
            r.tx_msg_id as u64,
            r.msg_len as u64,
            r.pkt_offset as u64,
            r.peek as u64,
        ];
        m.set_all(&self.fields, &values);
    }
}

/// The GetRxMsgInfo response ports (the table's `resp_*`, the reassembly's `resp` bundle). The
/// reassembly has no `resp_announce_new_msg`: its `resp.is_new_msg` is the table's announcement.
pub struct RxResponsePorts {
    valid: PortId,
    fields: [PortId; 7],
    announce: Option<PortId>,
}

impl RxResponsePorts {
    pub fn of(m: &VerilatedModel) -> Self {
        // The reassembly's answer is a bundle (`resp$…`) with `resp_fail_reason` beside it.
        let port = |member: &str| {
            m.port(&format!("resp${member}"))
                .or_else(|| m.port(&format!("resp_{member}")))
                .unwrap_or_else(|| panic!("no port resp_{member}"))
        };
        let fields = ["fail", "fail_reason", "rx_msg_id", "is_new_msg", "is_new_pkt", "is_last_pkt", "ack_no"];
        RxResponsePorts { valid: port("valid"), fields: fields.map(port), announce: m.port("resp_announce_new_msg") }
    }

    /// The response visible now (after `eval`), if any.
    pub fn read(&self, m: &VerilatedModel) -> Option<RxResponse> {
        if m.get(self.valid) == 0 {
            return None;
        }
        let g = |k: usize| m.get(self.fields[k]);
        Some(RxResponse {
            fail: g(0) == 1,
            fail_reason: g(1) as u8,
            rx_msg_id: g(2) as u16,
            is_new_msg: g(3) == 1,
            is_new_pkt: g(4) == 1,
            is_last_pkt: g(5) == 1,
            ack_no: g(6) as u16,
            announce_new_msg: self.announce.map_or(g(3), |p| m.get(p)) == 1,
        })
    }
}

/// The reassembly's packet stream in (`s_axis`, with its first-beat metadata), the read-out
/// stream and the release port.
const INPUTS: [&str; 15] = [
    "reset",
    "ingress_timeout",
    "s_axis$tdata",
    "s_axis$tkeep",
    "s_axis$tlast",
    "s_axis$tvalid",
    "s_axis$remote_ip",
    "s_axis$remote_port",
    "s_axis$msg_len",
    "s_axis$pkt_offset",
    "s_axis$local_port",
    "s_axis$rx_msg_id",
    "s_axis$tx_msg_id",
    "s_axis$is_last_pkt",
    "m_axis$tready",
];
const OUTPUTS: [&str; 8] =
    ["s_axis$tready", "m_axis$tdata", "m_axis$tkeep", "m_axis$tlast", "m_axis$tvalid", "release_valid", "release_slot", "release_reason"];

/// GetRxMsgInfo's counters, in the order of its `counters` bundle (which the reassembly passes
/// up as `table_counters`).
pub const TABLE_COUNTERS: [&str; 11] = [
    "fail_zero_len_count",
    "fail_too_long_count",
    "fail_bad_offset_count",
    "fail_len_mismatch_count",
    "fail_no_id_count",
    "fail_no_buffer_count",
    "fail_bucket_full_count",
    "duplicate_count",
    "recent_duplicate_count",
    "class_fallback_count",
    "full_wait_count",
];

/// The port of `name` on `m`: a port of that name, else the member `name` of the counter bundle
/// `bundle` (`counters` on GetRxMsgInfo, `table_counters` on the reassembly).
pub fn counter_port(m: &VerilatedModel, bundle: &str, name: &str) -> PortId {
    m.port(name).or_else(|| m.port(&format!("{bundle}${name}"))).unwrap_or_else(|| panic!("no port {name} or {bundle}${name}"))
}

/// The reassembly's Verilator model with a packet feeder and a message collector.
pub struct RxHarness {
    pub m: VerilatedModel,
    inp: Vec<PortId>,
    out: Vec<PortId>,
    request: RxRequestPorts,
    response: RxResponsePorts,
    req_ready: Option<PortId>,
    /// Packets waiting to be streamed in, in order.
    pub packets: VecDeque<RxPacket>,
    beat: usize,
    collecting: Vec<u8>,
    pub cycle: u64,
    pub timeout: u64,
}

impl RxHarness {
    pub fn new(module: &str, timeout: u64) -> Self {
        let m = VerilatedModel::new(module).unwrap();
        let inp = INPUTS.iter().map(|n| m.port_or_panic(n)).collect();
        let out = OUTPUTS.iter().map(|n| m.port_or_panic(n)).collect();
        let (request, response, req_ready) = (RxRequestPorts::of(&m), RxResponsePorts::of(&m), m.port("req$ready"));
        let mut h = RxHarness {
            m,
            inp,
            out,
            request,
            response,
            req_ready,
            packets: VecDeque::new(),
            beat: 0,
            collecting: Vec::new(),
            cycle: 0,
            timeout,
        };
        h.reset();
        h
    }

    /// One cycle with reset high, then the cycles of the table's init (its buckets and the
    /// delivered set's are cleared; `req_ready` is low meanwhile), not counted in `cycle`.
    pub fn reset(&mut self) {
        for p in &self.inp {
            self.m.set(*p, 0);
        }
        self.request.drive(&mut self.m, None);
        self.m.set(self.inp[0], 1);
        self.m.eval();
        self.m.tick();
        self.m.set(self.inp[0], 0);
        self.m.eval();
        if let Some(ready) = self.req_ready {
            let mut waited = 0;
            while self.m.get(ready) == 0 {
                assert!(waited < RESET_INIT_CYCLES, "req_ready still low {waited} cycles after reset");
                self.m.tick();
                self.m.eval();
                waited += 1;
            }
        }
        self.beat = 0;
        self.collecting.clear();
    }

    /// Number of beats of a payload (a zero-byte payload is one beat with `tkeep = 0`).
    pub fn beats(len: usize) -> usize {
        len.div_ceil(8).max(1)
    }

    /// One cycle: optional request, packet beat if `feed` and one is queued, CPU ready `ready`.
    pub fn step(&mut self, req: Option<&RxRequest>, feed: bool, ready: bool) -> RxCycle {
        let i = &self.inp;
        let set = |m: &mut VerilatedModel, k: usize, v: u64| m.set(i[k], v);
        set(&mut self.m, 1, self.timeout);
        self.request.drive(&mut self.m, req);
        let pkt = if feed { self.packets.front().cloned() } else { None };
        let mut last = false;
        if let Some(p) = &pkt {
            let n = Self::beats(p.payload.len());
            let lo = self.beat * 8;
            let chunk = &p.payload[lo.min(p.payload.len())..(lo + 8).min(p.payload.len())];
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            last = self.beat + 1 == n;
            set(&mut self.m, 2, u64::from_le_bytes(word));
            set(&mut self.m, 3, (1u64 << chunk.len()) - 1);
            set(&mut self.m, 4, last as u64);
            set(&mut self.m, 5, 1);
            let md = &p.meta;
            // Metadata is driven on every beat; the module samples it with the first one.
            set(&mut self.m, 6, md.remote_ip as u64);
            set(&mut self.m, 7, md.remote_port as u64);
            set(&mut self.m, 8, md.msg_len as u64);
            set(&mut self.m, 9, md.pkt_offset as u64);
            set(&mut self.m, 10, md.local_port as u64);
            set(&mut self.m, 11, md.rx_msg_id as u64);
            set(&mut self.m, 12, md.tx_msg_id as u64);
            set(&mut self.m, 13, md.is_last_pkt as u64);
        } else {
            set(&mut self.m, 5, 0);
        }
        set(&mut self.m, 14, ready as u64);
        self.m.eval();
        let o = &self.out;
        let g = |k: usize| self.m.get(o[k]);
        let mut c = RxCycle { response: self.response.read(&self.m), ..RxCycle::default() };
        c.request_taken = req.is_some() && self.req_ready.is_none_or(|p| self.m.get(p) == 1);
        if pkt.is_some() && g(0) == 1 {
            c.packet_started = self.beat == 0;
            self.beat += 1;
            if last {
                self.beat = 0;
                c.packet_done = self.packets.pop_front();
            }
        }
        if g(4) == 1 && ready {
            c.beat_out = true;
            let keep = g(2);
            let data = g(1).to_le_bytes();
            assert!(keep & (keep + 1) == 0, "m_axis.tkeep {keep:#x} is not contiguous");
            self.collecting.extend_from_slice(&data[..keep.count_ones() as usize]);
            if g(3) == 1 {
                c.message_done = Some(std::mem::take(&mut self.collecting));
            }
        }
        if g(5) == 1 {
            c.release = Some((g(6) as usize, g(7)));
        }
        self.m.tick();
        self.cycle += 1;
        c
    }

    /// Every counter.
    pub fn counters(&self) -> RxCounters {
        let c = |name: &str| self.output(name);
        RxCounters {
            fail_zero_len: c("fail_zero_len_count"),
            fail_too_long: c("fail_too_long_count"),
            fail_bad_offset: c("fail_bad_offset_count"),
            fail_len_mismatch: c("fail_len_mismatch_count"),
            fail_no_id: c("fail_no_id_count"),
            fail_no_buffer: c("fail_no_buffer_count"),
            duplicate: c("duplicate_count"),
            recent_duplicate: c("recent_duplicate_count"),
            class_fallback: c("class_fallback_count"),
            drop_stale: c("drop_stale_count"),
            drop_bad_offset: c("drop_bad_offset_count"),
            drop_duplicate: c("drop_duplicate_count"),
            drop_bad_length: c("drop_bad_length_count"),
            gc: c("gc_count"),
            delivered: c("delivered_count"),
        }
    }

    /// An output, or a counter of GetRxMsgInfo's that the reassembly passes up, by name.
    pub fn output(&self, name: &str) -> u64 {
        self.m.get(counter_port(&self.m, "table_counters", name))
    }
}
