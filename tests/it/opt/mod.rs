//! The passes: the pipeline table, each pass's exact effect, snapshots, and differential checks.
mod checks;
mod cse;
mod differential;
mod dse;
mod e2e;
mod inline;
mod knownbits;
mod licm_checks;
mod memssa_clients;
mod pipeline;
mod promote;
mod promote_elems;
mod remarks;
mod rotate;
mod snapshots;
mod toy_run;
mod version;
