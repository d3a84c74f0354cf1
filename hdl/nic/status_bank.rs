//! Status bank: the NIC's read-only status registers behind one index, as a multiplexer tree
//! (a `case` on the index) instead of a flat bus. The register map (which counter sits at which
//! index) is the table in this file, [`STATUS_MAP`]; it is the same for every protocol and size.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `index` | in | 8 | status register index (byte address `0x400 + 4 · index`) |
//! | `value` | out | 32 | the register at `index`, zero-extended; 0 for an index with no register |
//! | one port per register in [`STATUS_MAP`] | in | its width (≤ 32) | the counter or level shown there |
//!
//! # Latency and throughput
//! Combinational (`index` → `value`); the register file registers the answer in the cycle the
//! read address is accepted, so a status read takes 1 cycle as before. No state.
//!
//! # Why a multiplexer and not a bus
//! The earlier flat 2048-bit status bus was assembled with shifts and ORs of 2048-bit vectors in
//! every cycle; in Verilator each such operation walks 64 words, and the bus could not grow past
//! 64 registers. A `case` costs one comparison tree, in simulation and in LUTs.
//!
//! # Map
//! Indices 0–3 identify the NIC (register-map version, protocol, messages per direction,
//! datapath width); groups leave room to grow: 16–31 the ingress front, 32–47 the protocol
//! program, 48–79 the receive path, 80–111 the transmit path, 112–127 the packet generator,
//! 128–143 arbiter, deparser and register file; 144–255 are free. A counter a protocol does not
//! have reads 0 (e.g. `grant_sent_count` on NDP).

use rust_hdl::prelude::*;

/// Version of the register map read at status index 0 (`map_version`). Version 1 was the
/// per-configuration flat map at 0x100; version 2 is this fixed map.
pub const REGISTER_MAP_VERSION: u32 = 2;

/// Status registers in the status window.
pub const STATUS_WINDOW: usize = 256;

