//! Homa (thesis §3.3.4, Algorithm 6) and Homa-Tr (§3.4.2): one ingress program with a
//! trimming option. Its egress (the message's priority into the IPv4 DSCP bits) is a stage of
//! the NIC top ([`crate::nic::top`]) reading the shared priority memory.

pub mod ingress;
