//! A switch scheme chosen by name, with its parameters from the command line (`--scheme red
//! --scheme-set min=100`) or a TOML file (`scheme = "red"` and the same keys), resolved once into
//! a typed [`Scheme`] and turned into the switch's stages ([`Scheme::stages`]).
//!
//! | name | stages | parameters (default) |
//! |---|---|---|
//! | `droptail` | one FIFO, [`DropTail`] | `capacity` (1024 packets) |
//! | `red` | one FIFO, [`Red`] | `min` (150), `max` (300), `max_p` (0.1), `weight` (1/32), `ecn` (false), `capacity` (1024) |
//! | `dctcp` | one FIFO, [`Dctcp`] | `k` (65 packets), `capacity` (1024) |
//! | `hull` | one FIFO, [`DropTail`], [`Hull`]'s phantom queue | `drain` (0.95 of the line rate), `mark_bytes` (15000), `capacity` (1024) |
//! | `priority` | DSCP bands (0 highest), [`DropTail`] over all bands, strict priority | `capacity` (1024) |
//! | `drr` | one queue per source, [`PerSourceQueues`], [`Drr`] | `per_source_packets` (32), `quantum` (1500 bytes), `sources` (64 bands) |
//! | `wdrr` | DSCP bands, [`DropTail`], weighted [`Drr`] | `weights` (e.g. `4:2:1`, 1 for a band not listed), `quantum` (1500), `capacity` (1024) |

use super::{Dctcp, DropTail, Drr, Hull, PerSourceQueues, Red};
use crate::switch::{DscpClassify, Limit, StrictPriority};
use crate::topology::SwitchStages;
use serde::{Deserialize, Serialize};

/// Bands of the DSCP-classified schemes, `priority` and `wdrr` (8 priorities, 0 highest); the
/// others keep one FIFO per port and ignore DSCP, as Flexplane's single-queue schemes.
pub const DSCP_BANDS: usize = 8;

/// The scheme names, as the command line takes them.
pub const SCHEME_NAMES: &[&str] = &["droptail", "red", "dctcp", "hull", "priority", "drr", "wdrr"];

/// A switch scheme with its parameters (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "scheme", rename_all = "kebab-case")]
pub enum Scheme {
    Droptail { capacity: usize },
    Red { min: f64, max: f64, max_p: f64, weight: f64, ecn: bool, capacity: usize },
    Dctcp { k: usize, capacity: usize },
    Hull { drain: f64, mark_bytes: f64, capacity: usize },
    Priority { capacity: usize },
    Drr { per_source_packets: usize, quantum: usize, sources: usize },
    Wdrr { weights: Vec<u32>, quantum: usize, capacity: usize },
}

fn number<T: std::str::FromStr>(scheme: &str, key: &str, value: &str) -> Result<T, String> {
    value.trim().parse().map_err(|_| format!("{scheme} {key}={value}: not a valid number"))
}

impl Scheme {
    /// The scheme `name` with its default parameters.
    pub fn named(name: &str) -> Result<Scheme, String> {
        Ok(match name {
            "droptail" => Scheme::Droptail { capacity: 1024 },
            "red" => Scheme::Red { min: 150.0, max: 300.0, max_p: 0.1, weight: 1.0 / 32.0, ecn: false, capacity: 1024 },
            "dctcp" => Scheme::Dctcp { k: 65, capacity: 1024 },
            "hull" => Scheme::Hull { drain: 0.95, mark_bytes: 15_000.0, capacity: 1024 },
            "priority" => Scheme::Priority { capacity: 1024 },
            "drr" => Scheme::Drr { per_source_packets: 32, quantum: 1500, sources: 64 },
            "wdrr" => Scheme::Wdrr { weights: Vec::new(), quantum: 1500, capacity: 1024 },
            _ => return Err(format!("scheme '{name}': valid {}", SCHEME_NAMES.join(", "))),
        })
    }

