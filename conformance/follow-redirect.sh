#!/bin/sh
# A stand-in for a browser ($BROWSER): requests the authorization URL and follows its redirects,
# which end at tooldeck's loopback listener with the code.
exec curl --silent --show-error --location --max-redirs 10 --max-time 20 --output /dev/null "$1"
