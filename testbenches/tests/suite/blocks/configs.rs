//! Unit tests of the block in `hdl/configs.rs`, on the natively stepped block.

use nanotransport_hdl::configs::*;
use nanotransport_hdl::nic::tx_path::TxSizeClass;

#[test]
fn presets_are_valid_parameter_sets_and_every_compiled_size_builds() {
    for c in CONFIGS.iter().filter(|c| c.protocol.is_some()) {
        c.params().validate().unwrap_or_else(|e| panic!("{}: {e}", c.name));
    }
    for &(n, _, _, _) in COMPILED_SIZES {
        for protocol in Protocol::ALL {
            let p = NicParams::preset(&format!("t-{n}"), protocol, n);
            let m = p.generate().unwrap();
            assert!(m.verilog.contains(&format!("module {}_nic", p.module_prefix())));
        }
    }
}

#[test]
fn bad_parameter_sets_are_one_line_errors_naming_the_parameter() {
    assert_eq!("tcp".parse::<Protocol>().unwrap_err(), "unknown protocol 'tcp'; valid protocols: ndp, homa, homa-tr");
    assert_eq!(Protocol::ALL.map(|p| p.name().parse::<Protocol>().unwrap()), Protocol::ALL, "every name parses back");
    let good = NicParams::preset("x", Protocol::Ndp, 16);
    let cases: Vec<(Box<dyn Fn(&mut NicParams)>, &str)> = vec![
        (Box::new(|p| p.messages = 2048), "messages 2048: sizes compiled in are 16, 32, 64, 128, 256, 512, 1024"),
        (Box::new(|p| p.messages = 48), "messages 48: sizes compiled in are"),
        (Box::new(|p| p.name = "a b".into()), "name 'a b'"),
        (Box::new(|p| p.max_message_bytes = 70 * 1024), "max message 71680 bytes"),
        (Box::new(|p| p.max_message_bytes = 8 * 1024), "receive size class 3: 38 packets, larger than the maximum message (8 packets)"),
        (Box::new(|p| p.rx_classes[3] = (38, 40)), "1..=16 buffers"),
        (Box::new(|p| p.rx_classes = [(1, 16), (8, 16), (30, 16), (38, 16)]), "the payload memory has 1024"),
        (Box::new(|p| p.tx_classes = vec![TxSizeClass { buffers: 15, bytes: 1024 }]), "must equal the 16 message slots"),
        (Box::new(|p| p.tx_classes = vec![TxSizeClass { buffers: 16, bytes: 128 * 1024 }]), "transmit size class 0"),
    ];
    for (change, want) in cases {
        let mut p = good.clone();
        change(&mut p);
        let e = p.validate().unwrap_err();
        assert!(e.contains(want), "{e:?} should contain {want:?}");
        assert!(!e.contains('\n'));
    }
    assert!(good.validate().is_ok());
}

#[test]
fn preset_memory_against_the_payload_rams() {
    // 16: 16 x 38 KB per direction, as the prototype; rounding the transmit classes to
    // 38 KiB buffers of a 1 MiB RAM.
    assert_eq!(NicParams::preset("x", nanotransport_hdl::configs::Protocol::Ndp, 16).memory_bytes(), (816 * 1024, 16 * 38 * 1024));
    // 64 (hdl/configs.rs' class lists, in KiB): receive 64 × 1 + 32 × 4 + 16 × 8 + 16 × 38 = 928;
    // transmit 32 × 1 + 8 × 4 + 8 × 8 + 16 × 38 = 736.
    assert_eq!(NicParams::preset("x", nanotransport_hdl::configs::Protocol::Ndp, 64).memory_bytes(), (928 * 1024, 736 * 1024));
    // From 128 on the classes scale with the messages, in KiB per message: receive
    // 1 + 4/4 + 8/8 + 38/8 = 7.75, transmit 1/2 + 4/4 + 8/8 + 38/8 = 7.25 (of 8).
    for n in [128u64, 256, 512, 1024] {
        let p = NicParams::preset("x", nanotransport_hdl::configs::Protocol::Ndp, n as usize);
        assert_eq!(p.memory_bytes(), (n * 31 / 4 * 1024, n * 29 / 4 * 1024), "{n}");
        assert_eq!(p.payload_memory_bytes(), (n.max(128) * 8 * 1024), "{n}");
    }
}
