//! Match-action stage (thesis §3.2.1): a small ternary match table a protocol composes into its
//! ingress or egress program. Each packet's key (e.g. the transport flags and a few metadata
//! bits) is matched against 8 entries (value, mask); the first matching entry (lowest index)
//! gives a 4-bit **action selector**, which the protocol decodes into its actions (set metadata,
//! call an extern, drop, trigger an event). No match gives the default action. The packet's
//! metadata (`in_meta`, any width `D`) travels beside the key and comes out with the action,
//! so stages chain.
//!
//! The table is the protocol's program: the entries given to [`MatchTable::new`] are loaded
//! at reset, and can be rewritten at run time through the `cfg_write_*` port (one entry per
//! cycle, effective from the next cycle).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset loads the initial program |
//! | `in_valid`, `in_key`, `in_meta` | in | 1, 16, D | a packet's key and metadata |
//! | `out_valid`, `out_hit`, `out_entry`, `out_action`, `out_meta` | out | 1, 1, 3, 4, D | the packet one cycle later, with the matching entry and its action (or the default action, `out_hit` low) |
//! | `cfg_write_valid`, `cfg_write_index`, `cfg_write_enable`, `cfg_write_key`, `cfg_write_mask`, `cfg_write_action` | in | 1, 3, 1, 16, 16, 4 | rewrite entry `index` (`enable` low removes it) |
//!
//! # Latency and throughput
//! **1 cycle** (the match is combinational, the result registered); one packet per cycle.
//!
//! # Example: NDP ingress (Algorithm 5)
//! Key = flags (bits 7–0). Entries: `DATA|CHOP` (mask 0x11) → TRIMMED; `DATA` (mask 0x11) →
//! DATA; `ACK` (mask 0x02) → ACK; `NACK` or `PULL` → CREDIT; default → DROP. See
//! `MatchEntry` and the tests in testbenches/tests/pisa_match_action.rs.

use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

fn wide128(x: u128) -> Bits<128> {
    (0..128).fold(Bits::<128>::default(), |b, i| b.replace_bit(i, (x >> i) & 1 == 1))
}

/// One table entry: a packet matches when `(key ^ value) & mask == 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchEntry {
    pub value: u16,
    pub mask: u16,
    pub action: u8,
}

/// Action selectors of the example program [`flags_example_program`].
pub const ACTION_DROP: u8 = 0;
pub const ACTION_DATA: u8 = 1;
pub const ACTION_TRIMMED: u8 = 2;
pub const ACTION_ACK: u8 = 3;
pub const ACTION_CREDIT: u8 = 4;

/// An example program on the transport flags (key bits 7–0), as NDP's ingress dispatches them
/// (Algorithm 5): trimmed DATA, DATA, ACK, NACK or PULL; anything else is dropped
/// (`ACTION_DROP` is the default action). Used by the generated configuration and the tests.
pub fn flags_example_program() -> Vec<MatchEntry> {
    vec![
        MatchEntry { value: 0x11, mask: 0x11, action: ACTION_TRIMMED },
        MatchEntry { value: 0x01, mask: 0x11, action: ACTION_DATA },
        MatchEntry { value: 0x02, mask: 0x02, action: ACTION_ACK },
        MatchEntry { value: 0x04, mask: 0x04, action: ACTION_CREDIT },
        MatchEntry { value: 0x08, mask: 0x08, action: ACTION_CREDIT },
    ]
}

/// Entries per table.
pub const MATCH_ENTRIES: usize = 8;

#[ports(
    in clock: Clock;
    in reset, in_valid, cfg_write_valid, cfg_write_enable: Bit;
    in in_key, cfg_write_key, cfg_write_mask: Bits<16>;
    in in_meta: D;
    out out_valid, out_hit: Bit;
    out out_entry: Bits<3>;
    out out_action: Bits<4>;
    out out_meta: D;
    in cfg_write_index: Bits<3>;
    in cfg_write_action: Bits<4>;
)]
#[registers(
    entry_valid: Bits<8>;
    keys, masks: Bits<128>;
    actions: Bits<32>;
    s1_valid, s1_hit: Bit;
    s1_entry: Bits<3>;
    s1_action: Bits<4>;
    s1_meta: D;
)]
#[locals(
    hit0, hit1, hit2, hit3, hit4, hit5, hit6, hit7: Bit;
    action_shift: Bits<8>;
)]
#[derive(LogicBlock, Blank)]
pub struct MatchTable<D: Synth> {
    init_valid: Constant<Bits<8>>,
    init_keys: Constant<Bits<128>>,
    init_masks: Constant<Bits<128>>,
    init_actions: Constant<Bits<32>>,
    default_action: Constant<Bits<4>>,
    field_mask: Constant<Bits<128>>,
    action_mask: Constant<Bits<32>>,
}

impl<D: Synth> Default for MatchTable<D> {
    fn default() -> Self {
        Self::new(&[], 0)
    }
}

