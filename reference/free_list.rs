//! Reference model of the ID free list (hdl/common/free_list.rs), cycle by cycle.

/// What the free list shows before a clock edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeListView {
    /// The ID offered for allocation, if any.
    pub offered: Option<u32>,
    pub empty: bool,
    pub full: bool,
    pub double_frees: u32,
}

/// The set of IDs in use, with the same rules as the hardware: the smallest free ID is offered,
/// a free is judged against the state at the start of the cycle, a double free is counted
/// (saturating at 16 bits) and ignored.
#[derive(Clone, Debug)]
pub struct FreeListModel {
    in_use: Vec<bool>,
    double_frees: u32,
}

impl FreeListModel {
    pub fn new(ids: usize) -> Self {
        FreeListModel { in_use: vec![false; ids], double_frees: 0 }
    }

    /// State visible in the current cycle.
    pub fn view(&self) -> FreeListView {
        FreeListView {
            offered: self.in_use.iter().position(|u| !u).map(|i| i as u32),
            empty: self.in_use.iter().all(|u| *u),
            full: self.in_use.iter().all(|u| !u),
            double_frees: self.double_frees,
        }
    }

    /// One clock edge with the given requests; returns the ID allocated, if any.
    pub fn clock(&mut self, take: bool, free: Option<u32>, reset: bool) -> Option<u32> {
        let offered = self.view().offered;
        let free_ok = free.map(|id| self.in_use[id as usize]);
        let allocated = if take { offered } else { None };
        if let Some(id) = allocated {
            self.in_use[id as usize] = true;
        }
        match (free, free_ok) {
            (Some(id), Some(true)) => self.in_use[id as usize] = false,
            (Some(_), _) => self.double_frees = (self.double_frees + 1).min(0xffff),
            _ => {}
        }
        if reset {
            self.in_use.iter_mut().for_each(|u| *u = false);
            self.double_frees = 0;
        }
        allocated
    }

    /// IDs currently allocated.
    pub fn allocated(&self) -> usize {
        self.in_use.iter().filter(|u| **u).count()
    }
}
