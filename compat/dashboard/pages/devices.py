"""Each device against its reference device, and the kernel coverage of plug-ins."""

from __future__ import annotations

from collections import defaultdict

from compat.dashboard.context import Context
from compat.dashboard.html import LEGEND, e, table
from compat.dashboard.pages.common import matrix, run_line


def devices(dash: Context) -> None:
    data = dash.data
    rows = data.rows_of("device")
    parts = [
        "<h1>Devices</h1>",
        "<p class=lead>Each device against its reference device (the same framework on its CPU, or the "
        "reference plug-in device): the same colours as the main matrix, the reference device in place of "
        "NumPy.</p>",
        LEGEND,
        matrix(data, rows, view="device"),
        "<h2>Kernel coverage of plug-in devices</h2>",
        "<p>Per kernel, how many launches of a plug-in device ran on the device and how many fell back to "
        "the CPU (latest run per device); kernels that fell back come first. Only what the plug-in sees is "
        "counted: an op that TensorFlow's soft placement sends to the CPU never reaches the APU, so it is "
        "missing here and shows as a <code>device</code> divergence instead.</p>",
    ]
    latest = {}
    for run_id, backend_id, device, ops in data.coverage():
        key = (backend_id, device)
        order = data.order.get(run_id, -1)
        if key not in latest or latest[key][0] < order:
            latest[key] = (order, run_id, [])
        if latest[key][0] == order:
            latest[key][2].append(ops)
    if not latest:
        parts.append("<p class=muted>No coverage records in the store.</p>")
    for (backend_id, device), (_, run_id, op_maps) in sorted(
        latest.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")
    ):
        totals = defaultdict(lambda: [0, 0])
        for ops in op_maps:
            for op, n in ops.items():
                totals[op][0] += n.get("device", 0)
                totals[op][1] += n.get("fallback", 0)
        body = []
        for op, (on, back) in sorted(totals.items(), key=lambda kv: (-kv[1][1], kv[0])):
            share = on / (on + back) if on + back else 0
            cls = "clean" if back == 0 else "known" if on else "new"
            verdict = (
                "ran on the device"
                if back == 0
                else f"fell back to the CPU {back} time(s)"
                if on
                else "always fell back"
            )
            body.append(
                [
                    f"<code>{e(op)}</code>",
                    f"<td class=num>{on}</td>",
                    f"<td class=num>{back}</td>",
                    f"<td class=num>{share:.0%}</td>",
                    f"<td class={cls}>{verdict}</td>",
                ]
            )
        parts.append(
            f"<h3>{e(backend_id)} on {e(device or 'default device')}</h3>"
            f"<p class=muted>{run_line(data, run_id)}</p>"
        )
        parts.append(
            table(
                [
                    "kernel",
                    "launches on the device",
                    "fell back to the CPU",
                    "share on the device",
                    "verdict",
                ],
                body,
            )
        )
    dash.site.page("devices.html", "Devices", "\n".join(parts), here="devices.html")
