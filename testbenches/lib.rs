//! Shared helpers of the integration tests (`tests/suite/`): the repository root, seeds, and the
//! receive path at every size. The harness itself (port access, the lockstep pair, the AXI4-Lite
//! master) is `nanotransport_sim::cosim`, shared with the drivers.

use std::path::PathBuf;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The seed of a random test: `NANOTRANSPORT_SEED` if set, else `default`. Always printed, so a
/// failure can be replayed with `NANOTRANSPORT_SEED=<seed> cargo test …`.
pub fn seed(test: &str, default: u64) -> u64 {
    let seed = std::env::var("NANOTRANSPORT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    println!("{test}: seed {seed}");
    seed
}

pub mod rx;

/// Runs each named test function once per listed case, as the tests `name::case`:
/// `cases!([at_16 => &SIZE_16, at_128 => &SIZE_128]; f, g)` makes the tests `f::at_16`,
/// `f::at_128`, `g::at_16` and `g::at_128`, each calling `f(&SIZE_16)` and so on (a module and a
/// function may share a name). A case's argument is read inside the generated module:
/// `super::SIZE_16` names a constant of the calling module.
#[macro_export]
macro_rules! cases {
    ([$($case:ident => $arg:expr),+ $(,)?]; $name:ident $(, $more:ident)* $(,)?) => {
        mod $name {
            $(
                #[test]
                fn $case() {
                    super::$name($arg)
                }
            )+
        }
        $crate::cases!([$($case => $arg),+]; $($more),*);
    };
    ([$($case:ident => $arg:expr),+ $(,)?]; $(,)?) => {};
}
