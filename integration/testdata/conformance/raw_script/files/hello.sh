#!/bin/sh
echo "$1 from $(pwd)" > out
echo done
