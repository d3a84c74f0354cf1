//! Link timing (`net/link.rs`): serialisation in exact ticks.

use nanotransport_hdl::clock::NicClock;
use nanotransport_net::link::*;

#[test]
fn an_mtu_at_200_gbps_is_139_264_cycles_and_fractions_carry() {
    let spec = LinkSpec::new(200.0, 131.0);
    let tpc = ticks_needed(&spec, NicClock::THESIS);
    let mut l = LinkTiming::new(spec, tpc, NicClock::THESIS, 1);
    assert_eq!(l.serialisation_ticks(1088) * 1000, 139_264 * tpc);
    assert_eq!(l.delay_ticks * 10, 4192 * tpc);
    let mut last = 0;
    for _ in 0..10 {
        last = l.transmit(0, 1088).1.unwrap();
    }
    assert_eq!((last - l.delay_ticks) * 100, 139_264 * tpc);
}
