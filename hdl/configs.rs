//! Named configurations: the parameter sets `nanotransport gen` writes into verilog-out/.
//!
//! Not a hardware block: it has no ports and no latency; it names parameter sets of the blocks.
//!
//! A configuration fixes the number of concurrent messages per direction (which sizes the ID
//! free lists and the timer memories) and the bitmap width (packets per message). rust-hdl
//! parameters are const generics, so each named configuration maps to concrete block types here.
//!
//! # Parameter sets
//! A whole NIC is a [`NicParams`]: protocol (`ndp`, `homa`, `homa-tr`), the clock it runs at
//! ([`NicClock`]: its time registers' defaults are set in nanoseconds and converted with it), messages per direction
//! (a size of [`COMPILED_SIZES`]: 16, 32, 64, 128, 256, 512 or 1024), four receive size classes
//! (packets per message × messages), one to four transmit size classes (buffers × bytes, the
//! buffers summing to the message count), the largest message and the reset values of the
//! configuration registers. The whole-NIC presets of [`CONFIGS`] are parameter sets with names
//! ([`preset_params`]); the message-ID width selects among the compiled sizes, everything else
//! is a constructor parameter or a register default.
//!
//! The command line (`gen --params FILE`, or `--protocol P --messages N [--rx-classes
//! 1x8,4x8,16x8,38x8] [--tx-classes 24x4096,8x38912] [--max-message-bytes B] [--default
//! REG=V]… [--name NAME]`; `--config FILE.toml` for every command that runs a NIC) reads a set
//! from TOML. Every key but `protocol` and `messages` is optional; the rest comes from the
//! preset of that protocol and size ([`NicParams::preset`]); `[defaults]` takes the register
//! names of `--set`:
//! ```toml
//! name = "homa-tr-32-own"
//! protocol = "homa-tr"
//! messages = 32
//! max_message_bytes = 38912
//! clock_mhz = 322.265625                                 # the NIC's clock (default 3200)
//! rx_classes = [[1, 8], [4, 8], [16, 8], [38, 8]]        # [packets per message, messages]
//! tx_classes = [[24, 4096], [8, 38912]]                  # [buffers, bytes]
//! [defaults]
//! rtt_pkts = 3
//! ```
//! A set that cannot be built is refused with one line naming the parameter and its valid range
//! ([`NicParams::validate`]): a size not compiled in, classes that exceed the payload memory or
//! the largest message, a largest message above 38 912 bytes. The command line likewise refuses
//! an unknown register or a value out of its range, and a set named like a preset.
//!
//! Sizes above 128 (256, 512, 1024) have no preset: give `protocol` and `messages` and the
//! classes scale with the size ([`rx_classes_for`], [`tx_classes_for`]) in a payload memory of
//! 8 KiB per message and direction, so 1024 messages hold 128 maximum-size messages per direction
//! at once (Table 3.2's 128-message row: 128 × 32 KB). What still grows with `N` in flip-flops is
//! one bit per message for a handful of per-slot flags (receive `live` / `closed` / `fresh`,
//! transmit allocation and return bitmaps, the scheduler's per-id bits, the timers' valid bits),
//! each changed through one-hot masks and read by a find-first-set or at an index; the
//! per-message state itself is in RAMs.

use crate::clock::NicClock;
use crate::common::bundles::DATAPATH_BITS;
use crate::common::{
    bitmap_all_any::BitmapAllAny,
    event_counter::{SaturatingCounter, WrappingCounter},
    find_first_set::FindFirstSet,
    free_list::FreeList,
    one_hot::OneHot,
    ones_until::OnesUntil,
    popcount::Popcount,
    skid_buffer::SkidBuffer,
};
use crate::generate::{verilog_of, GeneratedModule};
use crate::nic::arbiter::Arbiter;
use crate::nic::get_rx_msg_info::GetRxMsgInfo;
use crate::nic::packetization::Packetization;
use crate::nic::reassembly::{Reassembly, PAYLOAD_WORD_BITS};
use crate::nic::register_map::DEFAULT_PACE_CYCLES;
use crate::nic::timer::Timer;
use crate::nic::tx_path::{TxPath, TX_PAYLOAD_ADDR_BITS};
pub use crate::presets::{payload_word_bits, preset_params, rx_classes_for, tx_classes_for, Protocol, COMPILED_SIZES};

