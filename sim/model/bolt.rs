//! Transaction-level reference model of Bolt's switch ingress logic: Algorithm 7 with
//! Algorithm 9 (thesis §4.3), one call per packet descriptor.
//!
//! Written from the algorithms with plain signed integers, independently of the hardware's
//! biased encoding; the widths are the block's (PRU token 16 bits saturating, supply token
//! saturating at −2^23 and capped at one MTU, 32-bit nanosecond time wrapping).

use nanotransport_hdl::switch::bolt_header::{
    FLAG_DATA, FLAG_DEC, FLAG_FIRST, FLAG_INC, FLAG_LAST, Q_SIZE_MAX,
};
use nanotransport_hdl::switch::bolt_ingress::{BoltParams, TOKEN_BIAS};

/// One packet as the ingress sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// The frame carries a Bolt header (IPv4, protocol 153, long enough).
    pub bolt: bool,
    pub flags: u8,
    /// Ethernet frame bytes without FCS.
    pub pkt_len: u16,
    pub ingress_port: u8,
    pub egress_port: u8,
    /// Egress queue occupancy, bytes.
    pub queue_bytes: u32,
    /// Nanosecond clock (wraps at 2^32).
    pub now: u32,
}

/// What the ingress does with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Egress port out of range: dropped.
    pub drop: bool,
    pub flags: u8,
    pub src: bool,
    /// The SRC's `q_size` (occupancy, saturated to 24 bits).
    pub q_size: u32,
    /// The egress port's rate code.
    pub link_rate: u8,
    /// Data packets: the port's PRU token after this packet (else 0).
    pub pru_token: u16,
    /// Data packets: the port's supply token after this packet, in bytes (else 0).
    pub supply_token: i32,
}

impl Decision {
    /// The supply token as the hardware outputs it (biased by 2^23; 0 when not a data packet).
    pub fn supply_token_stored(&self, data: bool) -> u32 {
        if data {
            (self.supply_token as i64 + TOKEN_BIAS) as u32
        } else {
            0
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct PortState {
    pru_token: u16,
    supply_token: i32,
    last_sm_time: Option<u32>,
}

/// Event counts, as the block's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoltCounts {
    pub bad_port: u32,
    pub not_bolt: u32,
    pub src: u32,
    pub pru_token: u32,
    pub pru_grant: u32,
    pub supply_grant: u32,
}

/// The model.
pub struct BoltModel {
    params: BoltParams,
    ports: Vec<PortState>,
    pub counts: BoltCounts,
}

const TOKEN_FLOOR: i64 = -(1 << 23);
/// Inter-arrival times at or above this set the supply token to its cap (§4.4.1).
pub const IDLE_NS: u32 = 65_536;

impl BoltModel {
    pub fn new(params: BoltParams) -> Self {
        let ports = vec![PortState::default(); params.port_rates.len()];
        BoltModel { params, ports, counts: BoltCounts::default() }
    }

    /// Every port forgets its state; counters cleared (the block's reset).
    pub fn reset(&mut self) {
        *self = BoltModel::new(self.params.clone());
    }

    /// Algorithm 9: supply token update for a data packet on `port`.
    fn calculate_supply_token(&mut self, port: usize, d: &Descriptor) {
        let mtu = self.params.mtu as i64;
        let gbps = self.params.port_rates[port].gbps as i64;
        let s = &mut self.ports[port];
        let inter_arrival = s.last_sm_time.map(|t| d.now.wrapping_sub(t));
        s.last_sm_time = Some(d.now);
        s.supply_token = match inter_arrival {
            // First packet since reset, or idle ≥ 65 536 ns: straight to the cap.
            None => mtu as i32,
            Some(ia) if ia >= IDLE_NS => mtu as i32,
            Some(ia) => {
                // BW × inter-arrival in whole bytes: Gb/s × ns / 8.
                let supply = gbps * ia as i64 / 8;
                let demand = d.pkt_len as i64;
                let token = (s.supply_token as i64 + supply - demand).max(TOKEN_FLOOR);
                token.min(mtu) as i32
            }
        };
    }

    /// Algorithm 7 for one packet.
    pub fn ingress(&mut self, d: &Descriptor) -> Decision {
        let port = d.egress_port as usize;
        if port >= self.ports.len() {
            self.counts.bad_port += 1;
            return Decision { drop: true, ..self.forwarded(d) };
        }
        if !d.bolt {
            self.counts.not_bolt += 1;
            return self.forwarded(d);
        }
        let mut flags = d.flags;
        if flags & FLAG_DATA == 0 {
            return self.forwarded(d);
        }
        self.calculate_supply_token(port, d);
        let mtu = self.params.mtu as i32;
        let mut src = false;
        let s = &mut self.ports[port];
        if d.queue_bytes >= self.params.cc_thresh {
            if flags & FLAG_DEC == 0 {
                src = true;
                flags |= FLAG_DEC;
                flags &= !FLAG_INC;
                self.counts.src += 1;
            }
        } else if flags & FLAG_LAST != 0 {
            if flags & FLAG_FIRST == 0 {
                s.pru_token = s.pru_token.saturating_add(1);
                self.counts.pru_token += 1;
            }
        } else if flags & FLAG_INC != 0 {
            if s.pru_token > 0 {
                s.pru_token -= 1;
                self.counts.pru_grant += 1;
            } else if s.supply_token >= mtu {
                s.supply_token -= mtu;
                self.counts.supply_grant += 1;
            } else {
                flags &= !FLAG_INC;
            }
        }
        Decision {
            drop: false,
            flags,
            src,
            q_size: d.queue_bytes.min(Q_SIZE_MAX),
            link_rate: self.params.port_rates[port].code,
            pru_token: s.pru_token,
            supply_token: s.supply_token,
        }
    }

    fn forwarded(&self, d: &Descriptor) -> Decision {
        let link_rate = self.params.port_rates.get(d.egress_port as usize).map(|r| r.code).unwrap_or(0);
        Decision {
            drop: false,
            flags: d.flags,
            src: false,
            q_size: d.queue_bytes.min(Q_SIZE_MAX),
            link_rate,
            pru_token: 0,
            supply_token: 0,
        }
    }
}
