//! Bolt's switch ingress logic (thesis §4.3, Algorithm 7 with Algorithm 9, §4.4.1): per data
//! packet, decide on an SRC, on PRU tokens and on supply tokens, for one packet descriptor per
//! cycle.
//!
//! The block works on a packet descriptor (parsed Bolt header, frame length, ports, the egress
//! queue's occupancy, the time) and returns the decision; building the SRC packet and carrying the
//! frame are the stream wrapper's job. State per egress port (`P = 2^PW` ports):
//! - PRU token: 16 bits, unsigned, saturating at 65 535;
//! - supply token: signed bytes in `[-2^23, MTU]`, kept as a biased unsigned 24-bit value
//!   (`stored = token + 2^23`; the output `out_supply_token` is the stored value): additions
//!   saturate at `-2^23` and the cap is one MTU (Algorithm 9 line 7);
//! - time of the last data packet (32-bit nanosecond counter; differences are taken modulo 2^32,
//!   so the counter may wrap; a port idle for 2^32 ns or longer is seen as idle for that time
//!   modulo 2^32).
//!
//! Per data packet (`in_bolt` and the DATA flag), exactly as Algorithm 7, nesting kept:
//! ```text
//! supply token (Alg. 9): += floor(rate × inter-arrival) − frame length, min(·, MTU);
//!                        inter-arrival ≥ 65 536 ns (or the port's first packet) sets it to MTU
//! if queue ≥ CC_THRESH:            congested: nothing else happens to this packet
//!     if not DEC: emit SRC; set DEC; clear INC
//! elif LAST and PRU on:  if not FIRST: PRU token += 1
//! elif INC:   if PRU on and PRU token > 0: PRU token −= 1
//!             elif SM on and supply token ≥ MTU: supply token −= MTU
//!             else: clear INC
//! ```
//! MTU, CC_THRESH and whether PRU and SM (supply matching) are on are **configuration inputs**
//! (`cfg_*`), read every cycle, so an experiment changes them without regenerating the Verilog
//! (the thesis' ablations: PRU off, SM off). With PRU off no token is made or used; with SM off
//! the supply token is still kept but never granted. The MTU is registered (it takes effect one
//! cycle after it changes); change the inputs while no packet is in flight (a packet in the
//! pipeline sees the values of the cycle it reaches s2 in), and wait a cycle after changing the
//! MTU.
//! Other packets are forwarded unchanged and touch no state (Algorithm 7 line 2). The supply
//! comes from [`SupplyUnit`]: a multiplier or the thesis' 65 536-entry table.
//!
//! # Bad input
//! - egress port ≥ `P`: the packet is dropped (`out_drop`) and counted in `bad_port_count`;
//! - `in_bolt` low (not IPv4, not Bolt, too short, as the parser found): forwarded untouched and
//!   counted in `not_bolt_count`;
//! - queue occupancy above 2^24 − 1 bytes: `out_q_size` (the SRC's `q_size`) saturates at
//!   2^24 − 1; the congestion test uses the full 32-bit occupancy.
//!
//! # Ports
//! | port               | dir | width | meaning                                                 |
//! |--------------------|-----|-------|---------------------------------------------------------|
//! | `clock`, `reset`   | in  | 1     | synchronous reset: every port forgets its state, counters cleared |
//! | `now`              | in  | 32    | time in nanoseconds (wraps)                              |
//! | `in_valid`         | in  | 1     | a descriptor this cycle (always accepted)                |
//! | `in_bolt`          | in  | 1     | the frame carries a Bolt header                          |
//! | `in_flags`         | in  | 8     | Bolt flags byte (data = bit 7 … reserved = bit 0)         |
//! | `in_pkt_len`       | in  | 16    | Ethernet frame length without FCS (the demand, bytes)    |
//! | `in_ingress_port`  | in  | 8     | where the frame came in (the SRC goes back there)        |
//! | `in_egress_port`   | in  | 8     | routing's choice                                         |
//! | `in_queue_bytes`   | in  | 32    | occupancy of the egress queue, bytes                     |
//! | `cfg_mtu`          | in  | 16    | MTU, bytes: the supply token's cap and one supply grant's cost |
//! | `cfg_cc_thresh`    | in  | 32    | CC_THRESH, bytes: a port is congested at or above it     |
//! | `cfg_pru_enable`, `cfg_sm_enable` | in | 1 | PRU on, supply matching on                  |
//! | `out_valid`        | out | 1     | the decision for the descriptor of 3 cycles ago          |
//! | `out_drop`         | out | 1     | egress port out of range: drop the frame                 |
//! | `out_flags`        | out | 8     | flags to forward (DEC set / INC cleared as decided)      |
//! | `out_src`          | out | 1     | send an SRC back to `out_ingress_port`                   |
//! | `out_q_size`       | out | 24    | saturated queue occupancy for the SRC                    |
//! | `out_link_rate`    | out | 8     | rate code of the egress port for the SRC                 |
//! | `out_ingress_port`, `out_egress_port` | out | 8 | as given                                  |
//! | `out_pkt_len`      | out | 16    | as given                                                 |
//! | `out_pru_token`    | out | 16    | data packets: the port's PRU token after it (else 0)     |
//! | `out_supply_token` | out | 24    | data packets: the port's supply token + 2^23 after it (else 0) |
//! | `bad_port_count`, `not_bolt_count` | out | 32 | bad-input counters (wrapping)          |
//! | `src_count`        | out | 32    | SRCs decided                                             |
//! | `pru_token_count`  | out | 32    | PRU tokens created (LAST, not FIRST, not congested)       |
//! | `pru_grant_count`  | out | 32    | INC kept by consuming a PRU token                        |
//! | `supply_grant_count` | out | 32  | INC kept by consuming one MTU of supply token            |
//!
//! # Latency and throughput
//! Descriptor in at cycle t → decision out (`out_valid`) at cycle t + 3; one descriptor per cycle,
//! no back-pressure, including back-to-back packets to the same egress port.
//! ```text
//!  s0 (t)    read last-arrival time and port config (RAM), write now as the last arrival
//!  s1 (t+1)  inter-arrival = now − last (mod 2^32) → supply unit; read the port's tokens (RAM)
//!  s2 (t+2)  tokens = RAM data, or the value written in the previous cycle if it was the same port
//!            (forwarding: the RAM reads before it writes); Algorithm 7; write the tokens back
//!  s3 (t+3)  registered decision on the outputs
//! ```
//! Flag bits are written as numbers inside the update (rust-hdl cannot name constants there):
//! data 7, last 4, first 3, inc 2, dec 1 (see [`crate::switch::bolt_header`]).
//!
//! The last-arrival time needs no forwarding: it is read and written in the same cycle (s0), so the
//! read returns the previous packet's time even when that packet was one cycle earlier.

