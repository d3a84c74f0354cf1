//! NDP (thesis §3.3.4, Algorithm 5): the ingress program. Its egress program only fills the
//! headers from the metadata (`FillHeadersFromMetaData`), which is the
//! [`crate::pisa::deparser::Deparser`] built for IP protocol 155.

pub mod ingress;
