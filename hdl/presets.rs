//! The presets' parameters, below every protocol program and the NIC shell: the protocols
//! ([`Protocol`]), the message counts compiled in ([`COMPILED_SIZES`]), the size classes of each
//! message count ([`rx_classes_for`], [`tx_classes_for`]) and the shell parameters of a preset
//! ([`preset_params`]) with their type ([`ShellParams`], the shell's constructor parameters).
//! [`crate::configs`] names parameter sets made from them.
//!
//! Not a hardware block: no ports, no latency.

use crate::clock::NicClock;
pub use crate::nic::get_rx_msg_info::rx_classes_for;
use crate::nic::get_rx_msg_info::rx_parameter_error;
use crate::nic::register_map::{CONFIG_REGS, DEFAULT_GC_TIMEOUT_PS, DEFAULT_PACE_CYCLES, DEFAULT_RTO_PS};
pub use crate::nic::tx_path::tx_classes_for;
use crate::nic::tx_path::{check_tx_classes, TxSizeClass};

/// A transport protocol: a program on the one NIC shell (thesis §3.3.4). Its name on the command
/// line, in parameter-set files and in JSON is `ndp`, `homa` or `homa-tr`: NDP (Algorithm 5,
/// receiver-driven PULLs, trimming), Homa (Algorithm 6, SRPT GRANTs with overcommitment and
/// unscheduled priorities) and Homa-Tr (§3.4.2, Homa whose trimmed DATA packets are NACKed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    Ndp,
    Homa,
    HomaTr,
}

impl Protocol {
    /// Every protocol, in the order tables list them.
    pub const ALL: [Protocol; 3] = [Protocol::Ndp, Protocol::Homa, Protocol::HomaTr];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Ndp => "ndp",
            Protocol::Homa => "homa",
            Protocol::HomaTr => "homa-tr",
        }
    }

    /// IP protocol number of its packets (NDP 155, Homa and Homa-Tr 154).
    pub fn ip_protocol(self) -> u8 {
        match self {
            Protocol::Ndp => crate::pisa::wire::NDP_IP_PROTOCOL,
            Protocol::Homa | Protocol::HomaTr => crate::pisa::wire::HOMA_IP_PROTOCOL,
        }
    }

    /// Identification at status index 1 of the register map.
    pub fn protocol_id(self) -> u32 {
        use crate::nic::register_map::{PROTOCOL_ID_HOMA, PROTOCOL_ID_HOMA_TR, PROTOCOL_ID_NDP};
        match self {
            Protocol::Ndp => PROTOCOL_ID_NDP,
            Protocol::Homa => PROTOCOL_ID_HOMA,
            Protocol::HomaTr => PROTOCOL_ID_HOMA_TR,
        }
    }

    /// The configuration defaults of its presets at `clock` (the table of
    /// [`crate::nic::register_map`]): the time registers converted from
    /// [`DEFAULT_RTO_PS`] and [`DEFAULT_GC_TIMEOUT_PS`], rounded to whole cycles. Homa and
    /// Homa-Tr: NDP's without pacing, with overcommitment 3 and U = 1 (the thesis prototype's).
    pub const fn config_defaults(self, clock: NicClock) -> [u32; CONFIG_REGS] {
        let rto = clock.cycles_of_ps(DEFAULT_RTO_PS) as u32;
        let gc = clock.cycles_of_ps(DEFAULT_GC_TIMEOUT_PS) as u32;
        match self {
            Protocol::Ndp => [0x0000_0001, 0x0200, 0xFFFF_FFFF, 0xFFFF, 0x0A00_0001, 8, rto, 5, gc, DEFAULT_PACE_CYCLES, 1, 4, 0, 0, 0, 0],
            Protocol::Homa | Protocol::HomaTr => {
                [0x0000_0001, 0x0200, 0xFFFF_FFFF, 0xFFFF, 0x0A00_0001, 8, rto, 5, gc, 0, 1, 4, 3, 1, 0, 0]
            }
        }
    }
}

/// NDP's configuration defaults at the thesis' clock (every NDP preset's).
pub const NDP_CONFIG_DEFAULTS: [u32; CONFIG_REGS] = Protocol::Ndp.config_defaults(NicClock::THESIS);