/// Bits of timer metadata: `rtx_offset`, a packet offset (8 bits, Listing 3.2).
pub const TIMER_META_BITS: usize = 8;
/// Width of per-message packet bitmaps (messages have at most 38 packets).
pub const BITMAP_BITS: usize = 64;
/// Reset values of the register file's 16 configuration registers in `blocks-16` (the standalone
/// block; the NIC top chooses its own): zero except register 0 (= 1), 1 (= 64) and 15 (bit 31).
pub const CSR_DEFAULTS_BLOCKS_16: [u32; 16] = [1, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x8000_0000];

/// A named parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NicConfig {
    /// Name used on the command line and as the verilog-out/ folder.
    pub name: &'static str,
    /// Concurrent messages per direction.
    pub messages: usize,
    /// Width of the MAC-side datapath in bits (64; the 512-bit datapath is not built yet).
    pub datapath_bits: usize,
    /// The transport protocol of a whole-NIC configuration (its top and everything under it,
    /// one file); `None` for the block-level configurations (every block in its own file).
    pub protocol: Option<Protocol>,
}

/// Every named configuration, smallest first.
pub const CONFIGS: &[NicConfig] = &[
    NicConfig { name: "blocks-16", messages: 16, datapath_bits: DATAPATH_BITS, protocol: None },
    NicConfig { name: "blocks-128", messages: 128, datapath_bits: DATAPATH_BITS, protocol: None },
    NicConfig { name: "ndp-16", messages: 16, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::Ndp) },
    NicConfig { name: "ndp-64", messages: 64, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::Ndp) },
    NicConfig { name: "ndp-128", messages: 128, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::Ndp) },
    NicConfig { name: "homa-16", messages: 16, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::Homa) },
    NicConfig { name: "homa-tr-16", messages: 16, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::HomaTr) },
    NicConfig { name: "homa-128", messages: 128, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::Homa) },
    NicConfig { name: "homa-tr-128", messages: 128, datapath_bits: DATAPATH_BITS, protocol: Some(Protocol::HomaTr) },
];

/// A whole-NIC parameter set: everything that makes one NIC differ from another. The presets
/// ([`CONFIGS`] with a protocol) are parameter sets; `nanotransport gen` also takes one from
/// flags or a TOML file. What rust-hdl needs as a type (the message-ID width) selects among
/// [`COMPILED_SIZES`]; everything else is a constructor parameter or a register default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NicParams {
    /// Name of the generated folder and module prefix (`nt_<name>_nic`): letters, digits, `-`.
    pub name: String,
    pub protocol: Protocol,
    /// Concurrent messages per direction (one of [`COMPILED_SIZES`]).
    pub messages: usize,
    /// Receive size classes: (packets per message, messages), four, growing.
    pub rx_classes: [(u64, u64); 4],
    /// Transmit size classes.
    pub tx_classes: Vec<crate::nic::tx_path::TxSizeClass>,
    /// Largest message in bytes: no size class may exceed it (1 ..= 64 packets of 1 KiB, and
    /// at most the transmit path's 38 KiB).
    pub max_message_bytes: u64,
    /// The clock the NIC runs at: its time registers' defaults are set in nanoseconds and
    /// converted with it ([`Protocol::config_defaults`]); the network testbench runs the NIC at it.
    pub clock: NicClock,
    /// Reset values of the configuration registers.
    pub config_defaults: [u32; crate::nic::register_map::CONFIG_REGS],
}

impl NicParams {
    /// The preset parameters of `protocol` at `messages` per direction, named `name`, at the
    /// thesis' clock.
    pub fn preset(name: &str, protocol: Protocol, messages: usize) -> Self {
        Self::preset_at(name, protocol, messages, NicClock::THESIS)
    }

