"""Prints 'kept N keys' when every key of the original config is in the
exported one, else the missing keys (and exits 1)."""
import json
import sys

original = json.load(open(sys.argv[1]))
exported = json.load(open(sys.argv[2]))
missing = sorted(set(original) - set(exported))
if missing:
    print("missing keys:", ", ".join(missing))
    sys.exit(1)
print("kept %d keys" % len(original))
