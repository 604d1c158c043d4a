#!/bin/sh
# How much of the web client is still written by hand around the API (README "One result contract"): the open
# `unknown` maps left in the generated types, the runtime guards and readers, and the hand-written TypeScript lines
# (tests, the test kit, fixtures and generated types excluded). Run from frontend/: sh scripts/contract-measures.sh
cd "$(dirname "$0")/.." || exit 1
files=$(find src -name "*.ts" -o -name "*.tsx" | grep -vE "\.test\.|/testing/|fixture|\.d\.ts$")
echo "unknown maps: $(grep -c '\[key: string\]: unknown' src/api/schema.d.ts)"
# shellcheck disable=SC2086
echo "guards: $(grep -noE 'function (read[A-Z][A-Za-z]*|isRecord|num|str)\b' $files | wc -l)"
# shellcheck disable=SC2086
echo "TS lines: $(cat $files | wc -l)"
