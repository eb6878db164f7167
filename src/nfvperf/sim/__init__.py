"""Discrete-event simulators (numba) that check the models and go where they cannot."""
