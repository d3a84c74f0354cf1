# JTAG-to-AXI master for the NIC's registers: AXI4-Lite (PROTOCOL 2), 32-bit address and data.
create_ip -name jtag_axi -vendor xilinx.com -library ip -module_name jtag_axi_0 -dir $nt_ip_dir

set_property -dict [list \
    CONFIG.PROTOCOL {2} \
    CONFIG.M_AXI_ADDR_WIDTH {32} \
    CONFIG.M_AXI_DATA_WIDTH {32} \
] [get_ips jtag_axi_0]
