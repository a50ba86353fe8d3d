#!/usr/bin/env bash
# The survey runs for the README table (issue 15), one after the other: bash scripts/docs/survey_table.sh
set -u
mkdir -p results/surveys && cd results/surveys
run() { # NAME ARGS...
    name=$1; shift
    start=$(date +%s)
    sigmar survey "$@" --seed 1 --time-limit 60 --results "$name.jsonl" --json > "$name.summary.json" 2> "$name.err"
    echo "$name exit $? wall $(( $(date +%s) - start )) s" >> runs.log
}
run dense6 --deal dense --dim 6 --count 10000
run dense7 --deal dense --dim 7 --count 1000
run dense8 --deal dense --dim 8 --count 1000
run dense9 --deal dense --dim 9 --count 200
run uniform6 --deal uniform --dim 6 --count 1000
