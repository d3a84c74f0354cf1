//! Unit tests of the block in `hdl/nic/packet_read_out.rs`, on the natively stepped block with
//! a payload memory beside it.

use nanotransport_hdl::nic::packet_read_out::*;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// A descriptor: slot, buffer base (words), message length, packet offset, and a tag that
/// fills the other metadata fields.
#[derive(Clone, Copy)]
struct Desc {
    slot: u64,
    base: u64,
    msg_len: u64,
    offset: u64,
    tag: u64,
}

/// One beat seen on the stream: data, keep, last, and the metadata fields that identify it.
#[derive(Debug, PartialEq)]
struct Beat {
    data: u64,
    keep: u64,
    last: bool,
    msg_len: u64,
    offset: u64,
    tx_msg_id: u64,
    rank: u64,
    is_rtx: bool,
}

fn word_at(address: u64) -> u64 {
    address.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Desc {
    fn expected(&self) -> Vec<Beat> {
        let bytes = (self.msg_len - 1024 * self.offset).min(1024);
        let beats = bytes.div_ceil(8);
        (0..beats)
            .map(|b| {
                let last = b + 1 == beats;
                let tail = bytes % 8;
                Beat {
                    data: word_at(self.base + 128 * self.offset + b),
                    keep: if last && tail != 0 { (1 << tail) - 1 } else { 0xFF },
                    last,
                    msg_len: self.msg_len,
                    offset: self.offset,
                    tx_msg_id: self.tag,
                    rank: self.tag & 0xFF,
                    is_rtx: self.tag % 2 == 1,
                }
            })
            .collect()
    }
}

struct Bench {
    uut: PacketReadOut<4, 17>,
    read_word: u64,
    rng: rand_chacha::ChaCha8Rng,
}

impl Bench {
    fn new(seed: u64) -> Self {
        println!("seed {seed}");
        let mut uut = PacketReadOut::<4, 17>::default();
        uut.connect_all();
        let mut b = Bench { uut, read_word: 0, rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed) };
        b.uut.reset.next = true;
        b.edge();
        b.uut.reset.next = false;
        b
    }
    fn edge(&mut self) {
        let address = payload_memory_cycle!(&mut self.uut, self.read_word);
        self.read_word = word_at(address);
    }
    fn offer(&mut self, d: Option<&Desc>) {
        let u = &mut self.uut;
        u.desc.valid.next = d.is_some();
        if let Some(d) = d {
            u.desc.slot.next = d.slot.into();
            u.desc_base.next = d.base.into();
            u.desc.msg_len.next = d.msg_len.into();
            u.desc.offset.next = d.offset.into();
            u.desc.tx_msg_id.next = d.tag.into();
            u.desc.rank.next = (d.tag & 0xFF).into();
            u.desc.is_rtx.next = d.tag % 2 == 1;
        }
    }
    /// Offers the descriptors in order, the stream ready with probability `p_ready`; returns
    /// the beats seen and the cycle of each.
    fn run(&mut self, descs: &[Desc], p_ready: f64) -> (Vec<Beat>, Vec<u64>) {
        let expected: usize = descs.iter().map(|d| d.expected().len()).sum();
        let (mut beats, mut cycles) = (Vec::new(), Vec::new());
        let mut next = 0;
        for cycle in 0..200_000 {
            if beats.len() == expected {
                break;
            }
            let ready = self.rng.gen_bool(p_ready);
            self.uut.m_axis_pkt.tready.next = ready;
            self.uut.payload_data.next = self.read_word.into();
            self.offer(descs.get(next));
            assert!(simulate(&mut self.uut, 100));
            let u = &self.uut;
            if u.desc.valid.val() && u.desc.ready.val() {
                next += 1;
            }
            let s = &u.m_axis_pkt;
            if s.tvalid.val() && ready {
                cycles.push(cycle);
                beats.push(Beat {
                    data: s.tdata.val().to_u64(),
                    keep: s.tkeep.val().to_u64(),
                    last: s.tlast.val(),
                    msg_len: s.msg_len.val().to_u64(),
                    offset: s.pkt_offset.val().to_u64(),
                    tx_msg_id: s.tx_msg_id.val().to_u64(),
                    rank: s.rank.val().to_u64(),
                    is_rtx: s.is_rtx.val(),
                });
            }
            self.edge();
        }
        (beats, cycles)
    }
}

fn desc(slot: u64, msg_len: u64, offset: u64) -> Desc {
    Desc { slot, base: 4096 * slot, msg_len, offset, tag: 100 + slot }
}

#[test]
fn full_and_short_last_packets_with_their_keep_and_metadata() {
    for (i, d) in [desc(1, 1, 0), desc(2, 8, 0), desc(3, 1029, 0), desc(3, 1029, 1), desc(5, 38 * 1024 - 3, 37)].iter().enumerate() {
        let mut b = Bench::new(i as u64);
        let (beats, _) = b.run(std::slice::from_ref(d), 0.6);
        assert_eq!(beats, d.expected(), "msg_len {} offset {}", d.msg_len, d.offset);
    }
}

#[test]
fn back_to_back_packets_without_a_gap() {
    let descs: Vec<_> = (0..8).map(|i| desc(i % 16, 3000 + 100 * i, i % 3)).collect();
    let mut b = Bench::new(11);
    let (beats, cycles) = b.run(&descs, 1.0);
    let expected: Vec<_> = descs.iter().flat_map(|d| d.expected()).collect();
    assert_eq!(beats, expected);
    // The first beat two cycles after the first descriptor (cycle 0), then one beat every cycle
    // across packet boundaries.
    assert_eq!(cycles[0], 2);
    assert!(cycles.windows(2).all(|w| w[1] == w[0] + 1), "a gap in the stream");
}

#[test]
fn reset_empties_the_stream() {
    let mut b = Bench::new(12);
    let d = desc(7, 2000, 0);
    b.uut.m_axis_pkt.tready.next = false;
    b.offer(Some(&d));
    b.edge();
    b.offer(None);
    for _ in 0..4 {
        b.edge();
    }
    assert!(b.uut.m_axis_pkt.tvalid.val() && b.uut.busy.val());
    assert_eq!(b.uut.busy_slot.val().to_u64(), 7);
    b.uut.reset.next = true;
    b.edge();
    b.uut.reset.next = false;
    assert!(simulate(&mut b.uut, 100));
    assert!(!b.uut.m_axis_pkt.tvalid.val() && !b.uut.busy.val() && b.uut.desc.ready.val());
}
