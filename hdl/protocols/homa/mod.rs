//! Homa (thesis §3.3.4, Algorithm 6) and Homa-Tr (§3.4.2): one ingress program with a
//! trimming option and an egress stage that gives DATA packets their message's priority
//! (DSCP), plugged into the [NIC shell](crate::nic::shell) as [`ingress::HomaNic`].

pub mod egress;
pub mod ingress;