    /// The preset parameters of `protocol` at `messages` per direction, named `name`, at
    /// `clock`: the time registers' defaults converted from their nanoseconds.
    pub fn preset_at(name: &str, protocol: Protocol, messages: usize, clock: NicClock) -> Self {
        let shell = preset_params(protocol, messages);
        NicParams {
            name: name.to_string(),
            protocol,
            messages,
            rx_classes: shell.rx_classes,
            tx_classes: shell.tx_classes,
            max_message_bytes: crate::nic::tx_path::TX_MAX_MSG_BYTES,
            clock,
            config_defaults: protocol.config_defaults(clock),
        }
    }

    /// This set at `clock`, every time register keeping its time: the timeouts, and a pacing
    /// interval other than the datapath's [`DEFAULT_PACE_CYCLES`], are converted to the new
    /// clock's cycles (rounded, at least 1); pacing at the datapath's rate stays at its cycles,
    /// no pacing stays off.
    pub fn with_clock(mut self, clock: NicClock) -> Self {
        use crate::nic::register_map::{CFG_GC_TIMEOUT, CFG_PACE_CYCLES, CFG_RTO_CYCLES};
        let from = self.clock;
        let convert = |cycles: u32| clock.cycles_from(cycles, from);
        for r in [CFG_RTO_CYCLES, CFG_GC_TIMEOUT] {
            self.config_defaults[r] = convert(self.config_defaults[r]).max(1);
        }
        let pace = self.config_defaults[CFG_PACE_CYCLES];
        if pace != DEFAULT_PACE_CYCLES && pace != 0 {
            self.config_defaults[CFG_PACE_CYCLES] = convert(pace).clamp(1, 0xFFFF);
        }
        self.clock = clock;
        self
    }

