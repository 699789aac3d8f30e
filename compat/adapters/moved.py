"""Hooks that moved from the Adapter into its parts: an adapter of another package written before
(``def to_numpy(self, value)`` on its Adapter subclass) keeps working, with a DeprecationWarning
that says where each hook lives now. Its method is called with the adapter as ``self``; a
``super()`` call in it finds nothing on the Adapter, so it should move to a subclass of the part
(docs/adapters.md)."""

from __future__ import annotations

import warnings

# a hook of the Adapter before its parts -> (the part, the hook's name there)
HOOKS = {
    **{name: ("Values", name) for name in ("from_numpy", "to_numpy", "dtype", "dtype_name", "is_shape")},
    **{name: ("Values", name) for name in ("convert", "outcome", "fields_outcome", "classify")},
    **{
        name: ("Placement", name)
        for name in ("devices", "device_of", "placement_on", "probe", "plugin_devices")
    },
    **{
        name: ("Interchange", name) for name in ("exported", "made_for_export", "transposed", "export_dlpack")
    },
    "overwrite": ("Interchange", "overwrite"),
    "array_source": ("Spelling", "array"),
    "dtype_source": ("Spelling", "dtype"),
    "setup_lines": ("Spelling", "setup"),
    "mode_notes": ("Spelling", "mode_notes"),
    "op_source": ("Spelling", "operation"),
}
ATTRIBUTES = {"exports_dlpack": ("Interchange", "exports"), "writable_exports": ("Interchange", "writable")}


def into_parts(adapter_class: type) -> None:
    """Give ``adapter_class`` parts that call the moved hooks it defines itself."""
    own = vars(adapter_class)
    found = [name for name in (*HOOKS, *ATTRIBUTES) if name in own]
    if not found:
        return
    warnings.warn(
        f"{adapter_class.__qualname__} defines "
        + ", ".join(f"{name} (now {'.'.join({**HOOKS, **ATTRIBUTES}[name])})" for name in found)
        + ": hooks of the adapter's parts now (docs/adapters.md)",
        DeprecationWarning,
        stacklevel=3,
    )
    members: dict[str, dict] = {}
    for name in found:
        part, there = {**HOOKS, **ATTRIBUTES}[name]
        members.setdefault(part, {})[there] = own[name] if name in ATTRIBUTES else calling(own[name])
    for part, defined in members.items():
        base = vars(adapter_class).get(part) or next(
            vars(c)[part] for c in adapter_class.__mro__ if part in vars(c)
        )
        setattr(adapter_class, part, type(f"{adapter_class.__name__}{part}", (base,), defined))


def calling(hook):
    """A part's method that calls the adapter's own ``hook``."""

    def method(part, *args, **kwargs):
        return hook(part.adapter, *args, **kwargs)

    method.__name__ = hook.__name__
    return method