use crate::common::event_counter::WrappingCounter;
use crate::switch::bolt_header::Q_SIZE_MAX;
use crate::switch::supply_unit::{SupplyMode, SupplyUnit};
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Bias of the stored supply token: `stored = token + TOKEN_BIAS`.
pub const TOKEN_BIAS: i64 = 1 << 23;
/// Default MTU (the NIC's: 64 B header + 1024 B payload) and CC_THRESH (one MTU).
pub const DEFAULT_MTU: u32 = 1088;

/// One egress port's link: rate (whole Gb/s, at most 2047) and the code stamped into SRCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRate {
    pub gbps: u16,
    pub code: u8,
}

impl PortRate {
    /// 100 Gb/s, stamped as code 100 (the default encoding: Gb/s).
    pub const DEFAULT: PortRate = PortRate { gbps: 100, code: 100 };

    /// Bytes per nanosecond × 256.
    pub fn rate_q8(&self) -> u16 {
        assert!(self.gbps <= 2047, "link rates up to 2047 Gb/s");
        self.gbps * 32
    }
}

/// Parameters of the block: what is generated into it (port rates, supply unit) and its
/// configuration inputs' values ([`BOLT_CONFIG_INPUTS`]), which the testbenches drive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoltParams {
    /// Bytes; the supply token's cap and the amount one supply grant costs (`cfg_mtu`).
    pub mtu: u32,
    /// Queue occupancy (bytes) at or above which a port is congested (`cfg_cc_thresh`).
    pub cc_thresh: u32,
    /// PRU on (`cfg_pru_enable`).
    pub pru: bool,
    /// Supply matching on (`cfg_sm_enable`).
    pub sm: bool,
    /// One entry per egress port.
    pub port_rates: Vec<PortRate>,
    pub supply: SupplyMode,
}

impl BoltParams {
    /// MTU and CC_THRESH of 1088 B, PRU and SM on, every port at 100 Gb/s, multiplier.
    pub fn defaults(ports: usize) -> Self {
        BoltParams {
            mtu: DEFAULT_MTU,
            cc_thresh: DEFAULT_MTU,
            pru: true,
            sm: true,
            port_rates: vec![PortRate::DEFAULT; ports],
            supply: SupplyMode::Multiply,
        }
    }

