//! NDP (thesis §3.3.4, Algorithm 5): the ingress program, plugged into the
//! [NIC shell](crate::nic::shell) as [`ingress::NdpNic`]. Its egress program only fills the
//! headers from the metadata (`FillHeadersFromMetaData`), which is the shell's
//! [`crate::pisa::deparser::Deparser`] built for IP protocol 155; it has no egress stage.

pub mod ingress;
