//! Whole NICs by name: the presets of [`nanotransport_hdl::configs::CONFIGS`] and parameter sets
//! registered at run time ([`register`]). A registered set's Verilog is generated into the model
//! cache (`<cache>/param-sets/<name>/`), its Verilator model built on first use and loaded
//! ([`crate::cosim::cache`]); afterwards every function that takes a configuration name — the
//! drivers, reports, replay, fuzz and experiments — accepts the set's name like a preset's.

use crate::cosim::cache;
use nanotransport_hdl::configs::{find_config, NicParams, CONFIGS};
use nanotransport_hdl::generate::write_modules;
use std::sync::Mutex;

static REGISTERED: Mutex<Vec<NicParams>> = Mutex::new(Vec::new());

/// What the drivers need to know of a whole NIC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeNic {
    pub name: String,
    pub protocol: nanotransport_hdl::configs::Protocol,
    /// Concurrent messages per direction.
    pub messages: usize,
    /// Receive size classes: (packets per message, messages).
    pub rx_classes: [(u64, u64); 4],
}

impl WholeNic {
    /// Messages of `packets` packets it can receive at once (the buffers of the classes that
    /// hold them).
    pub fn receives_at_once(&self, packets: u64) -> u64 {
        self.rx_classes.iter().filter(|c| c.0 >= packets).map(|c| c.1).sum()
    }
}

/// The whole NIC named `name`: a preset or a registered parameter set; the error lists both.
pub fn whole_nic(name: &str) -> Result<WholeNic, String> {
    if let Ok(c) = find_config(name) {
        let protocol = c.protocol.ok_or(format!("configuration '{name}' is not a whole NIC (it has no protocol)"))?;
        let rx_classes = nanotransport_hdl::configs::rx_classes_for(c.messages);
        return Ok(WholeNic { name: name.into(), protocol, messages: c.messages, rx_classes });
    }
    let sets = REGISTERED.lock().map_err(|_| "parameter-set registry poisoned".to_string())?;
    if let Some(p) = sets.iter().find(|p| p.name == name) {
        return Ok(WholeNic { name: name.into(), protocol: p.protocol, messages: p.messages, rx_classes: p.rx_classes });
    }
    let names: Vec<&str> = CONFIGS.iter().filter(|c| c.protocol.is_some()).map(|c| c.name).chain(sets.iter().map(|p| p.name.as_str())).collect();
    Err(format!("unknown whole NIC '{name}'; valid: {} (or a parameter-set file, NAME.toml)", names.join(", ")))
}

/// The protocol of the whole NIC named `name` (a preset or a registered parameter set).
pub fn protocol_of(name: &str) -> Result<nanotransport_hdl::configs::Protocol, String> {
    whole_nic(name).map(|w| w.protocol)
}

/// The registered parameter set named `name`, if any.
pub fn registered(name: &str) -> Option<NicParams> {
    REGISTERED.lock().ok()?.iter().find(|p| p.name == name).cloned()
}

/// Makes the parameter set runnable under its name: checks it, generates its Verilog, builds
/// (or finds cached) and loads its Verilator model. A name of a preset is refused; registering
/// the same set twice is harmless, a different set under a registered name is refused.
pub fn register(params: &NicParams) -> Result<(), String> {
    // One registration at a time in this process: a second caller waits and then finds the set.
    static REGISTERING: Mutex<()> = Mutex::new(());
    let _one = REGISTERING.lock().unwrap_or_else(|e| e.into_inner());
    params.validate()?;
    if find_config(&params.name).is_ok() {
        return Err(format!("parameter set name '{}' is a preset's; give the set a name of its own", params.name));
    }
    if let Some(p) = registered(&params.name) {
        return if &p == params { Ok(()) } else { Err(format!("a different parameter set named '{}' is already in use", params.name)) };
    }
    let module = params.generate()?;
    let dir = cache::cache_dir().join("param-sets").join(&params.name);
    let path = dir.join(module.file_name());
    // Rewritten only when it changed, so the cached model's source stays the same file.
    if std::fs::read_to_string(&path).ok().as_deref() != Some(module.verilog.as_str()) {
        write_modules(&dir, std::slice::from_ref(&module)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    cache::load(&path, crate::cosim::build::Flavour::PLAIN)?;
    REGISTERED.lock().map_err(|_| "parameter-set registry poisoned".to_string())?.push(params.clone());
    Ok(())
}
