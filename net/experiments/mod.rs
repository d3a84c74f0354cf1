//! Paper experiments on the network testbench, one module each: parameters, a run that returns
//! a serialisable result (JSON for scripts), and SVG plots.

pub mod bolt;
pub mod bolt_dumbbell;
pub mod flexplane;
pub mod incast;
pub mod pl2;
pub mod pl2_rpc;
pub mod plot;
pub mod stats;

/// The message of the first check that failed, as an experiment's parameter validation
/// returns it.
pub fn first_error(checks: impl IntoIterator<Item = (bool, String)>) -> Result<(), String> {
    checks.into_iter().find(|(ok, _)| !ok).map_or(Ok(()), |(_, e)| Err(e))
}
