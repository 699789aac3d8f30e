"""compat's reference plug-in devices (built from source on the user's machine)."""


class DeviceBuildError(Exception):
    """A plug-in cannot be built or loaded (one-line message for users)."""
