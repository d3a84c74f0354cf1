//! Configuration registers by name: the `--set NAME=VALUE` of every command that runs a NIC.
//!
//! The names are those of the register map in `nanotransport_hdl::nic::register_map` (byte address =
//! 4 × index). Each register's valid range is what the hardware reads of it (a 16-bit field is at
//! most 65 535) narrowed where a value would stop the NIC (a zero retransmission timeout, no PULL
//! token) or exceed a structure (credit beyond the 64-bit packet bitmaps). Three names are
//! written as a whole and expand to one or two registers: `own_mac` / `peer_mac`
//! (`02:00:00:00:00:01`) and `own_ip` (`10.0.0.1`). Values are decimal or `0x` hexadecimal.
//! The time registers also take nanoseconds (`rto_ns`, `gc_timeout_ns`, `pace_ns`,
//! [`TIME_REGISTERS`]), converted with the NIC's clock.
//!
//! A timeout and threshold whose product outlasts what the receiver remembers of delivered
//! messages are refused as well ([`check_retransmission_horizon`]).
//!
//! A bad `--set` is one line naming the register and its valid range, e.g.
//! `--set rtt_pkts=65: out of range; rtt_pkts takes 0..=64 (BDP in packets …)`.

use crate::cosim::ports::Ports;
use crate::nic::NicSim;
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::configs::NicParams;
use nanotransport_hdl::nic::register_map::*;

/// One configuration register the command line may set.
#[derive(Clone, Copy, Debug)]
pub struct ConfigRegister {
    pub name: &'static str,
    /// Register index (byte address = 4 × index).
    pub index: usize,
    pub min: u64,
    pub max: u64,
    pub meaning: &'static str,
    /// The value a name stands for, where the register takes names beside numbers
    /// (`--set ack_policy=model`).
    pub value_of_name: Option<fn(&str) -> Option<u64>>,
}

const fn reg(name: &'static str, index: usize, min: u64, max: u64, meaning: &'static str) -> ConfigRegister {
    ConfigRegister { name, index, min, max, meaning, value_of_name: None }
}

fn ack_policy_of_name(name: &str) -> Option<u64> {
    AckPolicy::ALL.into_iter().find(|p| p.name() == name).map(|p| p.value() as u64)
}

const U32: u64 = u32::MAX as u64;

/// Every single configuration register, in address order.
pub const CONFIG_REGISTERS: &[ConfigRegister] = &[
    reg("own_mac_lo", CFG_OWN_MAC_LO, 0, U32, "own MAC bits 31-0"),
    reg("own_mac_hi", CFG_OWN_MAC_HI, 0, 0xFFFF, "own MAC bits 47-32"),
    reg("peer_mac_lo", CFG_PEER_MAC_LO, 0, U32, "next-hop MAC bits 31-0"),
    reg("peer_mac_hi", CFG_PEER_MAC_HI, 0, 0xFFFF, "next-hop MAC bits 47-32"),
    reg("own_ip_addr", CFG_OWN_IP, 0, U32, "own IPv4 address as a number"),
    reg("rtt_pkts", CFG_RTT_PKTS, 0, 64, "BDP in packets, the initial credit; packet bitmaps are 64 wide"),
    reg("rto_cycles", CFG_RTO_CYCLES, 1, U32, "retransmission timeout in cycles"),
    reg("timeout_threshold", CFG_TIMEOUT_THRESHOLD, 1, 255, "timeouts without progress before a message is abandoned"),
    reg("gc_timeout", CFG_GC_TIMEOUT, 1, U32, "receive garbage-collection timeout in cycles"),
    reg("pace_cycles", CFG_PACE_CYCLES, 0, 0xFFFF, "PULL pacing interval in cycles, 0 = no pacing"),
    reg("bucket_max", CFG_BUCKET_MAX, 1, 255, "PULL pacer bucket size in tokens"),
    reg("ctrl_burst_limit", CFG_CTRL_BURST_LIMIT, 0, 255, "control packets the arbiter sends before a waiting data packet"),
    reg("overcommit", CFG_OVERCOMMIT, 1, 16, "Homa: messages granted at once (the scheduler compares 16)"),
    reg("unsched_prios", CFG_UNSCHED_PRIOS, 0, 8, "Homa: unscheduled priority levels U (8 DSCP priorities at the switch)"),
    reg("recovery_options", CFG_RECOVERY_OPTIONS, 0, 3, "bit 0: retransmit at a message's first timeout (the thesis: at the second); bit 1: lost-GRANT recovery (idle timeout resends the highest credited packet; Homa answers a duplicate with its current GRANT)"),
    ConfigRegister {
        value_of_name: Some(ack_policy_of_name),
        ..reg(
            "ack_policy",
            CFG_ACK_POLICY,
            0,
            2,
            "Homa: what a DATA packet gets back: 0 or prototype (GRANT, else ACK; duplicates nothing), 1 or model (the ns-3 model's: Homa GRANTs and the completion ACK only, Homa-Tr an ACK per packet), 2 or duplicate-acks (prototype, and an ACK per duplicate)",
        )
    },
];

