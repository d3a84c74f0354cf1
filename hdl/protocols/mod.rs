//! Transport protocols as programs on the PISA pipelines (thesis §3.3.4).

pub mod homa;
pub mod ndp;
