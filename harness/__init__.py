"""What the tests and the benchmarks run the auditor against, free of test machinery (no pytest,
no fixtures, nothing of tests/): servers on 127.0.0.1 (`servers`), the fleet of containers in
virtual time (`fleet`), containers of the function as processes (`containers`, `share_worker`),
their environments (`environments`) and moto's server with atomic conditional writes
(`moto_atomic`). bench/ imports these and never tests/; tests/unit/test_layers.py holds that."""
