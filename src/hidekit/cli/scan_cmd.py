"""(placeholder: commands are added by the issue that owns this module)."""


def register(app) -> None:
    """Attach this module's commands to ``app``."""