/// Homa's and Homa-Tr's configuration defaults at the thesis' clock.
pub const HOMA_CONFIG_DEFAULTS: [u32; CONFIG_REGS] = Protocol::Homa.config_defaults(NicClock::THESIS);

crate::named_values!(Protocol, "protocol");

/// `Display` and `FromStr` for an enum whose values have names: `$t` provides `ALL` and
/// `name()`; parsing an unknown name is a one-line error listing the valid ones.
#[macro_export]
macro_rules! named_values {
    ($t:ty, $what:literal) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(name: &str) -> Result<Self, String> {
                <$t>::ALL.into_iter().find(|v| v.name() == name).ok_or_else(|| {
                    let names: Vec<&str> = <$t>::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} '{name}'; valid {}s: {}", $what, $what, names.join(", "))
                })
            }
        }
    };
}

/// Calls `$callback!` with every compiled size as `(messages, IW, BB, PW)`: the one list that
/// [`COMPILED_SIZES`] and the NIC types [`crate::configs::NicParams::generate`] instantiates are made from.
#[macro_export]
macro_rules! with_compiled_sizes {
    ($callback:ident) => {
        $callback!((16, 4, 4, 17), (32, 5, 4, 17), (64, 6, 5, 17), (128, 7, 6, 17), (256, 8, 7, 18), (512, 9, 8, 19), (1024, 10, 9, 20))
    };
}

/// The sizes as an array expression (for [`COMPILED_SIZES`]).
macro_rules! size_table {
    ($(($n:literal, $iw:literal, $bb:literal, $pw:literal)),*) => {
        [$(($n, $iw, $bb, $pw)),*]
    };
}

/// Message counts whose NIC types are compiled in (rust-hdl needs the message-ID width as a
/// type): `(messages, IW, BB, PW)` with `BB` the GetRxMsgInfo bucket bits (2 ways × 2^BB
/// buckets × 2 entries: 4 × N entries at 16, 2 × N above) and `PW` the payload memory of
/// each direction, `2^PW` 64-bit words: 1 MiB up to 128 messages, then doubling with the
/// message count (8 MiB at 1024) so the classes of [`rx_classes_for`] / [`tx_classes_for`] fit.
pub const COMPILED_SIZES: &[(usize, usize, usize, usize)] = &with_compiled_sizes!(size_table);

/// The payload memory address bits (`PW`) of a compiled size.
pub fn payload_word_bits(messages: usize) -> Option<usize> {
    COMPILED_SIZES.iter().find(|s| s.0 == messages).map(|s| s.3)
}

/// The shell parameters of the presets: `protocol` with the size classes of [`rx_classes_for`] /
/// [`tx_classes_for`] and the protocol's register defaults at the thesis' clock.
pub fn preset_params(protocol: Protocol, messages: usize) -> ShellParams {
    ShellParams {
        rx_classes: rx_classes_for(messages),
        tx_classes: tx_classes_for(messages),
        config_defaults: protocol.config_defaults(NicClock::THESIS),
        ip_protocol: protocol.ip_protocol(),
        protocol_id: protocol.protocol_id(),
        trimming: protocol == Protocol::HomaTr,
    }
}

/// Construction parameters of a NIC shell that are not types.
#[derive(Clone, Debug)]
pub struct ShellParams {
    /// Receive size classes: (packets per message, messages), four classes.
    pub rx_classes: [(u64, u64); 4],
    /// Transmit size classes.
    pub tx_classes: Vec<TxSizeClass>,
    /// Reset values of the configuration registers.
    pub config_defaults: [u32; CONFIG_REGS],
    /// IP protocol number the deparser writes and the parser accepts.
    pub ip_protocol: u8,
    /// Identification at status index 1: 1 NDP, 2 Homa, 3 Homa-Tr.
    pub protocol_id: u32,
    /// Homa-Tr's trimming response (ignored by NDP, which always has it).
    pub trimming: bool,
}

impl ShellParams {
    /// Checks the parameters against the sizes `(iw, n, bb, pw)`; the error is one line naming
    /// the parameter.
    pub fn check(&self, iw: usize, n: usize, bb: usize, pw: usize) -> Result<(), String> {
        if n != 1 << iw {
            return Err(format!("messages {n} must be 2^{iw}"));
        }
        check_tx_classes(&self.tx_classes, n, pw)?;
        rx_parameter_error(iw, n, bb, pw, &self.rx_classes)
    }
}
