//! Speed of the network core on behavioural hosts (`nanotransport bench net`): `senders`
//! constant-rate hosts share one switch port towards a receiving host, each at 1/`senders` of
//! the link rate with 1088-byte frames (the port is exactly full, nothing is dropped), for a
//! given simulated time. Five events per frame: the sender's timer, its link becoming free, the
//! arrival at the switch, the switch port becoming free, the arrival at the receiver.

use crate::host::CbrHost;
use crate::link::LinkSpec;
use crate::switch::{DscpClassify, HomaDropTail, Limit, StrictPriority};
use crate::topology::{star_of, Member};
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::pisa::wire::HOMA_IP_PROTOCOL;
use nanotransport_sim::scenarios::data_frame_for;
use std::time::Instant;

/// The target of the network core's speed: events per wall second on a 2-core machine.
pub const TARGET_EVENTS_PER_S: f64 = 3.0e6;

/// What `bench net` measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NetBench {
    pub senders: usize,
    pub gbps: f64,
    pub simulated_s: f64,
    pub wall_s: f64,
    pub events: u64,
    pub events_per_s: f64,
    pub simulated_s_per_wall_s: f64,
    pub frames_sent: u64,
    pub frames_received: u64,
    pub dropped: u64,
}

/// Runs the benchmark (see the module documentation).
pub fn bench_net(senders: usize, gbps: f64, simulated_ms: f64) -> Result<NetBench, String> {
    if senders == 0 || senders > 1000 {
        return Err(format!("--senders {senders}: valid 1..=1000"));
    }
    if !(simulated_ms > 0.0 && simulated_ms <= 10_000.0) {
        return Err(format!("--sim-ms {simulated_ms}: valid above 0 up to 10000"));
    }
    let receiver_ip = 0x0A00_0000;
    let frame = data_frame_for(HOMA_IP_PROTOCOL, receiver_ip + 1, receiver_ip, 1, 1, 1, &[0u8; 1024], 0);
    let frame_ns = frame.len() as f64 * 8.0 / gbps;
    let count = (simulated_ms * 1e6 / (frame_ns * senders as f64)).ceil() as u64 + 1;
    let mut members = vec![Member::Host(Box::new(CbrHost::new(receiver_ip, Vec::new(), 1.0, 0)))];
    for i in 0..senders {
        let mut f = frame.clone();
        f[26..30].copy_from_slice(&(receiver_ip + 1 + i as u32).to_be_bytes());
        let mut host = CbrHost::new(receiver_ip + 1 + i as u32, f, frame_ns * senders as f64, count);
        host.start_ns = i as f64 * frame_ns;
        host.record_arrivals = false;
        members.push(Member::Host(Box::new(host)));
    }
    let stages = (
        Box::new(DscpClassify { bands: 8 }) as _,
        Box::new(HomaDropTail { limit: Limit::Packets(1024) }) as _,
        Box::new(StrictPriority) as _,
        8,
    );
    let mut net = star_of(NicClock::THESIS, members, LinkSpec::new(gbps, 500.0), stages, 1)?;
    let until = (simulated_ms * 1e6 / net.cycle_ns(1)).round() as u64;
    let wall = Instant::now();
    net.run(until, &mut |_| false, &mut |_| {});
    let wall_s = wall.elapsed().as_secs_f64();
    let simulated_s = net.cycle_ns(net.cycle) * 1e-9;
    let frames_sent = (1..=senders).map(|i| net.host::<CbrHost>(i).map_or(0, |h| h.sent)).sum();
    Ok(NetBench {
        senders,
        gbps,
        simulated_s,
        wall_s,
        events: net.events_handled,
        events_per_s: net.events_handled as f64 / wall_s.max(1e-9),
        simulated_s_per_wall_s: simulated_s / wall_s.max(1e-9),
        frames_sent,
        frames_received: net.host::<CbrHost>(0).map_or(0, |h| h.received),
        dropped: net.switches[0].ports.iter().map(|p| p.counters.dropped).sum(),
    })
}
