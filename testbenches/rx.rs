//! The receive path at every NIC size the tests cover: one description per size, and the
//! [`crate::cases`] list of its sizes.

use nanotransport_hdl::nic::delivered_set::DEFAULT_HORIZON_CYCLES;
use nanotransport_hdl::nic::get_rx_msg_info::rx_classes_for;
use nanotransport_reference::rx::{RxModel, TableModel};

/// One size of the receive path, as a named block configuration generates it.
#[derive(Clone, Copy, Debug)]
pub struct RxSize {
    /// Module prefix of the block configuration (`nt_blocks_16`).
    pub prefix: &'static str,
    pub slot_bits: usize,
    pub bucket_bits: usize,
    pub classes: [(u64, u64); 4],
}

/// The 16-message receive path (blocks-16).
pub const RX_16: RxSize = RxSize { prefix: "nt_blocks_16", slot_bits: 4, bucket_bits: 4, classes: rx_classes_for(16) };
/// The 128-message receive path (blocks-128).
pub const RX_128: RxSize = RxSize { prefix: "nt_blocks_128", slot_bits: 7, bucket_bits: 6, classes: rx_classes_for(128) };

impl RxSize {
    pub fn messages(&self) -> usize {
        1 << self.slot_bits
    }

    /// The slot number inside an `rx_msg_id`.
    pub fn slot_of(&self, rx_msg_id: u16) -> usize {
        (rx_msg_id as usize) & (self.messages() - 1)
    }

    /// The Verilator module name of `block` at this size.
    pub fn module(&self, block: &str) -> String {
        format!("{}_{block}", self.prefix)
    }

    /// The table's reference model.
    pub fn table_model(&self) -> TableModel {
        TableModel::new(self.classes, self.slot_bits, self.bucket_bits, DEFAULT_HORIZON_CYCLES)
    }

    /// The receive path's reference model with ingress timeout `timeout`.
    pub fn model(&self, timeout: u64) -> RxModel {
        RxModel::new(self.classes, timeout, self.slot_bits, self.bucket_bits, DEFAULT_HORIZON_CYCLES)
    }
}
