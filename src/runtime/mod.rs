//! The runtime support library called from JIT-compiled code (`extern "C"`).
