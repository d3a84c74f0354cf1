//! Network testbench: many cycle-accurate NICs, links and switches in one deterministic
//! simulation.
//!
//! # Time
//! The unit of the network is the NIC clock cycle (3.2 GHz by default). Links and switches need
//! finer time — a 1088-byte frame on a 200 Gb/s link lasts 139.264 cycles — so every instant is
//! an integer number of *ticks*, [`Network::ticks_per_cycle`] to a cycle, chosen when the
//! network is built so that every frame's serialisation time on every link is a whole number of
//! ticks. Fractions are therefore carried exactly: ten 1088-byte frames back to back on 200 Gb/s
//! end 1392.64 cycles after the first began, not 1390 or 1400.
//!
//! # Core
//! [`Network`] holds endpoints, switches and directed links, and a queue of events ordered by
//! tick, then kind (arrivals before ports becoming free), then link or port — never by when an
//! event was created — so identical inputs and seeds give identical packets and cycles.
//!
//! Time advances in **windows** one cycle shorter than the shortest link delay (418 cycles for
//! 131 ns at 3.2 GHz, [`Network::window_cycles`]): nothing an endpoint sends inside a window can
//! reach anything else before the window ends, so every frame an endpoint receives in it is
//! already known when it begins. A window first handles the switches' and links' events up to its
//! end (frames for endpoints go to their inboxes, with their cycles), then steps every endpoint
//! through it on its own — each endpoint is offered its frames in their cycles and stepped only
//! in the cycles it has work — and finally queues the frames they sent. The endpoints of a window
//! run on [`Network::threads`] threads (`NANOTRANSPORT_THREADS`, default the machine's cores);
//! the result is the same for any number. When no endpoint had work the network jumps straight
//! to the next event or wake-up an endpoint asked for: idle stretches cost nothing.
//!
//! # Endpoints
//! [`Endpoint`] is what a host looks like to the network: it takes frames, is stepped one cycle
//! at a time while busy, and hands back the frames it finished sending. [`NicEndpoint`] is the
//! whole-NIC Verilator model of any configuration (driven by [`nanotransport_sim::nic::NicSim`]) with a host
//! application on its CPU side that sends messages at given cycles and records deliveries and
//! completions. Behavioural hosts ([`host::Host`]) live on events instead: they are told of a
//! frame's arrival and of their timers, and queue frames and set timers in return. A network
//! without cycle-stepped endpoints runs as a plain discrete-event simulation (no windows, no
//! threads); hosts and NICs mix in one network with the same determinism.
//!
//! The MAC of a [`NicEndpoint`] (NIC side 64 bits × 3.2 GHz = 204.8 Gb/s):
//! * transmit: `m_axis_tx_tready` is held low until the link has (nearly, within one cycle)
//!   finished the previous frame, so the NIC sends at the link's rate; a frame then streams out
//!   at one beat per cycle while the link serialises it slightly slower (cut-through);
//! * receive: cut-through aligned to the end — a frame's beats are offered so that its last beat
//!   is taken in the cycle its last byte arrives (the link never underruns the NIC). A real MAC
//!   cannot be back-pressured: a frame that arrives while the NIC is still taking the previous
//!   one (`s_axis_rx_tready` held low) is dropped and counted ([`NicEndpoint::rx_dropped`]).
//!
//! # Links
//! [`LinkSpec`]: rate in Gb/s, propagation delay in ns, optional seeded loss. Only frame bytes
//! are counted (no preamble, inter-frame gap or FCS), as the slowdown formula of the thesis does.
//!
//! # Switches
//! [`switch::Switch`] has Flexplane's structure: every frame is routed ([`switch::Route`]),
//! classified ([`switch::Classify`]), offered to the queue manager ([`switch::QueueManager`],
//! which may trim, mark or drop it) and leaves when the port's scheduler ([`switch::Schedule`])
//! picks it. Each stage is a small trait object told the ports, the time and the link rate, able
//! to emit packets of its own and, per port, to keep state ([`switch`] has the interface). Ports
//! are output-queued, store-and-forward,
//! with strict priority by IPv4 DSCP (0 highest) by default and per-port counters. The queue
//! disciplines of the authors' ns-3 model are in [`switch`] (NDP, Homa, Homa-Tr), and so is the
//! port's device queue between the queue disc and the wire ([`switch::Switch::device_queue_pkts`];
//! the incast uses the model's 1 packet).
//!
//! # Traces
//! Any link can be written as a nanosecond pcap ([`trace::PcapTrace`]); every switch port
//! records its queue occupancy over time, at an interval (every µs by default) or at every change
//! ([`switch::OccupancySampling`]).

pub mod bench;
pub mod bolt;
pub mod endpoint;
pub mod host;
pub mod ipv4;
pub mod link;
pub mod network;
pub mod pl2;
pub mod rpc;
pub mod schemes;
pub mod switch;
pub mod tcp;
pub mod topology;
pub mod trace;

pub use endpoint::{Endpoint, NicEndpoint, ScheduledMessage};
pub use host::{CbrHost, EchoHost, Host, HostIo};
pub mod experiments;

pub use link::{LinkSpec, LinkTiming};
pub use network::{Network, Node};
