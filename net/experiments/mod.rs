//! Paper experiments on the network testbench, one module each: parameters, a run that returns
//! a serialisable result (JSON for scripts), and SVG plots.

pub mod bolt;
pub mod flexplane;
pub mod incast;
pub mod pl2;
pub mod pl2_rpc;
pub mod plot;
pub mod stats;
