"""Choosing which key variables to release (Lin & Garin forward / backward / stepwise)."""

from hidekit.selection.stepwise import METHODS, SelectionResult, Step, select_variables

__all__ = ["METHODS", "SelectionResult", "Step", "select_variables"]