    /// The scheme's name.
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::Droptail { .. } => "droptail",
            Scheme::Red { .. } => "red",
            Scheme::Dctcp { .. } => "dctcp",
            Scheme::Hull { .. } => "hull",
            Scheme::Priority { .. } => "priority",
            Scheme::Drr { .. } => "drr",
            Scheme::Wdrr { .. } => "wdrr",
        }
    }

    /// Sets parameter `key` from its text.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let name = self.name();
        let unknown = |keys: &str| format!("{name} has no parameter '{key}': valid {keys}");
        match self {
            Scheme::Droptail { capacity } | Scheme::Priority { capacity } => match key {
                "capacity" => *capacity = number(name, key, value)?,
                _ => return Err(unknown("capacity")),
            },
            Scheme::Red { min, max, max_p, weight, ecn, capacity } => match key {
                "min" => *min = number(name, key, value)?,
                "max" => *max = number(name, key, value)?,
                "max_p" => *max_p = number(name, key, value)?,
                "weight" => *weight = number(name, key, value)?,
                "ecn" => *ecn = value.trim().parse().map_err(|_| format!("red ecn={value}: valid true or false"))?,
                "capacity" => *capacity = number(name, key, value)?,
                _ => return Err(unknown("min, max, max_p, weight, ecn, capacity")),
            },
            Scheme::Dctcp { k, capacity } => match key {
                "k" => *k = number(name, key, value)?,
                "capacity" => *capacity = number(name, key, value)?,
                _ => return Err(unknown("k, capacity")),
            },
            Scheme::Hull { drain, mark_bytes, capacity } => match key {
                "drain" => *drain = number(name, key, value)?,
                "mark_bytes" => *mark_bytes = number(name, key, value)?,
                "capacity" => *capacity = number(name, key, value)?,
                _ => return Err(unknown("drain, mark_bytes, capacity")),
            },
            Scheme::Drr { per_source_packets, quantum, sources } => match key {
                "per_source_packets" => *per_source_packets = number(name, key, value)?,
                "quantum" => *quantum = number(name, key, value)?,
                "sources" => *sources = number(name, key, value)?,
                _ => return Err(unknown("per_source_packets, quantum, sources")),
            },
            Scheme::Wdrr { weights, quantum, capacity } => match key {
                "weights" => *weights = value.split(':').map(|w| number(name, key, w)).collect::<Result<_, _>>()?,
                "quantum" => *quantum = number(name, key, value)?,
                "capacity" => *capacity = number(name, key, value)?,
                _ => return Err(unknown("weights, quantum, capacity")),
            },
        }
        Ok(())
    }

    /// The scheme `name` with `KEY=VALUE` settings applied in order.
    pub fn from_sets(name: &str, sets: &[String]) -> Result<Scheme, String> {
        let mut s = Scheme::named(name)?;
        for kv in sets {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("--scheme-set {kv}: expected KEY=VALUE"))?;
            s.set(k.trim(), v)?;
        }
        s.stages(1)?;
        Ok(s)
    }

    /// The scheme a TOML file describes: `scheme = "NAME"` and its parameters as keys
    /// (`weights` as a list or as `"4:2:1"`).
    pub fn from_toml(text: &str) -> Result<Scheme, String> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| format!("scheme file: {}", e.message()))?;
        let name = table.get("scheme").and_then(|v| v.as_str()).ok_or("scheme file: no `scheme = \"NAME\"`")?;
        let mut s = Scheme::named(name)?;
        for (k, v) in table.iter().filter(|(k, _)| *k != "scheme") {
            let text = match v {
                toml::Value::String(t) => t.clone(),
                toml::Value::Array(a) => a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(":"),
                other => other.to_string(),
            };
            s.set(k, &text)?;
        }
        s.stages(1)?;
        Ok(s)
    }

    /// The switch stages (classifier, queue manager, scheduler, bands per port); `seed` seeds
    /// RED's marking. Inconsistent parameters are a one-line error naming the parameter.
    pub fn stages(&self, seed: u64) -> Result<SwitchStages, String> {
        let capacity_ok = |c: usize| if c == 0 { Err(format!("{} capacity 0: valid 1 packet or more", self.name())) } else { Ok(c) };
        let dscp = || Box::new(DscpClassify { bands: DSCP_BANDS }) as Box<dyn crate::switch::Classify>;
        let fifo = || Box::new(DscpClassify { bands: 1 }) as Box<dyn crate::switch::Classify>;
        let droptail = |c: usize| Box::new(DropTail { limit: Limit::Packets(c) }) as Box<dyn crate::switch::QueueManager>;
        Ok(match self {
            Scheme::Droptail { capacity } => (fifo(), droptail(capacity_ok(*capacity)?), Box::new(StrictPriority), 1),
            Scheme::Priority { capacity } => (dscp(), droptail(capacity_ok(*capacity)?), Box::new(StrictPriority), DSCP_BANDS),
            Scheme::Red { min, max, max_p, weight, ecn, capacity } => {
                (fifo(), Box::new(Red::new(*min, *max, *max_p, *weight, *ecn, capacity_ok(*capacity)?, seed)?), Box::new(StrictPriority), 1)
            }
            Scheme::Dctcp { k, capacity } => (fifo(), Box::new(Dctcp::new(*k, *capacity)?), Box::new(StrictPriority), 1),
            Scheme::Hull { drain, mark_bytes, capacity } => {
                (fifo(), droptail(capacity_ok(*capacity)?), Box::new(Hull::new(*drain, *mark_bytes)?), 1)
            }
            Scheme::Drr { per_source_packets, quantum, sources } => {
                if !(1..=1024).contains(sources) {
                    return Err(format!("drr sources {sources}: valid 1..=1024 queues per port"));
                }
                (fifo(), Box::new(PerSourceQueues::new(*per_source_packets)?), Box::new(Drr::new(*quantum, Vec::new())?), *sources)
            }
            Scheme::Wdrr { weights, quantum, capacity } => {
                if weights.len() > DSCP_BANDS {
                    return Err(format!("wdrr weights: {} given, valid at most {DSCP_BANDS} (one per band)", weights.len()));
                }
                (dscp(), droptail(capacity_ok(*capacity)?), Box::new(Drr::new(*quantum, weights.clone())?), DSCP_BANDS)
            }
        })
    }
}

/// A port of two bands by `classify` (band 0 first: a switch block's control packets), one
/// drop-tail buffer of `buffer_bytes` shared by both, strict priority — the PL2 and Bolt
/// switches' ports (their ingress stage is added apart).
pub fn two_bands_drop_tail(classify: Box<dyn crate::switch::Classify>, buffer_bytes: usize) -> crate::topology::SwitchStages {
    (classify, Box::new(DropTail { limit: crate::switch::Limit::Bytes(buffer_bytes) }), Box::new(crate::switch::StrictPriority), 2)
}
