# Board constraints of the Xilinx VCU118 (xcvu9p-flga2104-2L-e) for a NIC on QSFP1 behind the
# integrated 100G MAC (CMAC, IP cmac_usplus, CAUI-4 with RS-FEC).
#
# Sources of the pins: the VCU118 design of the public Corundum project
# (corundum/corundum fpga/mqnic/VCU118/fpga_100g/fpga.xdc and ip/cmac_usplus_0.tcl) and its
# 25G example (fpga/lib/eth/example/VCU118/fpga_25g/fpga.xdc); the board clock, LED and reset
# pins agree with LiteX's litex_boards/platforms/xilinx_vcu118.py. The VCU118 Board User Guide
# (UG1224) names the same signals; these pins were not checked against it here, nor on a board.
#
# The board top's ports, as named below:
#   clk_125mhz_p/n            125 MHz system clock (CMAC init/DRP clock)
#   reset                     CPU_RESET push button, 1 while pressed
#   qsfp1_mgt_refclk_0_p/n    QSFP1 transceiver reference clock, 156.25 MHz (Si570 U38, its power-up default)
#   qsfp1_rx_p/n[3:0], qsfp1_tx_p/n[3:0]   QSFP1 lanes, GTY quad 231 (X1Y48..X1Y51)
#   qsfp1_modsell, qsfp1_resetl, qsfp1_lpmode   QSFP1 sideband outputs (active low, low, high)
#   qsfp1_modprsl, qsfp1_intl                   QSFP1 sideband inputs (active low)
#   led[7:0]                  GPIO_LED_0..7, 1 = lit
#
# No clock is created for the CMAC's 322.265625 MHz user clock: Vivado derives it from the
# transceiver (refer to it with get_clocks -of_objects on the IP's gt_txusrclk2 pin).

# ---- Board clock: 125 MHz, LVDS (Corundum: clk_125mhz_p AY24, clk_125mhz_n AY23).
set_property -dict {PACKAGE_PIN AY24 IOSTANDARD LVDS} [get_ports clk_125mhz_p]
set_property -dict {PACKAGE_PIN AY23 IOSTANDARD LVDS} [get_ports clk_125mhz_n]
create_clock -period 8.000 -name clk_125mhz [get_ports clk_125mhz_p]

# ---- CPU_RESET push button (Corundum's 25G example and LiteX: L19, LVCMOS12, 1 while pressed).
set_property -dict {PACKAGE_PIN L19 IOSTANDARD LVCMOS12} [get_ports reset]
set_false_path -from [get_ports reset]
set_input_delay 0 [get_ports reset]

# ---- QSFP1 transceiver reference clock: MGTREFCLK0 of quad 231, 156.25 MHz.
# The cmac_usplus IP's own constraints may define a clock on its gt_ref_clk as well, at the same
# period (not run in Vivado here: check the clock report for a duplicate).
set_property PACKAGE_PIN W9 [get_ports qsfp1_mgt_refclk_0_p]
set_property PACKAGE_PIN W8 [get_ports qsfp1_mgt_refclk_0_n]
create_clock -period 6.400 -name qsfp1_mgt_refclk_0 [get_ports qsfp1_mgt_refclk_0_p]

# ---- QSFP1 lanes: GTY quad 231, lane k on GTYE4_CHANNEL_X1Y(48+k) (the CMAC at CMACE4_X0Y7).
set_property PACKAGE_PIN Y2 [get_ports {qsfp1_rx_p[0]}]
set_property PACKAGE_PIN Y1 [get_ports {qsfp1_rx_n[0]}]
set_property PACKAGE_PIN V7 [get_ports {qsfp1_tx_p[0]}]
set_property PACKAGE_PIN V6 [get_ports {qsfp1_tx_n[0]}]
set_property PACKAGE_PIN W4 [get_ports {qsfp1_rx_p[1]}]
set_property PACKAGE_PIN W3 [get_ports {qsfp1_rx_n[1]}]
set_property PACKAGE_PIN T7 [get_ports {qsfp1_tx_p[1]}]
set_property PACKAGE_PIN T6 [get_ports {qsfp1_tx_n[1]}]
set_property PACKAGE_PIN V2 [get_ports {qsfp1_rx_p[2]}]
set_property PACKAGE_PIN V1 [get_ports {qsfp1_rx_n[2]}]
set_property PACKAGE_PIN P7 [get_ports {qsfp1_tx_p[2]}]
set_property PACKAGE_PIN P6 [get_ports {qsfp1_tx_n[2]}]
set_property PACKAGE_PIN U4 [get_ports {qsfp1_rx_p[3]}]
set_property PACKAGE_PIN U3 [get_ports {qsfp1_rx_n[3]}]
set_property PACKAGE_PIN M7 [get_ports {qsfp1_tx_p[3]}]
set_property PACKAGE_PIN M6 [get_ports {qsfp1_tx_n[3]}]

# ---- QSFP1 sideband, LVCMOS18: module select (tie 0: selected), reset (1: running),
# low-power mode (0: high power); module present and interrupt in, pulled up.
set_property -dict {PACKAGE_PIN AM21 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp1_modsell]
set_property -dict {PACKAGE_PIN BA22 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp1_resetl]
set_property -dict {PACKAGE_PIN AN21 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp1_lpmode]
set_property -dict {PACKAGE_PIN AL21 IOSTANDARD LVCMOS18 PULLUP true} [get_ports qsfp1_modprsl]
set_property -dict {PACKAGE_PIN AP21 IOSTANDARD LVCMOS18 PULLUP true} [get_ports qsfp1_intl]
set_false_path -to [get_ports {qsfp1_modsell qsfp1_resetl qsfp1_lpmode}]
set_output_delay 0 [get_ports {qsfp1_modsell qsfp1_resetl qsfp1_lpmode}]
set_false_path -from [get_ports {qsfp1_modprsl qsfp1_intl}]
set_input_delay 0 [get_ports {qsfp1_modprsl qsfp1_intl}]

# ---- User LEDs GPIO_LED_0..7, LVCMOS12.
set_property -dict {PACKAGE_PIN AT32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AV34 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN AY30 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN BB32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[3]}]
set_property -dict {PACKAGE_PIN BF32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[4]}]
set_property -dict {PACKAGE_PIN AU37 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[5]}]
set_property -dict {PACKAGE_PIN AV36 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[6]}]
set_property -dict {PACKAGE_PIN BA37 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[7]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]
