# The integrated 100G MAC on QSFP1 of the VCU118: CAUI-4 (4 x 25.78125 Gb/s) on GTY quad 231
# (X1Y48..X1Y51, CMACE4_X0Y7), reference clock 156.25 MHz, AXI4-Stream user interface, RS-FEC,
# no pause frames, the statistics and control as ports (no AXI4-Lite). Settings as Corundum's
# VCU118 100G design (fpga/mqnic/VCU118/fpga_100g/ip/cmac_usplus_0.tcl).
create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_usplus_0 -dir $nt_ip_dir

set_property -dict [list \
    CONFIG.CMAC_CAUI4_MODE {1} \
    CONFIG.NUM_LANES {4x25} \
    CONFIG.GT_REF_CLK_FREQ {156.25} \
    CONFIG.USER_INTERFACE {AXIS} \
    CONFIG.GT_DRP_CLK {125} \
    CONFIG.TX_FLOW_CONTROL {0} \
    CONFIG.RX_FLOW_CONTROL {0} \
    CONFIG.INCLUDE_RS_FEC {1} \
    CONFIG.CMAC_CORE_SELECT {CMACE4_X0Y7} \
    CONFIG.GT_GROUP_SELECT {X1Y48~X1Y51} \
    CONFIG.LANE1_GT_LOC {X1Y48} \
    CONFIG.LANE2_GT_LOC {X1Y49} \
    CONFIG.LANE3_GT_LOC {X1Y50} \
    CONFIG.LANE4_GT_LOC {X1Y51} \
    CONFIG.ENABLE_PIPELINE_REG {1} \
] [get_ips cmac_usplus_0]
