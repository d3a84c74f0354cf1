//! Natively stepped AXI4-Lite register file, with its ports named as in the generated Verilog.

use crate::native_dut;

native_dut!(nanotransport_hdl::nic::csr::AxiLiteCsr, clocked: true,
    inputs: [reset, s_axil_awaddr, s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_bready,
             s_axil_araddr, s_axil_arvalid, s_axil_rready, status],
    outputs: [s_axil_awready, s_axil_wready, s_axil_bresp, s_axil_bvalid, s_axil_arready, s_axil_rdata,
              s_axil_rresp, s_axil_rvalid, cfg, error_count]);
