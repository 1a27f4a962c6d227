#!/bin/bash
# Re-run every earlier calibration target of docs/calibration.md with two fresh seeds and
# reduced replicates (MC SE stated by each script), one heavy-lock acquisition per run.
#   benchmarks/calibration/rerun_targets.sh OUT_DIR [SEED_A SEED_B]
# Writes OUT_DIR/<script>_<seed>.md and OUT_DIR/log.txt (return code, seconds, time).
set -u
out=${1:?output folder}; a=${2:-31}; b=${3:-32}
mkdir -p "$out"
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD/analysis MPLBACKEND=Agg
B=benchmarks/calibration
lock() { if [ -e /work/notes/heavy.lock ]; then flock /work/notes/heavy.lock nice -n 5 "$@"; else nice -n 5 "$@"; fi; }
run() { name=$1; shift
  for s in $a $b; do
    start=$(date +%s)
    lock timeout 300 python "$@" --seed "$s" > "$out/${name}_$s.md" 2>&1
    echo "$name seed $s rc=$? $(( $(date +%s) - start ))s $(date -u +%H:%M)" >> "$out/log.txt"
  done; }
run accuracy_ci $B/accuracy_ci.py --reps 4000 --boot 200
run few_clusters $B/few_clusters.py --reps 400 --acc-reps 4000
run stand_in $B/stand_in.py --reps 300
run swap_position $B/swap_position.py --reps 300
run paired_scores $B/paired_scores.py --reps 600
run icc_clusters $B/icc_clusters.py --reps 200 --boot 299
run agreement_clusters $B/agreement_clusters.py --reps 200 --boot 299
run heterogeneity_statistics $B/heterogeneity_statistics.py --reps 600
run heterogeneity_high_accuracy $B/heterogeneity_high_accuracy.py --reps 300 --power-reps 60
run expert_ceiling $B/expert_ceiling.py --reps 80
run ppi_rare $B/ppi_rare.py --reps 1500
run ppi_candidates $B/ppi_candidates.py --reps 1000
run bias_suite $B/bias_suite.py --reps 300 --n-clusters 80
run agreement_ci $B/agreement_ci.py --reps 150 --boot 200
run paired_differences $B/paired_differences.py --reps 100 --boot 150
run judge_vs_gold $B/judge_vs_gold.py --reps 100 --resamples 200
run selection $B/selection.py --reps 40 --boot 150
run ppi_sim $B/ppi.py --part sim --reps 100 --n 50,200
run ppi_pandalm $B/ppi.py --part pandalm --reps 100 --n 50
run subgroup_ci $B/subgroup_ci.py --reps 100 --api-every 10
echo done >> "$out/log.txt"
