#!/usr/bin/env bash
# The tree's layering (scripts/layering.py): collector includes neither
# store/ nor tui/, store includes no tui/, curses only in tui/term/, private
# headers only inside their sub-module, and no dependency circle between
# the product's files (from the built objects' symbols).
. "$(dirname "$0")/lib.sh"
command -v nm >/dev/null || { skip layering "nm not installed"; exit 0; }
python3 "$C2C_TOP/scripts/layering.py" --build "$C2C_BUILD" --check
exit 0
