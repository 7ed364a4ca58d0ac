//! MemorySSA: clobbers, the walker, φ placement, printed form.
mod bril;
mod clobbers;
