//! A Bolt switch: the Bolt ingress block's Verilator model (`bolt-ingress-64p`,
//! [`nanotransport_hdl::switch::bolt_ingress`]) decides every frame, as a switch-wide
//! [`Ingress`] stage holding the state of every egress port.
//!
//! Per routed frame the stage builds the descriptor the stream wrapper gives the block —
//! Bolt or not, flags, the frame's demand, ingress and egress ports, the egress port's
//! occupancy in bytes over every band (the arriving frame not counted), the time in ns — and
//! clocks the block until its decision comes out (one frame per event). It rewrites the flags
//! byte as decided (DEC set, INC cleared), drops a frame for a port beyond the block's, and
//! emits the SRC the block asked for back out of the frame's ingress port in band 0, built as
//! the stream wrapper builds it (the 16 bytes after the Bolt header copied:
//! [`nanotransport_reference::bolt::src_frame`]). ACKs and SRCs travel in band 0, everything else
//! in band 1 ([`BoltClassify`], by the Bolt flags, not by a copied TOS).
//!
//! With [`BoltIngressStage::check_against_reference`] the block's behavioural reference model
//! ([`nanotransport_reference::bolt::BoltModel`]) decides every frame beside it; a decision that
//! differs is counted in [`BoltIngressStage::mismatches`].
//!
//! The block's configuration inputs — MTU, CC_THRESH, PRU and SM on or off — come from the
//! [`BoltParams`] the stage is made with; every port's rate code is 100 (Gb/s). The block updates
//! a port's supply token on data packets only (Algorithm 7 line 2); the authors' queue disc
//! updates it on every arrival.

use super::frame::{FLAG_ACK, FLAG_SRC};
use crate::schemes::two_bands_drop_tail;
use crate::switch::{Classify, Ingress, IngressVerdict, StageContext};
use crate::topology::SwitchStages;
use nanotransport_hdl::switch::bolt_header::BOLT_OFFSET;
use nanotransport_hdl::switch::bolt_ingress::{BoltParams, TOKEN_BIAS};
use nanotransport_reference::bolt::{frame_descriptor, src_frame, BoltCounts, BoltModel, Decision};
use nanotransport_sim::cosim::bolt_ingress_dut::{BoltIngressDut, HwDecision};

/// The Verilator model the switch runs.
pub const BOLT_MODEL: &str = "nt_bolt_ingress_64p_bolt_ingress";
/// Bytes after the Bolt header an SRC carries (the configuration's).
pub const SRC_TRAILING_BYTES: usize = 16;
/// The flags byte in a frame.
const OFF_FLAGS: usize = BOLT_OFFSET + 4;

/// The Bolt ingress stage on the block's Verilator model.
pub struct BoltIngressStage {
    dut: BoltIngressDut,
    params: BoltParams,
    reference: Option<BoltModel>,
    /// Decisions where the reference model disagreed with the RTL.
    pub mismatches: u64,
    /// SRCs emitted.
    pub srcs: u64,
    /// Every SRC's size, bytes (the reverse path's overhead).
    pub src_bytes: u64,
}

impl BoltIngressStage {
    /// The stage with the block's configuration inputs from `mtu`, `cc_thresh`, `pru` and `sm`
    /// of `params` (see [`bolt_params`]).
    pub fn new(params: &BoltParams) -> Result<Self, String> {
        let dut = BoltIngressDut::with_config(BOLT_MODEL, params)?;
        Ok(BoltIngressStage { dut, params: params.clone(), reference: None, mismatches: 0, srcs: 0, src_bytes: 0 })
    }

    /// Runs the reference model (with the same configuration) beside the RTL.
    pub fn check_against_reference(mut self) -> Self {
        self.reference = Some(BoltModel::new(self.params.clone()));
        self
    }

    /// The block's counters.
    pub fn counts(&self) -> BoltCounts {
        self.dut.counts()
    }
}

fn as_decision(hw: &HwDecision) -> Decision {
    Decision {
        drop: hw.drop,
        flags: hw.flags,
        src: hw.src,
        q_size: hw.q_size,
        link_rate: hw.link_rate,
        pru_token: hw.pru_token,
        supply_token: if hw.supply_token_stored == 0 { 0 } else { (hw.supply_token_stored as i64 - TOKEN_BIAS) as i32 },
    }
}

impl Ingress for BoltIngressStage {
    fn ingress(&mut self, frame: &mut Vec<u8>, ctx: &mut StageContext) -> IngressVerdict {
        let port = |p: usize| u8::try_from(p).unwrap_or(u8::MAX);
        let ingress = ctx.ingress_port.unwrap_or(usize::MAX);
        let now = super::frame::ns_u32(ctx.now_ns);
        let queue = u32::try_from(ctx.egress_queue_bytes).unwrap_or(u32::MAX);
        let desc = frame_descriptor(frame, port(ingress), port(ctx.egress_port), queue, now);
        let hw = self.dut.run(&[desc]).pop().expect("one decision per descriptor");
        let decision = as_decision(&hw);
        if let Some(model) = self.reference.as_mut() {
            let expected = model.ingress(&desc);
            let data = desc.bolt && desc.flags & nanotransport_hdl::switch::bolt_header::FLAG_DATA != 0;
            let same = (expected.drop, expected.flags, expected.src, expected.q_size, expected.link_rate, expected.pru_token)
                == (hw.drop, hw.flags, hw.src, hw.q_size, hw.link_rate, hw.pru_token)
                && expected.supply_token_stored(data) == hw.supply_token_stored;
            self.mismatches += !same as u64;
        }
        if hw.drop {
            return IngressVerdict::Drop;
        }
        if desc.bolt && frame.len() > OFF_FLAGS {
            frame[OFF_FLAGS] = hw.flags;
        }
        if hw.src {
            let src = src_frame(frame, &decision, SRC_TRAILING_BYTES);
            self.srcs += 1;
            self.src_bytes += src.len() as u64;
            ctx.emit(ingress, 0, src);
        }
        IngressVerdict::Forward
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The parameters of the switch's block (`bolt-ingress-64p`: 64 ports at 100 Gb/s, the
/// multiplier) with its configuration inputs set.
pub fn bolt_params(mtu: u32, cc_thresh: u32, pru: bool, sm: bool) -> Result<BoltParams, String> {
    if !(60..=9000).contains(&mtu) {
        return Err(format!("MTU {mtu}: valid 60..=9000 bytes"));
    }
    let base = nanotransport_hdl::configs::find_switch_config("bolt-ingress-64p")
        .and_then(|c| c.bolt_params())
        .ok_or("the configuration bolt-ingress-64p is missing")?;
    Ok(BoltParams { mtu, cc_thresh, pru, sm, ..base })
}

/// A Bolt switch's port stages: two bands by [`BoltClassify`], a drop-tail buffer of
/// `buffer_bytes` shared by both, strict priority (the ingress stage is added apart).
pub fn stages(buffer_bytes: usize) -> SwitchStages {
    two_bands_drop_tail(Box::new(BoltClassify), buffer_bytes)
}

/// ACKs and SRCs (by their Bolt flags) in band 0, everything else in band 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct BoltClassify;

impl Classify for BoltClassify {
    fn classify(&mut self, frame: &[u8], _ctx: &StageContext) -> usize {
        match super::frame::BoltFrame::parse(frame) {
            Some((h, _)) if h.flags & (FLAG_ACK | FLAG_SRC) != 0 => 0,
            _ => 1,
        }
    }
}
