#!/bin/sh
echo "condition absent: fixture says no"
exit 1
