//! Topology builders.

use super::endpoint::Endpoint;
use super::host::Host;
use super::link::LinkSpec;
use super::network::{Network, Node};
use super::switch::{IpRoute, Switch};
use nanotransport_hdl::clock::NicClock;

/// The pieces of a switch other than routing (which the builder fills in).
pub type SwitchStages = (Box<dyn super::switch::Classify>, Box<dyn super::switch::QueueManager>, Box<dyn super::switch::Schedule>, usize);

/// What sits on a network's edge: a cycle-stepped endpoint (a NIC) or a behavioural host.
pub enum Member {
    Nic(Box<dyn Endpoint>),
    Host(Box<dyn Host>),
}

impl Member {
    fn ip(&self) -> u32 {
        match self {
            Member::Nic(e) => e.ip(),
            Member::Host(h) => h.ip(),
        }
    }
    fn add_to(self, net: &mut Network) -> Result<Node, String> {
        match self {
            Member::Nic(e) => net.add_endpoint(e),
            Member::Host(h) => Ok(net.add_host(h)),
        }
    }
}

/// A star: every endpoint on its own port of one switch (port i ↔ endpoint i), all links `spec`.
/// `stages` gives the switch's classifier, queue manager, scheduler and bands per port.
pub fn star(
    clock: NicClock,
    endpoints: Vec<Box<dyn Endpoint>>,
    spec: LinkSpec,
    stages: SwitchStages,
    seed: u64,
) -> Result<Network, String> {
    star_of(clock, endpoints.into_iter().map(Member::Nic).collect(), spec, stages, seed)
}

/// A star of any members, NICs and behavioural hosts (port i ↔ member i).
pub fn star_of(clock: NicClock, members: Vec<Member>, spec: LinkSpec, stages: SwitchStages, seed: u64) -> Result<Network, String> {
    star_with_links(clock, members.into_iter().map(|m| (m, spec)).collect(), stages, seed)
}

/// A star whose members each have their own link (port i ↔ member i): a bottleneck port at
/// another rate, senders with clocks a few ppm apart.
pub fn star_with_links(clock: NicClock, members: Vec<(Member, LinkSpec)>, stages: SwitchStages, seed: u64) -> Result<Network, String> {
    let specs: Vec<LinkSpec> = members.iter().map(|m| m.1).collect();
    let mut net = Network::new(clock, &specs, seed);
    let (classify, qm, schedule, bands) = stages;
    let table: Vec<(u32, usize)> = members.iter().enumerate().map(|(i, m)| (m.0.ip(), i)).collect();
    let sw = net.add_switch(Switch::new(Box::new(IpRoute { table }), classify, qm, schedule));
    for (m, spec) in members {
        let n = m.add_to(&mut net)?;
        net.connect(n, sw, spec, bands)?;
    }
    Ok(net)
}

/// A dumbbell: `left` endpoints on switch 0, `right` on switch 1, the two switches joined by
/// `core`. Endpoint i is on port i of its switch; the core link is the last port of each.
/// `stages` is called once per switch.
pub fn dumbbell(
    clock: NicClock,
    left: Vec<Box<dyn Endpoint>>,
    right: Vec<Box<dyn Endpoint>>,
    edge: LinkSpec,
    core: LinkSpec,
    stages: &mut dyn FnMut() -> SwitchStages,
    seed: u64,
) -> Result<Network, String> {
    let side = |v: Vec<Box<dyn Endpoint>>| v.into_iter().map(|e| (Member::Nic(e), edge)).collect();
    dumbbell_of(clock, side(left), side(right), core, stages, seed)
}

/// A dumbbell of any members, each on its own link: `left` on switch 0, `right` on switch 1
/// (member i on port i of its switch), the switches joined by `core` on the last port of each.
/// `stages` is called once per switch.
pub fn dumbbell_of(
    clock: NicClock,
    left: Vec<(Member, LinkSpec)>,
    right: Vec<(Member, LinkSpec)>,
    core: LinkSpec,
    stages: &mut dyn FnMut() -> SwitchStages,
    seed: u64,
) -> Result<Network, String> {
    let specs: Vec<LinkSpec> = left.iter().chain(&right).map(|m| m.1).chain([core]).collect();
    let mut net = Network::new(clock, &specs, seed);
    let sides = [left, right];
    let mut switches = Vec::new();
    for (s, side) in sides.iter().enumerate() {
        let mut table: Vec<(u32, usize)> = side.iter().enumerate().map(|(i, m)| (m.0.ip(), i)).collect();
        table.extend(sides[1 - s].iter().map(|m| (m.0.ip(), side.len())));
        let (classify, qm, schedule, bands) = stages();
        switches.push((net.add_switch(Switch::new(Box::new(IpRoute { table }), classify, qm, schedule)), bands));
    }
    for (s, side) in sides.into_iter().enumerate() {
        for (m, spec) in side {
            let n = m.add_to(&mut net)?;
            net.connect(n, switches[s].0, spec, switches[s].1)?;
        }
    }
    net.connect_switches(switches[0].0, switches[1].0, core, switches[0].1, switches[1].1)?;
    Ok(net)
}
