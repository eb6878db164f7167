"""Measure this host for the estimator (``nfvperf calibrate``): microbenchmarks in C, run by
``nfvp-calibrate`` (built with the data plane), turned into a platform profile in the same YAML
format as the packaged ones, with the measured spread beside each value."""

from nfvperf.calibrate.host import Host, describe_host
from nfvperf.calibrate.measure import measure
from nfvperf.calibrate.profile import profile_yaml

__all__ = ["Host", "describe_host", "measure", "profile_yaml"]
