//! Unit tests of the block in `hdl/nic/get_rx_msg_info.rs`, on the natively stepped block.

use nanotransport_hdl::nic::delivered_set::DELIVERED_SET_BUCKET_BITS;
use nanotransport_hdl::nic::get_rx_msg_info::*;
use rust_hdl::prelude::*;

fn clock<const N: usize, const IW: usize, const BB: usize>(u: &mut GetRxMsgInfo<N, IW, BB>) {
    assert!(simulate(u, 2000));
    u.clock.next = Clock { clk: true };
    assert!(simulate(u, 2000));
    u.clock.next = Clock { clk: false };
    assert!(simulate(u, 2000));
}

fn init_then_allocate_and_hit<const N: usize, const IW: usize, const BB: usize>(mut u: GetRxMsgInfo<N, IW, BB>) {
    u.connect_all();
    u.reset.next = true;
    clock(&mut u);
    u.reset.next = false;
    let mut init_cycles = 0;
    loop {
        assert!(simulate(&mut u, 2000));
        if u.req.ready.val() {
            break;
        }
        clock(&mut u);
        init_cycles += 1;
    }
    assert_eq!(
        init_cycles,
        1 << BB.max(DELIVERED_SET_BUCKET_BITS),
        "the init sequence writes every bucket of the table and the delivered set"
    );
    u.req.mark_received.next = true;
    u.req.src_ip.next = 5.into();
    u.req.msg_len.next = 3000.into();
    let mut responses = Vec::new();
    for (offset, valid) in [(1u64, true), (0, false), (0, false), (0, true), (0, false), (0, false), (0, false)] {
        u.req.valid.next = valid;
        u.req.pkt_offset.next = offset.to_bits();
        assert!(simulate(&mut u, 2000));
        if u.resp_valid.val() {
            responses.push((u.resp_rx_msg_id.val().to_u64(), u.resp_is_new_msg.val(), u.resp_ack_no.val().to_u64()));
        }
        clock(&mut u);
    }
    assert_eq!(responses, vec![(1 << IW, true, 0), (1 << IW, false, 2)], "slot 0, generation 1; three cycles per request");
}

#[test]
fn init_then_allocate_and_hit_natively_16() {
    init_then_allocate_and_hit(GetRxMsgInfo::<16, 4, 4>::default());
}

#[test]
fn init_then_allocate_and_hit_natively_128() {
    init_then_allocate_and_hit(GetRxMsgInfo::<128, 7, 6>::default());
}

#[test]
#[should_panic(expected = "size classes must grow")]
fn shrinking_classes_are_rejected() {
    let _ = GetRxMsgInfo::<16, 4, 4>::new([(4, 16), (1, 16), (8, 16), (38, 16)]);
}

#[test]
#[should_panic(expected = "the payload memory has 1024")]
fn classes_beyond_the_payload_memory_are_rejected() {
    let classes = [(1, 128), (4, 128), (8, 16), (38, 16)];
    // 1 264 pages fit a 2^18-word memory, not the 2^17 words of the presets up to 128.
    assert!(rx_parameter_error(7, 128, 6, 18, &classes).is_ok());
    check_parameters(7, 128, 6, 17, &classes);
}
