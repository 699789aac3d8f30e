"""What runs the specs: the pytest plugin, the checker behind ``xp``, reproducers,
calls isolated in child processes, the example database, selftest and bench."""
