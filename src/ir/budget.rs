//! Step budgets for iterations to a fixpoint.
//!
//! Every worklist or `while changed` iteration in the compiler whose
//! termination rests on a monotone lattice counts its steps against a
//! [`Budget`] sized from its input (a proven bound with slack). If a bug
//! breaks convergence (a value that "changes" on every visit, as a NaN
//! compared with `==` once did), the overrun is an internal compiler error
//! naming the iteration, never a hang.
//!
//! Invariant: a budget's limit is at least the iteration's proven worst
//! case on every valid input, so exceeding it is always a compiler bug.

/// The steps an iteration may still take.
#[derive(Debug)]
pub struct Budget {
    what: &'static str,
    limit: u64,
    left: u64,
}

impl Budget {
    /// A budget of `limit` steps for the iteration named `what`.
    pub fn new(what: &'static str, limit: u64) -> Budget {
        Budget {
            what,
            limit,
            left: limit,
        }
    }

    /// Counts one step.
    ///
    /// # Panics
    /// When the budget is spent: the iteration does not converge, which is
    /// a compiler bug. The driver reports the panic as an internal compiler
    /// error (exit code 70).
    #[track_caller]
    pub fn step(&mut self) {
        match self.left.checked_sub(1) {
            Some(left) => self.left = left,
            None => panic!(
                "{} did not converge within its budget of {} steps",
                self.what, self.limit
            ),
        }
    }

    /// Steps taken so far.
    pub fn used(&self) -> u64 {
        self.limit - self.left
    }
}

#[cfg(test)]
mod tests {
    use super::Budget;

    #[test]
    fn a_budget_allows_exactly_its_limit() {
        let mut b = Budget::new("test iteration", 3);
        for _ in 0..3 {
            b.step();
        }
        assert_eq!(b.used(), 3);
        let overrun = std::panic::catch_unwind(move || b.step()).unwrap_err();
        let msg = overrun
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            msg,
            "test iteration did not converge within its budget of 3 steps"
        );
    }
}
