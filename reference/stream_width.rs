//! Reference model of the AXI4-Stream width converters (hdl/common/stream_downsizer.rs and
//! stream_upsizer.rs): the beats a stream of one width becomes at the other, bytes in order and
//! frame ends kept.

use crate::frame_fifo::Beat;

/// The 64-bit beats of 512-bit beats: one per 8-byte group up to the first group whose byte 0 is
/// not kept (at least one per wide beat), `tlast` on the last of a wide beat with `tlast`.
pub fn narrow_beats(wide: &[Beat]) -> Vec<Beat> {
    let mut out = Vec::new();
    for b in wide {
        let groups = (1..8).take_while(|g| (b.keep >> (8 * g)) & 1 == 1).count() + 1;
        for g in 0..groups {
            out.push(Beat { data: vec![b.data[g]], keep: (b.keep >> (8 * g)) & 0xff, last: b.last && g + 1 == groups });
        }
    }
    out
}

/// The 512-bit beats of 64-bit beats: eight at a time, or fewer ending with `tlast`, groups not
/// received zero and not kept.
pub fn wide_beats(narrow: &[Beat]) -> Vec<Beat> {
    let mut out = Vec::new();
    let mut current = Beat { data: vec![0; 8], keep: 0, last: false };
    let mut filled = 0;
    for b in narrow {
        current.data[filled] = b.data[0];
        current.keep |= (b.keep & 0xff) << (8 * filled);
        filled += 1;
        if filled == 8 || b.last {
            current.last = b.last;
            out.push(std::mem::replace(&mut current, Beat { data: vec![0; 8], keep: 0, last: false }));
            filled = 0;
        }
    }
    out
}
