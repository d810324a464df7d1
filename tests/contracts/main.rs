//! Tool contracts: the lockfile, the severity of each change, the awareness a changed tool's
//! errors carry, and the example's committed lockfiles.

mod awareness_noise;
mod contract_awareness;
mod contract_checks;
mod contract_diff;
mod contract_lockfile;
mod contract_policy;
mod example_contracts;
