//! Typed port bundles between the NIC's blocks: each is a pair of rust-hdl `LogicInterface`s,
//! the **source** side (the block that drives the payload) and the **sink** side (its mirror),
//! joined in one statement (`PacketSource::join(&mut self.a.out, &mut self.b.input)`) or passed
//! through a parent with `link`.
//!
//! rust-hdl names a bundle's members `bundle$member` in the Verilog of the block that has it
//! (`m_axis_pkt$tdata`). That is fine inside the design, but a NIC top keeps flat, conventional
//! port names (`s_axis_rx_tdata`, …), which Vivado's interface inference and the usual AXI
//! drivers expect: bundles stop at the shell.
//!
//! | bundle | payload | from → to |
//! |---|---|---|
//! | [`PacketSource`] / [`PacketSink`] | an AXI4-Stream of a given width with the transmit metadata of Listing 3.2 | transmit path → egress stage → arbiter; packet generator → arbiter |
//! | [`RxPacketSource`] / [`RxPacketSink`] | an AXI4-Stream of a given width with the receive metadata of Listing 3.1 | ingress front → reassembly |
//! | [`CtrlPktEventSource`] / [`CtrlPktEventSink`] | CtrlPktEvent: a control packet to send | ingress program → packet generator |
//! | [`CreditTxEventSource`] / [`CreditTxEventSink`] | CreditTxEvent: credit and retransmissions for a message | ingress program → transmit path → packetization |
//! | [`DeliveredEventSource`] / [`DeliveredEventSink`] | DeliveredEvent: packets the receiver acknowledged | ingress program → transmit path → packetization |
//! | [`PriorityWriteSource`] / [`PriorityWriteSink`] | a message's priority into the egress stage's memory | ingress program → egress stage |
//! | [`ControlActionSource`] / [`ControlActionSink`] | a validated control packet: its action and header fields | ingress front → ingress program |
//! | [`DataAnswerSource`] / [`DataAnswerSink`] | a DATA packet's header and its GetRxMsgInfo answer | ingress front → ingress program |
//! | [`RxMsgInfoRequestSource`] / [`RxMsgInfoRequestSink`] | a GetRxMsgInfo request (valid/ready) | ingress front → reassembly → GetRxMsgInfo |
//! | [`RxMsgInfoAnswerSource`] / [`RxMsgInfoAnswerSink`] | its answer | reassembly → ingress front |
//! | [`RxMsgInfoCountersSource`] / [`RxMsgInfoCountersSink`] | GetRxMsgInfo's status counters | GetRxMsgInfo → reassembly → shell (status bank) |
//! | [`ProgramCountersSource`] / [`ProgramCountersSink`] | an ingress program's status counters | ingress program → shell (status bank) |
//! | [`PacketDescriptorSource`] / [`PacketDescriptorSink`] | a packet descriptor (Listing 3.2): which packet of which message goes next | packetization core → packet read-out |
//! | [`StreamSource`] / [`StreamSink`] | a plain AXI4-Stream of a given width (no metadata) | MAC RX → ingress front → parser; deparser → MAC TX; CPU ↔ reassembly and transmit path; Bolt's stream |
//! | [`AxiLiteInitiator`] / [`AxiLiteTarget`] | AXI4-Lite, 12-bit byte addresses, 32-bit data | the NIC's register port → register file |
//!
//! **Latency 0 cycles, no logic**: a bundle is wires. Joining it is the same Verilog as assigning
//! each member, so it adds no register, no LUT and no cycle; the latency and throughput of a
//! stream are those of the blocks on either side.

use rust_hdl::prelude::*;

/// The direction of a member on the source side (`fwd`: driven by the source) or on the sink
/// side (`back`: driven by the sink, like `tready`).
macro_rules! member_dir {
    (source, fwd) => {
        Out
    };
    (source, back) => {
        In
    };
    (sink, fwd) => {
        In
    };
    (sink, back) => {
        Out
    };
}