    /// Checks every parameter; the error is one line naming the parameter and its valid range.
    pub fn validate(&self) -> Result<(), String> {
        use crate::nic::tx_path::TX_MAX_MSG_BYTES;
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(format!("name '{}': letters, digits and '-' only", self.name));
        }
        {
            use crate::nic::register_map::{check_retransmission_horizon, CFG_RTO_CYCLES, CFG_TIMEOUT_THRESHOLD};
            let d = &self.config_defaults;
            check_retransmission_horizon(d[CFG_RTO_CYCLES] as u64, d[CFG_TIMEOUT_THRESHOLD] as u64)?;
        }
        let Some(&(_, iw, bb, pw)) = COMPILED_SIZES.iter().find(|s| s.0 == self.messages) else {
            let sizes: Vec<String> = COMPILED_SIZES.iter().map(|s| s.0.to_string()).collect();
            return Err(format!("messages {}: sizes compiled in are {}", self.messages, sizes.join(", ")));
        };
        let max_pkts = self.max_message_bytes.div_ceil(1024);
        if self.max_message_bytes == 0 || max_pkts > 64 || self.max_message_bytes > TX_MAX_MSG_BYTES {
            return Err(format!(
                "max message {} bytes: valid 1..={TX_MAX_MSG_BYTES} (packet bitmaps are 64 wide, msg_len is 16 bits, transmit buffers hold {TX_MAX_MSG_BYTES})",
                self.max_message_bytes
            ));
        }
        for (k, c) in self.rx_classes.iter().enumerate() {
            if c.0 > max_pkts {
                return Err(format!("receive size class {k}: {} packets, larger than the maximum message ({max_pkts} packets)", c.0));
            }
        }
        for (k, c) in self.tx_classes.iter().enumerate() {
            if c.bytes > self.max_message_bytes.div_ceil(1024) * 1024 {
                return Err(format!(
                    "transmit size class {k}: {} bytes, larger than the maximum message ({} bytes)",
                    c.bytes, self.max_message_bytes
                ));
            }
        }
        self.shell_params().check(iw, self.messages, bb, pw)
    }

    /// The shell's constructor parameters.
    pub fn shell_params(&self) -> crate::nic::shell::ShellParams {
        let mut p = preset_params(self.protocol, self.messages);
        p.rx_classes = self.rx_classes;
        p.tx_classes = self.tx_classes.clone();
        p.config_defaults = self.config_defaults;
        p
    }

    /// Module prefix, e.g. `nt_ndp_16`.
    pub fn module_prefix(&self) -> String {
        format!("nt_{}", self.name.replace('-', "_"))
    }

    /// Bytes each direction's payload address space spans (`2^PW` 64-bit words,
    /// [`COMPILED_SIZES`]): 1 MiB up to 128 messages, 8 MiB at 1024. The memories themselves
    /// hold only what the size classes use ([`Self::memory_bytes`]).
    pub fn payload_memory_bytes(&self) -> u64 {
        8 << payload_word_bits(self.messages).unwrap_or(17)
    }

    /// Payload memory the size classes use, receive and transmit, in bytes: the depth of each
    /// direction's payload RAM (at most [`Self::payload_memory_bytes`]).
    pub fn memory_bytes(&self) -> (u64, u64) {
        let rx: u64 = self.rx_classes.iter().map(|c| c.0 * c.1 * 1024).sum();
        let tx: u64 = crate::nic::tx_path::tx_class_layout(&self.tx_classes).1 * 8;
        (rx, tx)
    }

    /// The whole NIC's Verilog module (checked first).
    pub fn generate(&self) -> Result<GeneratedModule, String> {
        self.generate_top(NicTop::Nic)
    }

    /// The Verilog module of `top` around this NIC (checked first): `nt_<name>_nic` or
    /// `nt_<name>_board_nic`.
    pub fn generate_top(&self, top: NicTop) -> Result<GeneratedModule, String> {
        self.validate()?;
        let params = self.clone();
        // Built on a large stack: a whole NIC's nested construction overflows a 2 MiB thread.
        let verilog = std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(move || params.top_verilog(top))
            .map_err(|e| format!("generator thread: {e}"))?
            .join()
            .map_err(|_| format!("{}: generation failed", self.name))?;
        Ok(GeneratedModule::new(&self.top_module(top), &verilog, &self.name))
    }

    /// The module name of `top` around this NIC.
    pub fn top_module(&self, top: NicTop) -> String {
        format!("{}_{}", self.module_prefix(), top.suffix())
    }

    fn top_verilog(&self, top: NicTop) -> String {
        use crate::board::board_nic::{HomaBoardNic, NdpBoardNic};
        use crate::protocols::{homa::ingress::HomaNic, ndp::ingress::NdpNic};
        let params = self.shell_params();
        let ndp = self.protocol == Protocol::Ndp;
        macro_rules! build {
            ($(($n:literal, $iw:literal, $bb:literal, $pw:literal)),*) => {
                match (self.messages, ndp, top) {
                    $(
                        ($n, true, NicTop::Nic) => verilog_of(&mut NdpNic::<$n, $iw, $bb, $pw>::new(&params)),
                        ($n, false, NicTop::Nic) => verilog_of(&mut HomaNic::<$n, $iw, $bb, $pw>::new(&params)),
                        ($n, true, NicTop::BoardNic) => verilog_of(&mut NdpBoardNic::<$n, $iw, $bb, $pw>::new(&params)),
                        ($n, false, NicTop::BoardNic) => verilog_of(&mut HomaBoardNic::<$n, $iw, $bb, $pw>::new(&params)),
                    )*
                    (other, _, _) => panic!("no NIC compiled for {other} messages"),
                }
            };
        }
        crate::with_compiled_sizes!(build)
    }
}

/// What a generated top holds around a whole NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicTop {
    /// The NIC alone (`nt_<name>_nic`).
    Nic,
    /// The NIC between a 100 GbE MAC's edge and the message echo
    /// ([`crate::board::board_nic`], `nt_<name>_board_nic`): the logic of a board design.
    BoardNic,
}

impl NicTop {
    fn suffix(self) -> &'static str {
        match self {
            NicTop::Nic => "nic",
            NicTop::BoardNic => "board_nic",
        }
    }
}

/// Looks a configuration up by name; the error lists the valid names.
pub fn find_config(name: &str) -> Result<NicConfig, String> {
    CONFIGS
        .iter()
        .copied()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("unknown configuration '{name}'; valid configurations: {}", config_names().join(", ")))
}

/// Names of every configuration, in order.
pub fn config_names() -> Vec<&'static str> {
    CONFIGS.iter().map(|c| c.name).collect()
}

