//! Unit tests of the block in `hdl/nic/rx_buffer_classes.rs`, on the natively stepped block.

use nanotransport_hdl::nic::rx_buffer_classes::*;
use rust_hdl::prelude::*;

/// Classes of 1, 4, 8 and 38 pages with 4, 2, 1 and 1 buffers: first pages 0, 4, 12, 20.
const CLASSES: [(u64, u64); 4] = [(1, 4), (4, 2), (8, 1), (38, 1)];

struct Bench {
    uut: RxBufferClasses<16, 4>,
}

/// What the block offers for a request: class, buffer index, first page, fallback.
#[derive(Debug, PartialEq)]
enum Choice {
    Class { class: u64, index: u64, page: u64, fallback: bool },
    Exhausted,
}

impl Bench {
    fn new() -> Self {
        let mut uut = RxBufferClasses::<16, 4>::new(CLASSES);
        uut.connect_all();
        let mut b = Bench { uut };
        b.cycle(true, None, None);
        b.cycle(false, None, None);
        b
    }
    fn settle(&mut self) {
        assert!(simulate(&mut self.uut, 100));
    }
    /// One clock cycle, taking from a class and/or freeing `(class, index)`.
    fn cycle(&mut self, reset: bool, take: Option<u64>, free: Option<(u64, u64)>) {
        let u = &mut self.uut;
        u.reset.next = reset;
        u.take.next = take.is_some();
        u.take_class.next = (1u64 << take.unwrap_or(0)).into();
        u.free_valid.next = free.is_some();
        u.free_class.next = free.map_or(0, |f| f.0).into();
        u.free_index.next = free.map_or(0, |f| f.1).into();
        self.settle();
        let u = &mut self.uut;
        u.clock.next = Clock { clk: true };
        self.settle();
        self.uut.clock.next = Clock { clk: false };
        self.settle();
    }
    fn fits(&mut self, msg_len: u64) -> u64 {
        self.uut.msg_len.next = msg_len.into();
        self.settle();
        self.uut.fits.val().to_u64()
    }
    fn choice(&mut self, msg_len: u64) -> Choice {
        let fits = self.fits(msg_len);
        self.uut.request_fits.next = fits.into();
        self.settle();
        let u = &self.uut;
        if u.exhausted.val() {
            return Choice::Exhausted;
        }
        Choice::Class {
            class: u.chosen.val().to_u64(),
            index: u.chosen_index.val().to_u64(),
            page: u.chosen_page.val().to_u64(),
            fallback: u.fallback.val(),
        }
    }
    /// Takes the buffer offered for `msg_len` and lets the offer settle (one idle cycle).
    fn take(&mut self, msg_len: u64) -> Choice {
        let choice = self.choice(msg_len);
        if let Choice::Class { class, .. } = choice {
            self.cycle(false, Some(class), None);
            self.cycle(false, None, None);
        }
        choice
    }
}

fn class(class: u64, index: u64, page: u64, fallback: bool) -> Choice {
    Choice::Class { class, index, page, fallback }
}

#[test]
fn fits_is_the_classes_that_hold_the_length() {
    let mut b = Bench::new();
    assert_eq!(b.fits(1), 0b1111);
    assert_eq!(b.fits(1024), 0b1111);
    assert_eq!(b.fits(1025), 0b1110);
    assert_eq!(b.fits(8 * 1024 + 1), 0b1000);
    assert_eq!(b.fits(38 * 1024), 0b1000);
    assert_eq!(b.fits(38 * 1024 + 1), 0);
}

#[test]
fn smallest_class_first_then_larger_ones_with_fallback() {
    let mut b = Bench::new();
    for i in 0..4 {
        assert_eq!(b.take(100), class(0, i, i, false));
    }
    // Class 0's four buffers are gone: class 1 (first page 4), then class 2, then class 3.
    assert_eq!(b.take(100), class(1, 0, 4, true));
    assert_eq!(b.take(100), class(1, 1, 8, true));
    assert_eq!(b.take(100), class(2, 0, 12, true));
    assert_eq!(b.take(100), class(3, 0, 20, true));
    assert_eq!(b.choice(100), Choice::Exhausted);
    assert_eq!(b.uut.full.val().to_u64(), 0);
}

#[test]
fn a_freed_buffer_is_offered_again_and_full_returns() {
    let mut b = Bench::new();
    assert_eq!(b.uut.full.val().to_u64(), 0b1111);
    assert_eq!(b.take(5 * 1024), class(2, 0, 12, false));
    assert_eq!(b.choice(5 * 1024), class(3, 0, 20, true));
    assert_eq!(b.uut.full.val().to_u64(), 0b1011);
    b.cycle(false, None, Some((2, 0)));
    b.cycle(false, None, None);
    assert_eq!(b.choice(5 * 1024), class(2, 0, 12, false));
    assert_eq!(b.uut.full.val().to_u64(), 0b1111);
}

#[test]
fn nothing_fits_a_message_beyond_the_largest_class() {
    let mut b = Bench::new();
    assert_eq!(b.choice(38 * 1024 + 1), Choice::Exhausted);
    // A reset refills every class.
    b.take(30 * 1024);
    assert_eq!(b.choice(30 * 1024), Choice::Exhausted);
    b.cycle(true, None, None);
    b.cycle(false, None, None);
    assert_eq!(b.choice(30 * 1024), class(3, 0, 20, false));
}
