//! Lockstep: every block's rust-hdl model against the Verilator model of its generated Verilog,
//! ≥ 10 000 random cycles, every output compared on every cycle.

use nanotransport_hdl::common::{
    bitmap_all_any::BitmapAllAny, find_first_set::FindFirstSet, free_list::FreeList, one_hot::OneHot, ones_until::OnesUntil,
    popcount::Popcount, skid_buffer::SkidBuffer,
};
use nanotransport_hdl::nic::get_rx_msg_info::GetRxMsgInfo;
use nanotransport_hdl::nic::reassembly::{Reassembly, PAYLOAD_WORD_BITS};
use nanotransport_hdl::nic::timer::Timer;
use nanotransport_sim::cosim::fixtures::{PrecedenceBug, PrecedenceFixed, WidePorts, PRECEDENCE_BUG, PRECEDENCE_FIXED, WIDE_PORTS};
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep, LockstepError};
use nanotransport_sim::cosim::native::NativeDut;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_testbenches::rx::{RxSize, RX_128, RX_16};
use nanotransport_testbenches::seed;

const CYCLES: u64 = 10_000;

fn pass<D: NativeDut>(model: &str, stimulus: Stimulus, cycles: u64, default_seed: u64) {
    let seed = seed(model, default_seed);
    expect_agreement(run_lockstep::<D>(model, &stimulus, cycles, seed));
}

fn bitmap_stimulus() -> Stimulus {
    Stimulus::new().drive("bitmap", Drive::Sparse(6))
}

#[test]
fn skid_buffer() {
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("s_valid", Drive::Bernoulli(0.7))
        .drive("m_ready", Drive::Bernoulli(0.6));
    pass::<SkidBuffer<64>>("nt_blocks_16_skid_buffer", stimulus.clone(), CYCLES, 71);
    pass::<SkidBuffer<64>>("nt_blocks_128_skid_buffer", stimulus, CYCLES, 72);
}

/// The CMAC's frame FIFOs: frames of ~25 beats (some longer than the 64-beat FIFO), bad ones,
/// an output that takes fewer beats than arrive, so both kinds fill, drop and back-pressure.
#[test]
fn frame_fifos() {
    use nanotransport_hdl::common::frame_fifo::FrameFifo;
    use nanotransport_sim::cosim::lockstep::run_lockstep_with;
    use nanotransport_sim::cosim::native::NativeStepper;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis$tlast", Drive::Bernoulli(0.04))
        .drive("s_axis_tuser", Drive::Bernoulli(0.1))
        .drive("m_axis$tready", Drive::Bernoulli(0.5));
    pass::<FrameFifo<512, 64, 6>>("nt_blocks_16_cmac_rx_fifo", stimulus.clone(), CYCLES, 73);
    let model = "nt_blocks_16_cmac_tx_fifo";
    let seed = seed(model, 74);
    expect_agreement(run_lockstep_with(NativeStepper::new(FrameFifo::<512, 64, 6>::lossless()), model, &stimulus, CYCLES, seed));
}

/// A memory of 11 words on 4 address bits: reads and writes at every address, the five beyond
/// its depth included.
#[test]
fn sized_ram() {
    use nanotransport_hdl::common::sized_ram::{SizedRam, SIZED_RAM_TEST_DEPTH};
    use nanotransport_sim::cosim::lockstep::run_lockstep_with;
    use nanotransport_sim::cosim::native::NativeStepper;
    use rust_hdl::prelude::Bits;
    let stimulus = Stimulus::new().drive("write_enable", Drive::Bernoulli(0.5));
    let model = "nt_blocks_16_sized_ram";
    let seed = seed(model, 77);
    let native = NativeStepper::new(SizedRam::<Bits<8>, 4>::new(SIZED_RAM_TEST_DEPTH));
    expect_agreement(run_lockstep_with(native, model, &stimulus, CYCLES, seed));
}

/// The header field decoder: random 512-bit headers, every field compared every cycle.
#[test]
fn header_fields() {
    use nanotransport_hdl::pisa::header_fields::HeaderFields;
    pass::<HeaderFields>("nt_blocks_16_header_fields", Stimulus::new(), CYCLES, 78);
}

