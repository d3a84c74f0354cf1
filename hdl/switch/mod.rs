//! Switch blocks around the NIC: Bolt's ingress logic (thesis chapter 4) and PL2's timeslot
//! reservations.

pub mod bolt_header;
pub mod bolt_ingress;
pub mod bolt_stream;
pub mod pl2_reservation;
pub mod supply_unit;
pub mod timeslot_counters;
