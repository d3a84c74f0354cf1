// Stand-ins for the vendor cores of vcu118_top, for the checks that need no Vivado: the ports
// the top connects, with the widths of the cores' generated Verilog (cmac_usplus v3.1 with
// CAUI-4, AXI4-Stream, RS-FEC, no AXI4-Lite; jtag_axi with PROTOCOL 2). Outputs are driven
// with 0. Never part of a build: Vivado makes the real cores from ip/*.tcl.

/* verilator lint_off UNUSEDSIGNAL */
module cmac_usplus_0 (
    input  wire [3:0]   gt_rxp_in,
    input  wire [3:0]   gt_rxn_in,
    output wire [3:0]   gt_txp_out,
    output wire [3:0]   gt_txn_out,
    output wire         gt_txusrclk2,
    input  wire [11:0]  gt_loopback_in,
    input  wire         gtwiz_reset_tx_datapath,
    input  wire         gtwiz_reset_rx_datapath,
    input  wire         sys_reset,
    input  wire         gt_ref_clk_p,
    input  wire         gt_ref_clk_n,
    input  wire         init_clk,
    output wire         rx_axis_tvalid,
    output wire [511:0] rx_axis_tdata,
    output wire         rx_axis_tlast,
    output wire [63:0]  rx_axis_tkeep,
    output wire         rx_axis_tuser,
    output wire         usr_rx_reset,
    output wire         stat_rx_status,
    input  wire         ctl_rx_enable,
    input  wire         ctl_rx_force_resync,
    input  wire         ctl_rx_test_pattern,
    input  wire         ctl_rsfec_ieee_error_indication_mode,
    input  wire         ctl_rx_rsfec_enable,
    input  wire         ctl_rx_rsfec_enable_correction,
    input  wire         ctl_rx_rsfec_enable_indication,
    input  wire         core_rx_reset,
    input  wire         rx_clk,
    input  wire         ctl_tx_enable,
    input  wire         ctl_tx_test_pattern,
    input  wire         ctl_tx_rsfec_enable,
    input  wire         ctl_tx_send_idle,
    input  wire         ctl_tx_send_rfi,
    input  wire         ctl_tx_send_lfi,
    input  wire         core_tx_reset,
    output wire         tx_axis_tready,
    input  wire         tx_axis_tvalid,
    input  wire [511:0] tx_axis_tdata,
    input  wire         tx_axis_tlast,
    input  wire [63:0]  tx_axis_tkeep,
    input  wire         tx_axis_tuser,
    input  wire [55:0]  tx_preamblein,
    output wire         usr_tx_reset,
    input  wire         core_drp_reset,
    input  wire         drp_clk,
    input  wire [9:0]   drp_addr,
    input  wire [15:0]  drp_di,
    input  wire         drp_en,
    input  wire         drp_we
);
    assign gt_txp_out = 4'd0;
    assign gt_txn_out = 4'd0;
    assign gt_txusrclk2 = init_clk;
    assign rx_axis_tvalid = 1'b0;
    assign rx_axis_tdata = 512'd0;
    assign rx_axis_tlast = 1'b0;
    assign rx_axis_tkeep = 64'd0;
    assign rx_axis_tuser = 1'b0;
    assign usr_rx_reset = sys_reset;
    assign usr_tx_reset = sys_reset;
    assign stat_rx_status = 1'b0;
    assign tx_axis_tready = 1'b1;
endmodule

module jtag_axi_0 (
    input  wire        aclk,
    input  wire        aresetn,
    output wire [31:0] m_axi_awaddr,
    output wire [2:0]  m_axi_awprot,
    output wire        m_axi_awvalid,
    input  wire        m_axi_awready,
    output wire [31:0] m_axi_wdata,
    output wire [3:0]  m_axi_wstrb,
    output wire        m_axi_wvalid,
    input  wire        m_axi_wready,
    input  wire [1:0]  m_axi_bresp,
    input  wire        m_axi_bvalid,
    output wire        m_axi_bready,
    output wire [31:0] m_axi_araddr,
    output wire [2:0]  m_axi_arprot,
    output wire        m_axi_arvalid,
    input  wire        m_axi_arready,
    input  wire [31:0] m_axi_rdata,
    input  wire [1:0]  m_axi_rresp,
    input  wire        m_axi_rvalid,
    output wire        m_axi_rready
);
    assign m_axi_awaddr = 32'd0;
    assign m_axi_awprot = 3'd0;
    assign m_axi_awvalid = 1'b0;
    assign m_axi_wdata = 32'd0;
    assign m_axi_wstrb = 4'd0;
    assign m_axi_wvalid = 1'b0;
    assign m_axi_bready = 1'b1;
    assign m_axi_araddr = 32'd0;
    assign m_axi_arprot = 3'd0;
    assign m_axi_arvalid = 1'b0;
    assign m_axi_rready = 1'b1;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
