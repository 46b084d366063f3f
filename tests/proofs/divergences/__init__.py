"""Tests of dpaudit.proofs.divergences."""
