//! The register file's reference model (`reference/csr.rs`): address decoding, strobes and errors.

use nanotransport_reference::csr::*;

#[test]
fn decode_covers_the_map() {
    assert_eq!(decode(0x000), CsrTarget::Config(0));
    assert_eq!(decode(0x03C), CsrTarget::Config(15));
    assert_eq!(decode(0x040), CsrTarget::ReservedConfig);
    assert_eq!(decode(0x0FF), CsrTarget::ReservedConfig);
    assert_eq!(decode(0x100), CsrTarget::Rejected);
    assert_eq!(decode(0x3FC), CsrTarget::Rejected);
    assert_eq!(decode(0x400), CsrTarget::Status(0));
    assert_eq!(decode(0x7FC), CsrTarget::Status(255));
    assert_eq!(decode(0x800), CsrTarget::Rejected);
    assert_eq!(decode(0x402), CsrTarget::Status(0));
    assert_eq!(decode(0x03F), CsrTarget::Config(15));
}

#[test]
fn strobes_and_errors() {
    let mut m = CsrModel::new([0x1111_1111; 16]);
    assert_eq!(m.write(0x8, 0xAABB_CCDD, 0b0101), OKAY);
    assert_eq!(m.config[2], 0x11BB_11DD);
    assert_eq!(m.write(0x404, 5, 0xF), SLVERR);
    assert_eq!(m.read(0x43, &[0; 256]), (0, OKAY));
    assert_eq!(m.read(0x103, &[0; 256]), (0, SLVERR));
    // A one-byte write at an unaligned address: aligned down, the strobe picks the byte.
    assert_eq!(m.write(0x9, 0x0000_EE00, 0b0010), OKAY);
    assert_eq!(m.config[2], 0x11BB_EEDD);
    assert_eq!(m.errors, 2);
    m.reset();
    assert_eq!((m.config[2], m.errors), (0x1111_1111, 0));
}
