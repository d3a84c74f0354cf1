//! The Verilator model of a PL2 reservation configuration, driven one packet descriptor per
//! cycle: what the differential test runs against the reference model, and what a PL2 switch in
//! the network runs on every frame.

use crate::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_hdl::switch::pl2_reservation::{Pl2Kind, PL2_LATENCY};
use nanotransport_reference::pl2::{Decision, Descriptor, Pl2Config, Pl2Counts};

const INPUTS: [&str; 8] =
    ["reset", "cfg_max_demand", "cfg_unsolicited_limit", "in_valid", "in_kind", "in_src_port", "in_dst_port", "in_demand"];
const OUTPUTS: [&str; 9] = [
    "out_valid",
    "out_kind",
    "out_src_port",
    "out_dst_port",
    "out_drop",
    "out_grant",
    "out_demand",
    "out_send_timeslot",
    "out_recv_timeslot",
];
const COUNTERS: [&str; 8] = [
    "rsv_count",
    "data_count",
    "refused_count",
    "bad_port_count",
    "bad_demand_count",
    "clamped_count",
    "underflow_count",
    "saturated_count",
];

/// One decision as the hardware outputs it, with the descriptor fields it carries along.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwDecision {
    pub kind: Pl2Kind,
    pub src_port: u8,
    pub dst_port: u8,
    pub decision: Decision,
}

/// A PL2 reservation block on Verilator.
pub struct Pl2Dut {
    model: VerilatedModel,
    inputs: [PortId; 8],
    outputs: [PortId; 9],
    counters: [PortId; 8],
    pub config: Pl2Config,
}

impl Pl2Dut {
    /// Opens the model `name` (e.g. `nt_pl2_reservation_64p_pl2_reservation`) and resets it.
    pub fn new(name: &str, config: Pl2Config) -> Result<Self, String> {
        let model = VerilatedModel::new(name)?;
        let (inputs, outputs, counters) = (model.ports(INPUTS), model.ports(OUTPUTS), model.ports(COUNTERS));
        let mut dut = Pl2Dut { model, inputs, outputs, counters, config };
        dut.step(None, true);
        Ok(dut)
    }

    /// One cycle: applies `desc` (or nothing), returns the decision leaving the block in this
    /// cycle, then clocks.
    pub fn step(&mut self, desc: Option<&Descriptor>, reset: bool) -> Option<HwDecision> {
        let d = desc.copied().unwrap_or(Descriptor { kind: Pl2Kind::Other, src_port: 0, dst_port: 0, demand: 0 });
        let values = [
            reset as u64,
            self.config.max_demand as u64,
            self.config.unsolicited_limit as u64,
            desc.is_some() as u64,
            d.kind.code(),
            d.src_port as u64,
            d.dst_port as u64,
            d.demand as u64,
        ];
        self.model.set_all(&self.inputs, &values);
        self.model.eval();
        let o = self.model.get_all(&self.outputs);
        let out = (o[0] == 1).then_some(HwDecision {
            kind: Pl2Kind::from_code(o[1]),
            src_port: o[2] as u8,
            dst_port: o[3] as u8,
            decision: Decision {
                drop: o[4] == 1,
                grant: o[5] == 1,
                demand: o[6] as u8,
                send_timeslot: o[7] as u32,
                recv_timeslot: o[8] as u32,
            },
        });
        self.model.tick();
        out
    }

    /// Sends `descs` back to back (one per cycle) and returns their decisions in order, waiting
    /// out the pipeline.
    pub fn run(&mut self, descs: &[Descriptor]) -> Vec<HwDecision> {
        let mut out: Vec<HwDecision> = descs.iter().filter_map(|d| self.step(Some(d), false)).collect();
        for _ in 0..PL2_LATENCY {
            out.extend(self.step(None, false));
        }
        out
    }

    /// The block's counters.
    pub fn counts(&self) -> Pl2Counts {
        let c = self.model.get_all(&self.counters).map(|v| v as u32);
        Pl2Counts {
            rsv: c[0],
            data: c[1],
            refused: c[2],
            bad_port: c[3],
            bad_demand: c[4],
            clamped: c[5],
            underflow: c[6],
            saturated: c[7],
        }
    }
}
