"""The slow tier (a package, so that its conftest is ``slow.conftest`` and a test's
``from conftest import ...`` still finds the root one)."""
