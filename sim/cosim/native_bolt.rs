//! Natively stepped Bolt switch blocks, with their ports named as in the generated Verilog.

use crate::native_dut;
use nanotransport_hdl::switch::bolt_ingress::BoltIngress;

native_dut!(BoltIngress<64, 6>, clocked: true,
    inputs: [reset, now, in_valid, in_bolt, in_flags, in_pkt_len, in_ingress_port, in_egress_port, in_queue_bytes],
    outputs: [out_valid, out_drop, out_flags, out_src, out_q_size, out_link_rate, out_ingress_port, out_egress_port,
              out_pkt_len, out_pru_token, out_supply_token, bad_port_count, not_bolt_count, src_count,
              pru_token_count, pru_grant_count, supply_grant_count]);
