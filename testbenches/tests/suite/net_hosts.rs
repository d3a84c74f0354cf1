//! Behavioural hosts (`net/host.rs`) on the network core: exact timing through a switch, timers,
//! the event-driven path, and hosts mixed with cycle-stepped endpoints.

use crate::net_core::Host as Stepped;
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::pisa::wire::HOMA_IP_PROTOCOL;
use nanotransport_net::host::{CbrHost, EchoHost, Host, HostIo};
use nanotransport_net::switch::{DscpClassify, HomaDropTail, Limit, StrictPriority};
use nanotransport_net::topology::{star_of, Member, SwitchStages};
use nanotransport_net::{LinkSpec, Network};
use nanotransport_sim::scenarios::data_frame_for;
use std::any::Any;

const A: u32 = 0x0A00_0001;
const B: u32 = 0x0A00_0002;

fn stages() -> SwitchStages {
    (Box::new(DscpClassify { bands: 8 }) as _, Box::new(HomaDropTail { limit: Limit::Packets(100) }) as _, Box::new(StrictPriority) as _, 8)
}

fn frame(src: u32, dst: u32) -> Vec<u8> {
    data_frame_for(HOMA_IP_PROTOCOL, src, dst, 1, 1, 1, &[7u8; 1024], 0)
}

/// Tick-exact ns of the first tick at or after `ns`.
fn at_tick(net: &Network, ns: f64) -> f64 {
    net.tick_ns((ns / net.tick_ns(1)).ceil() as u64)
}

#[test]
fn echoes_come_back_one_round_trip_later_to_the_tick() {
    let cbr = CbrHost::new(A, frame(A, B), 1000.0, 10);
    let members = vec![Member::Host(Box::new(cbr)), Member::Host(Box::new(EchoHost { ip: B, ..Default::default() }))];
    let mut net = star_of(NicClock::THESIS, members, LinkSpec::new(200.0, 131.0), stages(), 1).unwrap();
    net.run(100_000, &mut |_| false, &mut |_| {});
    let cbr = net.host::<CbrHost>(0).unwrap();
    assert_eq!((cbr.sent, cbr.received), (10, 10));
    assert_eq!(net.host::<EchoHost>(1).unwrap().echoed, 10);
    // Four serialisations of 1088 bytes at 200 Gb/s (43.52 ns, store-and-forward) and four
    // propagation delays of 131 ns after each frame's timer.
    for (k, arrival) in cbr.arrivals_ns.iter().enumerate() {
        let sent = at_tick(&net, k as f64 * 1000.0);
        assert!((arrival - sent - (4.0 * 43.52 + 4.0 * 131.0)).abs() < 1e-6, "frame {k}: sent {sent} ns, back at {arrival} ns");
    }
    assert_eq!(net.endpoint_steps, 0, "no cycle was stepped");
    assert!(net.events_handled >= 10 * 9, "{} events", net.events_handled);
}

/// Uses its timers: 1 is set for 100 ns and moved to 300 ns, 2 is set for 200 ns and cancelled,
/// 3 is set in the past; each firing is recorded.
#[derive(Default)]
struct TimerUser {
    fired: Vec<(u64, f64)>,
}

impl Host for TimerUser {
    fn ip(&self) -> u32 {
        A
    }
    fn start(&mut self, io: &mut HostIo) {
        io.set_timer_at(100.0, 1);
        io.set_timer_at(200.0, 2);
        io.set_timer_at(300.0, 1);
        io.cancel_timer(2);
        io.set_timer_at(-5.0, 3);
    }
    fn receive(&mut self, _frame: Vec<u8>, _io: &mut HostIo) {}
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        self.fired.push((id, io.now_ns()));
        if id == 1 && self.fired.len() < 4 {
            io.set_timer_after(50.0, 1);
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[test]
fn timers_fire_once_move_cancel_and_count_the_past() {
    let mut net =
        star_of(NicClock::THESIS, vec![Member::Host(Box::<TimerUser>::default())], LinkSpec::new(100.0, 100.0), stages(), 1).unwrap();
    net.run(10_000, &mut |_| false, &mut |_| {});
    let fired: Vec<(u64, f64)> = net.host::<TimerUser>(0).unwrap().fired.clone();
    let ids: Vec<u64> = fired.iter().map(|f| f.0).collect();
    assert_eq!(ids, [3, 1, 1, 1], "the past timer at once, timer 1 at its moved time and twice more, timer 2 never");
    assert_eq!(fired[0].1, 0.0);
    assert!((fired[1].1 - at_tick(&net, 300.0)).abs() < 1e-9 && fired[2].1 > fired[1].1 && fired[3].1 > fired[2].1);
    assert_eq!(net.host_past_timers, 1);
}

#[test]
fn a_host_without_a_link_counts_what_it_could_not_send() {
    let mut net = Network::new(NicClock::THESIS, &[LinkSpec::new(100.0, 100.0)], 1);
    net.add_host(Box::new(CbrHost::new(A, frame(A, B), 100.0, 3)));
    net.run(10_000, &mut |_| false, &mut |_| {});
    assert_eq!(net.hosts[0].unconnected_sends, 3);
}

#[test]
fn hosts_and_cycle_stepped_endpoints_mix_with_the_same_result_for_any_thread_count() {
    const C: u32 = 0x0A00_0003;
    let run = |threads: usize| {
        let members = vec![
            Member::Nic(Box::new(Stepped {
                ip: A,
                to_send: (0..5).map(|_| frame(A, B)).collect(),
                received: vec![],
                clock: NicClock::THESIS,
            })),
            Member::Host(Box::new(EchoHost { ip: B, ..Default::default() })),
            Member::Host(Box::new(CbrHost::new(C, frame(C, A), 300.0, 8))),
        ];
        let mut net = star_of(NicClock::THESIS, members, LinkSpec::new(100.0, 200.0), stages(), 1).unwrap();
        net.threads = threads;
        net.run(50_000, &mut |_| false, &mut |_| {});
        let stepped = net.endpoints[0].as_any().downcast_ref::<Stepped>().unwrap().received.clone();
        (stepped, net.host::<EchoHost>(0).unwrap().echoed, net.switches[0].ports.iter().map(|p| p.counters).collect::<Vec<_>>())
    };
    let one = run(1);
    // The endpoint got its 5 echoes and the constant-rate host's 8 frames.
    assert_eq!(one.0.len(), 13);
    assert_eq!(one.1, 5);
    assert_eq!(run(2), one);
}