/// The header builder of the deparsers: random addresses and metadata, the 512-bit header
/// compared every cycle.
#[test]
fn header_builder() {
    use nanotransport_hdl::pisa::header_builder::HeaderBuilder;
    pass::<HeaderBuilder>("nt_blocks_16_header_builder", Stimulus::new(), CYCLES, 79);
}

/// The width converters between the CMAC's 512 bits and a 64-bit NIC.
#[test]
fn width_converters() {
    use nanotransport_hdl::common::{stream_downsizer::StreamDownsizer, stream_upsizer::StreamUpsizer};
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.7))
        .drive("s_axis$tlast", Drive::Bernoulli(0.2))
        .drive("m_axis$tready", Drive::Bernoulli(0.6));
    pass::<StreamDownsizer>("nt_blocks_16_cmac_downsizer", stimulus.clone(), CYCLES, 75);
    pass::<StreamUpsizer>("nt_blocks_16_cmac_upsizer", stimulus, CYCLES, 76);
}

/// The board's echo application: messages of a few beats, some too short, completions.
#[test]
fn message_echo() {
    use nanotransport_hdl::common::message_echo::MessageEcho;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis$tlast", Drive::Bernoulli(0.15))
        .drive("m_axis$tready", Drive::Bernoulli(0.7))
        .drive("done_valid", Drive::Bernoulli(0.1));
    pass::<MessageEcho>("nt_blocks_16_message_echo", stimulus, CYCLES, 78);
}

/// The board's register split, with a NIC side that answers at random.
#[test]
fn board_registers() {
    use nanotransport_hdl::board::board_registers::BoardRegisters;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("s_axil$awvalid", Drive::Bernoulli(0.4))
        .drive("s_axil$wvalid", Drive::Bernoulli(0.4))
        .drive("s_axil$bready", Drive::Bernoulli(0.7))
        .drive("s_axil$arvalid", Drive::Bernoulli(0.4))
        .drive("s_axil$rready", Drive::Bernoulli(0.7))
        .drive("m_axil$awready", Drive::Bernoulli(0.6))
        .drive("m_axil$wready", Drive::Bernoulli(0.6))
        .drive("m_axil$bvalid", Drive::Bernoulli(0.5))
        .drive("m_axil$arready", Drive::Bernoulli(0.6))
        .drive("m_axil$rvalid", Drive::Bernoulli(0.5));
    pass::<BoardRegisters>("nt_blocks_16_board_registers", stimulus, CYCLES, 79);
}

/// The four together as the board puts them between the CMAC and a 64-bit NIC.
#[test]
fn cmac_edge() {
    use nanotransport_hdl::common::cmac_edge::CmacEdge;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("rx_axis_tvalid", Drive::Bernoulli(0.8))
        .drive("rx_axis_tlast", Drive::Bernoulli(0.05))
        .drive("rx_axis_tuser", Drive::Bernoulli(0.1))
        .drive("m_axis_rx_tready", Drive::Bernoulli(0.8))
        .drive("s_axis_tx_tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis_tx_tlast", Drive::Bernoulli(0.05))
        .drive("tx_axis_tready", Drive::Bernoulli(0.7));
    pass::<CmacEdge>("nt_blocks_16_cmac_edge", stimulus, CYCLES, 77);
}

#[test]
fn status_bank() {
    use nanotransport_hdl::nic::status_bank::StatusBank;
    let stimulus = Stimulus::new().drive("index", Drive::Range(0, 160));
    pass::<StatusBank>("nt_blocks_16_status_bank", stimulus, CYCLES, 61);
}

#[test]
fn homa_egress() {
    use nanotransport_hdl::protocols::homa::egress::HomaEgress;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("rtt_pkts", Drive::Range(0, 12))
        .drive("cfg_unsched_prios", Drive::Range(0, 4))
        .drive("s_axis_pkt$pkt_offset", Drive::Range(0, 40))
        .drive("s_axis_pkt$msg_len", Drive::Range(1, 40 * 1024))
        .drive("s_axis_pkt$tvalid", Drive::Bernoulli(0.7))
        .drive("m_axis_pkt$tready", Drive::Bernoulli(0.7));
    pass::<HomaEgress<16, 4>>("nt_blocks_16_homa_egress", stimulus, CYCLES, 62);
}

