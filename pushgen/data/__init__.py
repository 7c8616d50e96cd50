"""The data layer: generating users' rows, tables, dataset folders, their checks and statistics."""
