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

/// The ndp-16 preset's Verilog: two payload memories of 2^17 × 64 bits and the delivered set's
/// 16 RAMs of 4 096 × 70, 640 BRAM36 together — the count Yosys maps the NIC to.
#[test]
fn the_ndp_16_nic_declares_its_payload_memories_and_delivered_set() {
    let verilog = std::fs::read_to_string(repo_root().join("verilog-out/ndp-16/nt_ndp_16_nic.v")).unwrap();
    let all = memories(&verilog);
    let shapes = by_shape(&all);
    assert_eq!(shapes.get(&Memory { depth: 131_072, width: 64 }), Some(&2));
    assert_eq!(shapes.get(&Memory { depth: 4_096, width: 70 }), Some(&16));
    let tiles: u64 = all.iter().filter_map(|m| m.bram36()).sum();
    assert_eq!(tiles, 640);
    // Not an array: a plain register is not a memory.
    assert!(memories("    reg[63:0] data;\n    reg[7:0] mem[15:0];\n").len() == 1);
}
