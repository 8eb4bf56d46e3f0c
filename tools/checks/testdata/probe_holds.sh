#!/bin/sh
echo "condition holds: fixture says yes"
exit 0
