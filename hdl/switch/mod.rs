//! Switch blocks around the NIC (thesis chapter 4): Bolt's ingress logic first.

pub mod bolt_header;
pub mod bolt_ingress;
pub mod bolt_stream;
pub mod supply_unit;