impl NicConfig {
    /// Verilog module-name prefix of this configuration, e.g. `nt_blocks_16`.
    pub fn module_prefix(&self) -> String {
        format!("nt_{}", self.name.replace('-', "_"))
    }

    /// The parameter set of a whole-NIC preset.
    pub fn params(&self) -> NicParams {
        NicParams::preset(self.name, self.protocol.expect("a whole-NIC configuration"), self.messages)
    }

    /// Generates every block of this configuration, each named `<prefix>_<block>`.
    pub fn generate(&self) -> Vec<GeneratedModule> {
        if self.protocol.is_some() {
            return vec![self.params().generate().unwrap_or_else(|e| panic!("{}: {e}", self.name))];
        }
        let mut blocks = vec![
            ("find_first_set", verilog_of(&mut FindFirstSet::<BITMAP_BITS, 6>::default())),
            ("ones_until", verilog_of(&mut OnesUntil::<BITMAP_BITS, 7>::default())),
            ("popcount", verilog_of(&mut Popcount::<BITMAP_BITS, 7>::default())),
            ("bitmap_all_any", verilog_of(&mut BitmapAllAny::<BITMAP_BITS>::default())),
            ("arbiter", verilog_of(&mut Arbiter::default())),
            ("skid_buffer", verilog_of(&mut SkidBuffer::<64>::default())),
        ];
        match self.messages {
            16 => {
                blocks.push(("free_list", verilog_of(&mut FreeList::<16, 4>::default())));
                // The status counter's two kinds, 4 bits wide so a lockstep run wraps and saturates.
                blocks.push(("wrapping_counter", verilog_of(&mut WrappingCounter::<4>::default())));
                blocks.push(("saturating_counter", verilog_of(&mut SaturatingCounter::<4>::default())));
                blocks.push(("one_hot", verilog_of(&mut OneHot::<16, 4>::default())));
                blocks.push(("timer", verilog_of(&mut Timer::<16, 4, TIMER_META_BITS>::default())));
                blocks.push(("get_rx_msg_info", verilog_of(&mut GetRxMsgInfo::<16, 4, 4>::default())));
                // The delivered set as the presets use it, and a small one that forgets within a
                // lockstep run.
                blocks.push(("delivered_set", verilog_of(&mut crate::nic::delivered_set::DeliveredSet::<12>::default())));
                blocks.push(("delivered_set_small", verilog_of(&mut crate::nic::delivered_set::DeliveredSet::<4>::default())));
                blocks.push(("key_hash", verilog_of(&mut crate::common::key_hash::KeyHash::<12>::default())));
                blocks.push(("reassembly", verilog_of(&mut Reassembly::<16, 4, 4, PAYLOAD_WORD_BITS>::default())));
                blocks.push((
                    "message_read_out",
                    verilog_of(&mut crate::nic::message_read_out::MessageReadOut::<4, PAYLOAD_WORD_BITS>::default()),
                ));
                blocks.push(("packetization", packetization_verilog::<16, 4>()));
                blocks.push(("slot_update", verilog_of(&mut crate::nic::slot_update::SlotUpdate::<4>::new())));
                blocks.push(("packet_choice", verilog_of(&mut crate::nic::packet_choice::PacketChoice::default())));
                blocks.push(("tx_path", tx_path_verilog::<16, 4>(&tx_classes_for(16))));
                blocks.push((
                    "packet_read_out",
                    verilog_of(
                        &mut crate::nic::packet_read_out::PacketReadOut::<4, { crate::nic::tx_path::TX_PAYLOAD_ADDR_BITS }>::default(),
                    ),
                ));
                // Stateful register extern: one 16-bit entry per message (e.g. NDP's credit).
                blocks.push(("register_extern", verilog_of(&mut crate::pisa::register_extern::RegisterExtern::<16, 4>::default())));
                blocks.push(("packet_generator", verilog_of(&mut crate::nic::packet_generator::PacketGenerator::<16, 4, 3>::default())));
                blocks.push(("csr", verilog_of(&mut crate::nic::csr::AxiLiteCsr::new(CSR_DEFAULTS_BLOCKS_16))));
                blocks.push(("status_bank", verilog_of(&mut crate::nic::status_bank::StatusBank::default())));
                blocks.push(("homa_egress", verilog_of(&mut crate::protocols::homa::egress::HomaEgress::<16, 4>::default())));
                // The ingress front as NDP loads it (the whole-NIC tops contain it too).
                blocks.push((
                    "ingress_front",
                    verilog_of(&mut crate::pisa::ingress_front::IngressFront::<4>::new(
                        crate::pisa::wire::NDP_IP_PROTOCOL,
                        &crate::protocols::ndp::ingress::ndp_ingress_program(),
                    )),
                ));
                blocks.push(("priority_scheduler", crate::pisa::priority_scheduler::generate_verilog_of::<16, 4>()));
                blocks.push(("waiting_queue", verilog_of(&mut crate::pisa::waiting_queue::WaitingQueue::<4>::default())));
                blocks.push(("frame_length_check", verilog_of(&mut crate::pisa::frame_length_check::FrameLengthCheck::default())));
                // The board's MAC edges: frame FIFOs at the CMAC's 512 bits (64 beats, 4 KiB).
                {
                    use crate::common::frame_fifo::FrameFifo;
                    blocks.push(("cmac_rx_fifo", verilog_of(&mut FrameFifo::<512, 64, 6>::dropping())));
                    blocks.push(("cmac_tx_fifo", verilog_of(&mut FrameFifo::<512, 64, 6>::lossless())));
                    // Between the CMAC's 512 bits and a 64-bit NIC.
                    blocks.push(("cmac_downsizer", verilog_of(&mut crate::common::stream_downsizer::StreamDownsizer::default())));
                    blocks.push(("cmac_upsizer", verilog_of(&mut crate::common::stream_upsizer::StreamUpsizer::default())));
                    // All four as a board design puts them between the CMAC and a 64-bit NIC.
                    blocks.push(("cmac_edge", verilog_of(&mut crate::common::cmac_edge::CmacEdge::default())));
                    // The board's application when it has no host: every delivered message sent back.
                    blocks.push(("message_echo", verilog_of(&mut crate::common::message_echo::MessageEcho::default())));
                    // The board's register split: the NIC's map below 0x800, the board's above.
                    blocks.push(("board_registers", verilog_of(&mut crate::board::board_registers::BoardRegisters::default())));
                }
                blocks.push(("dual_port_memory", crate::pisa::dual_port_memory::generate_verilog_of::<8, 16, 4>()));
                // A memory of a depth that is not a power of two, as the payload memories are.
                blocks.push((
                    "sized_ram",
                    verilog_of(&mut crate::common::sized_ram::SizedRam::<rust_hdl::prelude::Bits<8>, 4>::new(
                        crate::common::sized_ram::SIZED_RAM_TEST_DEPTH,
                    )),
                ));
                // PISA primitives (message-count independent, generated once).
                blocks.push(("parser", verilog_of(&mut crate::pisa::parser::Parser::default())));
                // The 512-bit datapath's parser: the whole header in one beat.
                blocks.push(("wide_parser", verilog_of(&mut crate::pisa::wide_parser::WideParser::default())));
                blocks.push(("header_fields", verilog_of(&mut crate::pisa::header_fields::HeaderFields::default())));
                blocks.push(("deparser", verilog_of(&mut crate::pisa::deparser::Deparser::default())));
                // The 512-bit datapath's deparser: the whole header as one beat.
                blocks.push(("wide_deparser", verilog_of(&mut crate::pisa::wide_deparser::WideDeparser::default())));
                blocks.push(("header_builder", verilog_of(&mut crate::pisa::header_builder::HeaderBuilder::default())));
                {
                    use crate::pisa::match_action::{flags_example_program, MatchTable, ACTION_DROP};
                    let mut table = MatchTable::<rust_hdl::prelude::Bits<64>>::new(&flags_example_program(), ACTION_DROP);
                    blocks.push(("match_table", verilog_of(&mut table)));
                }
            }
            128 => {
                blocks.push(("free_list", verilog_of(&mut FreeList::<128, 7>::default())));
                blocks.push(("one_hot", verilog_of(&mut OneHot::<128, 7>::default())));
                blocks.push(("timer", verilog_of(&mut Timer::<128, 7, TIMER_META_BITS>::default())));
                blocks.push(("get_rx_msg_info", verilog_of(&mut GetRxMsgInfo::<128, 7, 6>::default())));
                // Its buffer classes at 128, where the classes hold fewer buffers than IDs.
                blocks.push(("rx_buffer_classes", verilog_of(&mut crate::nic::rx_buffer_classes::RxBufferClasses::<128, 7>::default())));
                blocks.push(("reassembly", verilog_of(&mut Reassembly::<128, 7, 6, PAYLOAD_WORD_BITS>::default())));
                blocks.push(("register_extern", verilog_of(&mut crate::pisa::register_extern::RegisterExtern::<16, 7>::default())));
                blocks.push(("packet_generator", verilog_of(&mut crate::nic::packet_generator::PacketGenerator::<128, 7, 3>::default())));
                blocks.push(("priority_scheduler", crate::pisa::priority_scheduler::generate_verilog_of::<128, 7>()));
                blocks.push(("dual_port_memory", crate::pisa::dual_port_memory::generate_verilog_of::<8, 128, 7>()));
                blocks.push(("packetization", packetization_verilog::<128, 7>()));
                blocks.push(("tx_path", tx_path_verilog::<128, 7>(&tx_classes_for(128))));
            }
            other => panic!("no block types for {other} messages"),
        }
        blocks
            .into_iter()
            .map(|(block, verilog)| GeneratedModule::new(&format!("{}_{block}", self.module_prefix()), &verilog, self.name))
            .collect()
    }
}

