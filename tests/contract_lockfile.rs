//! The lockfile: canonical bytes, digests, errors on bad input, atomic writes, the test helper.

mod contract_fixtures;

use contract_fixtures::{v1_contracts, v2_contracts};

#[test]
fn lockfile_sample() {
    insta::assert_snapshot!(v1_contracts().to_lockfile());
}