    /// The configuration inputs' values, in the order of [`BOLT_CONFIG_INPUTS`].
    pub fn config_inputs(&self) -> [u64; 4] {
        [self.mtu as u64, self.cc_thresh as u64, self.pru as u64, self.sm as u64]
    }
}

/// The block's configuration inputs.
pub const BOLT_CONFIG_INPUTS: [&str; 4] = ["cfg_mtu", "cfg_cc_thresh", "cfg_pru_enable", "cfg_sm_enable"];

/// The Bolt ingress block for `P = 2^PW` egress ports (at most 128).
#[ports(
    in clock: Clock;
    in reset, in_valid, in_bolt, cfg_pru_enable, cfg_sm_enable: Bit;
    in now, in_queue_bytes, cfg_cc_thresh: Bits<32>;
    in in_flags, in_ingress_port, in_egress_port: Bits<8>;
    in in_pkt_len, cfg_mtu: Bits<16>;
    out out_valid, out_drop, out_src: Bit;
    out out_flags, out_link_rate, out_ingress_port, out_egress_port: Bits<8>;
    out out_q_size, out_supply_token: Bits<24>;
    out out_pkt_len, out_pru_token: Bits<16>;
    out bad_port_count, not_bolt_count, src_count, pru_token_count, pru_grant_count, supply_grant_count: Bits<32>;
)]
#[registers(
    seen: Bits<P>;
    // Stage 0 → 1.
    s1_valid, s1_bolt, s1_port_ok, s1_fresh: Bit;
    s1_flags, s1_ingress, s1_egress: Bits<8>;
    s1_len: Bits<16>;
    s1_queue, s1_now: Bits<32>;
    // Stage 1 → 2.
    s2_valid, s2_bolt, s2_port_ok, s2_fresh, s2_long_gap: Bit;
    s2_flags, s2_ingress, s2_egress, s2_rate_code: Bits<8>;
    s2_len: Bits<16>;
    s2_queue: Bits<32>;
    // Stage 2 → 3 (the outputs) and the forwarding copy of the last token write.
    s3_valid, s3_drop, s3_src, s3_wrote: Bit;
    s3_flags, s3_rate_code, s3_ingress, s3_egress: Bits<8>;
    s3_q_size, s3_token: Bits<24>;
    s3_len, s3_pru: Bits<16>;
    // The configuration, registered (it is quasi-static: the token cap's adder stays off the
    // token path).
    cfg_mtu_q, cfg_token_cap_q: Bits<24>;
)]
#[locals(
    // Stage 0 locals.
    s0_port: Bits<PW>;
    s0_port_ok, s0_is_data: Bit;
    // Stage 1 locals.
    s1_port: Bits<PW>;
    s1_inter_arrival: Bits<32>;
    s1_rate_cfg: Bits<24>;
    // Stage 2 locals.
    s2_mtu, s2_token_cap, s2_old_token, s2_token, s2_new_token: Bits<24>;
    s2_token_cap_wide, s2_sum, s2_demand, s2_after_demand, s2_capped: Bits<26>;
    s2_port: Bits<PW>;
    s2_is_data, s2_forward, s2_congested, s2_src, s2_pru_made, s2_pru_grant, s2_supply_grant: Bit;
    s2_mem_tokens: Bits<40>;
    s2_old_pru, s2_new_pru: Bits<16>;
    s2_new_flags, s2_dec_set: Bits<8>;
)]
#[derive(LogicBlock, Blank)]
pub struct BoltIngress<const P: usize, const PW: usize> {
    // Parameters.
    num_ports: Constant<Bits<8>>,
    token_bias: Constant<Bits<24>>,
    q_size_max: Constant<Bits<32>>,
    // Per-port memories.
    last_arrival_mem: RAM<Bits<32>, PW>,
    port_cfg_mem: RAM<Bits<24>, PW>,
    token_mem: RAM<Bits<40>, PW>,
    supply_unit: SupplyUnit,
    // Counters.
    bad_ports: WrappingCounter<32>,
    not_bolts: WrappingCounter<32>,
    srcs: WrappingCounter<32>,
    pru_tokens: WrappingCounter<32>,
    pru_grants: WrappingCounter<32>,
    supply_grants: WrappingCounter<32>,
}

impl<const P: usize, const PW: usize> Default for BoltIngress<P, PW> {
    fn default() -> Self {
        Self::new(BoltParams::defaults(P))
    }
}

