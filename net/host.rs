//! Behavioural hosts: endpoints that live on events, not clock cycles.
//!
//! A [`Host`] is told when a frame has arrived (its last byte) and when one of its timers fires;
//! it answers through [`HostIo`]: frames to send and timers to set or cancel. The network keeps
//! each host's transmit queue — frames leave in order, each as soon as the link has finished the
//! previous one — and its timers. A network of hosts and switches only runs as a plain discrete
//! event simulation (no windows, no threads); hosts mix with cycle-stepped NIC endpoints in one
//! network with the same determinism ([`crate::network`]).
//!
//! ```text
//! impl Host for Echo {
//!     fn ip(&self) -> u32 { self.ip }
//!     fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) { io.send(reply_to(frame)); }
//!     fn timer(&mut self, _id: u64, _io: &mut HostIo) {}
//!     fn as_any(&self) -> &dyn Any { self }
//! }
//! ```
//! [`EchoHost`] and [`CbrHost`] are the reference hosts (and what `nanotransport bench net`
//! runs).

use nanotransport_hdl::pisa::wire::{OFF_DST_IP, OFF_SRC_IP};
use std::any::Any;

/// A behavioural host. Hosts are `Send` like every endpoint.
pub trait Host: Send {
    /// IPv4 address (switches route on it).
    fn ip(&self) -> u32;
    /// Called once, when the network first runs.
    fn start(&mut self, _io: &mut HostIo) {}
    /// A whole frame has arrived.
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo);
    /// Timer `id` has fired (a timer set again before it fired fires once, at the new time).
    fn timer(&mut self, id: u64, io: &mut HostIo);
    /// The link has finished a frame, after the host asked with [`HostIo::wake_on_tx`] (a host
    /// that keeps its transmit queue short, as Linux's TCP small queues, sends more here).
    fn tx_done(&mut self, _io: &mut HostIo) {}
    /// For reading a host's results back after a run.
    fn as_any(&self) -> &dyn Any;
}

/// What a host sees of time and what it asks of the network during one call.
#[derive(Debug)]
pub struct HostIo {
    now_ticks: u64,
    ns_per_tick: f64,
    /// Bytes in the host's transmit queue (not yet on the wire), with this call's sends.
    queued_bytes: usize,
    pub(crate) wake_on_tx: bool,
    pub(crate) sends: Vec<Vec<u8>>,
    /// Timer operations in the order asked: (Some(tick), id) sets, (None, id) cancels.
    pub(crate) timer_ops: Vec<(Option<u64>, u64)>,
    /// Timers asked for a time already past (they fire now).
    pub(crate) past_timers: u64,
}

impl HostIo {
    pub(crate) fn new(now_ticks: u64, ns_per_tick: f64, queued_bytes: usize) -> Self {
        HostIo { now_ticks, ns_per_tick, queued_bytes, wake_on_tx: false, sends: Vec::new(), timer_ops: Vec::new(), past_timers: 0 }
    }
    /// Bytes waiting in the host's transmit queue (the frame on the wire not counted), this
    /// call's sends included.
    pub fn queued_bytes(&self) -> usize {
        self.queued_bytes
    }
    /// Asks for [`Host::tx_done`] when the link next finishes a frame.
    pub fn wake_on_tx(&mut self) {
        self.wake_on_tx = true;
    }
    /// Now, in network ticks.
    pub fn now_ticks(&self) -> u64 {
        self.now_ticks
    }
    /// Now, in ns.
    pub fn now_ns(&self) -> f64 {
        self.now_ticks as f64 * self.ns_per_tick
    }
    /// Queues a frame on the host's link (after the frames queued before it).
    pub fn send(&mut self, frame: Vec<u8>) {
        self.queued_bytes += frame.len();
        self.sends.push(frame);
    }
    /// Sets timer `id` to fire at `at_ns` (rounded up to a tick); a time already past is counted
    /// ([`crate::network::Network::host_past_timers`]) and fires now. Setting a timer that is
    /// pending moves it.
    pub fn set_timer_at(&mut self, at_ns: f64, id: u64) {
        let at = (at_ns / self.ns_per_tick).ceil();
        let at = if at.is_finite() && at >= self.now_ticks as f64 {
            at as u64
        } else {
            self.past_timers += 1;
            self.now_ticks
        };
        self.timer_ops.push((Some(at), id));
    }
    /// Sets timer `id` to fire `delay_ns` from now.
    pub fn set_timer_after(&mut self, delay_ns: f64, id: u64) {
        self.set_timer_at(self.now_ns() + delay_ns, id);
    }
    /// Whether a timer set for `at_ns` would fire now or has: the tick [`HostIo::set_timer_at`]
    /// rounds it up to has come. Compare deadlines this way, not `now_ns() < at_ns`: in floating
    /// point the tick's time can fall a hair short of `at_ns`, and a host that re-arms the timer
    /// for the same tick then loops forever.
    pub fn due(&self, at_ns: f64) -> bool {
        (at_ns / self.ns_per_tick).ceil() <= self.now_ticks as f64
    }
    /// Cancels timer `id` (nothing if it is not pending).
    pub fn cancel_timer(&mut self, id: u64) {
        self.timer_ops.push((None, id));
    }
    /// What a host inside this one sees (a layer under it, as [`crate::pl2::layer`]): the same
    /// time and transmit queue; its sends go to the outer host through [`HostIo::absorb`].
    pub(crate) fn nested(&self) -> HostIo {
        HostIo::new(self.now_ticks, self.ns_per_tick, self.queued_bytes)
    }
    /// Takes over a nested host's timer operations and transmit wake-up; returns its sends.
    pub(crate) fn absorb(&mut self, inner: HostIo) -> Vec<Vec<u8>> {
        self.timer_ops.extend(inner.timer_ops);
        self.past_timers += inner.past_timers;
        self.wake_on_tx |= inner.wake_on_tx;
        inner.sends
    }
}

