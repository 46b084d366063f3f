"""Tests of dpaudit.proofs.inequalities."""
