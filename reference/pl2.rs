//! Transaction-level reference model of PL2's switch scheduling (Algorithm 1 of the PL2 paper
//! with §4.4's unsolicited bursts), one call per packet descriptor.
//!
//! Written from the algorithm with plain integers and the choices stated in
//! `nanotransport_hdl::switch::pl2_reservation`: counters never below 0 nor above 2^32 − 1,
//! demand clamped to K, unsolicited data dropped when `out[dst] > T`, untouched counters for
//! dropped packets.

use nanotransport_hdl::switch::pl2_reservation::Pl2Kind;

/// One packet as the block sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub kind: Pl2Kind,
    pub src_port: u8,
    pub dst_port: u8,
    /// RSV: timeslots asked for.
    pub demand: u8,
}

/// The block's two configuration inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pl2Config {
    /// K: timeslots one RSV may reserve.
    pub max_demand: u8,
    /// T: timeslots on `out[dst]` above which unsolicited data is dropped.
    pub unsolicited_limit: u32,
}

/// What the block does with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub drop: bool,
    /// An RSV granted: a GRT goes back to the sender.
    pub grant: bool,
    /// Timeslots granted (RSV; else 0).
    pub demand: u8,
    pub send_timeslot: u32,
    pub recv_timeslot: u32,
}

impl Decision {
    /// The sender's chosen timeslot, `max(sendTimeslot, recvTimeslot)` (§4.2.1).
    pub fn chosen_timeslot(&self) -> u32 {
        self.send_timeslot.max(self.recv_timeslot)
    }
}

/// The block's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pl2Counts {
    pub rsv: u32,
    pub data: u32,
    pub refused: u32,
    pub bad_port: u32,
    pub bad_demand: u32,
    pub clamped: u32,
    pub underflow: u32,
    pub saturated: u32,
}

/// The reservations of every port.
#[derive(Clone, Debug)]
pub struct Pl2Model {
    in_reservation: Vec<u32>,
    out_reservation: Vec<u32>,
    pub counts: Pl2Counts,
}

impl Pl2Model {
    pub fn new(ports: usize) -> Self {
        Pl2Model { in_reservation: vec![0; ports], out_reservation: vec![0; ports], counts: Pl2Counts::default() }
    }

    /// `(inReservation, outReservation)` of a port.
    pub fn reservations(&self, port: usize) -> (u32, u32) {
        (self.in_reservation[port], self.out_reservation[port])
    }

    pub fn process(&mut self, d: &Descriptor, cfg: Pl2Config) -> Decision {
        let ports = self.in_reservation.len();
        let (src, dst) = (d.src_port as usize, d.dst_port as usize);
        if src >= ports || dst >= ports {
            self.counts.bad_port += 1;
            return Decision { drop: true, ..Decision::default() };
        }
        match d.kind {
            Pl2Kind::Other => Decision::default(),
            Pl2Kind::Reserve => {
                let demand = d.demand.min(cfg.max_demand);
                if d.demand > cfg.max_demand {
                    self.counts.clamped += 1;
                }
                if demand == 0 {
                    self.counts.bad_demand += 1;
                    return Decision { drop: true, ..Decision::default() };
                }
                let recv_timeslot = self.out_reservation[dst];
                let send_timeslot = self.in_reservation[src];
                let (out_new, out_clipped) = recv_timeslot.overflowing_add(demand as u32);
                let (in_new, in_clipped) = send_timeslot.overflowing_add(demand as u32);
                self.out_reservation[dst] = if out_clipped { u32::MAX } else { out_new };
                self.in_reservation[src] = if in_clipped { u32::MAX } else { in_new };
                if out_clipped || in_clipped {
                    self.counts.saturated += 1;
                }
                self.counts.rsv += 1;
                Decision { drop: false, grant: true, demand, send_timeslot, recv_timeslot }
            }
            Pl2Kind::Data | Pl2Kind::UnsolicitedData => {
                if d.kind == Pl2Kind::UnsolicitedData && self.out_reservation[dst] > cfg.unsolicited_limit {
                    self.counts.refused += 1;
                    return Decision { drop: true, ..Decision::default() };
                }
                let at_zero = self.out_reservation[dst] == 0 || self.in_reservation[src] == 0;
                self.out_reservation[dst] = self.out_reservation[dst].saturating_sub(1);
                self.in_reservation[src] = self.in_reservation[src].saturating_sub(1);
                if at_zero {
                    self.counts.underflow += 1;
                }
                self.counts.data += 1;
                Decision::default()
            }
        }
    }
}
