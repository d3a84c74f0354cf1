//! A whole NIC, resolved once: a preset ([`CONFIGS`] with a protocol) or a parameter set
//! ([`NicParams`], from flags or a TOML file) whose Verilator model is loaded. Every driver,
//! report, replay, fuzz run and experiment takes a [`WholeNic`]; nothing looks a NIC up by name
//! after it is made. A parameter set's Verilog is generated into the model cache
//! (`<cache>/param-sets/<name>/`), its model built on first use and loaded
//! ([`crate::cosim::cache`]).

use crate::cosim::cache;
use nanotransport_hdl::configs::{find_config, NicParams, NicTop, Protocol, CONFIGS};
use nanotransport_hdl::generate::write_modules;
use std::collections::HashMap;
use std::sync::Mutex;

/// A whole NIC: its parameters (name, protocol, size, classes, register defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeNic {
    params: NicParams,
}

impl WholeNic {
    /// The preset named `name` (e.g. `ndp-16`); the error lists the presets.
    pub fn preset(name: &str) -> Result<Self, String> {
        let names: Vec<&str> = CONFIGS.iter().filter(|c| c.protocol.is_some()).map(|c| c.name).collect();
        let valid = format!("valid: {} (or a parameter-set file, NAME.toml)", names.join(", "));
        match find_config(name) {
            Ok(config) if config.protocol.is_some() => Ok(Self { params: config.params() }),
            Ok(_) => Err(format!("'{name}' is not a whole NIC (a bundle of single blocks); {valid}")),
            Err(_) => Err(format!("unknown whole NIC '{name}'; {valid}")),
        }
    }

    /// The preset of `protocol` at `messages` per direction.
    pub fn of(protocol: Protocol, messages: usize) -> Result<Self, String> {
        CONFIGS
            .iter()
            .find(|c| c.protocol == Some(protocol) && c.messages == messages)
            .map(|c| Self { params: c.params() })
            .ok_or_else(|| format!("no {protocol} preset of {messages} messages"))
    }

    /// A parameter set, made runnable: checked, its Verilog generated, its Verilator model built
    /// (or found cached: minutes the first time) and loaded. A preset's name is refused, and so
    /// is a different set under a name already loaded in this process (the model cache knows
    /// modules by name).
    pub fn from_params(params: NicParams) -> Result<Self, String> {
        // One set loads at a time; the map only guards the module names against a second,
        // different set: nothing is looked up in it.
        static LOADED: Mutex<Option<HashMap<String, NicParams>>> = Mutex::new(None);
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        let loaded = loaded.get_or_insert_with(HashMap::new);
        params.validate()?;
        if find_config(&params.name).is_ok() {
            return Err(format!("parameter set name '{}' is a preset's; give the set a name of its own", params.name));
        }
        match loaded.get(&params.name) {
            Some(p) if *p == params => return Ok(Self { params }),
            Some(_) => return Err(format!("a different parameter set named '{}' is already in use", params.name)),
            None => {}
        }
        load_into_cache(&params, NicTop::Nic)?;
        loaded.insert(params.name.clone(), params.clone());
        Ok(Self { params })
    }

    /// Its board NIC ([`NicTop::BoardNic`]: the NIC between a 100 GbE MAC's edge and the message
    /// echo) made runnable as [`Self::from_params`] makes a parameter set: generated into the model
    /// cache, its Verilator model built (minutes the first time) and loaded. Returns the module.
    pub fn load_board_nic(&self) -> Result<String, String> {
        load_into_cache(&self.params, NicTop::BoardNic)
    }

    /// The name it runs under: the preset's, or the parameter set's.
    pub fn name(&self) -> &str {
        &self.params.name
    }

    pub fn protocol(&self) -> Protocol {
        self.params.protocol
    }

    /// Concurrent messages per direction.
    pub fn messages(&self) -> usize {
        self.params.messages
    }

    /// IP protocol number of its packets.
    pub fn ip_protocol(&self) -> u8 {
        self.params.protocol.ip_protocol()
    }

    pub fn params(&self) -> &NicParams {
        &self.params
    }

    /// Its Verilator top module, e.g. `nt_ndp_16_nic`.
    pub fn module(&self) -> String {
        format!("{}_nic", self.params.module_prefix())
    }

    /// Messages of `packets` packets it can receive at once (the buffers of the receive size
    /// classes that hold them).
    pub fn receives_at_once(&self, packets: u64) -> u64 {
        self.params.rx_classes.iter().filter(|c| c.0 >= packets).map(|c| c.1).sum()
    }
}

impl std::fmt::Display for WholeNic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as its name. A name read back must be a preset's: a parameter set is not carried in
/// the records that name it (load it from its file to run it again).
impl serde::Serialize for WholeNic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for WholeNic {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        WholeNic::preset(&name).map_err(serde::de::Error::custom)
    }
}

/// Generates `top` around `params` into `<cache>/param-sets/<name>/` and loads its Verilator model
/// (built on first use); returns the module name.
fn load_into_cache(params: &NicParams, top: NicTop) -> Result<String, String> {
    let module = params.generate_top(top)?;
    let dir = cache::cache_dir().join("param-sets").join(&params.name);
    let path = dir.join(module.file_name());
    // Rewritten only when it changed, so the cached model's source stays the same file.
    if std::fs::read_to_string(&path).ok().as_deref() != Some(module.verilog.as_str()) {
        write_modules(&dir, std::slice::from_ref(&module)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    cache::load(&path, crate::cosim::build::Flavour::PLAIN)?;
    Ok(module.module)
}
