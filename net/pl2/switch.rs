//! A PL2 switch: the reservation block's Verilator model decides every RSV and data frame
//! (`nanotransport_hdl::switch::pl2_reservation`), as a switch-wide [`Ingress`] stage; RSV and
//! GRT travel in band 0, everything else in band 1.
//!
//! Per frame that carries a PL2 header: the descriptor (kind, ingress port as the source port,
//! egress port as the destination port, demand) goes through the block, which is then clocked
//! until its decision comes out (one frame at a time: the network hands the switch one frame per
//! event). An RSV is consumed and answered with a GRT back out of its ingress port (the
//! receiver's address as source, the timeslots and the demand granted); a data frame the block
//! drops (unsolicited above T) is counted in the switch's `ingress_dropped`, apart from buffer
//! drops. Frames without a PL2 header (ACKs, other traffic) and GRTs pass untouched: they reserve
//! nothing and release nothing.

use super::frame::{Pl2Header, Pl2Type};
use crate::schemes::two_bands_drop_tail;
use crate::switch::{Classify, Ingress, IngressVerdict, StageContext};
use crate::topology::SwitchStages;
use nanotransport_hdl::switch::pl2_reservation::Pl2Kind;
use nanotransport_reference::pl2::{Descriptor, Pl2Config, Pl2Counts};
use nanotransport_sim::cosim::pl2_dut::Pl2Dut;

/// The Verilator model the switch runs.
pub const PL2_MODEL: &str = "nt_pl2_reservation_64p_pl2_reservation";

/// The PL2 ingress stage on the block's Verilator model.
pub struct Pl2Ingress {
    dut: Pl2Dut,
    /// GRTs sent.
    pub grants: u64,
}

impl Pl2Ingress {
    /// The stage with K and T as given (the block's configuration inputs).
    pub fn new(config: Pl2Config) -> Result<Self, String> {
        Ok(Pl2Ingress { dut: Pl2Dut::new(PL2_MODEL, config)?, grants: 0 })
    }

    /// The block's counters.
    pub fn counts(&self) -> Pl2Counts {
        self.dut.counts()
    }
}

impl Ingress for Pl2Ingress {
    fn ingress(&mut self, frame: &mut Vec<u8>, ctx: &mut StageContext) -> IngressVerdict {
        let Some(h) = Pl2Header::parse(frame) else { return IngressVerdict::Forward };
        let kind = match h.kind {
            Pl2Type::Reserve => Pl2Kind::Reserve,
            Pl2Type::Data if h.unsolicited() => Pl2Kind::UnsolicitedData,
            Pl2Type::Data => Pl2Kind::Data,
            Pl2Type::Grant => return IngressVerdict::Forward,
        };
        let ingress = ctx.ingress_port.unwrap_or(usize::MAX);
        let port = |p: usize| u8::try_from(p).unwrap_or(u8::MAX);
        let desc = Descriptor { kind, src_port: port(ingress), dst_port: port(ctx.egress_port), demand: h.demand };
        let decision = self.dut.run(&[desc]).pop().expect("one decision per descriptor").decision;
        if decision.drop {
            return IngressVerdict::Drop;
        }
        if !decision.grant {
            return IngressVerdict::Forward;
        }
        let grant = Pl2Header {
            kind: Pl2Type::Grant,
            src_ip: h.dst_ip,
            dst_ip: h.src_ip,
            demand: decision.demand,
            send_timeslot: decision.send_timeslot,
            recv_timeslot: decision.recv_timeslot,
            ..h
        };
        ctx.emit(ingress, 0, grant.frame(0, None));
        self.grants += 1;
        IngressVerdict::Consume
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A PL2 switch's port stages, with PL2 or without: two bands by [`Pl2Classify`], a drop-tail
/// buffer of `buffer_bytes` shared by both, strict priority (the ingress stage is added apart).
pub fn stages(buffer_bytes: usize) -> SwitchStages {
    two_bands_drop_tail(Box::new(Pl2Classify), buffer_bytes)
}

/// RSV and GRT in band 0, everything else in band 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pl2Classify;

impl Classify for Pl2Classify {
    fn classify(&mut self, frame: &[u8], _ctx: &StageContext) -> usize {
        match Pl2Header::parse(frame) {
            Some(h) if h.kind != Pl2Type::Data => 0,
            _ => 1,
        }
    }
}
