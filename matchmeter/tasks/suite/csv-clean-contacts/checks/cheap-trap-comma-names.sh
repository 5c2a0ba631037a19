# why: ignores CSV quoting of the other fields (rows joined with ","), does the rest well
python3 - <<'PY'
import csv
with open("data/contacts.csv", newline="") as f:
    rows = list(csv.DictReader(f))
seen, out = {}, []
for r in rows:
    email = r["email"].strip().lower()
    key = email
    d, m, y = r["signup_date"].strip().split("/")
    row = {**r, "email": email, "signup_date": f"{y}-{int(m):02d}-{int(d):02d}"}
    if key in seen:
        pass
        continue
    seen[key] = len(out)
    out.append(row)
with open("data/contacts_clean.csv", "w", newline="") as f:
    f.write("name,email,phone,signup_date\n" + "".join(",".join(r.values()) + "\n" for r in out))
PY
