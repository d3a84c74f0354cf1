//! The two bucket hashes of a 64-bit message key `{tx_msg_id, src_port, src_ip}`, shared by
//! the GetRxMsgInfo table and the delivered-message set (two-way d-left tables of `2^B`
//! buckets per way).
//!
//! * way 0: [`fold`] of the key — the four 16-bit quarters XORed, then folded in `B`-bit slices;
//! * way 1: the fold of the mixed key [`mix`] `= (k ^ k >> 13) ^ (k << 7) ^ 0x5bd1e995`.
//!
//! Both are XOR networks (no carries): a few LUT levels.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `key` | in | 64 | the key |
//! | `h0`, `h1` | out | `B` | bucket in way 0 and way 1 ([`hash0`], [`hash1`]) |
//!
//! # Latency and throughput
//! Combinational: 0 cycles, one key per cycle.

use rust_hdl::prelude::*;

/// Widest bucket number the fold supports (`3 ≤ B ≤ 16`).
pub const MAX_HASH_BITS: usize = 16;

/// XOR fold of a 64-bit key into `bits` bits: the four 16-bit quarters are XORed, then the
/// 16-bit result is folded in `bits`-wide slices (`3 ≤ bits ≤ 16`).
pub fn fold(x: u64, bits: usize) -> u64 {
    let f16 = (x ^ (x >> 16) ^ (x >> 32) ^ (x >> 48)) & 0xffff;
    let mut h = 0;
    for k in 0..6 {
        let s = k * bits;
        if s < 16 {
            h ^= f16 >> s;
        }
    }
    h & ((1 << bits) - 1)
}

/// Bucket of `key = {tx_msg_id, src_port, src_ip}` in way 0.
pub fn hash0(key: u64, bits: usize) -> u64 {
    fold(key, bits)
}

/// The mixed key hashed for way 1.
pub fn mix(key: u64) -> u64 {
    (key ^ (key >> 13)) ^ ((key << 7) ^ 0x5bd1_e995)
}

/// Bucket of `key` in way 1: the fold of the mixed key.
pub fn hash1(key: u64, bits: usize) -> u64 {
    fold(mix(key), bits)
}

/// Both bucket hashes of a key for tables of `2^B` buckets per way.
#[derive(LogicBlock)]
pub struct KeyHash<const B: usize> {
    pub key: Signal<In, Bits<64>>,
    pub h0: Signal<Out, Bits<B>>,
    pub h1: Signal<Out, Bits<B>>,
    fold_s1: Constant<Bits<7>>,
    fold_s2: Constant<Bits<7>>,
    fold_s3: Constant<Bits<7>>,
    fold_s4: Constant<Bits<7>>,
    fold_s5: Constant<Bits<7>>,
    mix_constant: Constant<Bits<64>>,
    mixed: Signal<Local, Bits<64>>,
    f0: Signal<Local, Bits<16>>,
    f1: Signal<Local, Bits<16>>,
}

impl<const B: usize> Default for KeyHash<B> {
    fn default() -> Self {
        assert!((3..=MAX_HASH_BITS).contains(&B), "bucket bits must be 3..={MAX_HASH_BITS}, not {B}");
        Self {
            key: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            fold_s1: Constant::new((B as u64).to_bits()),
            fold_s2: Constant::new((2 * B as u64).to_bits()),
            fold_s3: Constant::new((3 * B as u64).to_bits()),
            fold_s4: Constant::new((4 * B as u64).to_bits()),
            fold_s5: Constant::new((5 * B as u64).to_bits()),
            mix_constant: Constant::new(0x5bd1_e995u64.to_bits()),
            mixed: Default::default(),
            f0: Default::default(),
            f1: Default::default(),
        }
    }
}

impl<const B: usize> Logic for KeyHash<B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.mixed.next = ((self.key.val() ^ (self.key.val() >> 13)) ^ (self.key.val() << 7)) ^ self.mix_constant.val();
        self.f0.next = ((self.key.val().get_bits::<16>(0) ^ self.key.val().get_bits::<16>(16)) ^ self.key.val().get_bits::<16>(32))
            ^ self.key.val().get_bits::<16>(48);
        self.f1.next = ((self.mixed.val().get_bits::<16>(0) ^ self.mixed.val().get_bits::<16>(16)) ^ self.mixed.val().get_bits::<16>(32))
            ^ self.mixed.val().get_bits::<16>(48);
        // Shifts of 16 or more give 0: a slice beyond the 16-bit fold adds nothing.
        self.h0.next = bit_cast::<B, 16>(((((self.f0.val() ^ (self.f0.val() >> self.fold_s1.val())) ^ (self.f0.val() >> self.fold_s2.val()))
            ^ (self.f0.val() >> self.fold_s3.val()))
            ^ (self.f0.val() >> self.fold_s4.val()))
            ^ (self.f0.val() >> self.fold_s5.val()));
        self.h1.next = bit_cast::<B, 16>(((((self.f1.val() ^ (self.f1.val() >> self.fold_s1.val())) ^ (self.f1.val() >> self.fold_s2.val()))
            ^ (self.f1.val() >> self.fold_s3.val()))
            ^ (self.f1.val() >> self.fold_s4.val()))
            ^ (self.f1.val() >> self.fold_s5.val()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes<const B: usize>(key: u64) -> (u64, u64) {
        let mut u = KeyHash::<B>::default();
        u.connect_all();
        u.key.next = key.to_bits();
        assert!(simulate(&mut u, 100));
        (u.h0.val().to_u64(), u.h1.val().to_u64())
    }

    #[test]
    fn hardware_matches_the_functions() {
        for key in [0u64, 1, 0x1234_5678_9abc_def0, u64::MAX, 0x0a00_0001_1f90_0007] {
            assert_eq!(hashes::<4>(key), (hash0(key, 4), hash1(key, 4)), "{key:#x}");
            assert_eq!(hashes::<6>(key), (hash0(key, 6), hash1(key, 6)), "{key:#x}");
            assert_eq!(hashes::<12>(key), (hash0(key, 12), hash1(key, 12)), "{key:#x}");
        }
    }

    #[test]
    fn fold_matches_six_bit_slices() {
        // With 6-bit buckets the fold is the XOR of the 16-bit fold's three slices.
        let x = 0x1234_5678_9abc_def0u64;
        let f16 = 0x1234 ^ 0x5678 ^ 0x9abc ^ 0xdef0;
        assert_eq!(fold(x, 6), (f16 ^ (f16 >> 6) ^ (f16 >> 12)) & 0x3f);
    }
}
