//! Whole-NIC parameter sets from the command line: a TOML file (`--params FILE`) or flags
//! (`--protocol P --messages N [--rx-classes …] [--tx-classes …] [--max-message-bytes B]
//! [--default REG=V]… [--name NAME]`), on top of the preset of that protocol and size.
//!
//! TOML (every key but `protocol` and `messages` optional):
//! ```toml
//! name = "ndp-64-wide"
//! protocol = "ndp"
//! messages = 64
//! max_message_bytes = 38912
//! clock_mhz = 322.265625                                 # the NIC's clock (default 3200)
//! rx_classes = [[1, 64], [4, 32], [8, 16], [38, 16]]     # [packets per message, messages]
//! tx_classes = [[32, 1024], [8, 4096], [8, 8192], [16, 38912]]   # [buffers, bytes]
//! [defaults]
//! rtt_pkts = 12
//! rto_ns = 6250                                          # a time register in ns, or rto_cycles
//! ```

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::configs::{NicParams, Protocol};
use nanotransport_hdl::nic::tx_path::TxSizeClass;
use nanotransport_sim::whole_nic::WholeNic;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The flags of a parameter set (all optional; `protocol` and `messages` start one).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ParamFlags {
    /// Parameter set from a TOML file (repeatable)
    #[arg(long = "params", value_name = "FILE")]
    pub files: Vec<std::path::PathBuf>,
    /// Parameter set: protocol
    #[arg(long, value_enum, value_name = "P")]
    pub protocol: Option<Protocol>,
    /// Parameter set: messages per direction (a size compiled in)
    #[arg(long, value_name = "N")]
    pub messages: Option<usize>,
    /// Parameter set: name of the folder and module prefix (default <protocol>-<messages>-custom)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Parameter set: receive size classes as PACKETSxMESSAGES,… (four)
    #[arg(long, value_name = "LIST")]
    pub rx_classes: Option<String>,
    /// Parameter set: transmit size classes as BUFFERSxBYTES,… (one to four)
    #[arg(long, value_name = "LIST")]
    pub tx_classes: Option<String>,
    /// Parameter set: largest message in bytes
    #[arg(long, value_name = "B")]
    pub max_message_bytes: Option<u64>,
    /// Parameter set: reset value of a configuration register, NAME=VALUE (repeatable; a time
    /// register also as rto_ns, gc_timeout_ns, pace_ns, converted with the clock)
    #[arg(long = "default", value_name = "REG=V")]
    pub defaults: Vec<String>,
    /// Parameter set: the NIC's clock in MHz (default the thesis' 3200; the 100 GbE MAC's user clock is 322.265625)
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamFile {
    name: Option<String>,
    protocol: Protocol,
    messages: usize,
    max_message_bytes: Option<u64>,
    clock_mhz: Option<f64>,
    rx_classes: Option<Vec<[u64; 2]>>,
    tx_classes: Option<Vec<[u64; 2]>>,
    #[serde(default)]
    defaults: BTreeMap<String, toml::Value>,
}

impl ParamFlags {
    /// Whether any parameter-set flag was given.
    pub fn any(&self) -> bool {
        !self.files.is_empty() || self.protocol.is_some() || self.messages.is_some()
    }

    /// Every parameter set the flags and files describe, validated; a set that names no clock
    /// runs at the thesis' 3.2 GHz.
    pub fn parse(&self) -> Result<Vec<NicParams>, String> {
        self.parse_at(NicClock::THESIS)
    }

    /// Every parameter set the flags and files describe, validated; a set that names no clock
    /// runs at `clock`.
    pub fn parse_at(&self, clock: NicClock) -> Result<Vec<NicParams>, String> {
        let mut sets = Vec::new();
        for f in &self.files {
            sets.push(from_file_at(f, clock)?);
        }
        if self.protocol.is_some() || self.messages.is_some() {
            let protocol = self.protocol.ok_or("--messages needs --protocol (ndp, homa, homa-tr)")?;
            let messages = self.messages.ok_or("--protocol needs --messages")?;
            let name = self.name.clone().unwrap_or(format!("{protocol}-{messages}-custom"));
            let rx = self.rx_classes.as_deref().map(|s| pairs("--rx-classes", s)).transpose()?;
            let tx = self.tx_classes.as_deref().map(|s| pairs("--tx-classes", s)).transpose()?;
            let clock =
                self.clock_mhz.map(|c| NicClock::from_mhz(c).map_err(|e| format!("--clock-mhz: {e}"))).transpose()?.unwrap_or(clock);
            sets.push(build(&name, protocol, messages, clock, self.max_message_bytes, rx, tx, &self.defaults)?);
        } else if self.rx_classes.is_some()
            || self.tx_classes.is_some()
            || self.max_message_bytes.is_some()
            || !self.defaults.is_empty()
            || self.clock_mhz.is_some()
        {
            return Err("size classes, --max-message-bytes, --clock-mhz and --default need --protocol and --messages".into());
        }
        Ok(sets)
    }
}

/// The parameter set of a TOML file (at the thesis' clock unless it names one).
pub fn from_file(path: &Path) -> Result<NicParams, String> {
    from_file_at(path, NicClock::THESIS)
}

/// The parameter set of a TOML file, at `clock` unless it names one (`clock_mhz`).
pub fn from_file_at(path: &Path, clock: NicClock) -> Result<NicParams, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let f: ParamFile = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
    let defaults: Vec<String> = f.defaults.iter().map(|(k, v)| format!("{k}={}", v.to_string().trim_matches('"'))).collect();
    let name = f.name.unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    let rx = f.rx_classes.map(|v| v.into_iter().map(|p| (p[0], p[1])).collect());
    let tx = f.tx_classes.map(|v| v.into_iter().map(|p| (p[0], p[1])).collect());
    let at = |e: String| format!("{}: {e}", path.display());
    let clock = f.clock_mhz.map(|c| NicClock::from_mhz(c).map_err(|e| at(format!("clock_mhz: {e}")))).transpose()?.unwrap_or(clock);
    build(&name, f.protocol, f.messages, clock, f.max_message_bytes, rx, tx, &defaults).map_err(at)
}

