"""Estimators: agreement, resampling, intervals, comparisons, subgroups, bias."""
