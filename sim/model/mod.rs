//! Transaction-level reference models.

pub mod free_list;
pub mod rx;
pub mod timer;