/// Defines a source/sink bundle pair from one member list; a list that starts with
/// `axi_stream,` begins with the five AXI4-Stream members (`tdata` of `DW` bits, `tkeep` of `KW`,
/// `tlast`, `tvalid`, `tready`).
macro_rules! bundle {
    ($(#[$doc:meta])* $source:ident $source_name:literal, $sink:ident $sink_name:literal
        <const DW: usize, const KW: usize> { axi_stream, $($rest:tt)* }) => {
        bundle! {
            $(#[$doc])* $source $source_name, $sink $sink_name <const DW: usize, const KW: usize> {
                fwd tdata: Bits<DW>,
                fwd tkeep: Bits<KW>,
                fwd tlast: Bit,
                fwd tvalid: Bit,
                back tready: Bit,
                $($rest)*
            }
        }
    };
    ($(#[$doc:meta])* $source:ident $source_name:literal, $sink:ident $sink_name:literal
        $(<$(const $g:ident: usize),+>)? { $($(#[$mdoc:meta])* $dir:ident $member:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        /// Source side: the block that drives the payload.
        #[derive(LogicInterface, Default)]
        #[join = $sink_name]
        pub struct $source $(<$(const $g: usize),+>)? {
            $($(#[$mdoc])* pub $member: Signal<member_dir!(source, $dir), $ty>,)*
        }

        $(#[$doc])*
        /// Sink side: the mirror of the source.
        #[derive(LogicInterface, Default)]
        #[join = $source_name]
        pub struct $sink $(<$(const $g: usize),+>)? {
            $($(#[$mdoc])* pub $member: Signal<member_dir!(sink, $dir), $ty>,)*
        }
    };
}

bundle! {
    /// A packet stream: AXI4-Stream beats of `DW` bits (`KW` = `DW` / 8 byte enables, byte 0
    /// in `tdata[7:0]`), one per cycle, with the transmit metadata of Listing 3.2 held for the
    /// whole packet. The NIC's datapath is [`DATAPATH_BITS`] wide: [`NicPacketSource`].
    PacketSource "PacketSource", PacketSink "PacketSink" <const DW: usize, const KW: usize> {
        axi_stream,
        fwd remote_ip: Bits<32>,
        fwd remote_port: Bits<16>,
        fwd msg_len: Bits<16>,
        fwd pkt_offset: Bits<8>,
        fwd local_port: Bits<16>,
        fwd tx_msg_id: Bits<16>,
        fwd credit: Bits<16>,
        /// The packet's priority (a DATA packet's DSCP, a GRANT's `grant_prio`).
        fwd rank: Bits<8>,
        fwd flags: Bits<8>,
        fwd is_new_msg: Bit,
        fwd is_rtx: Bit,
    }
}

bundle! {
    /// A received DATA packet's payload on its way to the reassembly: AXI4-Stream beats of `DW`
    /// bits (`KW` = `DW` / 8 byte enables), with the ingress metadata of Listing 3.1 valid with
    /// the first beat.
    RxPacketSource "RxPacketSource", RxPacketSink "RxPacketSink" <const DW: usize, const KW: usize> {
        axi_stream,
        fwd remote_ip: Bits<32>,
        fwd remote_port: Bits<16>,
        fwd msg_len: Bits<16>,
        fwd pkt_offset: Bits<8>,
        fwd local_port: Bits<16>,
        /// The receive message the packet belongs to (slot in the low bits, generation above).
        fwd rx_msg_id: Bits<16>,
        fwd tx_msg_id: Bits<16>,
        fwd is_last_pkt: Bit,
    }
}

bundle! {
    /// A plain AXI4-Stream: beats of `DW` bits (`KW` = `DW` / 8 byte enables, byte 0 in
    /// `tdata[7:0]`), one per cycle while `tvalid` and `tready`; `tlast` on a packet's last beat.
    StreamSource "StreamSource", StreamSink "StreamSink" <const DW: usize, const KW: usize> {
        axi_stream,
    }
}

/// The width of the NIC's packet streams in bits (the thesis' 64-bit MAC side).
pub const DATAPATH_BITS: usize = 64;
/// A packet stream of the NIC's datapath width.
pub type NicPacketSource = PacketSource<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;
/// The sink side of [`NicPacketSource`].
pub type NicPacketSink = PacketSink<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;
/// A plain stream of the NIC's datapath width.
pub type NicStreamSource = StreamSource<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;
/// The sink side of [`NicStreamSource`].
pub type NicStreamSink = StreamSink<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;
/// A received packet stream of the NIC's datapath width.
pub type NicRxPacketSource = RxPacketSource<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;
/// The sink side of [`NicRxPacketSource`].
pub type NicRxPacketSink = RxPacketSink<DATAPATH_BITS, { DATAPATH_BITS / 8 }>;

bundle! {
    /// CtrlPktEvent: one control packet for the packet generator to send (thesis §3.2.4).
    CtrlPktEventSource "CtrlPktEventSource", CtrlPktEventSink "CtrlPktEventSink" <const IW: usize> {
        fwd valid: Bit,
        /// The receive slot the packet is about (PULLs coalesce per slot).
        fwd msg_id: Bits<IW>,
        /// The slot's generation: slot and generation name one message.
        fwd msg_gen: Bits<8>,
        /// ACK / NACK / GRANT flags of the packet.
        fwd ctrl_flags: Bits<8>,
        /// A paced PULL carrying `credit`.
        fwd pull: Bit,
        fwd credit: Bits<16>,
        fwd remote_ip: Bits<32>,
        fwd remote_port: Bits<16>,
        fwd local_port: Bits<16>,
        fwd msg_len: Bits<16>,
        fwd pkt_offset: Bits<8>,
        fwd tx_msg_id: Bits<16>,
        /// A GRANT's priority (its `grant_prio`).
        fwd rank: Bits<8>,
    }
}

bundle! {
    /// CreditTxEvent: new credit and packets to retransmit for one message (thesis §3.2.3).
    CreditTxEventSource "CreditTxEventSource", CreditTxEventSink "CreditTxEventSink" {
        fwd valid: Bit,
        fwd tx_msg_id: Bits<16>,
        fwd rtx_flag: Bit,
        /// Packets to retransmit, bit k = offset k.
        fwd rtx_bitmap: Bits<64>,
        fwd credit_flag: Bit,
        fwd new_credit: Bits<16>,
        /// Whether the message may send now (Homa: it was granted).
        fwd allow_tx: Bit,
        /// Credit only rises (NDP's PULLs, which can arrive out of order).
        fwd raise_only: Bit,
    }
}

bundle! {
    /// DeliveredEvent: packets of one message the receiver has acknowledged (thesis §3.2.3).
    DeliveredEventSource "DeliveredEventSource", DeliveredEventSink "DeliveredEventSink" {
        fwd valid: Bit,
        fwd tx_msg_id: Bits<16>,
        /// Acknowledged packets, bit k = offset k.
        fwd ack_bitmap: Bits<64>,
    }
}

bundle! {
    /// A message's priority written into the egress stage's priority memory.
    PriorityWriteSource "PriorityWriteSource", PriorityWriteSink "PriorityWriteSink" <const IW: usize> {
        fwd valid: Bit,
        /// The transmit slot (low IW bits of tx_msg_id).
        fwd index: Bits<IW>,
        fwd value: Bits<8>,
    }
}

bundle! {
    /// A validated control packet (actions 3–15): see [`crate::pisa::ingress_front`].
    ControlActionSource "ControlActionSource", ControlActionSink "ControlActionSink" {
        fwd valid: Bit,
        fwd action: Bits<4>,
        /// The header fields (layout in [`crate::pisa::ingress_front`]).
        fwd meta: Bits<152>,
    }
}

bundle! {
    /// A validated DATA (action 1) or trimmed DATA (2) packet with its GetRxMsgInfo answer: see
    /// [`crate::pisa::ingress_front`].
    DataAnswerSource "DataAnswerSource", DataAnswerSink "DataAnswerSink" <const IW: usize> {
        fwd valid: Bit,
        fwd action: Bits<4>,
        fwd meta: Bits<152>,
        /// No GetRxMsgInfo failure.
        fwd ok: Bit,
        /// Ok and a live entry (not a late copy of a delivered message).
        fwd live: Bit,
        /// DATA, live, new packet: the payload went to the reassembly.
        fwd forward: Bit,
        /// The receive slot (low IW bits of rx_msg_id).
        fwd slot: Bits<IW>,
        /// The slot's generation.
        fwd gen: Bits<8>,
        fwd is_new_msg: Bit,
        fwd is_new_pkt: Bit,
        fwd is_last_pkt: Bit,
        /// The smallest offset not yet received.
        fwd ack_no: Bits<9>,
    }
}

bundle! {
    /// A GetRxMsgInfo request (thesis §3.2.2): find or allocate the receive message of a packet
    /// and, unless `peek`, mark the packet received. See [`crate::nic::get_rx_msg_info`].
    RxMsgInfoRequestSource "RxMsgInfoRequestSource", RxMsgInfoRequestSink "RxMsgInfoRequestSink" {
        fwd valid: Bit,
        back ready: Bit,
        fwd mark_received: Bit,
        /// Look the message up without allocating it or marking anything.
        fwd peek: Bit,
        fwd src_ip: Bits<32>,
        fwd src_port: Bits<16>,
        fwd tx_msg_id: Bits<16>,
        fwd msg_len: Bits<16>,
        fwd pkt_offset: Bits<8>,
    }
}

bundle! {
    /// A GetRxMsgInfo answer as the reassembly gives it to the ingress front.
    RxMsgInfoAnswerSource "RxMsgInfoAnswerSource", RxMsgInfoAnswerSink "RxMsgInfoAnswerSink" {
        fwd valid: Bit,
        fwd fail: Bit,
        /// rx_msg_id: slot in the low bits, generation above; bit 15 set for a late copy of a
        /// delivered message (no live entry).
        fwd rx_msg_id: Bits<16>,
        /// The first answer for a message that was not a peek.
        fwd is_new_msg: Bit,
        fwd is_new_pkt: Bit,
        fwd is_last_pkt: Bit,
        /// The smallest offset not yet received.
        fwd ack_no: Bits<9>,
    }
}

bundle! {
    /// AXI4-Lite with 12-bit byte addresses and 32-bit data (the NIC's register port; map in
    /// [`crate::nic::csr`]). The source side is the initiator (the master): it drives addresses,
    /// write data and the response readies.
    AxiLiteInitiator "AxiLiteInitiator", AxiLiteTarget "AxiLiteTarget" {
        fwd awaddr: Bits<12>,
        fwd awvalid: Bit,
        back awready: Bit,
        fwd wdata: Bits<32>,
        fwd wstrb: Bits<4>,
        fwd wvalid: Bit,
        back wready: Bit,
        back bresp: Bits<2>,
        back bvalid: Bit,
        fwd bready: Bit,
        fwd araddr: Bits<12>,
        fwd arvalid: Bit,
        back arready: Bit,
        back rdata: Bits<32>,
        back rresp: Bits<2>,
        back rvalid: Bit,
        fwd rready: Bit,
    }
}

bundle! {
    /// GetRxMsgInfo's status counters (32 bits, wrapping; meanings in the status map,
    /// [`crate::nic::status_bank::STATUS_MAP`]) as the reassembly passes them up to the shell.
    RxMsgInfoCountersSource "RxMsgInfoCountersSource", RxMsgInfoCountersSink "RxMsgInfoCountersSink" {
        fwd fail_zero_len_count: Bits<32>,
        fwd fail_too_long_count: Bits<32>,
        fwd fail_bad_offset_count: Bits<32>,
        fwd fail_len_mismatch_count: Bits<32>,
        fwd fail_no_id_count: Bits<32>,
        fwd fail_no_buffer_count: Bits<32>,
        fwd fail_bucket_full_count: Bits<32>,
        /// Copies of a packet already received.
        fwd duplicate_count: Bits<32>,
        /// Copies of a message delivered recently (found in the delivered set).
        fwd recent_duplicate_count: Bits<32>,
        fwd class_fallback_count: Bits<32>,
        /// Releases whose key found both candidate buckets of the delivered set full and waited.
        fwd full_wait_count: Bits<32>,
    }
}

bundle! {
    /// An ingress program's status counters (32 bits; meanings in the status map,
    /// [`crate::nic::status_bank::STATUS_MAP`]). Every program drives all of them; a counter a
    /// protocol does not have reads 0 (NDP has no GRANTs and no scheduler, Homa's ACKs carry
    /// no bitmap offset).
    ProgramCountersSource "ProgramCountersSource", ProgramCountersSink "ProgramCountersSink" {
        fwd offset_range_count: Bits<32>,
        fwd grant_sent_count: Bits<32>,
        fwd ack_sent_count: Bits<32>,
        fwd nack_sent_count: Bits<32>,
        fwd sched_inserts_count: Bits<32>,
        fwd sched_removes_count: Bits<32>,
        fwd sched_unknown_removes_count: Bits<32>,
        fwd sched_fifo_enters_count: Bits<32>,
        /// Scheduler entries in use (bits 4–0) and FIFO records (bits 23–8).
        fwd sched_levels: Bits<32>,
    }
}

bundle! {
    /// A packet descriptor (Listing 3.2): the packet of a message that goes next, with the
    /// metadata it carries, from the packetization core to the packet read-out (valid/ready).
    PacketDescriptorSource "PacketDescriptorSource", PacketDescriptorSink "PacketDescriptorSink" <const IW: usize> {
        fwd valid: Bit,
        back ready: Bit,
        /// The message's transmit slot.
        fwd slot: Bits<IW>,
        fwd remote_ip: Bits<32>,
        fwd remote_port: Bits<16>,
        fwd msg_len: Bits<16>,
        /// The packet's offset in the message, in packets.
        fwd offset: Bits<8>,
        fwd local_port: Bits<16>,
        fwd tx_msg_id: Bits<16>,
        fwd credit: Bits<16>,
        fwd rank: Bits<8>,
        fwd flags: Bits<8>,
        fwd is_new_msg: Bit,
        fwd is_rtx: Bit,
    }
}
