//! Receive buffer allocator (thesis §3.3.2): four size classes `(pages per buffer, buffers)`,
//! each with its own [`FreeList`] of `N` IDs of which the first `buffers` are used, laid out one
//! after another from page 0 of the payload memory ([`class_base_pages`]). Part of
//! [`GetRxMsgInfo`](crate::nic::get_rx_msg_info::GetRxMsgInfo), which registers the request's
//! `fits` in its cycle A, reads the choice in cycle B and takes or frees a buffer in cycle C / B.
//!
//! The choice is the **smallest class that fits and has a free buffer**; `fallback` says it is
//! not the smallest class that fits (that one is exhausted). A class's free list offers its lowest
//! free ID, so the class is exhausted once that ID reaches its buffer count.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | reset refills every class (one cycle) |
//! | `msg_len` → `fits` | in → out | 16 → 4 | combinational: bit `k` = class `k`'s buffers hold `msg_len` bytes |
//! | `request_fits` | in | 4 | the `fits` of the request being decided (registered by the caller) |
//! | `chosen`, `chosen_index`, `chosen_page` | out | 2, IW, 16 | the class chosen for `request_fits`, its offered buffer and that buffer's first page |
//! | `fallback` | out | 1 | `chosen` is larger than the smallest class that fits |
//! | `exhausted` | out | 1 | no class that fits has a free buffer (`chosen` is then meaningless) |
//! | `take`, `take_class` | in | 1, 4 | take the offered buffer of the class (one-hot) |
//! | `free_valid`, `free_class`, `free_index` | in | 1, 2, IW | return a buffer to its class |
//! | `full` | out | 4 | bit `k`: every buffer of class `k` is free |
//!
//! # Latency and throughput
//! The offers (`has a buffer`, its index) are registered every cycle from the free lists, so a
//! choice sees the lists as they were one cycle earlier; GetRxMsgInfo changes them only at the
//! end of its cycles B and C, so cycles B and C see what cycle A saw. `fits` and the choice are
//! combinational. A take and a free each act at the clock edge, one of each per cycle.
//! A free of a buffer that is already free changes nothing (GetRxMsgInfo frees only buffers it
//! holds).

use crate::common::free_list::FreeList;
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// Receive size classes (packets per message, messages) of the presets for `messages` per
/// direction: up to 128 messages every size holds 16 maximum-size (38-packet) messages at once
/// and fills the rest of the 1 MiB payload memory with small classes. From 128 on the classes
/// scale with the message count, `N × 1 KiB, N/4 × 4 KiB, N/8 × 8 KiB, N/8 × 38 KiB` (7.75 KiB
/// per message, 97 % of a memory of 8 KiB per message).
/// * 16: every one of the 16 IDs can hold a maximum-size message at once, as in the prototype;
///   the small classes live in what the 2^N rounding of the payload RAM leaves free anyway
///   (16 × 38 KB = 608 KB of 1 MB; all four classes use 816 KB). Every class has a buffer per
///   ID, so a request that gets an ID never fails for lack of a buffer nor falls back to a larger
///   class (`fail_no_buffer_count` and `class_fallback_count` stay 0).
/// * 128: 128 × 1 KB, 32 × 4 KB, 16 × 8 KB, 16 × 38 KB = 992 KB of the 1 MB payload RAM. A
///   deviation from Table 3.2, which sizes the prototype's 128-message NIC for 128 × 32 KB per
///   direction (about 4.2 MB): here 16 messages above 8 KB are held at once.
pub const fn rx_classes_for(messages: usize) -> [(u64, u64); 4] {
    let n = messages as u64;
    match messages {
        16 => [(1, 16), (4, 16), (8, 16), (38, 16)],
        32 => [(1, 32), (4, 32), (8, 16), (38, 16)],
        64 => [(1, 64), (4, 32), (8, 16), (38, 16)],
        _ => [(1, n), (4, n / 4), (8, n / 8), (38, n / 8)],
    }
}

/// First page of each class: classes are laid out one after another from page 0.
pub fn class_base_pages(classes: &[(u64, u64); 4]) -> [u64; 4] {
    let mut base = [0; 4];
    for c in 1..4 {
        base[c] = base[c - 1] + classes[c - 1].0 * classes[c - 1].1;
    }
    base
}

/// Four receive size classes of buffers for `N = 2^IW` messages.
#[ports(
    in clock: Clock;
    in reset, take, free_valid: Bit;
    in msg_len: Bits<16>;
    out fits, full: Bits<4>;
    in request_fits, take_class: Bits<4>;
    out chosen: Bits<2>;
    out chosen_index: Bits<IW>;
    out chosen_page: Bits<16>;
    out fallback, exhausted: Bit;
    in free_class: Bits<2>;
    in free_index: Bits<IW>;
)]
#[registers(
    /// Per class, registered every cycle: it has a free buffer, and the index it offers.
    has_buffer: Bits<4>;
)]
#[locals(
    msg_len32: Bits<32>;
    free_onehot, fits_now, has_buffer_now, full_now, usable: Bits<4>;
    best: Bits<2>;
)]
#[derive(LogicBlock, Blank)]
pub struct RxBufferClasses<const N: usize, const IW: usize> {
    lists: [FreeList<N, IW>; 4],
    pages: [Constant<Bits<16>>; 4],
    /// Bytes a buffer of the class holds (`pages · 1024`).
    bytes: [Constant<Bits<32>>; 4],
    buffers: [Constant<Bits<16>>; 4],
    base: [Constant<Bits<16>>; 4],
    offered: [DFF<Bits<IW>>; 4],
    /// The offered buffers' first pages.
    page: [Signal<Local, Bits<16>>; 4],
    /// The free lists' offers, 16 bits wide to compare with the buffer counts.
    offer16: [Signal<Local, Bits<16>>; 4],
}

