"""The elementary-operation (EO) estimator of Baldi & Sapio (IJECE 2018)."""
