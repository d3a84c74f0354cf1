//! Endpoints: what a host looks like to the network, and the whole-NIC Verilator endpoint.

use nanotransport_hdl::clock::NicClock;
use nanotransport_reference::pisa::Header;
use nanotransport_sim::nic::{frame_beats, NicSim, TxMessage};
use nanotransport_sim::registers::{apply, RegisterWrite};
use nanotransport_sim::scenarios::nic_with_ip;

/// A host on the network. The network calls [`Endpoint::receive`] in the cycle a frame's first
/// beat may be taken, steps the endpoint while [`Endpoint::busy`], and puts the frames
/// [`Endpoint::step`] returns on its link. Endpoints are stepped on worker threads (one thread
/// at a time per endpoint), hence `Send`.
pub trait Endpoint: Send {
    /// IPv4 address (switches route on it).
    fn ip(&self) -> u32;
    /// The endpoint's own cycle (the network starts at the largest).
    fn cycle(&self) -> u64;
    /// The clock its cycles are of (a network runs every endpoint at its own clock).
    fn clock(&self) -> NicClock;
    /// A frame whose beats may be taken from cycle `now` on; returns false if it was dropped.
    fn receive(&mut self, frame: Vec<u8>, now: u64) -> bool;
    /// Whether the endpoint must be stepped in cycle `now`.
    fn busy(&self, now: u64) -> bool;
    /// When not busy: the cycle it must be stepped again by itself (e.g. a scheduled send).
    fn wake_at(&self) -> Option<u64>;
    /// Whether a frame is part-way out on its transmit side.
    fn sending(&self) -> bool;
    /// Steps cycle `now` (first catching up over skipped idle cycles) with MAC TX ready or not;
    /// returns the frames whose last beat left in this cycle, with the cycle of their first beat.
    fn step(&mut self, now: u64, tx_ready: bool) -> Vec<(u64, Vec<u8>)>;
    /// For reading an endpoint's results back after a run.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A message the host application sends at a given cycle.
#[derive(Clone, Debug)]
pub struct ScheduledMessage {
    pub at: u64,
    pub message: TxMessage,
}

/// The whole-NIC Verilator model of a configuration with a host application on its CPU side.
pub struct NicEndpoint {
    pub nic: NicSim,
    pub whole: nanotransport_sim::whole_nic::WholeNic,
    ip: u32,
    /// Messages still to be handed to the NIC, in time order.
    pending: Vec<ScheduledMessage>,
    /// Cycle each message was queued on the CPU stream.
    pub queued_at: Vec<u64>,
    /// Frames that found the NIC still taking the previous one (`s_axis_rx_tready` low).
    pub rx_dropped: u64,
    pub rx_frames: u64,
    /// Frames handed to the NIC: the cycle their last byte arrived (the last beat's cycle at one
    /// beat per cycle) and their headers (frames of at least 64 bytes).
    pub rx_arrivals: Vec<(u64, Header)>,
    frames_seen: usize,
    /// MAC TX beats of the frames already handed to the link.
    beats_seen: usize,
    delivered_seen: usize,
    last_activity: u64,
    /// Cycles without any activity after which an endpoint with nothing outstanding is idle.
    pub quiet_cycles: u64,
}

impl NicEndpoint {
    /// The NIC `whole` at address `ip`, with `writes` applied.
    pub fn new(
        whole: &nanotransport_sim::whole_nic::WholeNic,
        ip: u32,
        writes: &[RegisterWrite],
        quiet_cycles: u64,
    ) -> Result<Self, String> {
        let mut nic = nic_with_ip(whole, ip)?;
        apply(&mut nic, writes)?;
        nic.run(4);
        let c = nic.cycle;
        Ok(NicEndpoint {
            nic,
            whole: whole.clone(),
            ip,
            pending: Vec::new(),
            queued_at: Vec::new(),
            rx_dropped: 0,
            rx_frames: 0,
            rx_arrivals: Vec::new(),
            frames_seen: 0,
            beats_seen: 0,
            delivered_seen: 0,
            last_activity: c,
            quiet_cycles,
        })
    }

    /// Schedules messages (kept in time order; equal times in the order given).
    pub fn schedule(&mut self, messages: impl IntoIterator<Item = ScheduledMessage>) {
        self.pending.extend(messages);
        self.pending.sort_by_key(|m| m.at);
    }

    fn outstanding(&self) -> bool {
        let n = &self.nic;
        n.send_backlog() > 0 || n.rx_backlog() > 0 || n.sent_ids.len() > n.completions.len() || n.output_in_progress()
    }
}

impl Endpoint for NicEndpoint {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn cycle(&self) -> u64 {
        self.nic.cycle
    }
    fn clock(&self) -> NicClock {
        self.whole.params().clock
    }
    fn receive(&mut self, frame: Vec<u8>, now: u64) -> bool {
        self.rx_frames += 1;
        if self.nic.rx_backlog() > 0 {
            self.rx_dropped += 1;
            return false;
        }
        self.nic.push_frame(&frame, now);
        if frame.len() >= 64 {
            self.rx_arrivals.push((now + frame.len().div_ceil(8) as u64 - 1, Header::decode(&frame)));
        }
        self.last_activity = now;
        true
    }
    fn busy(&self, now: u64) -> bool {
        self.pending.first().is_some_and(|m| m.at <= now) || self.outstanding() || now < self.last_activity + self.quiet_cycles
    }
    fn wake_at(&self) -> Option<u64> {
        self.pending.first().map(|m| m.at)
    }
    fn sending(&self) -> bool {
        self.nic.tx_beat_cycles.len() > self.beats_seen
    }
    fn step(&mut self, now: u64, tx_ready: bool) -> Vec<(u64, Vec<u8>)> {
        // Skipped idle cycles: nothing was outstanding, so only the NIC's own counter moves.
        if self.nic.cycle < now {
            self.nic.cycle = now;
        }
        while self.pending.first().is_some_and(|m| m.at <= now) {
            let m = self.pending.remove(0);
            self.nic.send(&m.message);
            self.queued_at.push(now);
        }
        self.nic.tx_ready = tx_ready || self.sending();
        self.nic.step();
        if self.nic.tx_frames.len() > self.frames_seen || self.nic.delivered.len() > self.delivered_seen {
            self.last_activity = now;
            self.delivered_seen = self.nic.delivered.len();
        }
        // A frame starts on the link with its first accepted beat (not when first shown).
        let mut new = Vec::new();
        for (_, f) in &self.nic.tx_frames[self.frames_seen..] {
            new.push((self.nic.tx_beat_cycles[self.beats_seen], f.clone()));
            self.beats_seen += beats_of(f) as usize;
        }
        self.frames_seen = self.nic.tx_frames.len();
        new
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Beats of a frame on the 64-bit MAC stream.
pub fn beats_of(frame: &[u8]) -> u64 {
    frame_beats(frame).len() as u64
}
