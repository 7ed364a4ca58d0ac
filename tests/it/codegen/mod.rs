//! The Cranelift backend and the JIT.
mod jit;
mod jit_hir;
mod jit_many;
