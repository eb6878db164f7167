"""The discrete-time model of batched packet processing of Geissler et al. (ACM TOMPECS 2021).

Modules: ``distributions`` (pmfs on the Δt grid), ``arrivals`` (rates, interarrival times and
X_{τ,a}, the number of arrivals in an interval), ``model`` (Eq. 1-9), ``fit`` (service times from
measurements, Sec. 5.1.1), ``metrics`` (relative error, Jensen-Shannon divergence).
"""