impl<D: Synth> MatchTable<D> {
    /// A table loaded at reset with `entries` (at most 8, first has priority) and `default_action`.
    pub fn new(entries: &[MatchEntry], default_action: u8) -> Self {
        assert!(entries.len() <= MATCH_ENTRIES, "at most {MATCH_ENTRIES} entries");
        assert!(default_action < 16 && entries.iter().all(|e| e.action < 16), "actions are 4 bits");
        let (mut valid, mut keys, mut masks, mut actions) = (0u64, 0u128, 0u128, 0u64);
        for (i, e) in entries.iter().enumerate() {
            valid |= 1 << i;
            keys |= (e.value as u128) << (16 * i);
            masks |= (e.mask as u128) << (16 * i);
            actions |= (e.action as u64) << (4 * i);
        }
        Self {
            init_valid: Constant::new(valid.into()),
            init_keys: Constant::new(wide128(keys)),
            init_masks: Constant::new(wide128(masks)),
            init_actions: Constant::new(actions.into()),
            default_action: Constant::new((default_action as u64).into()),
            field_mask: Constant::new(wide128(0xffff)),
            action_mask: Constant::new(0xfu64.into()),
            ..Self::blank()
        }
    }
}

impl<D: Synth> Logic for MatchTable<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, entry_valid, keys, masks, actions, s1_valid, s1_hit, s1_entry, s1_action, s1_meta);
        // ---- Match: every entry in parallel; the lowest matching index wins.
        self.hit0.next = self.entry_valid.q.val().get_bit(0)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(0)) & self.masks.q.val().get_bits::<16>(0)) == 0);
        self.hit1.next = self.entry_valid.q.val().get_bit(1)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(16)) & self.masks.q.val().get_bits::<16>(16)) == 0);
        self.hit2.next = self.entry_valid.q.val().get_bit(2)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(32)) & self.masks.q.val().get_bits::<16>(32)) == 0);
        self.hit3.next = self.entry_valid.q.val().get_bit(3)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(48)) & self.masks.q.val().get_bits::<16>(48)) == 0);
        self.hit4.next = self.entry_valid.q.val().get_bit(4)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(64)) & self.masks.q.val().get_bits::<16>(64)) == 0);
        self.hit5.next = self.entry_valid.q.val().get_bit(5)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(80)) & self.masks.q.val().get_bits::<16>(80)) == 0);
        self.hit6.next = self.entry_valid.q.val().get_bit(6)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(96)) & self.masks.q.val().get_bits::<16>(96)) == 0);
        self.hit7.next = self.entry_valid.q.val().get_bit(7)
            & (((self.in_key.val() ^ self.keys.q.val().get_bits::<16>(112)) & self.masks.q.val().get_bits::<16>(112)) == 0);
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_meta.d.next = self.in_meta.val();
        self.s1_hit.d.next = ((self.hit0.val() | self.hit1.val()) | (self.hit2.val() | self.hit3.val()))
            | ((self.hit4.val() | self.hit5.val()) | (self.hit6.val() | self.hit7.val()));
        self.s1_action.d.next = self.default_action.val();
        self.s1_entry.d.next = 0.into();
        if self.hit7.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(28);
            self.s1_entry.d.next = 7.into();
        }
        if self.hit6.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(24);
            self.s1_entry.d.next = 6.into();
        }
        if self.hit5.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(20);
            self.s1_entry.d.next = 5.into();
        }
        if self.hit4.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(16);
            self.s1_entry.d.next = 4.into();
        }
        if self.hit3.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(12);
            self.s1_entry.d.next = 3.into();
        }
        if self.hit2.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(8);
            self.s1_entry.d.next = 2.into();
        }
        if self.hit1.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(4);
            self.s1_entry.d.next = 1.into();
        }
        if self.hit0.val() {
            self.s1_action.d.next = self.actions.q.val().get_bits::<4>(0);
            self.s1_entry.d.next = 0.into();
        }
        self.out_valid.next = self.s1_valid.q.val();
        self.out_hit.next = self.s1_hit.q.val();
        self.out_entry.next = self.s1_entry.q.val();
        self.out_action.next = self.s1_action.q.val();
        self.out_meta.next = self.s1_meta.q.val();

        // ---- Table writes.
        self.action_shift.next = bit_cast::<8, 3>(self.cfg_write_index.val()) << 2;
        if self.cfg_write_valid.val() {
            self.entry_valid.d.next = self.entry_valid.q.val().replace_bit(self.cfg_write_index.val().index(), self.cfg_write_enable.val());
            // Keys and masks (128 bits each): the entry's fixed 16-bit field, selected by the
            // index (no runtime-indexed update of a vector wider than 64 bits).
            for e in 0..8 {
                if self.cfg_write_index.val() == e {
                    self.keys.d.next = (self.keys.q.val() & (!(self.field_mask.val() << (e * 16))))
                        | (bit_cast::<128, 16>(self.cfg_write_key.val()) << (e * 16));
                    self.masks.d.next = (self.masks.q.val() & (!(self.field_mask.val() << (e * 16))))
                        | (bit_cast::<128, 16>(self.cfg_write_mask.val()) << (e * 16));
                }
            }
            self.actions.d.next = (self.actions.q.val() & (!(self.action_mask.val() << self.action_shift.val())))
                | (bit_cast::<32, 4>(self.cfg_write_action.val()) << self.action_shift.val());
        }
        if self.reset.val() {
            self.entry_valid.d.next = self.init_valid.val();
            self.keys.d.next = self.init_keys.val();
            self.masks.d.next = self.init_masks.val();
            self.actions.d.next = self.init_actions.val();
            self.s1_valid.d.next = false;
        }
    }
}
