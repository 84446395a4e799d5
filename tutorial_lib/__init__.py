"""Plumbing for the "Data into TensorFlow" course."""