impl<const P: usize, const PW: usize> BoltIngress<P, PW> {
    pub fn new(params: BoltParams) -> Self {
        assert_eq!(P, 1 << PW, "the block holds exactly 2^PW ports");
        assert!(P <= 128, "egress port numbers are 8 bits and must be able to be out of range");
        assert_eq!(params.port_rates.len(), P, "one link rate per port");
        assert!(params.mtu < (1 << 16), "MTU must be below 64 KiB");
        if let SupplyMode::LookupTable { rate_q8, .. } = &params.supply {
            assert!(params.port_rates.iter().all(|r| r.rate_q8() == *rate_q8), "the lookup table holds one rate: every port must have it");
        }
        let cfg: BTreeMap<Bits<PW>, Bits<24>> = params
            .port_rates
            .iter()
            .enumerate()
            .map(|(i, r)| ((i as u64).into(), (((r.code as u64) << 16) | r.rate_q8() as u64).into()))
            .collect();
        Self {
            num_ports: Constant::new((P as u64).into()),
            token_bias: Constant::new((TOKEN_BIAS as u64).into()),
            q_size_max: Constant::new((Q_SIZE_MAX as u64).into()),
            port_cfg_mem: RAM::new(cfg),
            supply_unit: SupplyUnit::new(params.supply.clone()),
            ..Self::blank()
        }
    }
}