macro_rules! status_bank {
    ($( $index:literal $name:ident : $width:literal, $doc:literal; )*) => {
        /// Every status register: (index, name, width in bits, meaning). Byte address
        /// `0x400 + 4 · index`.
        pub const STATUS_MAP: &[(usize, &str, usize, &str)] = &[ $( ($index, stringify!($name), $width, $doc) ),* ];

        /// The status multiplexer (see the module documentation).
        #[derive(LogicBlock, Default)]
        pub struct StatusBank {
            pub index: Signal<In, Bits<8>>,
            pub value: Signal<Out, Bits<32>>,
            $( #[doc = $doc] pub $name: Signal<In, Bits<$width>>, )*
        }

        impl Logic for StatusBank {
            #[hdl_gen]
            fn update(&mut self) {
                self.value.next = 0.into();
                match self.index.val().index() {
                    $( $index => { self.value.next = bit_cast::<32, $width>(self.$name.val()); } )*
                    _ => {}
                }
            }
        }
    };
}

status_bank! {
    0 map_version: 32, "register-map version (2)";
    1 protocol_id: 32, "protocol: 1 NDP, 2 Homa, 3 Homa-Tr";
    2 messages: 32, "concurrent messages per direction";
    3 datapath_bits: 32, "MAC-side datapath width in bits";
    16 frame_count: 32, "frames the parser accepted (the ones it drops are counted by reason below)";
    17 not_ipv4_count: 32, "frames dropped: not IPv4";
    18 wrong_protocol_count: 32, "frames dropped: another IP protocol";
    19 too_short_count: 32, "frames dropped: shorter than the 64-byte headers";
    20 bad_checksum_count: 32, "frames dropped: IPv4 header checksum wrong";
    21 bad_flags_count: 32, "frames dropped: no known transport flag";
    22 data_count: 32, "DATA packets";
    23 chop_count: 32, "trimmed DATA (CHOP) packets";
    24 control_count: 32, "control packets (ACK, NACK, PULL, GRANT)";
    25 no_action_count: 32, "packets without a match-table action";
    26 bad_length_count: 32, "DATA dropped: IPv4 length disagrees with the message";
    27 rx_fail_count: 32, "DATA whose GetRxMsgInfo failed";
    28 duplicate_data_count: 32, "duplicate DATA (a packet already received, or of a delivered message)";
    29 forwarded_count: 32, "DATA forwarded to the reassembly";
    30 bad_frame_length_count: 32, "frames dropped at their last beat: frame length disagrees with the IPv4 length";
    32 offset_range_count: 32, "NDP: ACK/NACK offsets without a bitmap bit";
    33 grant_sent_count: 32, "Homa: GRANTs sent";
    34 ack_sent_count: 32, "Homa: ACKs sent";
    35 nack_sent_count: 32, "Homa-Tr: NACKs sent";
    36 sched_inserts_count: 32, "Homa: scheduler inserts";
    37 sched_removes_count: 32, "Homa: scheduler removes";
    38 sched_unknown_removes_count: 32, "Homa: removes of messages the scheduler did not hold";
    39 sched_fifo_enters_count: 32, "Homa: scheduler FIFO entries";
    40 sched_levels: 32, "Homa: scheduler entries in use (bits 4-0), FIFO records (bits 23-8)";
    48 fail_zero_len_count: 32, "GetRxMsgInfo failures: zero message length";
    49 fail_too_long_count: 32, "GetRxMsgInfo failures: message longer than the largest class";
    50 fail_bad_offset_count: 32, "GetRxMsgInfo failures: offset beyond the message";
    51 fail_len_mismatch_count: 32, "GetRxMsgInfo failures: length differs from the live message's";
    52 fail_no_id_count: 32, "GetRxMsgInfo failures: no free rx_msg_id";
    53 fail_no_buffer_count: 32, "GetRxMsgInfo failures: no free buffer of the size class";
    54 fail_bucket_full_count: 32, "GetRxMsgInfo failures: both hash buckets full";
    55 rx_duplicate_count: 32, "packets already received";
    56 recent_duplicate_count: 32, "packets of a recently completed message";
    57 class_fallback_count: 32, "messages placed in a larger size class";
    58 drop_stale_count: 32, "reassembly drops: stale slot";
    59 drop_bad_offset_count: 32, "reassembly drops: bad offset";
    60 drop_duplicate_count: 32, "reassembly drops: duplicate";
    61 drop_bad_length_count: 32, "reassembly drops: packet length disagrees (packet dropped)";
    62 gc_count: 32, "receive messages garbage-collected";
    63 rx_stale_timeout_count: 32, "stale receive timeouts";
    64 rx_delivered_count: 32, "messages delivered to the CPU";
    65 rx_busy_slots: 32, "receive slots in use, slots 0-31 (bit i = slot i)";
    66 rx_busy_any: 1, "1 while any receive slot is in use";
    67 delivered_set_full_wait_count: 32, "delivered messages whose key waited for room in the delivered set (receive path stalled)";
    80 rejected_msg_count: 16, "CPU messages rejected (bad header or no buffer)";
    81 framing_error_count: 16, "CPU message framing errors";
    82 stale_delivered_count: 16, "DeliveredEvents for unknown messages";
    83 stale_credit_count: 16, "CreditTxEvents for unknown messages";
    84 tx_stale_timeout_count: 16, "stale transmit timeouts";
    85 ack_beyond_count: 16, "ACKs beyond the message";
    86 rtx_beyond_count: 16, "retransmission requests beyond the message";
    87 credit_beyond_count: 16, "credit beyond the message";
    88 tx_delivered_msg_count: 16, "messages completed (all packets acknowledged)";
    89 abandoned_msg_count: 16, "messages abandoned after repeated timeouts";
    90 write_busy_count: 16, "CPU writes held back by a busy buffer";
    91 buffer_double_free_count: 16, "transmit buffers freed twice (should stay 0)";
    92 event_overflow_count: 16, "transmit events lost to a full event FIFO";
    93 tx_active_slots: 32, "transmit slots active, slots 0-31 (bit i = slot i)";
    94 tx_active_any: 1, "1 while any transmit slot is active";
    95 buffer_flags: 16, "bits 4-0 receive free lists full (IDs, classes 0-3); bit 8 every transmit buffer free; bit 9 a transmit class exhausted";
    96 tx_cooling_slots: 16, "transmit slots whose generation wraps, waiting 311 296 cycles before reuse (no message key recurs sooner)";
    112 ctrl_sent_count: 32, "control packets generated";
    113 pull_sent_count: 32, "PULLs generated";
    114 merged_count: 32, "control events merged into one packet";
    115 pull_coalesced_count: 32, "PULLs coalesced per slot";
    116 ctrl_dropped_count: 32, "control events dropped (queue full)";
    117 pull_replaced_count: 32, "pending PULLs of a released message replaced by its slot's next message's";
    128 arbiter_ctrl_packet_count: 16, "control packets through the arbiter";
    129 arbiter_data_packet_count: 16, "data packets through the arbiter";
    130 tx_frame_count: 32, "frames sent to the MAC";
    131 tx_length_mismatch_count: 32, "frames whose payload length disagreed with the metadata";
    132 csr_error_count: 32, "rejected register accesses (SLVERR)";
}

/// Byte address of the status register `name` in the fixed map.
pub fn status_address(name: &str) -> Option<u64> {
    STATUS_MAP.iter().find(|r| r.1 == name).map(|r| STATUS_BASE + 4 * r.0 as u64)
}

/// Byte address of status register 0.
pub const STATUS_BASE: u64 = 0x400;
