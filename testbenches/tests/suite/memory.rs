//! The memories of generated Verilog and their block RAM (`flow/memory.rs`).

use nanotransport_flow::memory::{by_shape, memories, Memory};
use nanotransport_testbenches::repo_root;

/// Tiles by UG573's simple dual-port shapes: the fewest over them; under 18 Kib, the tool's.
#[test]
fn a_memory_takes_the_fewest_bram36_over_the_simple_dual_port_shapes() {
    let m = |depth, width| Memory { depth, width };
    assert_eq!(m(131_072, 64).bram36(), Some(256)); // 1 MiB: 256 × 32 Kib, no parity bits to use
    assert_eq!(m(4_096, 70).bram36(), Some(8)); // 4K × 9 × 8 (72 of 70 bits)
    assert_eq!(m(512, 72).bram36(), Some(1));
    assert_eq!(m(512, 73).bram36(), Some(2));
    assert_eq!(m(2_048, 18).bram36(), Some(1));
    assert_eq!(m(1_024, 18).bram36(), Some(1), "18 Kib: half a tile is still a tile here");
    assert_eq!(m(16, 164).bram36(), None, "small: the tool's choice");
    assert_eq!(m(1_023, 18).bram36(), None);
}

/// The ndp-16 preset's Verilog: payload memories of exactly what its size classes use, 816 KiB
/// receive and 608 KiB transmit (not 2 × 1 MiB, the power of two their addresses span), each of
/// power-of-two banks, and the delivered set's 16 RAMs of 4 096 × 70: 484 BRAM36 together (640
/// with power-of-two payload memories).
#[test]
fn the_ndp_16_nic_declares_its_payload_memories_and_delivered_set() {
    use nanotransport_flow::memory::memories_by_module;
    let verilog = std::fs::read_to_string(repo_root().join("verilog-out/ndp-16/nt_ndp_16_nic.v")).unwrap();
    let all = memories(&verilog);
    let banks = |suffix: &str| -> Vec<u64> {
        memories_by_module(&verilog)
            .into_iter()
            .filter(|(module, m)| module.ends_with(suffix) && m.width == 64)
            .map(|(_, m)| m.depth)
            .collect()
    };
    assert_eq!(banks("$reassembly$payload"), vec![65_536, 32_768, 4_096, 2_048], "816 KiB = 512 + 256 + 32 + 16 KiB");
    assert_eq!(banks("$tx$payload"), vec![65_536, 8_192, 4_096], "608 KiB = 512 + 64 + 32 KiB");
    let shapes = by_shape(&all);
    assert_eq!(shapes.get(&Memory { depth: 131_072, width: 64 }), None);
    assert_eq!(shapes.get(&Memory { depth: 4_096, width: 70 }), Some(&16));
    let tiles: u64 = all.iter().filter_map(|m| m.bram36()).sum();
    assert_eq!(tiles, 204 + 152 + 128);
    // Not an array: a plain register is not a memory; ascending ranges, `signed` and 1-bit
    // elements are memories (the Bolt supply table's ROM is declared `[0:65535]`).
    assert!(memories("    reg[63:0] data;\n    reg[7:0] mem[15:0];\n").len() == 1);
    let other = "    reg [23:0] supply_table [0:65535];\n    reg signed [3:0] s [7:0];\n    reg bits [0:31];\n";
    assert_eq!(memories(other), vec![Memory { depth: 65_536, width: 24 }, Memory { depth: 8, width: 4 }, Memory { depth: 32, width: 1 }]);
}