#[test]
fn event_counters() {
    use nanotransport_hdl::common::event_counter::{SaturatingCounter, WrappingCounter};
    let stimulus = || Stimulus::new().drive("reset", Drive::Bernoulli(0.01)).drive("increment", Drive::Bernoulli(0.7));
    pass::<WrappingCounter<4>>("nt_blocks_16_wrapping_counter", stimulus(), CYCLES, 25);
    pass::<SaturatingCounter<4>>("nt_blocks_16_saturating_counter", stimulus(), CYCLES, 26);
}

#[test]
fn find_first_set() {
    pass::<FindFirstSet<64, 6>>("nt_blocks_16_find_first_set", bitmap_stimulus(), CYCLES, 11);
    pass::<FindFirstSet<64, 6>>("nt_blocks_128_find_first_set", Stimulus::new(), CYCLES, 12);
}

#[test]
fn ones_until() {
    pass::<OnesUntil<64, 7>>("nt_blocks_16_ones_until", Stimulus::new(), CYCLES, 21);
    pass::<OnesUntil<64, 7>>("nt_blocks_128_ones_until", Stimulus::new(), CYCLES, 22);
}

#[test]
fn one_hot() {
    // The two Verilog forms: a 16-bit shift, and 64-bit words selected by the upper index bits.
    let stimulus = || Stimulus::new().drive("enable", Drive::Bernoulli(0.8));
    pass::<OneHot<16, 4>>("nt_blocks_16_one_hot", stimulus(), CYCLES, 23);
    pass::<OneHot<128, 7>>("nt_blocks_128_one_hot", stimulus(), CYCLES, 24);
}

#[test]
fn popcount() {
    pass::<Popcount<64, 7>>("nt_blocks_16_popcount", bitmap_stimulus(), CYCLES, 31);
    pass::<Popcount<64, 7>>("nt_blocks_128_popcount", Stimulus::new(), CYCLES, 32);
}

#[test]
fn bitmap_all_any() {
    let dense = Stimulus::new().drive("bitmap", Drive::Uniform);
    pass::<BitmapAllAny<64>>("nt_blocks_16_bitmap_all_any", bitmap_stimulus(), CYCLES, 41);
    pass::<BitmapAllAny<64>>("nt_blocks_128_bitmap_all_any", dense, CYCLES, 42);
}

fn free_list_stimulus() -> Stimulus {
    Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("alloc_ready", Drive::Bernoulli(0.6))
        .drive("free_valid", Drive::Bernoulli(0.5))
}

#[test]
fn free_list() {
    pass::<FreeList<16, 4>>("nt_blocks_16_free_list", free_list_stimulus(), 20_000, 51);
    pass::<FreeList<128, 7>>("nt_blocks_128_free_list", free_list_stimulus(), 20_000, 52);
}

/// Takes from random classes and frees among the first 16 buffers of each, so every class
/// of the 128-message preset (16 buffers in the largest two) runs out and comes back.
#[test]
fn rx_buffer_classes() {
    use nanotransport_hdl::nic::rx_buffer_classes::RxBufferClasses;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("msg_len", Drive::Range(0, 40 * 1024))
        .drive("take", Drive::Bernoulli(0.4))
        .drive("free_valid", Drive::Bernoulli(0.4))
        .drive("free_index", Drive::Range(0, 15));
    pass::<RxBufferClasses<128, 7>>("nt_blocks_128_rx_buffer_classes", stimulus, 20_000, 53);
}

/// Random headers with few bits set, so many messages are short enough to finish between
/// starts (a start while busy is not how the reassembly drives it, but both models must agree).
#[test]
fn message_read_out() {
    use nanotransport_hdl::nic::message_read_out::MessageReadOut;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("start", Drive::Bernoulli(0.05))
        .drive("header", Drive::Sparse(3))
        .drive("m_axis$tready", Drive::Bernoulli(0.7));
    pass::<MessageReadOut<4, 17>>("nt_blocks_16_message_read_out", stimulus, 20_000, 54);
}

/// Descriptors of every length and offset (short last packets, offsets past the end), the
/// stream stalled at random.
#[test]
fn packet_read_out() {
    use nanotransport_hdl::nic::packet_read_out::PacketReadOut;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("desc$valid", Drive::Bernoulli(0.3))
        .drive("desc$msg_len", Drive::Range(1, 38 * 1024))
        .drive("desc$offset", Drive::Range(0, 40))
        .drive("m_axis_pkt$tready", Drive::Bernoulli(0.7));
    pass::<PacketReadOut<4, 17>>("nt_blocks_16_packet_read_out", stimulus, 20_000, 55);
}

