//! Board constraints as the project writes them (`constraints/vcu118.xdc`), read back for the
//! checks that need no Vivado: every port has one pin and every pin one port, every port but a
//! transceiver's has an I/O standard, clocks are created only on board clock inputs, and every
//! slow asynchronous port (button, LEDs, module sideband) is cut from timing.
//!
//! The reader knows the commands such a file uses, one a line: `set_property` of `PACKAGE_PIN`
//! and I/O properties (alone or as a `-dict`), `create_clock`, `set_false_path`,
//! `set_input_delay` and `set_output_delay`, each on `[get_ports …]`. Anything else is an error,
//! so a file cannot grow constraints the checks do not see.

use std::collections::BTreeMap;

/// A port with a package pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinnedPort {
    pub port: String,
    pub pin: String,
    pub iostandard: Option<String>,
}

/// A clock created on a port.
#[derive(Clone, Debug, PartialEq)]
pub struct PortClock {
    pub name: String,
    pub period_ns: f64,
    pub port: String,
}

/// What a constraints file says about ports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    pub ports: Vec<PinnedPort>,
    pub clocks: Vec<PortClock>,
    /// Port patterns (`led[*]`) cut from timing by `set_false_path`.
    pub false_paths: Vec<String>,
    /// Port patterns given an input or output delay.
    pub delays: Vec<String>,
}

/// The port patterns of the `[get_ports …]` at the end of `line`.
fn get_ports(line: &str) -> Result<Vec<String>, String> {
    let start = line.find("[get_ports ").ok_or_else(|| format!("no [get_ports …] in: {line}"))?;
    let inner =
        line[start + "[get_ports ".len()..].trim_end().strip_suffix(']').ok_or_else(|| format!("unclosed [get_ports in: {line}"))?;
    let inner = inner.trim().trim_start_matches('{').trim_end_matches('}');
    Ok(inner.split_whitespace().map(str::to_string).collect())
}

/// The `key value` pairs of a `set_property` line: `-dict {K V …}` or one `K V`.
fn properties(line: &str) -> Result<Vec<(String, String)>, String> {
    let rest = line.strip_prefix("set_property").unwrap_or(line).trim();
    let before_ports = &rest[..rest.find("[get_ports").unwrap_or(rest.len())];
    let words: Vec<&str> = if let Some(dict) = before_ports.trim().strip_prefix("-dict") {
        dict.trim().trim_start_matches('{').trim_end().trim_end_matches('}').split_whitespace().collect()
    } else {
        before_ports.split_whitespace().collect()
    };
    if words.len() % 2 != 0 {
        return Err(format!("odd property list in: {line}"));
    }
    Ok(words.chunks(2).map(|kv| (kv[0].to_string(), kv[1].to_string())).collect())
}

/// Reads a constraints file; the error names the first line it cannot read.
pub fn parse(text: &str) -> Result<Constraints, String> {
    let mut c = Constraints::default();
    let mut pins: BTreeMap<String, PinnedPort> = BTreeMap::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |e: String| format!("line {}: {e}", n + 1);
        let command = line.split_whitespace().next().unwrap_or_default();
        let ports = get_ports(line).map_err(err)?;
        match command {
            "set_property" => {
                let [port] = ports.as_slice() else { return Err(err(format!("set_property on one port only: {line}"))) };
                let entry = pins.entry(port.clone()).or_insert(PinnedPort { port: port.clone(), pin: String::new(), iostandard: None });
                for (key, value) in properties(line).map_err(err)? {
                    match key.as_str() {
                        "PACKAGE_PIN" => entry.pin = value,
                        "IOSTANDARD" => entry.iostandard = Some(value),
                        "SLEW" | "DRIVE" | "PULLUP" => {}
                        other => return Err(err(format!("property {other} is not one the checks know"))),
                    }
                }
            }
            "create_clock" => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let after = |flag: &str| words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1)).copied();
                let period_ns = after("-period").and_then(|p| p.parse().ok()).ok_or_else(|| err("create_clock without -period".into()))?;
                let name = after("-name").ok_or_else(|| err("create_clock without -name".into()))?.to_string();
                let [port] = ports.as_slice() else { return Err(err("create_clock on one port only".into())) };
                c.clocks.push(PortClock { name, period_ns, port: port.clone() });
            }
            "set_false_path" => c.false_paths.extend(ports),
            "set_input_delay" | "set_output_delay" => c.delays.extend(ports),
            other => return Err(err(format!("command {other} is not one the checks know"))),
        }
    }
    c.ports = pins.into_values().collect();
    Ok(c)
}

/// Whether port `name` matches `pattern` (`*` stands for any text).
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail),
    }
}

/// A transceiver pin (lanes and their reference clock): placed, never given an I/O standard.
pub fn is_transceiver(port: &str) -> bool {
    port.contains("_mgt_refclk_") || ["_rx_p[", "_rx_n[", "_tx_p[", "_tx_n["].iter().any(|s| port.contains(s))
}

impl Constraints {
    /// The checks of a board's constraints; the error lists every finding, one a line.
    pub fn check_board(&self) -> Result<(), String> {
        let mut findings = Vec::new();
        let mut by_pin: BTreeMap<&str, &str> = BTreeMap::new();
        for p in &self.ports {
            if p.pin.is_empty() {
                findings.push(format!("{}: no PACKAGE_PIN", p.port));
            } else if let Some(other) = by_pin.insert(&p.pin, &p.port) {
                findings.push(format!("pin {} given to {other} and {}", p.pin, p.port));
            }
            match (is_transceiver(&p.port), &p.iostandard) {
                (true, Some(s)) => findings.push(format!("{}: a transceiver pin with IOSTANDARD {s}", p.port)),
                (false, None) => findings.push(format!("{}: no IOSTANDARD", p.port)),
                _ => {}
            }
        }
        let named = self.false_paths.iter().chain(&self.delays).chain(self.clocks.iter().map(|c| &c.port));
        for pattern in named {
            if !self.ports.iter().any(|p| matches(pattern, &p.port)) {
                findings.push(format!("{pattern}: named in a constraint but has no pin"));
            }
        }
        let clock_ports: Vec<&str> = self.clocks.iter().map(|c| c.port.as_str()).collect();
        for p in &self.ports {
            // A differential clock's pair: its `_p` has the clock, its `_n` goes with it.
            let clock_pin =
                clock_ports.iter().any(|c| p.port == *c || c.strip_suffix("_p").is_some_and(|stem| p.port == format!("{stem}_n")));
            if clock_pin || is_transceiver(&p.port) {
                continue;
            }
            if !self.false_paths.iter().any(|f| matches(f, &p.port)) {
                findings.push(format!("{}: an asynchronous port without set_false_path", p.port));
            }
            if !self.delays.iter().any(|f| matches(f, &p.port)) {
                findings.push(format!("{}: an asynchronous port without an input or output delay", p.port));
            }
        }
        for c in &self.clocks {
            if !(c.period_ns > 0.0) {
                findings.push(format!("clock {}: period {} ns", c.name, c.period_ns));
            }
        }
        if findings.is_empty() {
            Ok(())
        } else {
            Err(findings.join("\n"))
        }
    }
}
