//! Unit tests of the block in `hdl/switch/bolt_stream.rs`, on the natively stepped block.

use nanotransport_hdl::switch::bolt_header::BOLT_IP_PROTOCOL;
use nanotransport_hdl::switch::bolt_ingress::BoltParams;
use nanotransport_hdl::switch::bolt_stream::*;
use rust_hdl::prelude::*;

/// Steps one Bolt data frame (DATA | INC, IPv4 total length `total_len`, `frame_len` bytes
/// 0, 1, 2, …) to a congested port natively; returns (cycle of the first beat out, the
/// forwarded frame, the SRC, the frame sent).
fn one_congested_frame(n: usize, frame_len: usize, total_len: u16) -> (Option<usize>, Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut frame = vec![0u8; frame_len];
    for (i, b) in frame.iter_mut().enumerate() {
        *b = i as u8;
    }
    frame[12..15].copy_from_slice(&[0x08, 0x00, 0x45]);
    frame[16..18].copy_from_slice(&total_len.to_be_bytes());
    frame[23] = BOLT_IP_PROTOCOL;
    frame[38] = 0x84;
    let beats = frame_len.div_ceil(8);
    let mut uut = BoltStream::<64, 6>::new(BoltParams::defaults(64), n);
    uut.connect_all();
    let step = |uut: &mut BoltStream<64, 6>, beat: Option<usize>, reset: bool| {
        uut.reset.next = reset;
        uut.now.next = 1000u64.into();
        uut.cfg_mtu.next = 1088u64.into();
        uut.cfg_cc_thresh.next = 1088u64.into();
        uut.cfg_pru_enable.next = true;
        uut.cfg_sm_enable.next = true;
        uut.m_axis.tready.next = true;
        uut.m_src_axis.tready.next = true;
        uut.s_axis.tvalid.next = beat.is_some();
        let b = beat.unwrap_or(0);
        let mut word = [0u8; 8];
        let chunk = &frame[8 * b..(8 * b + 8).min(frame_len)];
        word[..chunk.len()].copy_from_slice(chunk);
        uut.s_axis.tdata.next = u64::from_le_bytes(word).into();
        uut.s_axis.tkeep.next = ((1u64 << chunk.len()) - 1).into();
        uut.s_axis.tlast.next = b + 1 == beats;
        uut.s_axis_tuser.next = (5u64 | (2 << 8) | (5000 << 16)).into();
        assert!(simulate(uut, 10_000));
        let out = (uut.m_axis.tvalid.val()).then(|| (uut.m_axis.tdata.val().to_u64(), uut.m_axis.tkeep.val().to_u64()));
        let src = (uut.m_src_axis.tvalid.val())
            .then(|| (uut.m_src_axis.tdata.val().to_u64(), uut.m_src_axis.tkeep.val().to_u64(), uut.m_src_axis_tdest.val().to_u64()));
        uut.clock.next = Clock { clk: true };
        assert!(simulate(uut, 10_000));
        uut.clock.next = Clock { clk: false };
        assert!(simulate(uut, 10_000));
        (out, src)
    };
    step(&mut uut, None, true);
    let (mut out, mut src, mut first_out) = (Vec::new(), Vec::new(), None);
    for cycle in 0..50 {
        let (o, s) = step(&mut uut, (cycle < beats).then_some(cycle), false);
        if let Some((word, keep)) = o {
            first_out.get_or_insert(cycle);
            out.extend_from_slice(&word.to_le_bytes()[..(keep as u8).count_ones() as usize]);
        }
        if let Some((word, keep, dest)) = s {
            assert_eq!(dest, 5, "the SRC goes back to the ingress port");
            src.extend_from_slice(&word.to_le_bytes()[..(keep as u8).count_ones() as usize]);
        }
    }
    assert_eq!(uut.src_sent_count.val().to_u64(), 1);
    (first_out, out, src, frame)
}

fn checksum_ok(src: &[u8]) -> bool {
    let sum: u32 = src[14..34].chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
    (sum & 0xffff) + (sum >> 16) == 0xffff
}

/// No bytes after the Bolt header: a 43-byte SRC, padded with zeros to 60; the descriptor
/// leaves at beat 5, so the frame leaves after 10 cycles.
#[test]
fn src_without_trailing_bytes_is_padded_to_sixty() {
    let (first_out, _, src, frame) = one_congested_frame(0, 64, 50);
    assert_eq!(first_out, Some(stream_latency(0)));
    assert_eq!(stream_latency(0), 10);
    assert_eq!(src.len(), 60);
    assert_eq!(&src[16..18], &[0, 29], "IPv4 total length 20 + 9");
    assert!(checksum_ok(&src), "IPv4 header checksum");
    assert_eq!(&src[39..43], &frame[39..43], "t_data_tx reflected");
    assert!(src[43..].iter().all(|b| *b == 0), "padding");
}

/// 32 bytes after the Bolt header from an 80-byte frame whose IPv4 packet ends at byte 63:
/// bytes 43–63 copied, 64–74 zero (Ethernet padding is not part of the packet); 75-byte SRC,
/// last beat 3 bytes; the descriptor leaves at beat 9, the frame after 14 cycles.
#[test]
fn src_with_thirty_two_bytes_copies_only_bytes_inside_the_ipv4_packet() {
    let (first_out, out, src, frame) = one_congested_frame(32, 80, 50);
    assert_eq!(first_out, Some(stream_latency(32)));
    assert_eq!(stream_latency(32), 14);
    assert_eq!(out.len(), 80);
    assert_eq!(src.len(), 75);
    assert_eq!(&src[16..18], &[0, 61], "IPv4 total length 20 + 9 + 32");
    assert!(checksum_ok(&src), "IPv4 header checksum");
    assert_eq!(&src[43..64], &frame[43..64]);
    assert!(src[64..].iter().all(|b| *b == 0), "bytes beyond the IPv4 packet are zero");
    let (_, _, src, frame) = one_congested_frame(32, 80, 66);
    assert_eq!(&src[43..75], &frame[43..75], "a long enough packet fills all 32 bytes");
}

#[test]
#[should_panic(expected = "out of range")]
fn more_than_thirty_two_trailing_bytes_is_refused() {
    let _ = BoltStream::<64, 6>::new(BoltParams::defaults(64), 33);
}

/// One 64-byte Bolt data frame (DATA | INC) to a congested port, stepped natively, with the
/// default 16 bytes after the Bolt header in the SRC.
#[test]
fn congested_frame_leaves_with_dec_and_an_src_goes_back() {
    let (first_out, out, src, frame) = one_congested_frame(DEFAULT_SRC_TRAILING_BYTES, 64, 50);
    assert_eq!(first_out, Some(12), "first beat in at cycle 0, out at cycle 12");
    let mut expected = frame.clone();
    expected[38] = 0x82; // DEC set, INC cleared
    assert_eq!(out, expected);
    assert_eq!(src.len(), 60, "59 bytes padded to the Ethernet minimum");
    assert_eq!(src[59], 0, "padding byte");
    assert_eq!(&src[16..18], &[0, 45], "IPv4 total length 20 + 9 + 16");
    assert_eq!(&src[0..6], &frame[6..12]);
    assert_eq!(&src[26..30], &frame[30..34]);
    assert_eq!(&src[34..39], &[0x00, 0x13, 0x88, 100, 0x24], "q_size 5000, rate code 100, SRC flags");
    assert_eq!(&src[39..59], &frame[39..59]);
    assert!(checksum_ok(&src), "IPv4 header checksum");
}
