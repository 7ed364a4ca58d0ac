//! The IR: compaction, the verifier (one test per invariant), printed snapshots.
mod compact;
mod compact_gen;
mod compact_props;
mod compact_scale;
mod names;
mod parse;
mod snapshots;
mod verify;