/// The transmit path's Verilog, generated in its own stack frame: kept out of
/// [`NicConfig::generate`], whose frame already holds the large NIC-top temporaries, so that
/// generation still fits a test thread's default 2 MiB stack.
#[inline(never)]
fn tx_path_verilog<const N: usize, const IW: usize>(classes: &[crate::nic::tx_path::TxSizeClass]) -> String {
    verilog_of(&mut TxPath::<N, IW, TX_PAYLOAD_ADDR_BITS>::new(classes))
}

/// Its core alone, likewise.
#[inline(never)]
fn packetization_verilog<const N: usize, const IW: usize>() -> String {
    verilog_of(&mut Packetization::<N, IW>::new())
}

/// A named configuration of a switch block (written by `gen` beside the NIC configurations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchConfig {
    /// Name used on the command line and as the verilog-out/ folder.
    pub name: &'static str,
    /// Switch ports the block serves.
    pub ports: usize,
    pub block: SwitchBlock,
}

/// Which switch block a configuration generates, with the block's own choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchBlock {
    /// Bolt's ingress (thesis chapter 4).
    Bolt(BoltConfig),
    /// PL2's timeslot reservations, with its counter array generated alone too (for its own
    /// lockstep test).
    Pl2Reservation,
}

/// The choices of a Bolt ingress configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoltConfig {
    /// Supply from the 65 536-entry table (thesis §4.4.1) instead of the multiplier.
    pub supply_table: bool,
    /// Bytes after the Bolt header that the stream wrapper copies into an SRC (0..=32).
    pub src_trailing_bytes: usize,
    /// Blocks written: the core and, with the multiplier, the stream wrapper; or the wrapper only.
    pub stream_only: bool,
}