/// A write of `value` to the configuration register at byte address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterWrite {
    pub addr: u64,
    pub value: u32,
}

/// The register called `name`.
pub fn find_register(name: &str) -> Option<&'static ConfigRegister> {
    CONFIG_REGISTERS.iter().find(|r| r.name == name)
}

fn valid_names() -> String {
    let mut names: Vec<&str> = vec!["own_mac", "peer_mac", "own_ip"];
    names.extend(CONFIG_REGISTERS.iter().map(|r| r.name));
    names.extend(TIME_REGISTERS.iter().map(|t| t.0));
    names.join(", ")
}

fn parse_number(text: &str) -> Option<u64> {
    let t = text.trim().replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

fn write(index: usize, value: u64) -> RegisterWrite {
    RegisterWrite { addr: 4 * index as u64, value: value as u32 }
}

/// The time registers by a name in nanoseconds: `rto_ns`, `gc_timeout_ns` and `pace_ns` take a
/// time (decimal, fractions allowed) and write its cycles at the NIC's clock, rounded; the
/// cycles must be in the register's range.
pub const TIME_REGISTERS: &[(&str, &str)] = &[("rto_ns", "rto_cycles"), ("gc_timeout_ns", "gc_timeout"), ("pace_ns", "pace_cycles")];

/// Parses one `NAME=VALUE` into the register writes it stands for; a time in nanoseconds
/// ([`TIME_REGISTERS`]) is converted with `clock`.
pub fn parse_set(arg: &str, clock: NicClock) -> Result<Vec<RegisterWrite>, String> {
    let (name, value) = arg.split_once('=').ok_or_else(|| format!("--set {arg}: expected NAME=VALUE; registers: {}", valid_names()))?;
    let (name, value) = (name.trim(), value.trim());
    let bad = |what: &str| format!("--set {arg}: {what}");
    if let Some(&(_, cycles_name)) = TIME_REGISTERS.iter().find(|t| t.0 == name) {
        let r = find_register(cycles_name).expect("a time register names a register");
        let range = || {
            format!(
                "{name} takes {}..={} ns at {clock} ({}..={} cycles: {})",
                clock.ns_of_cycles(r.min),
                clock.ns_of_cycles(r.max),
                r.min,
                r.max,
                r.meaning
            )
        };
        let ns: f64 = value.replace('_', "").parse().map_err(|_| bad(&format!("not a number; {}", range())))?;
        let cycles = clock.cycles_of_ns(ns);
        if !ns.is_finite() || ns < 0.0 || cycles < r.min || cycles > r.max {
            return Err(bad(&format!("out of range ({cycles} cycles); {}", range())));
        }
        if ns > 0.0 && cycles == 0 {
            // 0 cycles means "off" (no pacing): a time meant as one must not turn it off.
            return Err(bad(&format!("rounds to 0 cycles, which is off; give 0 for off or at least {} ns", clock.ns_of_cycles(1) / 2.0)));
        }
        return Ok(vec![write(r.index, cycles)]);
    }
    match name {
        "own_mac" | "peer_mac" => {
            let mac = parse_mac(value).map_err(|_| bad(&format!("{name} takes a MAC address aa:bb:cc:dd:ee:ff")))?;
            let lo = if name == "own_mac" { CFG_OWN_MAC_LO } else { CFG_PEER_MAC_LO };
            Ok(vec![write(lo, mac & 0xFFFF_FFFF), write(lo + 1, mac >> 32)])
        }
        "own_ip" => {
            let ip = parse_ipv4(value).map_err(|_| bad("own_ip takes an IPv4 address a.b.c.d"))?;
            Ok(vec![write(CFG_OWN_IP, ip as u64)])
        }
        _ => {
            let r = find_register(name).ok_or_else(|| bad(&format!("unknown register; registers: {}", valid_names())))?;
            let v = r
                .value_of_name
                .and_then(|of_name| of_name(value))
                .or_else(|| parse_number(value))
                .ok_or_else(|| bad(&format!("not a number; {} takes {}..={} ({})", r.name, r.min, r.max, r.meaning)))?;
            if v < r.min || v > r.max {
                return Err(bad(&format!("out of range; {} takes {}..={} ({})", r.name, r.min, r.max, r.meaning)));
            }
            Ok(vec![write(r.index, v)])
        }
    }
}

/// Parses every `--set` argument for the NIC `nic` (times converted with its clock), in order (a
/// later write to the same register wins), and refuses a retransmission timeout and threshold
/// that together outlast the receiver's delivered set ([`check_retransmission_horizon`]; a
/// register not written keeps the NIC's default).
pub fn parse_sets(args: &[String], nic: &NicParams) -> Result<Vec<RegisterWrite>, String> {
    let mut writes = Vec::new();
    for a in args {
        writes.extend(parse_set(a, nic.clock)?);
    }
    check_writes_horizon(&writes, nic).map_err(|e| format!("--set: {e}"))?;
    Ok(writes)
}

/// [`check_retransmission_horizon`] for the NIC `nic` after `writes` (a register they do not
/// write keeps the NIC's default).
pub fn check_writes_horizon(writes: &[RegisterWrite], nic: &NicParams) -> Result<(), String> {
    let d = &nic.config_defaults;
    let rto = value_written(writes, CFG_RTO_CYCLES).unwrap_or(d[CFG_RTO_CYCLES]);
    let threshold = value_written(writes, CFG_TIMEOUT_THRESHOLD).unwrap_or(d[CFG_TIMEOUT_THRESHOLD]);
    check_retransmission_horizon(rto as u64, threshold as u64)
}

/// Writes `writes` through the NIC's AXI4-Lite port; an error response is an error.
pub fn apply<B: Ports>(nic: &mut NicSim<B>, writes: &[RegisterWrite]) -> Result<(), String> {
    for w in writes {
        match nic.write_register(w.addr, w.value) {
            0 => {}
            r => return Err(format!("register {:#05x} write answered {r}", w.addr)),
        }
    }
    Ok(())
}

/// The value `writes` leave in register `index`, if they write it.
pub fn value_written(writes: &[RegisterWrite], index: usize) -> Option<u32> {
    writes.iter().rev().find(|w| w.addr == 4 * index as u64).map(|w| w.value)
}

/// A dotted IPv4 address as a number.
pub fn parse_ipv4(s: &str) -> Result<u32, String> {
    s.parse::<std::net::Ipv4Addr>().map(u32::from).map_err(|_| format!("'{s}' is not a dotted IPv4 address"))
}

/// A MAC address `aa:bb:cc:dd:ee:ff` as a number.
pub fn parse_mac(s: &str) -> Result<u64, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let bad = || format!("'{s}' is not a MAC address (six hex bytes separated by ':')");
    if parts.len() != 6 {
        return Err(bad());
    }
    parts.iter().try_fold(0u64, |m, p| {
        if p.len() != 2 {
            return Err(bad());
        }
        u8::from_str_radix(p, 16).map(|b| m << 8 | b as u64).map_err(|_| bad())
    })
}