/// Slot and event IDs from a small range and words half of which count as never written (their
/// ID is then the slot's), so that about a quarter of the events match the slot's ID; every
/// operation kind, every bit of the word random.
#[test]
fn slot_update() {
    use nanotransport_hdl::nic::slot_update::SlotUpdate;
    let stimulus = Stimulus::new()
        .drive("slot", Drive::Range(0, 1))
        .drive("event_id", Drive::Range(0, 1))
        .drive("id_known", Drive::Bernoulli(0.5))
        .drive("active", Drive::Bernoulli(0.7))
        .drive("kind", Drive::Range(0, 4))
        .drive("bitmap", Drive::Sparse(6))
        .drive("rtx_p1", Drive::Range(0, 70))
        .drive("timeout_threshold", Drive::Range(0, 4));
    pass::<SlotUpdate<4>>("nt_blocks_16_slot_update", stimulus, CYCLES, 55);
}

/// Pushes, state writes and pops at random, ids from a small range so that a write often hits
/// the message being popped (the forwarding path); more pushes than records overflow alike in
/// both models.
#[test]
fn waiting_queue() {
    use nanotransport_hdl::pisa::waiting_queue::WaitingQueue;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("id", Drive::Range(0, 3))
        .drive("push", Drive::Bernoulli(0.3))
        .drive("write_state", Drive::Bernoulli(0.3))
        .drive("write_limits", Drive::Bernoulli(0.2))
        .drive("pop_allowed", Drive::Bernoulli(0.5));
    pass::<WaitingQueue<4>>("nt_blocks_16_waiting_queue", stimulus, CYCLES, 57);
}

/// Frames of a few beats (a last beat now and then, mostly full beats) and IPv4 lengths near
/// what such frames carry, so that both verdicts occur; header fields near the DATA rule's edges.
#[test]
fn frame_length_check() {
    use nanotransport_hdl::pisa::frame_length_check::FrameLengthCheck;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("beat", Drive::Bernoulli(0.8))
        .drive("first", Drive::Bernoulli(0.2))
        .drive("last", Drive::Bernoulli(0.2))
        .drive("tkeep", Drive::Range(0, 0xFF))
        .drive("ip_total_len", Drive::Range(50, 90))
        .drive("msg_len", Drive::Range(0, 3000))
        .drive("pkt_offset", Drive::Range(0, 3));
    pass::<FrameLengthCheck>("nt_blocks_16_frame_length_check", stimulus, CYCLES, 58);
}

/// Sparse bitmaps so that some packets are eligible and some are not.
#[test]
fn packet_choice() {
    use nanotransport_hdl::nic::packet_choice::PacketChoice;
    let stimulus = Stimulus::new()
        .drive("choose", Drive::Bernoulli(0.8))
        .drive("tx", Drive::Sparse(8))
        .drive("rtx", Drive::Sparse(2))
        .drive("delivered", Drive::Sparse(16))
        .drive("credit", Drive::Range(0, 64))
        .drive("max", Drive::Range(0, 64));
    pass::<PacketChoice>("nt_blocks_16_packet_choice", stimulus, CYCLES, 56);
}

fn timer_stimulus(entries: u64) -> Stimulus {
    Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("now", Drive::Counter { start: 1_000, step: 1 })
        .drive("sched_valid", Drive::Bernoulli(0.4))
        .drive("sched_delay", Drive::Range(0, 3 * entries))
        .drive("cancel_valid", Drive::Bernoulli(0.2))
        .drive("timeout_ready", Drive::Bernoulli(0.8))
}

#[test]
fn timer() {
    pass::<Timer<16, 4, 8>>("nt_blocks_16_timer", timer_stimulus(16), 20_000, 61);
    pass::<Timer<128, 7, 8>>("nt_blocks_128_timer", timer_stimulus(128), 20_000, 62);
}

