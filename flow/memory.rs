//! The memories of a generated design, read from its Verilog, and the block RAM each needs on an
//! UltraScale+ part: what a design provisions, before any tool maps it.
//!
//! rust-hdl writes every RAM as its own module with one array `reg[W-1:0] mem[D-1:0];`, and
//! every instance of a block as its own module, so the declarations in one file are every memory
//! of the design, each once.
//!
//! A BRAM36 (36 Kib) in simple dual-port mode is 32K × 1, 16K × 2, 8K × 4, 4K × 9, 2K × 18,
//! 1K × 36 or 512 × 72 (UG573); a memory takes the fewest tiles over those shapes. A memory
//! smaller than half a tile (18 Kib) is left to the tool (distributed RAM or a BRAM18).

use std::collections::BTreeMap;

/// One memory array: depth × width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Memory {
    pub depth: u64,
    pub width: u64,
}

/// The simple dual-port shapes of a BRAM36: (depth, width).
const BRAM36_SHAPES: [(u64, u64); 7] = [(32_768, 1), (16_384, 2), (8_192, 4), (4_096, 9), (2_048, 18), (1_024, 36), (512, 72)];

/// Bits below which a memory is left to the tool (half a BRAM36).
pub const SMALL_MEMORY_BITS: u64 = 18 * 1024;

impl Memory {
    pub fn bits(&self) -> u64 {
        self.depth * self.width
    }

    /// BRAM36 tiles it takes (`None`: smaller than [`SMALL_MEMORY_BITS`], the tool's choice).
    pub fn bram36(&self) -> Option<u64> {
        (self.bits() >= SMALL_MEMORY_BITS)
            .then(|| BRAM36_SHAPES.iter().map(|(d, w)| self.depth.div_ceil(*d) * self.width.div_ceil(*w)).min().unwrap_or(0))
    }
}

/// Every memory array declared in `verilog` (`reg [W-1:0] name [D-1:0];`, either range in
/// either direction, `signed` or a 1-bit element too), one entry per declaration.
pub fn memories(verilog: &str) -> Vec<Memory> {
    memories_by_module(verilog).into_iter().map(|(_, m)| m).collect()
}

/// [`memories`] with the module each is declared in (a memory built of banks is one module with
/// several arrays).
pub fn memories_by_module(verilog: &str) -> Vec<(String, Memory)> {
    let decl = regex::Regex::new(r"^\s*reg\s*(?:signed\s*)?(?:\[(\d+):(\d+)\]\s*)?\w+\s*\[(\d+):(\d+)\]\s*;").expect("a valid pattern");
    let module = regex::Regex::new(r"^\s*module\s+([^\s(]+)").expect("a valid pattern");
    let span = |a: &str, b: &str| a.parse::<u64>().unwrap_or(0).abs_diff(b.parse::<u64>().unwrap_or(0)) + 1;
    let mut current = String::new();
    let mut found = Vec::new();
    for line in verilog.lines() {
        if let Some(c) = module.captures(line) {
            current = c[1].to_string();
        } else if let Some(c) = decl.captures(line) {
            let width = match (c.get(1), c.get(2)) {
                (Some(a), Some(b)) => span(a.as_str(), b.as_str()),
                _ => 1,
            };
            found.push((current.clone(), Memory { depth: span(&c[3], &c[4]), width }));
        }
    }
    found
}

/// The memories by shape: shape → how many.
pub fn by_shape(memories: &[Memory]) -> BTreeMap<Memory, u64> {
    let mut shapes = BTreeMap::new();
    for m in memories {
        *shapes.entry(*m).or_insert(0) += 1;
    }
    shapes
}
