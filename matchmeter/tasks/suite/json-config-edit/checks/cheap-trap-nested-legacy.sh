# why: ignores "everywhere" (legacy_mode removed at the top and one level down only), does the rest well
python3 - <<'PY'
import json
cfg = json.load(open("config/app.json"))
cfg["features"]["beta_search"] = True
cfg["database"]["pool_size"] *= 2
cfg.pop("legacy_mode", None)
for v in cfg.values():
    if isinstance(v, dict):
        v.pop("legacy_mode", None)
json.dump(cfg, open("config/app.json", "w"), indent=2)
PY
