//! One register map for every whole-NIC preset (hdl/nic/register_map.rs): on each preset's
//! Verilator model the identification registers, the configuration defaults, every status
//! address of the map, reserved and unmapped addresses, and counters that move at their fixed
//! addresses.

use nanotransport_hdl::configs::{preset_params, CONFIGS};
use nanotransport_hdl::nic::register_map::*;
use nanotransport_sim::nic::NicSim;
use nanotransport_sim::scenarios::nic_module;

const OKAY: u64 = 0;
const SLVERR: u64 = 2;

fn read(nic: &mut NicSim, addr: u64) -> u32 {
    let (v, resp) = nic.read_register(addr);
    assert_eq!(resp, OKAY, "read {addr:#x}");
    v
}

#[test]
fn every_preset_follows_the_one_map() {
    let presets: Vec<_> = CONFIGS.iter().filter(|c| c.protocol.is_some()).collect();
    assert!(presets.len() >= 7);
    for c in presets {
        let protocol = c.protocol.unwrap();
        let mut nic = NicSim::new(&nic_module(c.name)).unwrap();
        // Identification.
        let id = [REGISTER_MAP_VERSION, preset_params(protocol, c.messages).protocol_id, c.messages as u32, 64];
        for (k, want) in id.iter().enumerate() {
            assert_eq!(read(&mut nic, STATUS_BASE + 4 * k as u64), *want, "{}: identification {k}", c.name);
        }
        let expected_id = match protocol {
            "ndp" => PROTOCOL_ID_NDP,
            "homa" => PROTOCOL_ID_HOMA,
            _ => PROTOCOL_ID_HOMA_TR,
        };
        assert_eq!(id[1], expected_id, "{}", c.name);
        // Configuration defaults at their fixed addresses.
        let defaults = preset_params(protocol, c.messages).config_defaults;
        for (i, d) in defaults.iter().enumerate() {
            assert_eq!(read(&mut nic, 4 * i as u64), *d, "{}: configuration register {i}", c.name);
        }
        // Every status register of the map answers; counters are 0 after reset.
        for r in STATUS_MAP.iter().skip(4) {
            let v = read(&mut nic, STATUS_BASE + 4 * r.0 as u64);
            if r.1.ends_with("_count") {
                assert_eq!(v, 0, "{}: {} after reset", c.name, r.1);
            }
        }
        // Status indices without a register read 0; reserved configuration reads 0.
        assert_eq!(read(&mut nic, STATUS_BASE + 4 * 200), 0);
        assert_eq!(read(&mut nic, 0x0FC), 0);
        // Rejected: writes outside the 16 configuration registers, reads outside the map.
        assert_eq!(nic.write_register(0x040, 1), SLVERR, "{}: reserved configuration write", c.name);
        assert_eq!(nic.write_register(STATUS_BASE, 1), SLVERR, "{}: status write", c.name);
        assert_eq!(nic.read_register(0x200).1, SLVERR, "{}: unmapped read", c.name);
        assert_eq!(read(&mut nic, status_address("csr_error_count").unwrap()), 3, "{}", c.name);
        // Counters move at their fixed addresses: one frame that is not IPv4 (its IPv4 length
        // field reads 0, so the parser counts it too short, its first check).
        let mut frame = vec![0u8; 128];
        frame[12] = 0x86;
        frame[13] = 0xDD;
        nic.push_frame(&frame, 0);
        nic.run(100);
        let moved: Vec<String> = STATUS_MAP.iter().skip(4).filter_map(|r| {
            let v = read(&mut nic, STATUS_BASE + 4 * r.0 as u64);
            (v != 0).then(|| format!("{}={v}", r.1))
        }).collect();
        println!("{}: after one non-IPv4 frame: {}", c.name, moved.join(" "));
        assert_eq!(read(&mut nic, status_address("too_short_count").unwrap()), 1, "{}", c.name);
        assert_eq!(read(&mut nic, status_address("frame_count").unwrap()), 0, "{}", c.name);
        assert_eq!(read(&mut nic, status_address("rx_busy_any").unwrap()), 0, "{}", c.name);
        println!("{}: map version {}, protocol {}, {} messages: identification, {} status registers and the rejects as mapped", c.name, id[0], id[1], id[2], STATUS_MAP.len());
    }
}
