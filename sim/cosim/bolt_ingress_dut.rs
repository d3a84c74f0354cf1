//! The Verilator model of a Bolt ingress configuration, driven one packet descriptor per cycle.

use crate::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_hdl::switch::bolt_ingress::BoltParams;
use nanotransport_reference::bolt::{BoltCounts, Descriptor};

/// Latency of the block: descriptor in at cycle t, decision out at cycle t + 3.
pub const BOLT_INGRESS_LATENCY: u64 = 3;

/// One decision as the hardware outputs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HwDecision {
    pub drop: bool,
    pub flags: u8,
    pub src: bool,
    pub q_size: u32,
    pub link_rate: u8,
    pub ingress_port: u8,
    pub egress_port: u8,
    pub pkt_len: u16,
    pub pru_token: u16,
    /// Biased by 2^23 (0 for packets that are not data).
    pub supply_token_stored: u32,
}

const INPUTS: [&str; 13] = [
    "reset",
    "now",
    "in_valid",
    "in_bolt",
    "in_flags",
    "in_pkt_len",
    "in_ingress_port",
    "in_egress_port",
    "in_queue_bytes",
    "cfg_mtu",
    "cfg_cc_thresh",
    "cfg_pru_enable",
    "cfg_sm_enable",
];
const OUTPUTS: [&str; 11] = [
    "out_valid",
    "out_drop",
    "out_flags",
    "out_src",
    "out_q_size",
    "out_link_rate",
    "out_ingress_port",
    "out_egress_port",
    "out_pkt_len",
    "out_pru_token",
    "out_supply_token",
];
const COUNTERS: [&str; 6] = ["bad_port_count", "not_bolt_count", "src_count", "pru_token_count", "pru_grant_count", "supply_grant_count"];

/// A Bolt ingress block on Verilator.
pub struct BoltIngressDut {
    pub model: VerilatedModel,
    inputs: [PortId; 13],
    /// What the configuration inputs are driven with.
    config: [u64; 4],
    outputs: [PortId; 11],
    counters: [PortId; 6],
    /// Cycles stepped so far.
    pub cycle: u64,
}

impl BoltIngressDut {
    /// Opens the model `name` (e.g. `nt_bolt_ingress_64p_bolt_ingress`) with the default
    /// configuration inputs ([`BoltParams::defaults`]: MTU and CC_THRESH 1 088 B, PRU and SM on)
    /// and resets it.
    pub fn new(name: &str) -> Result<Self, String> {
        Self::with_config(name, &BoltParams::defaults(64))
    }

    /// Opens the model `name` with its configuration inputs driven from `params` and resets it.
    pub fn with_config(name: &str, params: &BoltParams) -> Result<Self, String> {
        let model = VerilatedModel::new(name)?;
        let (inputs, outputs, counters) = (model.ports(INPUTS), model.ports(OUTPUTS), model.ports(COUNTERS));
        let mut dut = BoltIngressDut { model, inputs, outputs, counters, config: params.config_inputs(), cycle: 0 };
        dut.step(None, 0, true);
        Ok(dut)
    }

    /// One cycle: applies `desc` (or nothing; `idle_now` is then the time input), returns the
    /// decision leaving the block in this cycle, then clocks.
    pub fn step(&mut self, desc: Option<&Descriptor>, idle_now: u32, reset: bool) -> Option<HwDecision> {
        let d = desc.copied().unwrap_or(Descriptor { now: idle_now, ..Default::default() });
        let values = [
            reset as u64,
            d.now as u64,
            desc.is_some() as u64,
            d.bolt as u64,
            d.flags as u64,
            d.pkt_len as u64,
            d.ingress_port as u64,
            d.egress_port as u64,
            d.queue_bytes as u64,
            self.config[0],
            self.config[1],
            self.config[2],
            self.config[3],
        ];
        self.model.set_all(&self.inputs, &values);
        self.model.eval();
        let o = self.model.get_all(&self.outputs);
        let out = (o[0] == 1).then_some(HwDecision {
            drop: o[1] == 1,
            flags: o[2] as u8,
            src: o[3] == 1,
            q_size: o[4] as u32,
            link_rate: o[5] as u8,
            ingress_port: o[6] as u8,
            egress_port: o[7] as u8,
            pkt_len: o[8] as u16,
            pru_token: o[9] as u16,
            supply_token_stored: o[10] as u32,
        });
        self.model.tick();
        self.cycle += 1;
        out
    }

    /// The block's counters.
    pub fn counts(&self) -> BoltCounts {
        let c = self.model.get_all(&self.counters).map(|v| v as u32);
        BoltCounts { bad_port: c[0], not_bolt: c[1], src: c[2], pru_token: c[3], pru_grant: c[4], supply_grant: c[5] }
    }

    /// Sends `descs` back to back (one per cycle) and returns their decisions in order, waiting
    /// out the pipeline; the time input of the drain cycles stays at the last descriptor's.
    pub fn run(&mut self, descs: &[Descriptor]) -> Vec<HwDecision> {
        let mut out = Vec::with_capacity(descs.len());
        let mut now = 0;
        for d in descs {
            now = d.now;
            out.extend(self.step(Some(d), now, false));
        }
        for _ in 0..BOLT_INGRESS_LATENCY {
            out.extend(self.step(None, now, false));
        }
        out
    }
}
