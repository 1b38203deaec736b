#!/bin/bash
# make-screenshots.sh: the classroom's screenshots, from the program driven by xdotool under Xvfb.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   xvfb-run -a -s '-screen 0 1600x1000x24' data/screenshots/classroom/make-screenshots.sh [BUILD] [OUT]
#
# Needs matchbox-window-manager, xdotool and ImageMagick's import. The window is placed at 0,0 and is
# 1400 x 960, which the click positions below assume.
set -eu
BUILD=${1:-build}
OUT=${2:-data/screenshots/classroom}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export GSETTINGS_SCHEMA_DIR=$BUILD/data GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 GTK_A11Y=none
export XDG_CONFIG_HOME=$TMP/c XDG_STATE_HOME=$TMP/s XDG_DATA_HOME=$TMP/d XDG_CACHE_HOME=$TMP/k
"$BUILD/app/cli/echoform-cli" simulate -c data/presets/classroom.ini -o "$TMP/classroom.cphd" >/dev/null

shoot () {  # shoot COLLECTION: opens it, then the classroom (F6); sets $ID
  "$BUILD/app/echoform" ${1:+"$1"} & APP=$!
  sleep 8
  xdotool key F6
  sleep 15
  ID=$(xdotool search --name "^Classroom$" | head -1)
}

matchbox-window-manager -use_titlebar no & WM=$!
sleep 1
shoot "$TMP/classroom.cphd"
import -window "$ID" "$OUT/points-full.png"
# A quarter of the band: the band slider's handles dragged to sub-band 2.
drag () { xdotool mousemove "$1" "$3" mousedown 1; sleep 0.3; xdotool mousemove "$2" "$3"; sleep 0.3; xdotool mouseup 1; sleep 2; }
drag 89 882 783
drag 1279 882 783
sleep 2
import -window "$ID" "$OUT/points-quarter-band.png"
drag 882 1279 783
drag 882 89 783
# One pulse, then early in the aperture: the timeline from its start, two blocks on.
xdotool mousemove 1336 709 click 1; sleep 1
xdotool key Home; sleep 3
import -window "$ID" "$OUT/points-one-pulse.png"
xdotool key Up; sleep 1; xdotool key Up; sleep 3
import -window "$ID" "$OUT/points-early.png"
xdotool key End; sleep 2
# The k-space view's explanation (a popover is a window of its own: the screen is taken).
xdotool mousemove 1355 272 click 1; sleep 1; xdotool mousemove 400 940; sleep 2
import -window root -crop 1600x980+0+0 "$OUT/help-kspace.png"
xdotool key Escape; sleep 1
# What if: 2 rad RMS of quadratic phase error typed into its field; the target at the centre blurs.
xdotool mousemove 560 849 click --repeat 3 1; sleep 0.5
xdotool key ctrl+a; xdotool type 2; xdotool key Return; sleep 12
import -window "$ID" "$OUT/whatif-quadratic.png"
# The presenter's large text and high-contrast image, from the header bar's popover.
xdotool mousemove 1250 27 click 1; sleep 1
xdotool mousemove 1157 110 click 1; sleep 1
xdotool mousemove 1286 110 click 1; sleep 1
xdotool key Escape; sleep 3
import -window "$ID" "$OUT/presenter.png"
kill $APP; sleep 1
# The program's demo collection (no file: the demo).
shoot
import -window "$ID" "$OUT/demo-full.png"
kill $APP; kill $WM
