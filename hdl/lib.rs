//! Synthesisable rust-hdl blocks of the nanoTransport NIC.
//!
//! Nothing in this crate is simulation code: every block here becomes Verilog through
//! [`generate`], and is checked cycle for cycle against that Verilog by the lockstep tests.
//!
//! # Conventions for writing blocks
//! * rust-hdl 0.46 writes binary operators into Verilog without parentheses, so every binary
//!   sub-expression inside `#[hdl_gen]` is parenthesised by hand.
//! * **No runtime-indexed update of a vector wider than 64 bits** (`replace_bit` /
//!   `replace_bits` at an index that is a signal, or a shift by a signal of a wide vector):
//!   keep per-message state in a `RAM` with a read-modify-write pipeline, use constant-shift
//!   registers, or write fixed fields selected by a decoded counter (a loop over a few constant
//!   indices, e.g. the eight 64-bit beats of a header). A per-id flag vector (one bit per
//!   message) changes through one-hot masks, `next = (q & !clear) | set`, with the masks from
//!   [`common::one_hot::OneHot`] (or a find-first-set's own one-hot): a loop over every id
//!   would be N full-width multiplexers in series once Yosys has flattened it. Why: a
//!   runtime-indexed update of a wide vector becomes a barrel shifter or a decoder over every
//!   bit in LUTs, and in Verilator a wide shift (`VL_SHIFTL_WWI`) walks every 32-bit word of the
//!   vector on each evaluation — it was 42–50 % of a whole NIC's simulation time before the
//!   per-message state moved into RAMs. The lint tests check every generated file (and a
//!   1024-message NIC) with Yosys: no shift of a vector wider than 64 bits by a non-constant
//!   amount (`tools::lint::wide_runtime_shifts` in the simulation crate).
//! * No `let` in `#[hdl_gen]`: temporaries are `Signal<Local, _>` fields.
//! * Status and configuration are read through the one register map
//!   ([`nic::register_map`]); a block exposes its counters as ports and the shell wires them into
//!   the status bank.
//! * Every stateful block has a synchronous reset; every drop, fail and stale event has its own
//!   counter output, a [`common::event_counter`] named once with `status_counters!` under
//!   [`status_counters`](macro@status_counters).
//! * Credit and OnesUntil(k) are exclusive (bits 0 … k−1), as in the authors' prototype
//!   ([`common::ones_until`], [`nic::packetization`]); priority 0 is the highest.
//! * Generic parameters: the count first, then the widths that follow from it — `<N, IW, …>`
//!   (entries, index bits), `<W, …>` for a bit width — as `TxPath<N, IW, PW>` and
//!   `GetRxMsgInfo<N, IW, BB>`.
//! * A block derives `Default` when every field has one; otherwise it derives [`Blank`] and its
//!   constructors name only the fields that differ (`Self { k: Constant::new(…), ..Self::blank() }`).
//! * A block's ports, plain registers and local signals are declared compactly above its
//!   struct, as a Verilog module declares ports, `reg` and `wire`: `#[ports(in clock: Clock; in
//!   reset: Bit; out done: Bit)]`, `#[registers(valid, last: Bit; key: Bits<64>)]`,
//!   `#[locals(hit: Bit; sum: Bits<17>)]` ([`ports`], [`registers`], [`locals`]; a doc comment
//!   before a group documents its fields). The struct lists the bundles, sub-blocks, constants and
//!   counters. A status counter is named once: `status_counters!(self, clock, reset, a => a_count)`
//!   clocks and resets it and drives its output ([`status_counters`]). A sub-block's outputs
//!   driven out on ports of the same names are named once: `forward!(self.fields => hdr_flags,
//!   hdr_msg_len)` ([`forwards`]).

pub use nanotransport_hdl_derive::{forwards, locals, ports, registers, status_counters, Blank};

pub mod board;
pub mod clock;
pub mod common;
pub mod configs;
pub mod generate;
pub mod nic;
pub mod pisa;
pub mod presets;
pub mod protocols;
pub mod switch;
