// Stand-ins for the UltraScale+ primitives vcu118_top uses, for Verilator lint only (Yosys and
// Vivado have their own): a differential input buffer and a global clock buffer.

/* verilator lint_off UNUSEDSIGNAL */
module IBUFDS (input wire I, input wire IB, output wire O);
    assign O = I;
endmodule
/* verilator lint_on UNUSEDSIGNAL */

module BUFG (input wire I, output wire O);
    assign O = I;
endmodule