const SRC_IP: std::ops::Range<usize> = OFF_SRC_IP..OFF_SRC_IP + 4;
const DST_IP: std::ops::Range<usize> = OFF_DST_IP..OFF_DST_IP + 4;

/// A reference host that sends every frame it receives back to its sender (IPv4 addresses
/// swapped), and counts them.
#[derive(Clone, Debug, Default)]
pub struct EchoHost {
    pub ip: u32,
    pub echoed: u64,
    /// Frames too short to carry an IPv4 header (dropped).
    pub malformed: u64,
}

impl Host for EchoHost {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn receive(&mut self, mut frame: Vec<u8>, io: &mut HostIo) {
        if frame.len() < DST_IP.end {
            self.malformed += 1;
            return;
        }
        let src: [u8; 4] = frame[SRC_IP].try_into().unwrap();
        frame.copy_within(DST_IP, SRC_IP.start);
        frame[DST_IP].copy_from_slice(&src);
        self.echoed += 1;
        io.send(frame);
    }
    fn timer(&mut self, _id: u64, _io: &mut HostIo) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A reference host that sends `count` copies of `frame` at a constant rate, one every
/// `interval_ns` from `start_ns`, and counts what comes back.
#[derive(Clone, Debug)]
pub struct CbrHost {
    pub ip: u32,
    pub frame: Vec<u8>,
    pub interval_ns: f64,
    pub start_ns: f64,
    pub count: u64,
    pub sent: u64,
    pub received: u64,
    /// Arrival time (ns) of each frame received.
    pub arrivals_ns: Vec<f64>,
    /// Keep `arrivals_ns` (off for long runs).
    pub record_arrivals: bool,
}

impl CbrHost {
    /// A host at `ip` sending `count` copies of `frame`, one every `interval_ns` from 0.
    pub fn new(ip: u32, frame: Vec<u8>, interval_ns: f64, count: u64) -> Self {
        CbrHost { ip, frame, interval_ns, start_ns: 0.0, count, sent: 0, received: 0, arrivals_ns: Vec::new(), record_arrivals: true }
    }
}

impl Host for CbrHost {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn start(&mut self, io: &mut HostIo) {
        if self.count > 0 {
            io.set_timer_at(self.start_ns, 0);
        }
    }
    fn receive(&mut self, _frame: Vec<u8>, io: &mut HostIo) {
        self.received += 1;
        if self.record_arrivals {
            self.arrivals_ns.push(io.now_ns());
        }
    }
    fn timer(&mut self, _id: u64, io: &mut HostIo) {
        io.send(self.frame.clone());
        self.sent += 1;
        if self.sent < self.count {
            io.set_timer_at(self.start_ns + self.sent as f64 * self.interval_ns, 0);
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
