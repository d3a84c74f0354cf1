//! The NIC's clock: what turns the time registers' nanoseconds into the cycles the hardware
//! counts.
//!
//! Not a hardware block: no ports, no latency. The NIC counts time in cycles of its one clock
//! (the retransmission timeout, the receive garbage-collection timeout, the PULL pacer); a
//! parameter set names the clock it runs at ([`crate::configs::NicParams::clock`]), and the
//! time registers' defaults are set in nanoseconds and converted with it
//! ([`crate::presets::Protocol::config_defaults`]). Two clocks matter:
//! - [`NicClock::THESIS`], 3.2 GHz: the thesis' ASIC clock (64 bits × 3.2 GHz = 204.8 Gb/s on
//!   the MAC side), every preset's;
//! - [`NicClock::CMAC_USER`], 322.265625 MHz: the user clock of the UltraScale+ 100 GbE MAC,
//!   the board design's ([`crate::board`]).
//!
//! A clock is a whole number of hertz, so both are exact and conversions are integer
//! arithmetic, rounded to the nearest cycle.

/// A clock frequency in whole hertz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct NicClock {
    hz: u64,
}

impl NicClock {
    /// The thesis' 3.2 GHz.
    pub const THESIS: NicClock = NicClock { hz: 3_200_000_000 };
    /// The UltraScale+ CMAC's user clock at 100 GbE: 322.265625 MHz.
    pub const CMAC_USER: NicClock = NicClock { hz: 322_265_625 };
    /// The slowest clock a parameter set may name (1 MHz): below it a 32-bit timeout register
    /// would still hold hours, but the 16-bit pacer could not pace one packet per microsecond.
    pub const MIN_HZ: u64 = 1_000_000;
    /// The fastest (4 GHz).
    pub const MAX_HZ: u64 = 4_000_000_000;

    /// The clock of `hz` hertz; the error names the valid range.
    pub fn from_hz(hz: u64) -> Result<Self, String> {
        if !(Self::MIN_HZ..=Self::MAX_HZ).contains(&hz) {
            return Err(format!(
                "clock {} MHz: valid {}..={} MHz (the thesis' {}, the 100 GbE MAC's {})",
                hz as f64 / 1e6,
                Self::MIN_HZ / 1_000_000,
                Self::MAX_HZ / 1_000_000,
                Self::THESIS.mhz(),
                Self::CMAC_USER.mhz()
            ));
        }
        Ok(NicClock { hz })
    }

    /// The clock of `mhz` megahertz, which must be a whole number of hertz.
    pub fn from_mhz(mhz: f64) -> Result<Self, String> {
        let hz = mhz * 1e6;
        if !(hz.is_finite() && (Self::MIN_HZ as f64..=Self::MAX_HZ as f64).contains(&hz.round())) {
            // The range's message (a NaN or an infinity is out of it too).
            return Err(Self::from_hz(if hz.is_finite() && hz > 0.0 { hz.round() as u64 } else { 0 }).err().unwrap_or_default());
        }
        // Decimal megahertz are not exact in binary: within a millihertz of a whole hertz counts.
        if (hz - hz.round()).abs() > 1e-3 {
            return Err(format!("clock {mhz} MHz: give a whole number of hertz (e.g. 3200 or 322.265625)"));
        }
        Self::from_hz(hz.round() as u64)
    }

    pub fn hz(self) -> u64 {
        self.hz
    }

    pub fn mhz(self) -> f64 {
        self.hz as f64 / 1e6
    }

    /// Cycles of `ps` picoseconds, rounded to the nearest cycle.
    pub const fn cycles_of_ps(self, ps: u64) -> u64 {
        ((ps as u128 * self.hz as u128 + 500_000_000_000) / 1_000_000_000_000) as u64
    }

    /// Cycles of `ns` nanoseconds, rounded to the nearest cycle (negative or not finite: 0).
    pub fn cycles_of_ns(self, ns: f64) -> u64 {
        if !ns.is_finite() || ns <= 0.0 {
            return 0;
        }
        (ns * self.hz as f64 / 1e9).round() as u64
    }

    /// The first cycle at or after `ns` whole nanoseconds (3.2 GHz: 16 cycles per 5 ns).
    pub fn cycle_at_or_after_ns(self, ns: u128) -> u64 {
        (ns * self.hz as u128).div_ceil(1_000_000_000) as u64
    }

    /// Whole nanoseconds of `cycles`, rounded to the nearest (halves up).
    pub fn nearest_ns(self, cycles: u64) -> u128 {
        (cycles as u128 * 1_000_000_000 + self.hz as u128 / 2) / self.hz as u128
    }

    /// The fewest cycles that are a whole number of nanoseconds (16 = 5 ns at 3.2 GHz; 165 =
    /// 512 ns at 322.265625 MHz).
    pub fn whole_ns_cycles(self) -> u64 {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        self.hz / gcd(self.hz, 1_000_000_000)
    }

    /// `cycles` of `from` as cycles of this clock, the same time rounded to the nearest
    /// (saturating at `u32::MAX`, a register's range).
    pub fn cycles_from(self, cycles: u32, from: NicClock) -> u32 {
        ((cycles as u128 * self.hz as u128 + from.hz as u128 / 2) / from.hz as u128).min(u32::MAX as u128) as u32
    }

    /// Nanoseconds of `cycles` cycles.
    pub fn ns_of_cycles(self, cycles: u64) -> f64 {
        self.ns_of_ticks(cycles, 1)
    }

    /// Nanoseconds of `ticks` ticks of `ticks_per_cycle` a cycle. At a whole number of megahertz
    /// (every preset's clock) it is computed as `ticks × 1000 / (ticks_per_cycle × MHz)`, so a
    /// time comes out the same to the last bit whichever way the clock was given.
    pub fn ns_of_ticks(self, ticks: u64, ticks_per_cycle: u64) -> f64 {
        if self.hz % 1_000_000 == 0 {
            ticks as f64 * 1000.0 / (ticks_per_cycle * (self.hz / 1_000_000)) as f64
        } else {
            ticks as f64 * 1e9 / (ticks_per_cycle as f64 * self.hz as f64)
        }
    }
}

impl Default for NicClock {
    fn default() -> Self {
        Self::THESIS
    }
}

impl std::fmt::Display for NicClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} MHz", self.mhz())
    }
}

impl TryFrom<f64> for NicClock {
    type Error = String;
    /// From megahertz, as parameter-set files write it (`clock_mhz = 322.265625`).
    fn try_from(mhz: f64) -> Result<Self, String> {
        Self::from_mhz(mhz)
    }
}

impl From<NicClock> for f64 {
    fn from(c: NicClock) -> f64 {
        c.mhz()
    }
}
