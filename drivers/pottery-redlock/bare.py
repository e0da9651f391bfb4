#!/usr/bin/env python3
"""The driver's bare loop (docs/drivers.md, "The bare loop"): driver.py's
init and its bare_calls, one thread per client, no protocol; python-common's
bare() runs them. It takes the driver's arguments (its form)."""

import driver as D

if __name__ == "__main__":
    D.P.bare(D.NAME, D.init, D.bare_calls)