/// The checker catches rust-hdl's missing parentheses: `a & b == 0` is `(a & b) == 0` in
/// rust-hdl's simulation but `a & (b == 0)` in its Verilog.
#[test]
fn catches_the_precedence_bug() {
    let seed = seed("precedence", 71);
    match run_lockstep::<PrecedenceBug>(PRECEDENCE_BUG, &Stimulus::new(), CYCLES, seed) {
        Err(LockstepError::Diverged(d, _)) => {
            println!("reported: {d}");
            assert_eq!(d.port, "no_common_bits");
            assert_ne!(d.native, d.verilator);
            assert!(d.cycle < 100, "uniform random bytes disagree within a few cycles");
        }
        other => panic!("the unparenthesised expression was not caught: {other:?}"),
    }
    pass::<PrecedenceFixed>(PRECEDENCE_FIXED, Stimulus::new(), CYCLES, seed);
}

#[test]
fn port_width_mismatch_is_a_setup_error() {
    // Same port names, different widths: the 16-entry free list (4-bit IDs) against the Verilog
    // of the 128-entry one (7-bit IDs).
    let r = run_lockstep::<FreeList<16, 4>>("nt_blocks_128_free_list", &Stimulus::new(), 10, 1);
    match r {
        Err(LockstepError::Setup(msg)) => assert!(msg.contains("bits in rust-hdl"), "{msg}"),
        other => panic!("width mismatch not caught: {other:?}"),
    }
}

#[test]
fn port_mismatch_is_a_setup_error() {
    // The fixed fixture's native model paired with the free list's Verilog: ports differ.
    let r = run_lockstep::<PrecedenceFixed>("nt_blocks_16_free_list", &Stimulus::new(), 10, 1);
    assert!(matches!(r, Err(LockstepError::Setup(_))), "{r:?}");
}

#[test]
fn ports_wider_than_64_bits() {
    pass::<WidePorts>(WIDE_PORTS, Stimulus::new(), CYCLES, 81);
}

/// Few distinct keys (about as many as the table has IDs) so that requests hit, miss, collide on
/// tx_msg_id and buckets, and exhaust the table.
fn get_rx_msg_info_at<D: NativeDut>(size: &RxSize, default_seed: u64) {
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.00005))
        .drive("req$valid", Drive::Bernoulli(0.7))
        .drive("req$mark_received", Drive::Bernoulli(0.8))
        .drive("req$peek", Drive::Bernoulli(0.2))
        .drive("req$src_ip", Drive::Range(0, size.messages() as u64 / 4 + 4))
        .drive("req$src_port", Drive::Range(0, 1))
        .drive("req$tx_msg_id", Drive::Range(0, 7))
        .drive("req$msg_len", Drive::Range(0, 6000))
        .drive("req$pkt_offset", Drive::Range(0, 7))
        .drive("release_valid", Drive::Bernoulli(0.1))
        .drive("release_delivered", Drive::Bernoulli(0.5));
    // 4 096 cycles of init after each reset (the delivered set), then 10 000 of traffic.
    pass::<D>(&size.module("get_rx_msg_info"), stimulus, 14_200, default_seed);
}

/// The delivered set: few keys, lookups and inserts at random. The small set (forgets after 80
/// cycles) goes through its epochs, scrubs, full buckets and waits many times in a run.
#[test]
fn delivered_set() {
    use nanotransport_hdl::nic::delivered_set::DeliveredSet;
    let stimulus = |keys: u64| {
        Stimulus::new()
            .drive("reset", Drive::Bernoulli(0.0001))
            .drive("lookup_valid", Drive::Bernoulli(0.4))
            .drive("lookup_key", Drive::Range(0, keys))
            .drive("insert_valid", Drive::Bernoulli(0.25))
            .drive("insert_key", Drive::Range(0, keys))
    };
    pass::<DeliveredSet<4>>("nt_blocks_16_delivered_set_small", stimulus(300), 20_000, 97);
    pass::<DeliveredSet<12>>("nt_blocks_16_delivered_set", stimulus(2000), 12_000, 98);
}

/// The key hash (the presets' delivered-set width; the table's widths are its low bits).
#[test]
fn key_hash() {
    use nanotransport_hdl::common::key_hash::KeyHash;
    pass::<KeyHash<12>>("nt_blocks_16_key_hash", Stimulus::new(), CYCLES, 99);
}

#[test]
fn get_rx_msg_info_16() {
    get_rx_msg_info_at::<GetRxMsgInfo<16, 4, 4>>(&RX_16, 91);
}

