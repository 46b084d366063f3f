"""Tests of dpaudit.proofs.programs."""