/// `AxB,CxD,…` as pairs.
fn pairs(flag: &str, s: &str) -> Result<Vec<(u64, u64)>, String> {
    s.split(',')
        .map(|item| {
            let (a, b) = item.trim().split_once('x').ok_or(format!("{flag} '{item}': expected AxB"))?;
            let num = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("{flag} '{item}': '{t}' is not a number"));
            Ok((num(a)?, num(b)?))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn build(
    name: &str,
    protocol: Protocol,
    messages: usize,
    clock: NicClock,
    max_message_bytes: Option<u64>,
    rx: Option<Vec<(u64, u64)>>,
    tx: Option<Vec<(u64, u64)>>,
    defaults: &[String],
) -> Result<NicParams, String> {
    let mut p = NicParams::preset_at(name, protocol, messages, clock);
    if let Some(b) = max_message_bytes {
        p.max_message_bytes = b;
    }
    if let Some(rx) = rx {
        p.rx_classes = rx.try_into().map_err(|v: Vec<_>| format!("receive size classes: {} given, exactly 4 needed", v.len()))?;
    }
    if let Some(tx) = tx {
        p.tx_classes = tx.into_iter().map(|(buffers, bytes)| TxSizeClass { buffers: buffers as usize, bytes }).collect();
    }
    for w in nanotransport_sim::registers::parse_sets(defaults, &p)? {
        p.config_defaults[(w.addr / 4) as usize] = w.value;
    }
    p.validate()?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_files_make_validated_sets() {
        let flags = ParamFlags {
            protocol: Some(Protocol::Homa),
            messages: Some(64),
            tx_classes: Some("48x1024,16x38912".into()),
            defaults: vec!["rtt_pkts=12".into()],
            ..Default::default()
        };
        let sets = flags.parse().unwrap();
        assert_eq!(sets[0].name, "homa-64-custom");
        assert_eq!(sets[0].tx_classes.len(), 2);
        assert_eq!(sets[0].config_defaults[5], 12);
        let dir = std::env::temp_dir().join(format!("nt-params-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("small.toml");
        std::fs::write(&f, "protocol = \"ndp\"\nmessages = 16\nmax_message_bytes = 8192\nrx_classes = [[1, 16], [2, 16], [4, 16], [8, 16]]\ntx_classes = [[16, 8192]]\n[defaults]\nown_ip = \"10.0.0.9\"\n").unwrap();
        let s = ParamFlags { files: vec![f.clone()], ..Default::default() }.parse().unwrap();
        assert_eq!((s[0].name.as_str(), s[0].config_defaults[4]), ("small", 0x0A00_0009));
        std::fs::write(&f, "protocol = \"ndp\"\nmessages = 16\nmax_message_bytes = 8192\n").unwrap();
        let e = ParamFlags { files: vec![f], ..Default::default() }.parse().unwrap_err();
        assert!(e.contains("receive size class 3: 38 packets, larger than the maximum message (8 packets)"), "{e}");
        let e = ParamFlags { protocol: Some(Protocol::Ndp), messages: Some(16), rx_classes: Some("1x16,4".into()), ..Default::default() }
            .parse()
            .unwrap_err();
        assert!(e.contains("expected AxB"), "{e}");
        let e =
            ParamFlags { protocol: Some(Protocol::Ndp), messages: Some(16), defaults: vec!["rtt_pkts=99".into()], ..Default::default() }
                .parse()
                .unwrap_err();
        assert!(e.contains("rtt_pkts"), "{e}");
    }
}

/// The whole NIC for `protocol` and/or `config` (a preset, or a parameter-set file `*.toml`
/// whose model is built on first use: minutes, the first time, see this module). Without
/// `config` the preset `<protocol>-16` (ndp without either); with both, they must agree.
pub fn whole_nic(protocol: Option<Protocol>, config: Option<&str>) -> Result<WholeNic, String> {
    let nic = match config {
        Some(file) if file.ends_with(".toml") => {
            let p = from_file(Path::new(file))?;
            let clock = std::time::Instant::now();
            eprintln!("{}: loading the model of parameter set '{}' (built on first use: a few minutes)", file, p.name);
            let nic = WholeNic::from_params(p)?;
            eprintln!("{}: model ready in {:.1} s", file, clock.elapsed().as_secs_f64());
            nic
        }
        Some(name) => WholeNic::preset(name)?,
        None => WholeNic::of(protocol.unwrap_or(Protocol::Ndp), 16)?,
    };
    if let Some(p) = protocol.filter(|p| *p != nic.protocol()) {
        return Err(format!("configuration '{nic}' is not a whole NIC running {p} (it runs {})", nic.protocol()));
    }
    Ok(nic)
}
