"""Fakes and helpers shipped with the package, for tests and dry runs.

Fakes, not mocks: real servers on loopback that speak the real protocols.
"""
