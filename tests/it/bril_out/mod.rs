//! Bril output (`toyc ir --bril`, src/bril_out/): exact Bril for small IR
//! programs, the command line, and the round trip Toy → Bril → `toyc run`
//! over the lang-tests.
mod cli;
mod emit;
mod roundtrip;
