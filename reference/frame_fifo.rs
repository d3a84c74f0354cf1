//! Reference model of the store-and-forward frame FIFO (hdl/common/frame_fifo.rs): which frames
//! are kept and which dropped, and which beat leaves when the output takes one, edge by edge.
//!
//! It decides from the beats stored before each edge, as the block does, and leaves the output's
//! timing to the block: the caller says when a beat was taken from the output, and the model
//! answers which beat that must be (or that none was whole yet).

use std::collections::VecDeque;

/// One AXI4-Stream beat: data as 64-bit words (word 0 holds bytes 0–7), byte enables, `tlast`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub data: Vec<u64>,
    pub keep: u64,
    pub last: bool,
}

/// The three counters of the block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameFifoCounts {
    /// Frames stored whole.
    pub frames: u64,
    /// Frames dropped for `tuser` on their last beat.
    pub bad_frames: u64,
    /// Frames dropped for want of room.
    pub overflows: u64,
}

/// The FIFO of `depth` beats; `lossless` back-pressures instead of dropping a frame that does
/// not fit (only a frame longer than the FIFO is then dropped).
#[derive(Clone, Debug)]
pub struct FrameFifoModel {
    depth: usize,
    lossless: bool,
    /// Whole frames not yet taken, oldest first, as one beat queue.
    whole: VecDeque<Beat>,
    under_way: Vec<Beat>,
    dropping: bool,
    pub counts: FrameFifoCounts,
}

impl FrameFifoModel {
    pub fn new(depth: usize, lossless: bool) -> Self {
        FrameFifoModel {
            depth,
            lossless,
            whole: VecDeque::new(),
            under_way: Vec::new(),
            dropping: false,
            counts: FrameFifoCounts::default(),
        }
    }

    /// Beats stored, the frame under way included (the block's `level`).
    pub fn level(&self) -> usize {
        self.whole.len() + self.under_way.len()
    }

    /// Whether a beat offered now is taken (the block's `s_axis$tready`).
    pub fn ready(&self) -> bool {
        self.dropping || !self.lossless || self.level() < self.depth || self.under_way.len() == self.depth
    }

    /// Beats of whole frames not yet taken.
    pub fn whole_beats(&self) -> usize {
        self.whole.len()
    }

    /// One clock edge: `offered` is the beat on the input with its `tuser` (taken if
    /// [`Self::ready`]), `taken` whether the output gave a beat. Returns the beat the output must
    /// have given, or an error when it gave one the model has no whole frame for.
    pub fn clock(&mut self, offered: Option<(Beat, bool)>, taken: bool) -> Result<Option<Beat>, String> {
        let full = self.level() >= self.depth;
        if let Some((beat, bad)) = offered.filter(|_| self.ready()) {
            let last = beat.last;
            if self.dropping {
                self.dropping = !last;
            } else if full {
                self.under_way.clear();
                self.counts.overflows += 1;
                self.dropping = !last;
            } else if last && bad {
                self.under_way.clear();
                self.counts.bad_frames += 1;
            } else {
                self.under_way.push(beat);
                if last {
                    self.whole.extend(self.under_way.drain(..));
                    self.counts.frames += 1;
                }
            }
        }
        if taken {
            return self.whole.pop_front().map(Some).ok_or_else(|| "a beat left with no whole frame stored".to_string());
        }
        Ok(None)
    }

    /// Empties the FIFO and the counters (the block's reset).
    pub fn reset(&mut self) {
        *self = FrameFifoModel::new(self.depth, self.lossless);
    }
}
