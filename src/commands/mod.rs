//! The commands, by what they work on; `main` parses the command line and calls them.

pub(crate) mod bolt;
pub(crate) mod flexplane;
pub(crate) mod hardware;
pub(crate) mod incast;
pub(crate) mod nic;
pub(crate) mod pl2;
pub(crate) mod report;
