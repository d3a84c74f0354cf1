//! Unit tests of the block in `hdl/switch/bolt_ingress.rs`, on the natively stepped block.

use nanotransport_hdl::switch::bolt_header::{FLAG_DATA, FLAG_DEC, FLAG_INC, FLAG_LAST};
use nanotransport_hdl::switch::bolt_ingress::*;
use rust_hdl::prelude::*;

/// Steps the 8-port block natively.
struct Bench {
    uut: BoltIngress<8, 3>,
    /// The configuration inputs' values.
    config: [u64; 4],
}

/// (flags, egress port, queue bytes, now)
type Packet = (u8, u8, u32, u32);

/// (flags, src, pru token, supply token) of one decision.
type Out = (u8, bool, u16, i64);

impl Bench {
    fn new() -> Self {
        let mut uut = BoltIngress::<8, 3>::default();
        uut.connect_all();
        assert!(simulate(&mut uut, 1000));
        let mut b = Bench { uut, config: BoltParams::defaults(8).config_inputs() };
        b.cycle(None, true);
        b
    }

    fn cycle(&mut self, p: Option<Packet>, reset: bool) -> Option<Out> {
        let u = &mut self.uut;
        let (flags, port, queue, now) = p.unwrap_or((0, 0, 0, 0));
        u.reset.next = reset;
        u.in_valid.next = p.is_some();
        u.in_bolt.next = true;
        u.in_flags.next = (flags as u64).into();
        u.in_pkt_len.next = 1088u64.into();
        u.in_ingress_port.next = 1u64.into();
        u.in_egress_port.next = (port as u64).into();
        u.in_queue_bytes.next = (queue as u64).into();
        u.now.next = (now as u64).into();
        let [mtu, cc_thresh, pru, sm] = self.config;
        u.cfg_mtu.next = mtu.into();
        u.cfg_cc_thresh.next = cc_thresh.into();
        u.cfg_pru_enable.next = pru == 1;
        u.cfg_sm_enable.next = sm == 1;
        assert!(simulate(u, 1000));
        let out = u.out_valid.val().then(|| {
            (
                u.out_flags.val().to_u64() as u8,
                u.out_src.val(),
                u.out_pru_token.val().to_u64() as u16,
                u.out_supply_token.val().to_u64() as i64 - TOKEN_BIAS,
            )
        });
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 1000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 1000));
        out
    }

    /// Sends packets back to back; returns (cycle offset, decision) of every decision.
    fn run(&mut self, packets: &[Packet]) -> Vec<(usize, Out)> {
        let mut out = Vec::new();
        for i in 0..packets.len() + 5 {
            if let Some(o) = self.cycle(packets.get(i).copied(), false) {
                out.push((i, o));
            }
        }
        out
    }
}

#[test]
fn decision_three_cycles_after_the_descriptor() {
    let mut b = Bench::new();
    let out = b.run(&[(FLAG_DATA, 2, 0, 100)]);
    assert_eq!(out, vec![(3, (FLAG_DATA, false, 0, 1088))]);
}

#[test]
fn back_to_back_packets_to_one_port_see_each_others_updates() {
    let mut b = Bench::new();
    let d = FLAG_DATA;
    let out: Vec<Out> = b
        .run(&[
            (d | FLAG_LAST, 4, 0, 10),
            (d | FLAG_LAST, 4, 0, 10),
            (d | FLAG_INC, 4, 0, 10),
            (d | FLAG_INC, 4, 0, 10),
            (d | FLAG_INC, 4, 0, 10),
            (d | FLAG_INC, 4, 0, 10),
            (d, 4, 2000, 10),
            (d | FLAG_DEC, 4, 2000, 10),
        ])
        .into_iter()
        .map(|(_, o)| o)
        .collect();
    assert_eq!(
        out,
        vec![
            (d | FLAG_LAST, false, 1, 1088),
            (d | FLAG_LAST, false, 2, 0),
            (d | FLAG_INC, false, 1, -1088),
            (d | FLAG_INC, false, 0, -2176),
            (d, false, 0, -3264),
            (d, false, 0, -4352),
            (d | FLAG_DEC, true, 0, -5440),
            (d | FLAG_DEC, false, 0, -6528),
        ]
    );
}