#[test]
fn get_rx_msg_info_128() {
    get_rx_msg_info_at::<GetRxMsgInfo<128, 7, 6>>(&RX_128, 95);
}

/// The reassembly's packet stream is driven with metadata that often names live messages
/// (16 keys, so slots 0–15 are in use; rx_msg_id = generation 1–8 of slots 0–15; timeouts long
/// enough that a slot's generation grows slowly — generations survive a reset), so packets are written, completed,
/// delivered, dropped for their length and garbage-collected within the run; the CPU side stalls at random.
/// The same stimulus is then replayed on the Verilator model alone: the run must reach
/// deliveries, length drops, other drops and garbage collection, or the comparison says little.
fn reassembly_at<D: NativeDut>(size: &RxSize, cycles: u64, default_seed: u64) {
    use nanotransport_sim::cosim::stimulus::draw;
    use nanotransport_sim::cosim::verilated::VerilatedModel;
    use rand::SeedableRng;
    let first_id = 1u64 << size.slot_bits;
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.00005))
        .drive("ingress_timeout", Drive::Range(1500, 3000))
        .drive("req$valid", Drive::Bernoulli(0.3))
        .drive("req$mark_received", Drive::Bernoulli(0.9))
        .drive("req$peek", Drive::Bernoulli(0.2))
        .drive("req$src_ip", Drive::Const(7))
        .drive("req$src_port", Drive::Const(1))
        .drive("req$tx_msg_id", Drive::Range(0, 15))
        .drive("req$msg_len", Drive::Const(8))
        .drive("req$pkt_offset", Drive::Const(0))
        .drive("s_axis$tkeep", Drive::Range(0xfe, 0xff))
        .drive("s_axis$tlast", Drive::Bernoulli(0.6))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis$remote_ip", Drive::Const(7))
        .drive("s_axis$remote_port", Drive::Const(1))
        .drive("s_axis$msg_len", Drive::Const(8))
        .drive("s_axis$pkt_offset", Drive::Range(0, 1))
        // Generations 1–8 of slots 0–15 at 16 messages; at 128 a range over several generations
        // would name slots 16–127 too (never live here), so generation 1 of slots 0–15 only.
        .drive("s_axis$rx_msg_id", Drive::Range(first_id, if size.messages() > 16 { first_id | 15 } else { (8 * first_id) | 15 }))
        .drive("s_axis$tx_msg_id", Drive::Range(0, 15))
        .drive("m_axis$tready", Drive::Bernoulli(0.7));
    let module = size.module("reassembly");
    pass::<D>(&module, stimulus.clone(), cycles, default_seed);
    let seed = seed(&format!("{module} coverage"), default_seed);
    let mut m = VerilatedModel::new(&module).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let inputs: Vec<_> = D::INPUTS.iter().map(|n| (m.port_or_panic(n), stimulus.rule(n), *n)).collect();
    let names = ["delivered_count", "drop_bad_length_count", "drop_stale_count", "drop_bad_offset_count", "gc_count"];
    let mut totals = [0u64; 5];
    for cycle in 0..cycles {
        let mut reset = false;
        for (p, rule, name) in &inputs {
            let width = m.spec().ports[p.0].width;
            let v = draw(rule, width, cycle, &mut rng);
            reset |= *name == "reset" && v[0] == 1;
            m.set_words(*p, &v);
        }
        m.eval();
        if reset || cycle == cycles - 1 {
            // Counters restart at reset: add up each stretch.
            for (t, n) in totals.iter_mut().zip(names) {
                *t += m.get(m.port_or_panic(n));
            }
        }
        m.tick();
    }
    let counts: Vec<(&str, u64)> = names.iter().copied().zip(totals).collect();
    println!("{module} lockstep stimulus reaches: {counts:?}");
    assert!(counts.iter().all(|(_, n)| *n > 0), "{counts:?}");
}

#[test]
fn reassembly_16() {
    reassembly_at::<Reassembly<16, 4, 4, PAYLOAD_WORD_BITS>>(&RX_16, 24_000, 93);
}

#[test]
fn reassembly_128() {
    reassembly_at::<Reassembly<128, 7, 6, PAYLOAD_WORD_BITS>>(&RX_128, 24_000, 97);
}