const fn bolt(name: &'static str, supply_table: bool, src_trailing_bytes: usize, stream_only: bool) -> SwitchConfig {
    SwitchConfig { name, ports: 64, block: SwitchBlock::Bolt(BoltConfig { supply_table, src_trailing_bytes, stream_only }) }
}

/// Every named switch configuration.
pub const SWITCH_CONFIGS: &[SwitchConfig] = &[
    bolt("bolt-ingress-64p", false, 16, false),
    bolt("bolt-ingress-64p-lut", true, 16, false),
    bolt("bolt-ingress-64p-src32", false, 32, true),
    SwitchConfig { name: "pl2-reservation-64p", ports: 64, block: SwitchBlock::Pl2Reservation },
];

/// Looks a switch configuration up by name.
pub fn find_switch_config(name: &str) -> Option<SwitchConfig> {
    SWITCH_CONFIGS.iter().copied().find(|c| c.name == name)
}

impl SwitchConfig {
    /// Verilog module-name prefix of this configuration, e.g. `nt_bolt_ingress_64p`.
    pub fn module_prefix(&self) -> String {
        format!("nt_{}", self.name.replace('-', "_"))
    }

    /// The Bolt choices, for a Bolt configuration.
    pub fn bolt(&self) -> Option<BoltConfig> {
        match self.block {
            SwitchBlock::Bolt(b) => Some(b),
            SwitchBlock::Pl2Reservation => None,
        }
    }

