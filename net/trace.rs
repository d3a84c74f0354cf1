//! Traces: frames on a link as a nanosecond pcap.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::time::Duration;

/// Frames as they started on a link: (tick, bytes).
#[derive(Clone, Debug, Default)]
pub struct PcapTrace {
    pub frames: Vec<(u64, Vec<u8>)>,
}

impl PcapTrace {
    pub fn record(&mut self, tick: u64, frame: &[u8]) {
        self.frames.push((tick, frame.to_vec()));
    }

    /// Writes a nanosecond Ethernet pcap; `tick_ns` converts a tick into nanoseconds.
    pub fn write(&self, path: &std::path::Path, tick_ns: impl Fn(u64) -> f64) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let header = PcapHeader { datalink: DataLink::ETHERNET, ts_resolution: TsResolution::NanoSecond, ..Default::default() };
        let mut w = PcapWriter::with_header(std::io::BufWriter::new(file), header).map_err(|e| format!("{}: {e}", path.display()))?;
        for (tick, f) in &self.frames {
            let ns = tick_ns(*tick).round() as u64;
            w.write_packet(&PcapPacket::new(Duration::from_nanos(ns), f.len() as u32, f))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }
}