impl<const N: usize, const IW: usize> RxBufferClasses<N, IW> {
    /// The allocator for the size classes `(pages per buffer, buffers)`, checked whole by the
    /// caller ([`crate::nic::get_rx_msg_info::check_parameters`]); panics with a one-line message
    /// when a class has no buffer or more than `N`.
    pub fn new(classes: [(u64, u64); 4]) -> Self {
        for c in &classes {
            assert!((1..=N as u64).contains(&c.1), "receive size class {c:?}: 1..={N} buffers");
        }
        let base = class_base_pages(&classes);
        Self {
            pages: std::array::from_fn(|k| Constant::new(classes[k].0.to_bits())),
            bytes: std::array::from_fn(|k| Constant::new((classes[k].0 << 10).to_bits())),
            buffers: std::array::from_fn(|k| Constant::new(classes[k].1.to_bits())),
            base: std::array::from_fn(|k| Constant::new(base[k].to_bits())),
            ..Self::blank()
        }
    }
}

impl<const N: usize, const IW: usize> Logic for RxBufferClasses<N, IW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, has_buffer);
        self.msg_len32.next = bit_cast::<32, 16>(self.msg_len.val());
        self.free_onehot.next = bit_cast::<4, 1>(true.into()) << bit_cast::<4, 2>(self.free_class.val());
        self.fits_now.next = 0.into();
        self.has_buffer_now.next = 0.into();
        self.full_now.next = 0.into();
        // (A loop index may not appear inside `bit_cast`: its width is worked out outside the loop.)
        self.offer16[0].next = bit_cast::<16, IW>(self.lists[0].alloc_id.val());
        self.offer16[1].next = bit_cast::<16, IW>(self.lists[1].alloc_id.val());
        self.offer16[2].next = bit_cast::<16, IW>(self.lists[2].alloc_id.val());
        self.offer16[3].next = bit_cast::<16, IW>(self.lists[3].alloc_id.val());
        for k in 0..4 {
            self.lists[k].clock.next = self.clock.val();
            self.lists[k].reset.next = self.reset.val();
            self.offered[k].clock.next = self.clock.val();
            // A class fits when `msg_len ≤ pages · 1024`, i.e. `pages ≥ ⌈msg_len / 1024⌉`.
            self.fits_now.next = self.fits_now.val().replace_bit(k, self.msg_len32.val() <= self.bytes[k].val());
            self.has_buffer_now.next =
                self.has_buffer_now.val().replace_bit(k, self.lists[k].alloc_valid.val() & (self.offer16[k].val() < self.buffers[k].val()));
            self.offered[k].d.next = self.lists[k].alloc_id.val();
            self.full_now.next = self.full_now.val().replace_bit(k, self.lists[k].full.val());
            self.lists[k].alloc_ready.next = (self.take.val() & self.take_class.val().get_bit(k)) & (!self.reset.val());
            self.lists[k].free_valid.next = (self.free_valid.val() & self.free_onehot.val().get_bit(k)) & (!self.reset.val());
            self.lists[k].free_id.next = self.free_index.val();
        }
        self.fits.next = self.fits_now.val();
        self.has_buffer.d.next = self.has_buffer_now.val();
        self.full.next = self.full_now.val();
        self.page[0].next = self.base[0].val() + bit_cast::<16, 32>(bit_cast::<16, IW>(self.offered[0].q.val()) * self.pages[0].val());
        self.page[1].next = self.base[1].val() + bit_cast::<16, 32>(bit_cast::<16, IW>(self.offered[1].q.val()) * self.pages[1].val());
        self.page[2].next = self.base[2].val() + bit_cast::<16, 32>(bit_cast::<16, IW>(self.offered[2].q.val()) * self.pages[2].val());
        self.page[3].next = self.base[3].val() + bit_cast::<16, 32>(bit_cast::<16, IW>(self.offered[3].q.val()) * self.pages[3].val());
        // The smallest class usable, and the smallest that fits: the last assignment wins.
        self.usable.next = self.request_fits.val() & self.has_buffer.q.val();
        self.chosen.next = 0.into();
        self.chosen_index.next = self.offered[0].q.val();
        self.chosen_page.next = self.page[0].val();
        self.best.next = 0.into();
        for k in 0..4 {
            if self.usable.val().get_bit(3 - k) {
                self.chosen.next = (3 - k).to_bits();
                self.chosen_index.next = self.offered[3 - k].q.val();
                self.chosen_page.next = self.page[3 - k].val();
            }
            if self.request_fits.val().get_bit(3 - k) {
                self.best.next = (3 - k).to_bits();
            }
        }
        self.fallback.next = self.chosen.val() != self.best.val();
        self.exhausted.next = !self.usable.val().any();
    }
}

impl<const N: usize, const IW: usize> Default for RxBufferClasses<N, IW> {
    /// The preset size classes of this size ([`rx_classes_for`]).
    fn default() -> Self {
        Self::new(rx_classes_for(N))
    }
}
