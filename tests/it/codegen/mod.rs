//! The Cranelift backend and the JIT.
mod fixed_data;
mod ice;
mod jit;
mod jit_hir;
mod jit_many;
