//! Transaction-level reference models.

pub mod free_list;
pub mod timer;
pub mod bolt;
pub mod pisa;
