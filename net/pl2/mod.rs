//! PL2 (rack-scale reservations): its frames, a switch whose reservation block runs as RTL, and
//! the behavioural sender and receiver of Algorithm 2.

pub mod frame;
pub mod host;
pub mod switch;
