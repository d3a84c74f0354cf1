//! The switch-scheme library after Flexplane (Ousterhout et al., §3 and Table 3.1): queue
//! managers and schedulers written for one port on the stage interface of [`crate::switch`].
//!
//! | scheme | stage | decides | lines: file (Flexplane, Table 3.1) |
//! |---|---|---|---|
//! | [`DropTail`] | queue manager | drops when the port's buffer is full | `droptail.rs` 19 (39) |
//! | [`Red`] | queue manager | Floyd and Jacobson's count-based RED on the average queue: drops, or ECN-marks ECN-capable frames | `red.rs` 109 (125) |
//! | [`Dctcp`] | queue manager | ECN-marks above K packets, drops at capacity | `dctcp.rs` 34 (43) |
//! | [`PerSourceQueues`] | queue manager | one queue per source, each with its own buffer (with [`Drr`]: per-source fair queueing) | with DRR below |
//! | [`crate::switch::StrictPriority`] | scheduler | lowest non-empty band first | in `switch.rs` (29) |
//! | [`Drr`] | scheduler | deficit round robin over the bands, with a weight per band | `drr.rs` 88 with the per-source queues (round robin 38) |
//! | [`Hull`] | scheduler | strict priority, ECN-marking what leaves while a phantom queue draining at a fraction of the line rate holds more than a threshold | `hull.rs` 41 (not legible in the paper) |
//!
//! Lines are counted without comments and blank lines, `use` lines, parameter checks and
//! defaults included (a test recounts them).
//!
//! ECN marking sets the IPv4 ECN field to CE (and fixes the header checksum) on frames that are
//! ECN-capable (ECT(0) or ECT(1)); a frame that is not is never marked ([`mark_ce`]).

mod dctcp;
mod droptail;
mod drr;
mod hull;
mod red;
mod spec;

pub use dctcp::Dctcp;
pub use droptail::DropTail;
pub use drr::{Drr, PerSourceQueues};
pub use hull::Hull;
pub use red::Red;
pub use spec::{two_bands_drop_tail, Scheme, DSCP_BANDS, SCHEME_NAMES};

use nanotransport_hdl::pisa::wire::{ETH_HEADER_BYTES, OFF_CHECKSUM, OFF_TOS};

const IP_START: usize = ETH_HEADER_BYTES;
const IP_END: usize = crate::ipv4::OFF_IPV4_PAYLOAD;

/// Whether a frame's IPv4 ECN field says ECN-capable transport (ECT(0) or ECT(1)) or CE.
pub fn ecn_capable(frame: &[u8]) -> bool {
    frame.len() >= IP_END && frame[OFF_TOS] & 0b11 != 0
}

/// Sets a frame's ECN field to CE if it is ECN-capable, with the IPv4 header checksum fixed;
/// returns whether it is now marked.
pub fn mark_ce(frame: &mut [u8]) -> bool {
    if !ecn_capable(frame) {
        return false;
    }
    frame[OFF_TOS] |= 0b11;
    frame[OFF_CHECKSUM..OFF_CHECKSUM + 2].fill(0);
    let sum = nanotransport_reference::pisa::ipv4_sum(&frame[IP_START..IP_END]);
    frame[OFF_CHECKSUM..OFF_CHECKSUM + 2].copy_from_slice(&(!sum).to_be_bytes());
    true
}

/// Whether a frame carries CE.
pub fn is_ce(frame: &[u8]) -> bool {
    frame.len() >= IP_END && frame[OFF_TOS] & 0b11 == 0b11
}
