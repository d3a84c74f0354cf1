//! The co-simulation harness itself: wide-port access, waveform dumps, model lookup.

use nanotransport_sim::cosim::fixtures::WIDE_PORTS;
use nanotransport_sim::cosim::verilated::{model_names, VerilatedModel};

#[test]
fn wide_ports_round_trip_through_32_bit_words() {
    let mut m = VerilatedModel::new(WIDE_PORTS).unwrap();
    let (a, b, sum) = (m.port_or_panic("a"), m.port_or_panic("b"), m.port_or_panic("sum"));
    assert_eq!(m.spec().ports[a.0].width, 96);
    // a = 2^95 + 2^64 + 5, b = 2^69 + 7 → sum = 2^95 + 2^69 + 2^64 + 12
    m.set_words(a, &[5, (1 << 31) | 1]);
    m.set_words(b, &[7, 1 << 5]);
    m.eval();
    m.tick();
    m.eval();
    assert_eq!(m.get_words(sum), vec![12, (1 << 31) | (1 << 5) | 1]);
    // Bits above the port width are dropped, not carried into the model.
    m.set_words(b, &[0, u64::MAX]);
    m.set_words(a, &[0, 0]);
    m.eval();
    m.tick();
    m.eval();
    assert_eq!(m.get_words(sum), vec![0, (1 << 6) - 1]);
}

#[test]
fn waveform_dump_writes_a_vcd() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("timer.vcd");
    {
        let mut plain = VerilatedModel::new("nt_blocks_16_timer").unwrap();
        let refused = plain.trace_to(&path).unwrap_err();
        assert!(refused.contains("without waveform support") && !refused.contains('\n'), "{refused}");
        let mut m = VerilatedModel::traced("nt_blocks_16_timer", &path).unwrap();
        assert!(m.spec().traced && !plain.spec().traced);
        assert!(m.trace_to(&path).is_err(), "a second dump on the same model is refused");
        let now = m.port_or_panic("now");
        for t in 0..20 {
            m.set(now, t);
            m.eval();
            m.tick();
        }
    }
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$enddefinitions"));
    assert!(vcd.contains(" now ") && vcd.contains("valid_bits"), "ports and internal signals are traced");
    assert!(vcd.contains("#38"), "one time step per clock edge");
}

#[test]
fn unknown_model_lists_the_models() {
    let err = VerilatedModel::new("nt_nope").err().unwrap();
    assert!(err.contains("nt_blocks_16_timer") && err.contains("nt_blocks_128_timer"), "{err}");
    assert!(model_names().len() >= 15);
}

#[test]
fn a_model_that_fails_to_build_is_a_one_line_error_and_is_not_cached() {
    use nanotransport_sim::cosim::build::Flavour;
    use nanotransport_sim::cosim::cache::{cache_dir, load};
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("nt_broken_probe.v");
    // Verilog that reads, but whose netlist step fails: an undeclared signal under `default_nettype none`.
    std::fs::write(
        &file,
        "`default_nettype none\nmodule nt_broken_probe(input wire a, output wire y);\n  assign y = a & undeclared;\nendmodule\n",
    )
    .unwrap();
    let err = load(&file, Flavour::PLAIN).err().expect("a broken model loaded");
    assert!(err.contains("nt_broken_probe") && !err.contains('\n'), "{err}");
    let stamped = std::fs::read_dir(cache_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("nt_broken_probe-"))
        .any(|e| e.path().join("built.stamp").exists() || e.path().join("model.so").exists());
    assert!(!stamped, "a failed build left a model in the cache");
}

#[test]
fn consecutive_ticks_are_consecutive_cycles() {
    // The 16-entry free list hands out IDs 0, 1, 2, … one per clock edge while alloc_ready is high.
    let mut m = VerilatedModel::new("nt_blocks_16_free_list").unwrap();
    let (ready, id) = (m.port_or_panic("alloc_ready"), m.port_or_panic("alloc_id"));
    m.set(ready, 1);
    m.eval();
    for _ in 0..3 {
        m.tick();
    }
    m.eval();
    assert_eq!(m.get(id), 3, "three ticks without eval in between are three cycles");
}
