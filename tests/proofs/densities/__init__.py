"""Tests of dpaudit.proofs.densities."""
