"""The dashboard's charts, written as inline SVG by compat itself (no script, no network, no
chart library): scales and axes (``scales``, ``svg``), line charts and sparklines (``lines``),
bar charts (``bars``), a heat map (``heatmap``) and scatter panels (``scatter``). Every chart
has a title, axis labels with their units, and tells its series apart by shape, dash pattern or
word as well as by colour, so that it reads printed in grey."""
