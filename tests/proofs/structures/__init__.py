"""Tests of dpaudit.proofs.structures."""
