//! Network testbench core: exact link timing through a switch with behavioural endpoints, and a
//! shortened incast on the whole-NIC models that must be identical when repeated, with its pcap.

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::configs::Protocol;
use nanotransport_net::experiments::incast::{self, IncastParams};
use nanotransport_net::switch::{DscpClassify, HomaDropTail, Limit, StrictPriority};
use nanotransport_net::topology::{dumbbell, star};
use nanotransport_net::{Endpoint, LinkSpec};
use nanotransport_sim::scenarios::data_frame_for;
use std::any::Any;

/// A cycle-stepped test endpoint: sends its frames all at once at cycle 0, records every frame
/// it receives with the cycle it was offered.
pub(crate) struct Host {
    pub ip: u32,
    pub to_send: Vec<Vec<u8>>,
    pub received: Vec<(u64, Vec<u8>)>,
    pub clock: NicClock,
}

impl Endpoint for Host {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn cycle(&self) -> u64 {
        0
    }
    fn clock(&self) -> NicClock {
        self.clock
    }
    fn receive(&mut self, frame: Vec<u8>, now: u64) -> bool {
        self.received.push((now, frame));
        true
    }
    fn busy(&self, _now: u64) -> bool {
        !self.to_send.is_empty()
    }
    fn wake_at(&self) -> Option<u64> {
        None
    }
    fn sending(&self) -> bool {
        false
    }
    fn step(&mut self, now: u64, _tx_ready: bool) -> Vec<(u64, Vec<u8>)> {
        std::mem::take(&mut self.to_send).into_iter().map(|f| (now, f)).collect()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[test]
fn mtu_frames_through_a_switch_arrive_at_exact_fractional_times() {
    let (a, b) = (0x0A00_0001, 0x0A00_0002);
    let frames: Vec<Vec<u8>> = (0..10).map(|k| data_frame_for(154, a, b, 1, 1, k, &[k as u8; 1024], 0)).collect();
    assert!(frames.iter().all(|f| f.len() == 1088));
    let hosts: Vec<Box<dyn Endpoint>> = vec![
        Box::new(Host { ip: a, to_send: frames.clone(), received: vec![], clock: NicClock::THESIS }),
        Box::new(Host { ip: b, to_send: vec![], received: vec![], clock: NicClock::THESIS }),
    ];
    let stages = (
        Box::new(DscpClassify { bands: 8 }) as _,
        Box::new(HomaDropTail { limit: Limit::Packets(100) }) as _,
        Box::new(StrictPriority) as _,
        8,
    );
    let mut net = star(NicClock::THESIS, hosts, LinkSpec::new(200.0, 131.0), stages, 1).unwrap();
    net.run(100_000, &mut |_| false, &mut |_| {});
    let got = &net.endpoints[1].as_any().downcast_ref::<Host>().unwrap().received;
    assert_eq!(got.len(), 10);
    // Frame k's last byte reaches the far host (k + 2) · 139.264 + 2 · 419.2 cycles after the
    // first byte left (two serialisations, the switch is store-and-forward, two propagation
    // delays); its 136 beats are offered so that the last is taken in that cycle.
    for (k, (cycle, f)) in got.iter().enumerate() {
        let last_byte_millicycles = (k as u64 + 2) * 139_264 + 838_400;
        assert_eq!(*cycle, last_byte_millicycles.div_ceil(1000) - 136, "frame {k}");
        assert_eq!(f, &frames[k]);
    }
    let c = net.switches[0].ports[1].counters;
    assert_eq!((c.enqueued, c.sent, c.dropped), (10, 10, 0));
}

#[test]
fn a_dumbbell_carries_frames_across_its_core_link() {
    let (a, b, c) = (0x0A00_0001, 0x0A00_0002, 0x0A00_0003);
    let frames: Vec<Vec<u8>> = (0..3).map(|k| data_frame_for(154, a, b, 1, 1, k, &[k as u8; 1024], 0)).collect();
    let host = |ip, to_send| Box::new(Host { ip, to_send, received: vec![], clock: NicClock::THESIS }) as Box<dyn Endpoint>;
    let mut stages = || {
        (
            Box::new(DscpClassify { bands: 8 }) as _,
            Box::new(HomaDropTail { limit: Limit::Packets(100) }) as _,
            Box::new(StrictPriority) as _,
            8,
        )
    };
    let spec = LinkSpec::new(200.0, 131.0);
    let mut net =
        dumbbell(NicClock::THESIS, vec![host(a, frames.clone()), host(c, vec![])], vec![host(b, vec![])], spec, spec, &mut stages, 1)
            .unwrap();
    net.run(100_000, &mut |_| false, &mut |_| {});
    let got = &net.endpoints[2].as_any().downcast_ref::<Host>().unwrap().received;
    assert_eq!(got.len(), 3);
    // Three store-and-forward hops of 139.264 cycles and three delays of 419.2 cycles.
    for (k, (cycle, f)) in got.iter().enumerate() {
        assert_eq!(*cycle, ((k as u64 + 3) * 139_264 + 1_257_600).div_ceil(1000) - 136, "frame {k}");
        assert_eq!(f, &frames[k]);
    }
    assert!(net.endpoints[1].as_any().downcast_ref::<Host>().unwrap().received.is_empty());
}

fn short_incast(protocol: Protocol) -> IncastParams {
    let mut p = IncastParams::defaults(protocol);
    p.senders = 4;
    p.sizes = (6, 12);
    p.buffer_pkts = 8;
    p.max_us = 200.0;
    p
}

#[test]
fn a_shortened_incast_is_identical_when_repeated_and_its_pcap_holds_every_frame() {
    for protocol in [Protocol::Ndp, Protocol::HomaTr] {
        let p = short_incast(protocol);
        // Two worker threads, then one: the NICs run in windows, so the result must not change.
        let (mut first, net) = incast::run_on(&p, true, Some(2), &mut |_, _, _| {}).unwrap();
        let (mut second, _) = incast::run_on(&p, false, Some(1), &mut |_, _, _| {}).unwrap();
        println!("{protocol}: median {:?}, bottleneck {:?}", first.median_slowdown, first.bottleneck);
        assert!(first.complete, "{protocol}: {:?}", first.messages);
        let starts: Vec<u64> = first.messages.iter().map(|m| m.msg_id_cycle.unwrap()).collect();
        assert!(starts.iter().all(|s| *s == starts[0]), "{protocol}: every sender NIC takes its message in the same cycle: {starts:?}");
        assert!(first.bottleneck.trimmed > 0, "{protocol}: an 8-packet buffer under 4 × 12 packets of credit must trim");
        for r in [&mut first, &mut second] {
            (r.wall_s, r.nic_cycles_per_s) = (0.0, 0.0);
        }
        assert_eq!(first, second, "{protocol}: same inputs, different results (2 threads, then 1)");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        incast::write_pcaps(&net, &dir).unwrap();
        let bytes = std::fs::read(dir.join("switch-to-host0.pcap")).unwrap();
        let records = nanotransport_sim::replay::parse_pcap(&bytes).unwrap().records;
        let link = net.switches[0].ports[0].link;
        assert_eq!(records.len() as u64, net.links[link].timing.frames);
        assert!(records.windows(2).all(|w| w[0].time_ns < w[1].time_ns));
    }
}

/// A network runs its endpoints at one clock: an endpoint at another clock is refused with one
/// line naming both; at the 100 GbE MAC's 322.265625 MHz a frame's timing is exact as at 3.2 GHz
/// (1 088 bytes at 10 Gb/s are 870.4 ns: 280.5 cycles), and a link beyond the 64-bit MAC side
/// (20.625 Gb/s at that clock) is refused.
#[test]
fn a_network_runs_its_endpoints_at_their_clock() {
    let (a, b) = (0x0A00_0001, 0x0A00_0002);
    let cmac = NicClock::CMAC_USER;
    let stages = || {
        (
            Box::new(DscpClassify { bands: 8 }) as _,
            Box::new(HomaDropTail { limit: Limit::Packets(100) }) as _,
            Box::new(StrictPriority) as _,
            8,
        )
    };
    let host = |ip, to_send, clock| Box::new(Host { ip, to_send, received: vec![], clock }) as Box<dyn Endpoint>;
    let e =
        star(cmac, vec![host(a, vec![], cmac), host(b, vec![], NicClock::THESIS)], LinkSpec::new(10.0, 100.0), stages(), 1).err().unwrap();
    assert!(e.contains("10.0.0.2") && e.contains("3200 MHz") && e.contains("322.265625 MHz") && !e.contains('\n'), "{e}");
    let e = star(cmac, vec![host(a, vec![], cmac)], LinkSpec::new(25.0, 100.0), stages(), 1).err().unwrap();
    assert!(e.contains("20.625"), "{e}");
    let frame = data_frame_for(154, a, b, 1, 1, 0, &[7; 1024], 0);
    let mut net =
        star(cmac, vec![host(a, vec![frame.clone()], cmac), host(b, vec![], cmac)], LinkSpec::new(10.0, 100.0), stages(), 1).unwrap();
    net.run(10_000, &mut |_| false, &mut |_| {});
    let got = &net.endpoints[1].as_any().downcast_ref::<Host>().unwrap().received;
    // Two serialisations (store and forward) and two 100 ns delays: 1 940.8 ns = 625.45 cycles,
    // so the last byte is there in cycle 626; the 136 beats are offered so that the last is taken
    // in that cycle.
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 626 - 136);
    assert_eq!(got[0].1, frame);
    assert!((net.cycle_ns(626) - 1_940.8).abs() < cmac.ns_of_cycles(1), "{}", net.cycle_ns(626));
}