    /// One line saying what the configuration is (`configs`).
    pub fn describe(&self) -> String {
        match self.block {
            SwitchBlock::Bolt(b) => format!(
                "bolt ingress, {} ports, supply by {}, SRC carries {} bytes after the Bolt header{}",
                self.ports,
                if b.supply_table { "table" } else { "multiplier" },
                b.src_trailing_bytes,
                if b.stream_only { " (stream wrapper only)" } else { "" }
            ),
            SwitchBlock::Pl2Reservation => format!("PL2 timeslot reservations, {} ports, with its counter array alone", self.ports),
        }
    }

    /// Name of the supply table's hex file (Bolt table configurations only).
    pub fn supply_table_file(&self) -> Option<String> {
        self.bolt().filter(|b| b.supply_table).map(|_| format!("{}_supply_100g.hex", self.module_prefix()))
    }

    /// Parameters of the Bolt ingress block: thesis defaults, every port at 100 Gb/s (Bolt
    /// configurations only).
    pub fn bolt_params(&self) -> Option<crate::switch::bolt_ingress::BoltParams> {
        use crate::switch::bolt_ingress::{BoltParams, PortRate};
        use crate::switch::supply_unit::SupplyMode;
        self.bolt()?;
        let mut p = BoltParams::defaults(self.ports);
        if let Some(file) = self.supply_table_file() {
            p.supply = SupplyMode::LookupTable { rate_q8: PortRate::DEFAULT.rate_q8(), file };
        }
        Some(p)
    }

    /// Generates every block of this configuration, each named `<prefix>_<block>`.
    pub fn generate(&self) -> Vec<GeneratedModule> {
        let module = |block: &str, verilog: String| GeneratedModule::new(&format!("{}_{block}", self.module_prefix()), &verilog, self.name);
        assert_eq!(self.ports, 64, "block types exist for 64 ports");
        match self.block {
            SwitchBlock::Bolt(b) => {
                use crate::switch::bolt_ingress::BoltIngress;
                use crate::switch::bolt_stream::BoltStream;
                let params = self.bolt_params().expect("a Bolt configuration");
                let mut modules = Vec::new();
                if !b.stream_only {
                    modules.push(module("bolt_ingress", verilog_of(&mut BoltIngress::<64, 6>::new(params.clone()))));
                }
                // The stream wrapper (parser, SRC builder, 64-bit AXI4-Stream) in the multiplier configuration.
                if !b.supply_table {
                    modules.push(module("bolt_stream", verilog_of(&mut BoltStream::<64, 6>::new(params, b.src_trailing_bytes))));
                }
                modules
            }
            SwitchBlock::Pl2Reservation => {
                use crate::switch::pl2_reservation::Pl2Reservation;
                use crate::switch::timeslot_counters::TimeslotCounters;
                vec![
                    module("pl2_reservation", verilog_of(&mut Pl2Reservation::<64, 6>::new(self.ports))),
                    module("timeslot_counters", verilog_of(&mut TimeslotCounters::<64, 6>::default())),
                ]
            }
        }
    }

    /// Data files the Verilog reads (`$readmemh`), as (file name, contents).
    pub fn data_files(&self) -> Vec<(String, String)> {
        use crate::switch::bolt_ingress::PortRate;
        self.supply_table_file()
            .map(|f| (f, crate::switch::supply_unit::supply_table_hex(PortRate::DEFAULT.rate_q8())))
            .into_iter()
            .collect()
    }
}
