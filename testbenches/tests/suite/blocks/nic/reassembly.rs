//! Unit tests of the block in `hdl/nic/reassembly.rs`, on the natively stepped block.

use nanotransport_hdl::nic::reassembly::*;
use rust_hdl::prelude::*;

fn clock<const N: usize, const IW: usize, const BB: usize, const PW: usize>(u: &mut Reassembly<N, IW, BB, PW>) {
    assert!(simulate(u, 2000));
    u.clock.next = Clock { clk: true };
    assert!(simulate(u, 2000));
    u.clock.next = Clock { clk: false };
    assert!(simulate(u, 2000));
}

/// One 16-byte message natively: table init, GetRxMsgInfo, two payload beats, the read-out
/// of two header beats and two payload beats, then the slot is released again.
fn delivers_a_single_packet_message<const N: usize, const IW: usize, const BB: usize, const PW: usize>(mut u: Reassembly<N, IW, BB, PW>) {
    u.connect_all();
    u.reset.next = true;
    u.ingress_timeout.next = 1000.into();
    u.m_axis.tready.next = true;
    clock(&mut u);
    u.reset.next = false;
    u.req.valid.next = true;
    u.req.mark_received.next = true;
    u.req.src_ip.next = 0x0a000001.into();
    u.req.src_port.next = 7.into();
    u.req.tx_msg_id.next = 3.into();
    u.req.msg_len.next = 16.into();
    let mut waited = 0;
    loop {
        assert!(simulate(&mut u, 2000));
        if u.req.ready.val() {
            break;
        }
        clock(&mut u);
        waited += 1;
        assert!(waited < 5000, "the table never became ready");
    }
    clock(&mut u);
    u.req.valid.next = false;
    clock(&mut u);
    clock(&mut u);
    assert!(simulate(&mut u, 2000));
    assert!(u.resp.valid.val() && u.resp.is_new_msg.val() && u.resp.is_last_pkt.val(), "response 3 cycles after the request");
    let rx_msg_id = u.resp.rx_msg_id.val();
    clock(&mut u);
    u.s_axis.remote_ip.next = 0x0a000001.into();
    u.s_axis.remote_port.next = 7.into();
    u.s_axis.tx_msg_id.next = 3.into();
    u.s_axis.msg_len.next = 16.into();
    u.s_axis.local_port.next = 80.into();
    u.s_axis.rx_msg_id.next = rx_msg_id;
    u.s_axis.tkeep.next = 0xFF.into();
    let mut out = Vec::new();
    let mut released = Vec::new();
    for beat in 0..14u64 {
        u.s_axis.tvalid.next = beat < 2;
        u.s_axis.tlast.next = beat == 1;
        u.s_axis.tdata.next = (0x1111_1111_1111_1111u64 * (beat + 1)).into();
        assert!(simulate(&mut u, 2000));
        if u.m_axis.tvalid.val() {
            out.push((u.m_axis.tdata.val().to_u64(), u.m_axis.tlast.val()));
        }
        if u.release_valid.val() {
            released.push((u.release_slot.val().to_u64(), u.release_reason.val().to_u64()));
        }
        clock(&mut u);
    }
    assert_eq!(out, vec![(0x0050_0007_0a00_0001, false), (16, false), (0x1111_1111_1111_1111, false), (0x2222_2222_2222_2222, true)]);
    assert_eq!(released, vec![(rx_msg_id.to_u64() & ((1 << IW) - 1), 1)]);
    assert_eq!(u.delivered_count.val().to_u64(), 1);
    assert_eq!(u.busy_slots.val(), Bits::<N>::default());
    assert_eq!(u.free_lists_full.val().to_u64(), 0x1f);
}

#[test]
fn delivers_a_single_packet_message_natively_16() {
    delivers_a_single_packet_message(Reassembly::<16, 4, 4, PAYLOAD_WORD_BITS>::default());
}

#[test]
fn delivers_a_single_packet_message_natively_128() {
    delivers_a_single_packet_message(Reassembly::<128, 7, 6, PAYLOAD_WORD_BITS>::default());
}
