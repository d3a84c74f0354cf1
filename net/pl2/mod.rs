//! PL2 (rack-scale reservations): its frames, a switch whose reservation block runs as RTL, a
//! host's side of Algorithm 2 ([`reservations`]) with a sender of messages and a receiver
//! ([`host`]), and the layer that puts any host's frames under reservations ([`layer`]).

pub mod frame;
pub mod host;
pub mod layer;
pub mod reservations;
pub mod switch;
