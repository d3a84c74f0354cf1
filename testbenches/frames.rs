//! AXI4-Stream frames for the stream-block tests, as [`Beat`]s: byte k of frame f is
//! (k + 7 f) mod 256, so a byte out of place or from another frame shows.

use nanotransport_reference::frame_fifo::Beat;

fn byte(frame: u64, k: usize) -> u64 {
    ((k as u64) + 7 * frame) & 0xff
}

/// Frame `frame` of `bytes` bytes as 512-bit beats (eight 64-bit words each).
pub fn wide_frame(frame: u64, bytes: usize) -> Vec<Beat> {
    (0..bytes.div_ceil(64))
        .map(|b| {
            let data = (0..8).map(|g| (0..8).fold(0u64, |w, i| w | byte(frame, 64 * b + 8 * g + i) << (8 * i))).collect();
            let here = (bytes - 64 * b).min(64);
            let keep = if here == 64 { u64::MAX } else { (1u64 << here) - 1 };
            Beat { data, keep, last: 64 * (b + 1) >= bytes }
        })
        .collect()
}

/// Frame `frame` of `bytes` bytes as 64-bit beats.
pub fn narrow_frame(frame: u64, bytes: usize) -> Vec<Beat> {
    (0..bytes.div_ceil(8))
        .map(|b| {
            let here = (bytes - 8 * b).min(8);
            let word = (0..here).fold(0u64, |w, i| w | byte(frame, 8 * b + i) << (8 * i));
            Beat { data: vec![word], keep: (1u64 << here) - 1, last: 8 * (b + 1) >= bytes }
        })
        .collect()
}
