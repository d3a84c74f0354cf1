//! Natively stepped whole-NIC tops, and a [`NicBackend`] that runs one beside its Verilator
//! model, comparing every output on every evaluation (lockstep of a whole NIC).

use crate::cosim::native::{NativeDut, NativeStepper};
use crate::cosim::verilated::{PortId, VerilatedModel};
use crate::native_dut;
use crate::nic::NicBackend;

/// Registers a whole-NIC type (every preset has the same ports) as a native DUT.
macro_rules! nic_dut {
    ($($ty:ty),*) => {
        $(native_dut!($ty, clocked: true,
    inputs: [reset, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tlast, s_axis_rx_tvalid, m_axis_tx_tready,
             m_axis_msg_tready, s_axis_msg_tdata, s_axis_msg_tkeep, s_axis_msg_tlast, s_axis_msg_tvalid, done_ready,
             s_axil_awaddr, s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_bready, s_axil_araddr,
             s_axil_arvalid, s_axil_rready],
    outputs: [s_axis_rx_tready, m_axis_tx_tdata, m_axis_tx_tkeep, m_axis_tx_tlast, m_axis_tx_tvalid, m_axis_msg_tdata,
              m_axis_msg_tkeep, m_axis_msg_tlast, m_axis_msg_tvalid, s_axis_msg_tready, msg_id_valid, msg_id, done_valid,
              done_tx_msg_id, done_abandoned, s_axil_awready, s_axil_wready, s_axil_bresp, s_axil_bvalid, s_axil_arready,
              s_axil_rdata, s_axil_rresp, s_axil_rvalid, probe_ingress_tvalid, probe_ingress_tready, probe_ingress_tlast,
              probe_pkt_tvalid, probe_pkt_tready, probe_pkt_tlast]);)*
    };
}

nic_dut!(
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<16, 4, 4, 17>,
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<64, 6, 5, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<32, 5, 4, 17>,
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<128, 7, 6, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<16, 4, 4, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<128, 7, 6, 17>
);

native_dut!(nanotransport_hdl::pisa::ingress_front::IngressFront<4>, clocked: true,
    inputs: [reset, s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid, req_ready, resp_valid, resp_fail,
             resp_rx_msg_id, resp_announce_new_msg, resp_is_new_pkt, resp_is_last_pkt, resp_ack_no, m_axis_tready],
    outputs: [s_axis_tready, req_valid, req_mark_received, req_peek, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len,
              req_pkt_offset, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_axis_meta_remote_ip,
              m_axis_meta_remote_port, m_axis_meta_msg_len, m_axis_meta_pkt_offset, m_axis_meta_local_port,
              m_axis_meta_rx_msg_id, m_axis_meta_tx_msg_id, m_axis_meta_is_last_pkt, act_valid, act_action, act_meta,
              done_valid, done_action, done_meta, done_ok, done_live, done_forward, done_slot, done_gen, done_is_new_msg,
              done_is_new_pkt, done_is_last_pkt, done_ack_no, frame_count, not_ipv4_count, wrong_protocol_count,
              too_short_count, bad_checksum_count, bad_flags_count, data_count, chop_count, control_count,
              no_action_count, bad_length_count, rx_fail_count, duplicate_data_count, forwarded_count, bad_frame_length_count]);

native_dut!(nanotransport_hdl::protocols::homa::egress::HomaEgress<16, 4>, clocked: true,
    inputs: [reset, rtt_pkts, cfg_unsched_prios, prio_wr_valid, prio_wr_index, prio_wr_value, s_axis_pkt_tdata,
             s_axis_pkt_tkeep, s_axis_pkt_tlast, s_axis_pkt_tvalid, s_axis_pkt_remote_ip, s_axis_pkt_remote_port,
             s_axis_pkt_msg_len, s_axis_pkt_pkt_offset, s_axis_pkt_local_port, s_axis_pkt_tx_msg_id, s_axis_pkt_credit,
             s_axis_pkt_rank, s_axis_pkt_flags, s_axis_pkt_is_new_msg, s_axis_pkt_is_rtx, m_axis_pkt_tready],
    outputs: [s_axis_pkt_tready, m_axis_pkt_tdata, m_axis_pkt_tkeep, m_axis_pkt_tlast, m_axis_pkt_tvalid,
              m_axis_pkt_remote_ip, m_axis_pkt_remote_port, m_axis_pkt_msg_len, m_axis_pkt_pkt_offset,
              m_axis_pkt_local_port, m_axis_pkt_tx_msg_id, m_axis_pkt_credit, m_axis_pkt_rank, m_axis_pkt_flags,
              m_axis_pkt_is_new_msg, m_axis_pkt_is_rtx]);

/// The rust-hdl block and its Verilator model side by side.
pub struct LockstepNic<D: NativeDut> {
    pub native: NativeStepper<D>,
    pub verilated: VerilatedModel,
    /// Per Verilator port: its index among the native block's inputs / outputs.
    input_index: Vec<Option<usize>>,
    output_index: Vec<Option<usize>>,
    pub cycle: u64,
    pub comparisons: u64,
}

impl<D: NativeDut> LockstepNic<D> {
    /// Checks that both sides have the same ports (the clock aside).
    pub fn new(module: &str) -> Result<Self, String> {
        Self::with_native(D::default(), module)
    }

    /// As [`Self::new`], with the native block built by the caller (e.g. another program option).
    pub fn with_native(native: D, module: &str) -> Result<Self, String> {
        let verilated = VerilatedModel::new(module)?;
        let names: Vec<&str> = verilated.spec().ports.iter().map(|p| p.name).collect();
        let input_index: Vec<Option<usize>> = names.iter().map(|n| D::INPUTS.iter().position(|i| i == n)).collect();
        let output_index: Vec<Option<usize>> = names.iter().map(|n| D::OUTPUTS.iter().position(|o| o == n)).collect();
        for (n, (i, o)) in names.iter().zip(input_index.iter().zip(&output_index)) {
            if i.is_none() && o.is_none() && *n != "clock" {
                return Err(format!("{module}: port {n} is not in the native port list"));
            }
        }
        if D::INPUTS.len() + D::OUTPUTS.len() + 1 != names.len() {
            return Err(format!("{module}: {} Verilator ports, {} native", names.len(), D::INPUTS.len() + D::OUTPUTS.len() + 1));
        }
        Ok(LockstepNic { native: NativeStepper::new(native), verilated, input_index, output_index, cycle: 0, comparisons: 0 })
    }
}

impl<D: NativeDut> NicBackend for LockstepNic<D> {
    fn port(&self, name: &str) -> Option<PortId> {
        self.verilated.port(name)
    }
    fn set(&mut self, port: PortId, value: u64) {
        if let Some(i) = self.input_index[port.0] {
            self.native.dut.set_input(i, &[value]);
        }
        self.verilated.set(port, value);
    }
    fn get(&mut self, port: PortId) -> u64 {
        let v = self.verilated.get(port);
        if let Some(o) = self.output_index[port.0] {
            let n = self.native.dut.get_output(o)[0];
            assert_eq!(
                n, v,
                "lockstep divergence at cycle {} on {}: rust-hdl {n:#x} vs Verilator {v:#x}",
                self.cycle, self.verilated.spec().ports[port.0].name
            );
            self.comparisons += 1;
        }
        v
    }
    fn eval(&mut self) {
        self.native.settle();
        self.verilated.eval();
        for k in 0..self.output_index.len() {
            if self.output_index[k].is_some() {
                self.get(PortId(k));
            }
        }
    }
    fn tick(&mut self) {
        self.native.tick();
        self.verilated.tick();
        self.cycle += 1;
    }
}
