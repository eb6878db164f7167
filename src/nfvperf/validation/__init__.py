"""Predictions beside measurements: the estimator against the NFs on the data plane
(``dataplane``), a plan run on this host's data plane (``plan``). Each row gives the predicted
value, the measured one and the error, so a prediction is never shown without its error."""
