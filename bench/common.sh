# Shared by the bench scripts: the GPT-3 175B config and a median.
# GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288,
# 96 heads (d_head 128), vocab 50257 as in GPT-2.
write_gpt3_175b() {
  cat > "$1" <<'JSON'
{"model_type": "gpt2", "n_embd": 12288, "n_head": 96, "n_layer": 96,
 "vocab_size": 50257, "n_positions": 2048}
JSON
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
elapsed() { awk -v e="$2" -v s="$1" 'BEGIN {print e - s}'; }
