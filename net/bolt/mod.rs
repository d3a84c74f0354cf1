//! Bolt (thesis chapter 4): its frames, a switch whose ingress block runs as RTL, and the
//! sender of Algorithm 8 with its receiver.

pub mod frame;
pub mod host;
pub mod switch;