impl<const P: usize, const PW: usize> Logic for BoltIngress<P, PW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            seen,
            cfg_mtu_q,
            cfg_token_cap_q,
            s1_valid,
            s1_bolt,
            s1_port_ok,
            s1_fresh,
            s1_flags,
            s1_len,
            s1_ingress,
            s1_egress,
            s1_queue,
            s1_now,
            s2_valid,
            s2_bolt,
            s2_port_ok,
            s2_fresh,
            s2_long_gap,
            s2_flags,
            s2_len,
            s2_ingress,
            s2_egress,
            s2_queue,
            s2_rate_code,
            s3_valid,
            s3_drop,
            s3_flags,
            s3_src,
            s3_q_size,
            s3_rate_code,
            s3_ingress,
            s3_egress,
            s3_len,
            s3_pru,
            s3_token,
            s3_wrote
        );
        status_counters!(
            self,
            clock,
            reset,
            bad_ports => bad_port_count,
            not_bolts => not_bolt_count,
            pru_grants => pru_grant_count,
            pru_tokens => pru_token_count,
            srcs => src_count,
            supply_grants => supply_grant_count,
        );
        self.last_arrival_mem.read_clock.next = self.clock.val();
        self.last_arrival_mem.write_clock.next = self.clock.val();
        self.port_cfg_mem.read_clock.next = self.clock.val();
        self.port_cfg_mem.write_clock.next = self.clock.val();
        self.token_mem.read_clock.next = self.clock.val();
        self.token_mem.write_clock.next = self.clock.val();
        self.supply_unit.clock.next = self.clock.val();

        // ---- s0: descriptor in; last-arrival time read and written in the same cycle.
        self.s0_port.next = bit_cast::<PW, 8>(self.in_egress_port.val());
        self.s0_port_ok.next = self.in_egress_port.val() < self.num_ports.val();
        self.s0_is_data.next = ((self.in_valid.val() & self.in_bolt.val()) & self.s0_port_ok.val()) & self.in_flags.val().get_bit(7);
        self.last_arrival_mem.read_address.next = self.s0_port.val();
        self.last_arrival_mem.write_address.next = self.s0_port.val();
        self.last_arrival_mem.write_data.next = self.now.val();
        self.last_arrival_mem.write_enable.next = self.s0_is_data.val();
        self.port_cfg_mem.read_address.next = self.s0_port.val();
        self.port_cfg_mem.write_address.next = self.s0_port.val();
        self.port_cfg_mem.write_data.next = 0.into();
        self.port_cfg_mem.write_enable.next = false;
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_bolt.d.next = self.in_bolt.val();
        self.s1_port_ok.d.next = self.s0_port_ok.val();
        self.s1_fresh.d.next = !self.seen.q.val().get_bit(self.s0_port.val().index());
        self.s1_flags.d.next = self.in_flags.val();
        self.s1_len.d.next = self.in_pkt_len.val();
        self.s1_ingress.d.next = self.in_ingress_port.val();
        self.s1_egress.d.next = self.in_egress_port.val();
        self.s1_queue.d.next = self.in_queue_bytes.val();
        self.s1_now.d.next = self.now.val();
        if self.s0_is_data.val() {
            self.seen.d.next = self.seen.q.val().replace_bit(self.s0_port.val().index(), true);
        }
        if self.in_valid.val() & (!self.s0_port_ok.val()) {
            self.bad_ports.increment.next = true;
        }
        if (self.in_valid.val() & self.s0_port_ok.val()) & (!self.in_bolt.val()) {
            self.not_bolts.increment.next = true;
        }

        // ---- s1: inter-arrival time → supply unit; read the port's tokens.
        self.s1_port.next = bit_cast::<PW, 8>(self.s1_egress.q.val());
        self.s1_inter_arrival.next = self.s1_now.q.val() - self.last_arrival_mem.read_data.val();
        self.s1_rate_cfg.next = self.port_cfg_mem.read_data.val();
        self.supply_unit.inter_arrival.next = self.s1_inter_arrival.val().get_bits::<16>(0);
        self.supply_unit.rate_q8.next = self.s1_rate_cfg.val().get_bits::<16>(0);
        self.token_mem.read_address.next = self.s1_port.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_bolt.d.next = self.s1_bolt.q.val();
        self.s2_port_ok.d.next = self.s1_port_ok.q.val();
        self.s2_fresh.d.next = self.s1_fresh.q.val();
        self.s2_long_gap.d.next = self.s1_fresh.q.val() | self.s1_inter_arrival.val().get_bits::<16>(16).any();
        self.s2_flags.d.next = self.s1_flags.q.val();
        self.s2_len.d.next = self.s1_len.q.val();
        self.s2_ingress.d.next = self.s1_ingress.q.val();
        self.s2_egress.d.next = self.s1_egress.q.val();
        self.s2_queue.d.next = self.s1_queue.q.val();
        self.s2_rate_code.d.next = self.s1_rate_cfg.val().get_bits::<8>(16);

        // ---- s2: Algorithm 7 with Algorithm 9 on the port's tokens.
        self.cfg_mtu_q.d.next = bit_cast::<24, 16>(self.cfg_mtu.val());
        self.cfg_token_cap_q.d.next = self.token_bias.val() + bit_cast::<24, 16>(self.cfg_mtu.val());
        self.s2_mtu.next = self.cfg_mtu_q.q.val();
        self.s2_token_cap.next = self.cfg_token_cap_q.q.val();
        self.s2_token_cap_wide.next = bit_cast::<26, 24>(self.s2_token_cap.val());
        self.s2_port.next = bit_cast::<PW, 8>(self.s2_egress.q.val());
        self.s2_is_data.next =
            ((self.s2_valid.q.val() & self.s2_bolt.q.val()) & self.s2_port_ok.q.val()) & self.s2_flags.q.val().get_bit(7);
        // The RAM reads before it writes: the previous cycle's write to this port is forwarded.
        self.s2_forward.next = self.s3_wrote.q.val() & (self.s3_egress.q.val() == self.s2_egress.q.val());
        self.s2_mem_tokens.next = self.token_mem.read_data.val();
        if self.s2_forward.val() {
            self.s2_old_pru.next = self.s3_pru.q.val();
            self.s2_old_token.next = self.s3_token.q.val();
        } else if self.s2_fresh.q.val() {
            self.s2_old_pru.next = 0.into();
            self.s2_old_token.next = self.s2_token_cap.val();
        } else {
            self.s2_old_pru.next = self.s2_mem_tokens.val().get_bits::<16>(24);
            self.s2_old_token.next = self.s2_mem_tokens.val().get_bits::<24>(0);
        }
        // Algorithm 9: token + supply − demand, saturating at −2^23 (stored 0), capped at MTU.
        self.s2_sum.next = bit_cast::<26, 24>(self.s2_old_token.val()) + bit_cast::<26, 24>(self.supply_unit.supply.val());
        self.s2_demand.next = bit_cast::<26, 16>(self.s2_len.q.val());
        self.s2_after_demand.next = 0.into();
        if self.s2_sum.val() >= self.s2_demand.val() {
            self.s2_after_demand.next = self.s2_sum.val() - self.s2_demand.val();
        }
        self.s2_capped.next = self.s2_after_demand.val();
        if self.s2_after_demand.val() > self.s2_token_cap_wide.val() {
            self.s2_capped.next = self.s2_token_cap_wide.val();
        }
        self.s2_token.next = bit_cast::<24, 26>(self.s2_capped.val());
        if self.s2_long_gap.q.val() {
            self.s2_token.next = self.s2_token_cap.val();
        }
        self.s2_congested.next = self.s2_queue.q.val() >= self.cfg_cc_thresh.val();
        self.s2_dec_set.next = self.s2_flags.q.val().replace_bit(1, true);
        // Algorithm 7, nesting kept.
        self.s2_new_flags.next = self.s2_flags.q.val();
        self.s2_new_pru.next = self.s2_old_pru.val();
        self.s2_new_token.next = self.s2_token.val();
        self.s2_src.next = false;
        self.s2_pru_made.next = false;
        self.s2_pru_grant.next = false;
        self.s2_supply_grant.next = false;
        if self.s2_is_data.val() {
            if self.s2_congested.val() {
                if !self.s2_flags.q.val().get_bit(1) {
                    self.s2_src.next = true;
                    self.s2_new_flags.next = self.s2_dec_set.val().replace_bit(2, false);
                }
            } else if self.s2_flags.q.val().get_bit(4) & self.cfg_pru_enable.val() {
                if !self.s2_flags.q.val().get_bit(3) {
                    self.s2_pru_made.next = true;
                    if !self.s2_old_pru.val().all() {
                        self.s2_new_pru.next = self.s2_old_pru.val() + 1;
                    }
                }
            } else if self.s2_flags.q.val().get_bit(2) {
                if self.s2_old_pru.val().any() & self.cfg_pru_enable.val() {
                    self.s2_pru_grant.next = true;
                    self.s2_new_pru.next = self.s2_old_pru.val() - 1;
                } else if (self.s2_token.val() >= self.s2_token_cap.val()) & self.cfg_sm_enable.val() {
                    self.s2_supply_grant.next = true;
                    self.s2_new_token.next = self.s2_token.val() - self.s2_mtu.val();
                } else {
                    self.s2_new_flags.next = self.s2_flags.q.val().replace_bit(2, false);
                }
            }
        }
        self.token_mem.write_address.next = self.s2_port.val();
        self.token_mem.write_data.next = (bit_cast::<40, 16>(self.s2_new_pru.val()) << 24) | bit_cast::<40, 24>(self.s2_new_token.val());
        self.token_mem.write_enable.next = self.s2_is_data.val();
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_drop.d.next = self.s2_valid.q.val() & (!self.s2_port_ok.q.val());
        self.s3_flags.d.next = self.s2_new_flags.val();
        self.s3_src.d.next = self.s2_src.val();
        self.s3_q_size.d.next = bit_cast::<24, 32>(self.s2_queue.q.val());
        if self.s2_queue.q.val() > self.q_size_max.val() {
            self.s3_q_size.d.next = bit_cast::<24, 32>(self.q_size_max.val());
        }
        self.s3_rate_code.d.next = self.s2_rate_code.q.val();
        self.s3_ingress.d.next = self.s2_ingress.q.val();
        self.s3_egress.d.next = self.s2_egress.q.val();
        self.s3_len.d.next = self.s2_len.q.val();
        self.s3_pru.d.next = 0.into();
        self.s3_token.d.next = 0.into();
        if self.s2_is_data.val() {
            self.s3_pru.d.next = self.s2_new_pru.val();
            self.s3_token.d.next = self.s2_new_token.val();
        }
        self.s3_wrote.d.next = self.s2_is_data.val();
        if self.s2_src.val() {
            self.srcs.increment.next = true;
        }
        if self.s2_pru_made.val() {
            self.pru_tokens.increment.next = true;
        }
        if self.s2_pru_grant.val() {
            self.pru_grants.increment.next = true;
        }
        if self.s2_supply_grant.val() {
            self.supply_grants.increment.next = true;
        }

        // ---- s3: outputs.
        self.out_valid.next = self.s3_valid.q.val();
        self.out_drop.next = self.s3_drop.q.val();
        self.out_flags.next = self.s3_flags.q.val();
        self.out_src.next = self.s3_src.q.val();
        self.out_q_size.next = self.s3_q_size.q.val();
        self.out_link_rate.next = self.s3_rate_code.q.val();
        self.out_ingress_port.next = self.s3_ingress.q.val();
        self.out_egress_port.next = self.s3_egress.q.val();
        self.out_pkt_len.next = self.s3_len.q.val();
        self.out_pru_token.next = self.s3_pru.q.val();
        self.out_supply_token.next = self.s3_token.q.val();

        if self.reset.val() {
            self.seen.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.s3_drop.d.next = false;
            self.s3_src.d.next = false;
            self.s3_wrote.d.next = false;
        }
    }
}
