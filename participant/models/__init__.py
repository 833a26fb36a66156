"""Bundled Daml-like packages. `iou` is the official JSON API example's model; `keyed` shows contract keys."""
