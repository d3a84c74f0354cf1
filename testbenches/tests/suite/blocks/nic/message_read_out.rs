//! Unit tests of the block in `hdl/nic/message_read_out.rs`, on the natively stepped block with
//! a payload memory beside it.

use nanotransport_hdl::nic::message_read_out::*;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

const PW: usize = 17;

/// A message to read out: its header fields and payload bytes.
struct Message {
    slot: u64,
    local_port: u64,
    remote_ip: u64,
    remote_port: u64,
    page: u64,
    payload: Vec<u8>,
}

impl Message {
    fn header(&self) -> Bits<READ_OUT_HEADER_BITS> {
        let len = self.payload.len() as u128;
        let v: u128 = self.slot as u128
            | (self.local_port as u128) << 10
            | (self.remote_ip as u128) << 26
            | (self.remote_port as u128) << 58
            | len << 74
            | (self.page as u128) << 90;
        v.to_bits()
    }
    /// The beats the CPU must see: two header beats, then the payload, as (data, keep, last).
    fn expected_beats(&self) -> Vec<(u64, u64, bool)> {
        let mut beats =
            vec![(self.remote_ip | self.remote_port << 32 | self.local_port << 48, 0xFF, false), (self.payload.len() as u64, 0xFF, false)];
        let chunks: Vec<_> = self.payload.chunks(8).collect();
        for (i, c) in chunks.iter().enumerate() {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            beats.push((u64::from_le_bytes(word), (1u64 << c.len()) - 1, i + 1 == chunks.len()));
        }
        beats
    }
}

struct Bench {
    uut: MessageReadOut<4, PW>,
    memory: std::collections::HashMap<u64, u64>,
    /// The word read in the previous cycle (the memory answers one cycle after the address).
    read_word: u64,
    rng: rand_chacha::ChaCha8Rng,
}

impl Bench {
    fn new(seed: u64) -> Self {
        println!("seed {seed}");
        let mut uut = MessageReadOut::<4, PW>::default();
        uut.connect_all();
        let mut b = Bench { uut, memory: Default::default(), read_word: 0, rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed) };
        b.uut.reset.next = true;
        b.edge();
        b.uut.reset.next = false;
        b
    }
    fn store(&mut self, m: &Message) {
        for (i, c) in m.payload.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            // Bytes beyond the message in its last word hold garbage, which must not leave.
            for b in word.iter_mut().skip(c.len()) {
                *b = 0xA5;
            }
            self.memory.insert(m.page * 128 + i as u64, u64::from_le_bytes(word));
        }
    }
    fn edge(&mut self) {
        let address = payload_memory_cycle!(&mut self.uut, self.read_word);
        self.read_word = *self.memory.get(&address).unwrap_or(&0xDEAD_BEEF);
    }
    /// Starts each message as soon as the block is ready, with the CPU ready with probability
    /// `p_ready`; returns the beats seen and the slots `done` reported, in order.
    fn run(&mut self, messages: &[Message], p_ready: f64) -> (Vec<(u64, u64, bool)>, Vec<u64>) {
        let (mut beats, mut done) = (Vec::new(), Vec::new());
        let mut next = 0;
        let expected: usize = messages.iter().map(|m| m.expected_beats().len()).sum();
        for _ in 0..100_000 {
            if beats.len() == expected {
                break;
            }
            let ready = self.rng.gen_bool(p_ready);
            let u = &mut self.uut;
            u.m_axis.tready.next = ready;
            u.payload_data.next = self.read_word.into();
            assert!(simulate(u, 100));
            let start = u.ready.val() && next < messages.len();
            u.start.next = start;
            if start {
                u.header.next = messages[next].header();
                next += 1;
            }
            assert!(simulate(u, 100));
            if u.m_axis.tvalid.val() && ready {
                beats.push((u.m_axis.tdata.val().to_u64(), u.m_axis.tkeep.val().to_u64(), u.m_axis.tlast.val()));
            }
            if u.done.val() {
                done.push(u.done_slot.val().to_u64());
            }
            self.edge();
        }
        (beats, done)
    }
}

fn message(slot: u64, page: u64, len: usize) -> Message {
    Message {
        slot,
        local_port: 0x1000 + slot,
        remote_ip: 0x0A00_0000 + slot,
        remote_port: 0x2000 + slot,
        page,
        payload: (0..len).map(|i| (i * 7 + slot as usize) as u8).collect(),
    }
}

#[test]
fn streams_header_then_payload_with_the_last_keep() {
    for (len, p_ready) in [(1, 1.0), (8, 1.0), (13, 0.6), (1024, 0.8), (38 * 1024 - 5, 1.0)] {
        let mut b = Bench::new(len as u64);
        let m = message(3, 40, len);
        b.store(&m);
        let (beats, done) = b.run(std::slice::from_ref(&m), p_ready);
        assert_eq!(beats, m.expected_beats(), "msg_len {len}");
        assert_eq!(done, vec![3]);
    }
}

#[test]
fn back_to_back_messages_in_order_and_without_a_gap() {
    let mut b = Bench::new(7);
    let messages: Vec<_> = (0..6).map(|i| message(i, 10 + 38 * i, 1 + 300 * i as usize)).collect();
    for m in &messages {
        b.store(m);
    }
    let (beats, done) = b.run(&messages, 1.0);
    let expected: Vec<_> = messages.iter().flat_map(|m| m.expected_beats()).collect();
    assert_eq!(beats, expected);
    assert_eq!(done, (0..6).collect::<Vec<_>>());
    // With the CPU always ready, one beat per cycle and no idle cycle between messages.
    let mut b = Bench::new(8);
    for m in &messages {
        b.store(m);
    }
    let mut cycles = 0;
    let mut seen = 0;
    let total = expected.len();
    let mut next = 0;
    let mut first = None;
    while seen < total && cycles < 10_000 {
        let u = &mut b.uut;
        u.m_axis.tready.next = true;
        u.payload_data.next = b.read_word.into();
        assert!(simulate(u, 100));
        u.start.next = u.ready.val() && next < messages.len();
        if u.start.val() {
            u.header.next = messages[next].header();
            next += 1;
        }
        assert!(simulate(u, 100));
        if u.m_axis.tvalid.val() {
            first.get_or_insert(cycles);
            seen += 1;
        }
        b.edge();
        cycles += 1;
    }
    assert_eq!(first, Some(1), "header beat 0 the cycle after start");
    assert_eq!(cycles, total + 1, "one beat per cycle from the first on");
}

#[test]
fn reset_ends_a_read_out() {
    let mut b = Bench::new(9);
    let m = message(5, 0, 4000);
    b.store(&m);
    let u = &mut b.uut;
    u.m_axis.tready.next = true;
    u.start.next = true;
    u.header.next = m.header();
    b.edge();
    b.uut.start.next = false;
    for _ in 0..10 {
        b.edge();
    }
    assert!(b.uut.m_axis.tvalid.val() && !b.uut.ready.val());
    b.uut.reset.next = true;
    b.edge();
    b.uut.reset.next = false;
    assert!(simulate(&mut b.uut, 100));
    assert!(!b.uut.m_axis.tvalid.val());
    assert!(b.uut.ready.val());
}
